import Engine
import Foundation
import Guidance
import HTTPService
import MapMatching
import Navigation
import RoadGraph
import Routing

/// `wayfinder navigate --bench`: random routes driven as GPS tracks, on the route and off it, to measure what the
/// progress tracker decides and what it costs (issue 30's targets).
enum NavigateBench {
    static let help = """
    Usage: wayfinder navigate --bench --graph <dir> [--mode driving|walking|cycling] [--pairs N] [--seed S] [--noise M]
                                      [--json]

    For N random pairs (points drawn in the graph's bounds), routes with voice and banner instructions, then:
    - drives the route as a GPS track (a fix a second at the roads' speeds, M metres of noise east and north,
      default 10, with the true bearing and speed) through the progress tracker: fixes flagged off the route
      (false alarms), and the time per fix;
    - leaves the route at a random junction where it turns, going straight on along the road there for 150 m:
      fixes from the first one 30 m off the route until it is flagged, whether the new route starts on the road
      driven (its start within 15 m of it) and the way it is going (its first bearing within 45°), and the new
      route's time against a route request a client would send itself (the same points, the same bearing), each
      the fastest of three, alternating.
    Then it hands whole progress requests (`/navigation/v1/progress/{uuid}`) along 20 routes to the server's
    handler in this process and times them. Prints the counts and medians; --json prints them as one JSON object.
    """

    struct Figures: Codable {
        var routes = 0, fixes = 0, falseAlarms = 0, routesWithFalseAlarms = 0
        var progressMicroseconds: [Double] = []
        var leaves = 0, flaggedWithin3 = 0, flagDelays: [Int] = [], notFlagged = 0
        var rerouteOnRoadDriven = 0, rerouteInDirection = 0
        var rerouteMilliseconds: [Double] = [], routeMilliseconds: [Double] = []
        /// A whole `/navigation/v1/progress/{uuid}` request handed to the server's handler in this process.
        var requestMicroseconds: [Double] = []
    }

    static func run(_ args: Arguments) throws -> ExitCode {
        let mode = try args.mode()
        let pairs = try args.integer("--pairs", default: 100, range: 1...100_000)
        let seed = try args.integer("--seed", default: 1, range: 0...Int.max)
        let noise = try args["--noise"].map { text -> Double in
            guard let m = Double(text), m >= 0, m <= 100 else { throw CommandError.usage("--noise is metres from 0 to 100") }
            return m
        } ?? 10
        let engine = try openEngine(args, modes: [mode])
        let graph = try modeGraph(engine, mode, args)
        let bounds = graph.metadata.bounds
        guard !bounds.isEmpty else { throw CommandError.badInput("the \(mode.rawValue) graph is empty") }
        var random = SplitMix64(seed: UInt64(seed))
        func unit() -> Double { Double(random.next() % 1_000_000) / 1_000_000 }
        func point() -> Coordinate {
            Coordinate(latitude: bounds.minLatitude + unit() * (bounds.maxLatitude - bounds.minLatitude),
                       longitude: bounds.minLongitude + unit() * (bounds.maxLongitude - bounds.minLongitude))
        }
        var directions = DirectionsOptions()
        directions.voiceInstructions = true
        directions.bannerInstructions = true
        var figures = Figures()

        for index in 0..<pairs {
            var query = RouteQuery(mode: mode, points: [point(), point()])
            query.snapRadius = 5000
            query.directions = directions
            guard let answer = try? engine.route(query), answer.best.route.distance > 300 else { continue }
            figures.routes += 1
            let route = NavigationRoute(answer.best)
            let tracker = ProgressTracker(route: route)

            // On the route: the same fix times drawn with and without noise (one seed), the truth giving bearing
            // and speed as a GPS chip measures them.
            let traceSeed = UInt64(seed) &* 1_000_003 &+ UInt64(index)
            let noisy = TraceSimulation.trace(along: answer.best.route, interval: 1...1, noise: noise, dropRate: 0, seed: traceSeed)
            let truth = TraceSimulation.trace(along: answer.best.route, interval: 1...1, noise: 0, dropRate: 0, seed: traceSeed)
            var state = NavigationState(), alarms = 0
            for i in noisy.indices {
                let fix = Self.fix(noisy[i], truth: truth, at: i, accuracy: noise)
                let started = DispatchTime.now().uptimeNanoseconds
                let progress = tracker.progress(at: fix, state: state)
                figures.progressMicroseconds.append(Double(DispatchTime.now().uptimeNanoseconds - started) / 1000)
                state = progress.state
                if progress.offRoute { alarms += 1 }
            }
            figures.fixes += noisy.count
            figures.falseAlarms += alarms
            if alarms > 0 { figures.routesWithFalseAlarms += 1 }

            // Off the route: straight on where it turns.
            let steps = answer.best.directions.legs[0]
            let turns = steps.indices.dropFirst(2).dropLast(2).filter {
                let m = steps[$0].maneuver
                return [.turn, .endOfRoad, .fork, .onRamp, .offRamp].contains(m.type) && m.modifier != .straight && m.modifier != nil
            }
            guard !turns.isEmpty else { continue }
            let k = turns[Int(random.next() % UInt64(turns.count))]
            let junction = steps[k].maneuver.location, approach = Double(steps[k].maneuver.bearingBefore)
            let far = Self.destination(from: junction, bearing: approach, metres: 400)
            var detourQuery = RouteQuery(mode: mode, points: [junction, far])
            detourQuery.filters = [WaypointFilter(bearing: (approach, 30)), WaypointFilter()]
            detourQuery.directions = DirectionsOptions(steps: false)
            guard let detour = try? engine.route(detourQuery).best.route, detour.distance > 150,
                  let detourLine = Optional(detour.coordinates), Self.distance(from: Self.along(detourLine, 60), to: route.points) > 30
            else { continue }
            figures.leaves += 1
            // The drive: the route until 40 s before the junction, then the junction, then 150 m of the detour.
            let junctionOffset = route.steps.first { $0.leg == 0 && $0.index == k }!.start
            let junctionTime = route.time(at: junctionOffset)
            let detourSpeed = detour.distance / max(1, detour.duration)
            var fixes: [(truth: Coordinate, time: Double)] = []
            var t = max(0, junctionTime - 40)
            while t < junctionTime + 150 / detourSpeed {
                let position = t <= junctionTime
                    ? Self.position(on: route, at: t)
                    : Self.along(detourLine, (t - junctionTime) * detourSpeed)
                fixes.append((position, t))
                t += 1
            }
            // The detour's noise from a generator of its own, so that when the tracker flags it does not change
            // the pairs drawn after it: two builds are compared on the same routes.
            var noiseRandom = SplitMix64(seed: traceSeed ^ 0x9E37_79B9)
            func gaussian() -> Double {
                let u = Double(noiseRandom.next() % 1_000_000) / 1_000_000, v = Double(noiseRandom.next() % 1_000_000) / 1_000_000
                return (-2 * log(max(u, 1e-9))).squareRoot() * cos(2 * Double.pi * v)
            }
            var leaveState = NavigationState()
            var left: Int?, flagged: Int?
            for (i, f) in fixes.enumerated() {
                let bearing = i > 0 ? Geo.bearing(from: fixes[i - 1].truth, to: f.truth) : approach
                let speed = i > 0 ? Geo.distance(fixes[i - 1].truth, f.truth) : detourSpeed
                let location = Self.offset(f.truth, east: gaussian() * noise, north: gaussian() * noise)
                let fix = Fix(location: location, bearing: bearing, speed: speed, accuracy: noise, time: f.time)
                let progress = tracker.progress(at: fix, state: leaveState)
                leaveState = progress.state
                if left == nil && f.time > junctionTime && Self.distance(from: f.truth, to: route.points) >= 30 { left = i }
                if progress.offRoute && f.time > junctionTime {
                    flagged = i
                    // What the client would ask itself: a route from the fix, the way it goes, to the destination
                    // as it asked for it (not the route's snapped waypoint, which loses the side it lies on).
                    var plain = RouteQuery(mode: mode, points: [fix.location] + query.points.dropFirst())
                    plain.directions = directions
                    plain.filters = [WaypointFilter(bearing: (bearing, 45)), WaypointFilter()]
                    func timed<T>(_ body: () -> T) -> (T, Double) {
                        let started = DispatchTime.now().uptimeNanoseconds
                        let result = body()
                        return (result, Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6)
                    }
                    // Each four times, the fastest kept, each first in every other pair: the first of a pair warms
                    // caches for the second.
                    var again: RouteAnswer?, rerouteTime = Double.infinity, routeTime = Double.infinity
                    for round in 0..<4 {
                        if round % 2 == 1 { routeTime = min(routeTime, timed { try? engine.route(plain) }.1) }
                        let (answer, r) = timed { try? engine.reroute(tracker, from: fix, progress: progress, like: query) }
                        again = answer
                        rerouteTime = min(rerouteTime, r)
                        if round % 2 == 0 { routeTime = min(routeTime, timed { try? engine.route(plain) }.1) }
                    }
                    figures.routeMilliseconds.append(routeTime)
                    figures.rerouteMilliseconds.append(rerouteTime)
                    if let again {
                        let start = again.best.route.coordinates.first ?? fix.location
                        if Self.distance(from: start, to: detourLine) <= 15 { figures.rerouteOnRoadDriven += 1 }
                        let first = again.best.directions.legs.first?.first.map { Double($0.maneuver.bearingAfter) } ?? -1000
                        if Geo.deviation(first, bearing) <= 45 { figures.rerouteInDirection += 1 }
                    }
                    break
                }
            }
            if let flagged, let left {
                figures.flagDelays.append(flagged - left)
                if flagged - left <= 3 { figures.flaggedWithin3 += 1 }
            } else if flagged == nil {
                figures.notFlagged += 1
            } else {
                figures.flaggedWithin3 += 1
                figures.flagDelays.append(0)
            }
        }
        // Whole progress requests, as the server handles them (parsing, the stored route, the answer's JSON), along
        // the first 20 routes asked for through it.
        let service = WayfinderService(engine: engine)
        var random2 = SplitMix64(seed: UInt64(seed) &+ 17)
        func unit2() -> Double { Double(random2.next() % 1_000_000) / 1_000_000 }
        var asked = 0
        while asked < 20 && asked < pairs * 2 {
            asked += 1
            let a = Coordinate(latitude: bounds.minLatitude + unit2() * (bounds.maxLatitude - bounds.minLatitude),
                               longitude: bounds.minLongitude + unit2() * (bounds.maxLongitude - bounds.minLongitude))
            let b = Coordinate(latitude: bounds.minLatitude + unit2() * (bounds.maxLatitude - bounds.minLatitude),
                               longitude: bounds.minLongitude + unit2() * (bounds.maxLongitude - bounds.minLongitude))
            let answer = service.handle(HTTPRequest(path: "/route/v1/\(mode.rawValue)/\(a.longitude),\(a.latitude);\(b.longitude),\(b.latitude)",
                                                    query: [("steps", "true"), ("voice_instructions", "true"), ("banner_instructions", "true"),
                                                            ("overview", "full"), ("geometries", "geojson")]))
            guard answer.status == 200, let object = try? JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any],
                  let id = object["uuid"] as? String,
                  let line = ((object["routes"] as? [[String: Any]])?.first?["geometry"] as? [String: Any])?["coordinates"] as? [[Double]]
            else { continue }
            var state = ""
            for (i, p) in line.enumerated() where i % 2 == 0 && p.count == 2 {
                let request = HTTPRequest(path: "/navigation/v1/progress/\(id)",
                                          query: [("location", "\(p[0]),\(p[1])"), ("time", "\(i)"), ("speed", "10"), ("state", state)])
                let started = DispatchTime.now().uptimeNanoseconds
                let response = service.handle(request)
                figures.requestMicroseconds.append(Double(DispatchTime.now().uptimeNanoseconds - started) / 1000)
                guard response.status == 200 else { break }
                if let range = String(decoding: response.body, as: UTF8.self).range(of: #""state":"[^"]*""#, options: .regularExpression) {
                    state = String(String(decoding: response.body, as: UTF8.self)[range].dropFirst(9).dropLast())
                }
            }
        }
        print(report(figures, mode: mode, noise: noise, json: args.has("--json")))
        return .ok
    }

    static func fix(_ point: TracePoint, truth: [TracePoint], at i: Int, accuracy: Double) -> Fix {
        var fix = Fix(location: point.coordinate, accuracy: accuracy, time: point.time)
        if i > 0, i < truth.count {
            let a = truth[i - 1].coordinate, b = truth[i].coordinate
            let moved = Geo.distance(a, b), elapsed = (truth[i].time ?? 0) - (truth[i - 1].time ?? 0)
            if moved > 0.5 { fix.bearing = Geo.bearing(from: a, to: b) }
            fix.speed = elapsed > 0 ? moved / elapsed : 0
        }
        return fix
    }

    static func report(_ f: Figures, mode: TravelMode, noise: Double, json: Bool) -> String {
        func median(_ xs: [Double]) -> Double { xs.isEmpty ? 0 : xs.sorted()[xs.count / 2] }
        func percentile(_ xs: [Double], _ p: Double) -> Double { xs.isEmpty ? 0 : xs.sorted()[min(xs.count - 1, Int(Double(xs.count) * p))] }
        if json {
            let object: [String: Any] = [
                "mode": mode.rawValue, "noise": noise, "routes": f.routes, "fixes": f.fixes, "false_alarms": f.falseAlarms,
                "routes_with_false_alarms": f.routesWithFalseAlarms,
                "progress_us_p50": median(f.progressMicroseconds), "progress_us_p90": percentile(f.progressMicroseconds, 0.9),
                "request_us_p50": median(f.requestMicroseconds), "request_us_p90": percentile(f.requestMicroseconds, 0.9),
                "leaves": f.leaves, "flagged_within_3": f.flaggedWithin3, "not_flagged": f.notFlagged,
                "flag_delay_max": f.flagDelays.max() ?? -1,
                "reroute_on_road_driven": f.rerouteOnRoadDriven, "reroute_in_direction": f.rerouteInDirection,
                "reroute_ms_p50": median(f.rerouteMilliseconds), "route_ms_p50": median(f.routeMilliseconds),
            ]
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
            return String(decoding: data, as: UTF8.self)
        }
        let delays = Dictionary(grouping: f.flagDelays, by: { $0 }).mapValues(\.count).sorted { $0.key < $1.key }
            .map { "\($0.key): \($0.value)" }.joined(separator: ", ")
        return """
        \(mode.rawValue), \(Int(noise)) m noise: \(f.routes) routes, \(f.fixes) fixes on the route
          false alarms: \(f.falseAlarms) fixes on \(f.routesWithFalseAlarms) routes
          progress per fix: median \(String(format: "%.1f", median(f.progressMicroseconds))) µs, p90 \(String(format: "%.1f", percentile(f.progressMicroseconds, 0.9))) µs; a whole progress request in process: median \(String(format: "%.1f", median(f.requestMicroseconds))) µs, p90 \(String(format: "%.1f", percentile(f.requestMicroseconds, 0.9))) µs (\(f.requestMicroseconds.count))
          left the route at a junction: \(f.leaves); flagged within 3 fixes of being 30 m off: \(f.flaggedWithin3); never: \(f.notFlagged); fixes to flag: \(delays)
          new route on the road driven: \(f.rerouteOnRoadDriven), the way it was going: \(f.rerouteInDirection)
          new route: median \(String(format: "%.2f", median(f.rerouteMilliseconds))) ms; a route request for it: \(String(format: "%.2f", median(f.routeMilliseconds))) ms
        """
    }

    // MARK: Geometry

    static func destination(from c: Coordinate, bearing: Double, metres: Double) -> Coordinate {
        let r = bearing * Double.pi / 180, perDegree = Geo.earthRadius * Double.pi / 180
        return Coordinate(latitude: c.latitude + metres * cos(r) / perDegree,
                          longitude: c.longitude + metres * sin(r) / (perDegree * cos(c.latitude * Double.pi / 180)))
    }

    static func offset(_ c: Coordinate, east: Double, north: Double) -> Coordinate {
        let perDegree = Geo.earthRadius * Double.pi / 180
        return Coordinate(latitude: c.latitude + north / perDegree,
                          longitude: c.longitude + east / (perDegree * cos(c.latitude * Double.pi / 180)))
    }

    /// The point `metres` along a line (its end past it).
    static func along(_ line: [Coordinate], _ metres: Double) -> Coordinate {
        var left = metres
        for (a, b) in zip(line, line.dropFirst()) {
            let d = Geo.distance(a, b)
            if d >= left && d > 0 {
                let f = left / d
                return Coordinate(latitude: a.latitude + (b.latitude - a.latitude) * f, longitude: a.longitude + (b.longitude - a.longitude) * f)
            }
            left -= d
        }
        return line.last!
    }

    static func position(on route: NavigationRoute, at time: Double) -> Coordinate {
        let times = route.times, points = route.points
        guard let k = times.firstIndex(where: { $0 >= time }), k > 0 else { return time <= 0 ? points[0] : points.last! }
        let span = times[k] - times[k - 1], f = span > 0 ? (time - times[k - 1]) / span : 0
        return Coordinate(latitude: points[k - 1].latitude + (points[k].latitude - points[k - 1].latitude) * f,
                          longitude: points[k - 1].longitude + (points[k].longitude - points[k - 1].longitude) * f)
    }

    static func distance(from p: Coordinate, to line: [Coordinate]) -> Double {
        guard line.count >= 2 else { return line.first.map { Geo.distance(p, $0) } ?? .infinity }
        return zip(line, line.dropFirst()).map { Geo.distance(p, Geo.project(p, ontoSegmentFrom: $0, to: $1).position) }.min()!
    }
}
