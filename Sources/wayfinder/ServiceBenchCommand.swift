import Engine
import Foundation
import Guidance
import MapMatching
import RoadGraph
import Routing
import Trips

/// `wayfinder servicebench`: isochrones, trips and map matching measured as users send them.
enum ServiceBenchCommand {
    static let help = """
    Usage: wayfinder servicebench --graph <dir> [--seed S] [--origins N] [--trips 10,100,1000] [--traces N]
                                  [--noise 5,10,15,20] [--only isochrone|trip|match]

    Isochrones: 15-minute contours (and 5, 10, 15 together) from N random points on the core network, driving and
    walking: median and p95 time. Trips: random core points, driving, for each size: time (table, order, route)
    and the tour's cost against a nearest-neighbour tour and against the assignment lower bound. Matching: N
    random driving routes, traced every 5–15 s with Gaussian noise of each level (fixes' accuracy given as the
    noise) and 10 % of fixes dropped: how much of each route the match found (mean, worst, share of routes at
    95 % or more) and fixes matched per second.
    """

    static func run(_ raw: [String]) throws -> ExitCode {
        let args = try Arguments(raw, flags: ["--help"],
                                 options: ["--graph", "--seed", "--origins", "--trips", "--traces", "--noise", "--only"])
        if args.has("--help") { print(help); return .ok }
        let seed = UInt64(try args.integer("--seed", default: 1, range: 0...Int.max))
        let origins = try args.integer("--origins", default: 20, range: 1...10_000)
        let traces = try args.integer("--traces", default: 50, range: 1...10_000)
        let tripSizes = try (args["--trips"] ?? "10,100,1000").split(separator: ",").map { s -> Int in
            guard let n = Int(s), n >= 2 else { throw CommandError.usage("--trips takes sizes of 2 or more") }
            return n
        }
        let noises = try (args["--noise"] ?? "5,10,15,20").split(separator: ",").map { s -> Double in
            guard let n = Double(s), n >= 0 else { throw CommandError.usage("--noise takes metres") }
            return n
        }
        let only = args["--only"]
        var limits = EngineLimits.commandLine
        limits.maxTripPoints = 100_000
        let engine = try openEngine(args, limits: limits)
        var random = SplitMix64(seed: seed)
        func corePoints(_ graph: RoadGraph, _ count: Int) -> [Coordinate] {
            let core = (0..<UInt32(graph.arcCount)).filter { graph.arcInCore[Int($0)] == 1 && graph.arcBase[Int($0)] == $0 }
            return (0..<count).map { _ in
                graph.arcPoints(core[Int(random.next() % UInt64(core.count))], from: 0, to: Double(random.next() % 100) / 100).last!
            }
        }
        func clock<T>(_ body: () throws -> T) rethrows -> (T, Double) {
            let start = DispatchTime.now().uptimeNanoseconds
            let value = try body()
            return (value, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }
        func percentile(_ values: [Double], _ p: Double) -> Double {
            let sorted = values.sorted()
            return sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p + 0.5))]
        }
        let set = engine.current

        if only == nil || only == "isochrone" {
            for mode in TravelMode.allCases {
                guard let graph = set.graphs[mode] else { continue }
                let points = corePoints(graph, origins)
                for contours in [[15.0], [5.0, 10, 15]] {
                    var times: [Double] = [], areas: [Double] = [], samples: [Int] = []
                    for p in points {
                        var query = IsochroneQuery(mode: mode, point: p, metric: .duration, limits: contours.map { $0 * 60 })
                        query.snapRadius = 5000
                        guard let (result, ms) = try? clock({ try engine.isochrone(query) }) else { continue }
                        times.append(ms)
                        samples.append(result.isochrone.points)
                        areas.append(result.isochrone.contours.last.map { $0.polygons.reduce(0.0) { $0 + Geo.polygonArea($1) } } ?? 0)
                    }
                    print(String(format: "isochrone %@ %@ min: %d origins, p50 %.1f ms, p95 %.1f ms; median %.1f km² at 15 min, %d points triangulated",
                                 mode.rawValue, contours.map { String(Int($0)) }.joined(separator: ","), times.count,
                                 percentile(times, 0.5), percentile(times, 0.95), percentile(areas, 0.5) / 1e6,
                                 Int(percentile(samples.map(Double.init), 0.5))))
                }
            }
        }

        if only == nil || only == "trip", let driving = set.graphs[.driving] {
            for n in tripSizes {
                let points = corePoints(driving, n)
                var query = TripQuery(mode: .driving, points: points)
                query.threads = ProcessInfo.processInfo.activeProcessorCount
                query.directions = DirectionsOptions(steps: false)
                let (answer, ms) = try clock { try engine.trip(query) }
                var tableQuery = TableQuery(mode: .driving, points: points)
                tableQuery.threads = query.threads
                let (cells, tableMs) = try clock { try engine.table(tableQuery).rows(0..<n) }
                func cost(_ i: Int, _ j: Int) -> Int64? { cells[i][j].map { Int64($0.weight) } }
                let problem = TripSolver.Problem(count: n, roundtrip: true, fixedStart: false, fixedEnd: false, cost: cost)
                let (solved, solveMs) = clock { TripSolver.solve(problem) }
                let nearest = TripSolver.nearestNeighbour(problem)
                let (bound, boundMs) = clock { TripSolver.assignmentLowerBound(n, cost: cost) }
                let tour = answer.trips.reduce(Int64(0)) { $0 + $1.cost }
                let gap = bound.map { 100 * Double(tour - $0) / Double($0) } ?? .nan
                let versus = nearest.map { 100 * Double(tour - $0) / Double($0) } ?? .nan
                print(String(format: "trip %d points: %.0f ms in all (table %.0f ms, order %.0f ms, routes the rest), %d trip(s); tour %.1f min, %.1f %% shorter than nearest neighbour's, %.1f %% above the assignment lower bound (%.0f ms)",
                             n, ms, tableMs, solveMs, answer.trips.count, Double(tour) / 60_000, -versus, gap, boundMs))
                _ = solved
            }
        }

        if only == nil || only == "match", let driving = set.graphs[.driving] {
            var routes: [Route] = []
            while routes.count < traces {
                let p = corePoints(driving, 2)
                guard Geo.distance(p[0], p[1]) > 2000 && Geo.distance(p[0], p[1]) < 15000 else { continue }
                var query = RouteQuery(mode: .driving, points: p)
                query.directions = DirectionsOptions(steps: false)
                if let answer = try? engine.route(query) { routes.append(answer.best.route) }
            }
            for noise in noises {
                var overlaps: [Double] = [], fixes = 0, matchedMs = 0.0, confidences: [Double] = []
                for (k, route) in routes.enumerated() {
                    let trace = TraceSimulation.trace(along: route, interval: 5...15, noise: noise, dropRate: 0.1,
                                                      seed: seed &+ UInt64(k) &* 7919 &+ UInt64(noise * 1000))
                    var query = MatchQuery(mode: .driving, points: trace.map(\.coordinate))
                    query.timestamps = trace.map { $0.time! }
                    query.accuracies = trace.map { _ in max(noise, 1) }
                    query.directions = DirectionsOptions(steps: false)
                    guard let (answer, ms) = try? clock({ try engine.match(query) }) else { overlaps.append(0); continue }
                    matchedMs += ms
                    fixes += trace.count
                    overlaps.append(TraceSimulation.overlap(of: route, with: answer.matchings.map(\.guided.route), in: driving))
                    confidences.append(answer.matchings.map(\.confidence).max() ?? 0)
                }
                let mean = overlaps.reduce(0, +) / Double(overlaps.count)
                let good = overlaps.filter { $0 >= 0.95 }.count
                print(String(format: "match noise %.0f m: %d routes (median %.1f km), overlap mean %.1f %%, worst %.1f %%, %d/%d at 95 %% or more; %.0f fixes/s; median confidence %.2f",
                             noise, routes.count, percentile(routes.map(\.distance), 0.5) / 1000, 100 * mean,
                             100 * (overlaps.min() ?? 0), good, overlaps.count, Double(fixes) / (matchedMs / 1000),
                             percentile(confidences, 0.5)))
            }
        }
        return .ok
    }
}
