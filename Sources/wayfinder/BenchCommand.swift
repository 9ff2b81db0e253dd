import Engine
import Foundation
import RoadGraph
import Routing

/// `wayfinder bench`: route latency on random pairs for each algorithm in one run, and table timings.
enum BenchCommand {
    static let help = """
    Usage: wayfinder bench --graph <dir> [--mode driving|walking|cycling] [--queries N] [--seed S]
                           [--baseline-queries M] [--matrix 100,1000] [--matrix-baseline 100] [--exclude toll,...]
                           [--depart-at YYYY-MM-DDTHH:MM] [--avoid KIND[:F],...] [--prefer major_roads[:F]]

    Picks N random pairs of points on the largest connected part of the network and routes each with the
    contraction hierarchy (where the graph has one), A* and Dijkstra — snapping, search and geometry included —
    printing medians, 95th percentiles, arcs settled and the ratios to Dijkstra, and checking that all find the
    same cost. Dijkstra and A* run on the first M pairs only (default: all N) since they are slow on large graphs.
    --matrix times N×N tables from random points with the hierarchy on every core; --matrix-baseline times the
    same with one Dijkstra per source, for the sizes listed.
    --sample-points N prints N such random points as lat,lon lines instead (input for `matrix` benchmarks).
    --depart-at also routes the same pairs leaving at that time (the hierarchy, checked against the graph's timed
    rules, and A* on the first M), and times the --matrix tables at it, each against the untimed figure of this run.
    --avoid/--prefer also route the same pairs with those weights (A* guided by the hierarchy, checked against
    plain A* at the same weights on the first M), against the plain hierarchy of this run.
    """

    static func run(_ raw: [String]) throws -> ExitCode {
        let args = try Arguments(raw, flags: ["--help"],
                                 options: ["--graph", "--mode", "--queries", "--seed", "--baseline-queries", "--matrix",
                                           "--matrix-baseline", "--exclude", "--sample-points", "--depart-at", "--avoid", "--prefer"])
        if args.has("--help") { print(help); return .ok }
        let mode = try args.mode()
        let queries = try args.integer("--queries", default: 1000, range: 1...1_000_000)
        let baselineQueries = try args.integer("--baseline-queries", default: queries, range: 1...queries)
        let seed = try args.integer("--seed", default: 42, range: 0...Int.max)
        let matrixSizes = try sizes(args["--matrix"])
        let baselineSizes = try sizes(args["--matrix-baseline"])
        let loadStart = DispatchTime.now()
        let engine = try openEngine(args, modes: [mode])
        let graph = try modeGraph(engine, mode, args)
        let loadMs = milliseconds(since: loadStart)
        guard let largest = graph.componentSize.indices.max(by: { graph.componentSize[$0] < graph.componentSize[$1] }) else {
            throw CommandError.badInput("the \(mode.rawValue) graph is empty")
        }
        let excluded = try RouteCommand.exclusion(args)
        let candidates = (0..<UInt32(graph.arcCount)).filter {
            graph.arcComponent[Int($0)] == UInt32(largest) && graph.arcBase[Int($0)] == $0 && graph.arcInCore[Int($0)] == 1
                && graph.classes(ofArc: $0).intersection(excluded).isEmpty
        }
        var random = SplitMix64(seed: UInt64(seed))
        func randomPoint() -> Coordinate {
            let arc = candidates[Int(random.next() % UInt64(candidates.count))]
            let points = graph.arcPoints(arc, from: 0, to: Double(random.next() % 1000) / 1000)
            return points[points.count - 1]
        }
        if args["--sample-points"] != nil {
            let count = try args.integer("--sample-points", default: 1000, range: 1...10_000_000)
            var lines = "lat,lon\n"
            for _ in 0..<count {
                let p = randomPoint()
                lines += String(format: "%.6f,%.6f\n", p.latitude, p.longitude)
            }
            FileHandle.standardOutput.write(Data(lines.utf8))
            return .ok
        }
        let pairs = (0..<queries).map { _ in [randomPoint(), randomPoint()] }
        print("graph \(args["--graph"]!) (\(mode.rawValue)): \(graph.vertexCount) vertices, \(graph.arcCount) arcs"
            + (graph.hasHierarchy ? ", \(graph.chUpEdges.count + graph.chDownEdges.count) hierarchy edges" : "")
            + "; load \(String(format: "%.2f", loadMs)) ms; seed \(seed)")

        var router = Router(graph: graph)
        router.excluding = try RouteCommand.exclusion(args)
        if !router.excluding.isEmpty { print("excluding \(router.excluding.names.joined(separator: ","))") }
        var algorithms: [SearchAlgorithm] = [.dijkstra, .astar]
        if graph.hasHierarchy { algorithms.append(.ch) }
        var results: [SearchAlgorithm: (times: [Double], settled: [Int], costs: [UInt64?])] = [:]
        for algorithm in algorithms {
            let count = algorithm == .ch ? queries : baselineQueries
            var times: [Double] = [], settled: [Int] = [], costs: [UInt64?] = []
            for pair in pairs.prefix(count) {
                let start = DispatchTime.now()
                let route = try? router.route(pair, algorithm: algorithm)
                times.append(milliseconds(since: start))
                settled.append(route?.legs.reduce(0) { $0 + $1.settled } ?? 0)
                costs.append(route?.weight)
            }
            results[algorithm] = (times, settled, costs)
        }
        let d = results[.dijkstra]!
        let label: [SearchAlgorithm: String] = [.dijkstra: "Dijkstra", .astar: "A*      ", .ch: "CH      "]
        for algorithm in algorithms {
            let r = results[algorithm]!
            let agree = zip(r.costs, d.costs).filter { $0 == $1 }.count
            print("\(label[algorithm]!)  \(r.times.count) queries  median \(format(median(r.times))) ms  "
                + "p95 \(format(percentile(r.times, 0.95))) ms  settled median \(Int(median(r.settled.map(Double.init))))"
                + (algorithm == .dijkstra ? "" : String(format: "  | %.1fx faster, %.1fx fewer settled than Dijkstra, same cost %d/%d",
                    median(Array(d.times)) / median(Array(r.times.prefix(d.times.count))),
                    median(d.settled.map(Double.init)) / max(1, median(r.settled.prefix(d.settled.count).map(Double.init))),
                    agree, d.costs.count)))
        }
        var failed = algorithms.contains { zip(results[$0]!.costs, d.costs).contains { $0 != $1 } }
        /// The same pairs routed by `variant` (a router with a time or with weights): the hierarchy-guided search on
        /// all, A* on the first M, each against the plain figures above. Prints `heading` (given the pairs whose
        /// cost changed and the guided search's times) and each algorithm's medians, and says whether the guided
        /// search and A* found the same costs.
        func compare(_ variant: Router, _ name: String, heading: ([Int], [Double]) -> String) -> Bool {
            var variant = variant
            var measured: [SearchAlgorithm: (times: [Double], costs: [UInt64?])] = [:]
            for algorithm in graph.hasHierarchy ? [SearchAlgorithm.ch, .astar] : [.astar] {
                var times: [Double] = [], costs: [UInt64?] = []
                for pair in pairs.prefix(algorithm == .ch ? queries : baselineQueries) {
                    let start = DispatchTime.now()
                    costs.append((try? variant.route(pair, algorithm: algorithm))?.weight)
                    times.append(milliseconds(since: start))
                }
                measured[algorithm] = (times, costs)
            }
            let first = measured[graph.hasHierarchy ? .ch : .astar]!, plain = results[graph.hasHierarchy ? .ch : .astar]!
            print(heading(first.costs.indices.filter { first.costs[$0] != plain.costs[$0] }, first.times))
            let reference = measured[.astar]!.costs
            var agreed = true
            for (algorithm, r) in measured.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                let agree = zip(r.costs, reference).filter { $0 == $1 }.count
                print("  \(label[algorithm]!)  \(r.times.count) queries  median \(format(median(r.times))) ms  p95 \(format(percentile(r.times, 0.95))) ms"
                    + String(format: "  | %.2fx the plain median", median(r.times) / median(Array(results[algorithm]!.times.prefix(r.times.count))))
                    + (algorithm == .astar ? "" : ", same cost as \(name) A* \(agree)/\(reference.count)"))
                if agree != reference.count { agreed = false }
            }
            return agreed
        }
        var clock: ClockTime?
        if case .departure(let time)? = try RouteCommand.travelTime(args) { clock = time }
        let departure = clock.map { Departure(local: graph.localTime($0)) }
        if let departure {
            // The same pairs leaving at a time: what the timed rules and historical speeds cost.
            var timedRouter = router
            timedRouter.departure = departure
            let agreed = compare(timedRouter, "timed") { changed, times in
                "leaving at \(departure.local) (\(graph.timedRuleList.count) timed rules\(graph.hasHistory ? " and historical speeds" : ""); "
                    + "\(changed.count) of \(times.count) routes changed by them"
                    + (changed.isEmpty ? "" : ", those in median \(format(median(changed.map { times[$0] }))) ms") + "):"
            }
            if !agreed { failed = true }
        }
        if let factors = try RouteCommand.weightFactors(args) {
            // The same pairs at weights by kind of road.
            var weighedRouter = router
            weighedRouter.weightFactors = factors
            let agreed = compare(weighedRouter, "weighed") { changed, times in
                "weighed (\(args["--avoid"].map { "avoid=\($0)" } ?? "")\(args["--prefer"].map { " prefer=\($0)" } ?? "")): "
                    + "\(changed.count) of \(times.count) route costs changed"
            }
            if !agreed { failed = true }
        }

        for size in Set(matrixSizes + baselineSizes).sorted() {
            let points = (0..<size).map { _ in randomPoint() }
            let snaps = try router.snapWaypoints(points)
            let excluding = router.excluding
            var hierarchyCells: [[TableCell?]]?
            if matrixSizes.contains(size), graph.hasHierarchy {
                // Cold: tables allocating their own search arrays (a one-off CLI table). Warm: tables sharing them,
                // as the server's do. Medians of five each, after one table that pages the graph in.
                let rows = HierarchyMatrix(graph: graph, targets: snaps, excluding: excluding).rows(for: snaps)
                let scratch = TableScratch(graph: graph)
                var cold: [Double] = [], warm: [Double] = []
                for run in 0..<10 {
                    let start = DispatchTime.now()
                    let again = HierarchyMatrix(graph: graph, targets: snaps, scratch: run < 5 ? nil : scratch,
                                                excluding: excluding).rows(for: snaps)
                    if run < 5 { cold.append(milliseconds(since: start)) } else { warm.append(milliseconds(since: start)) }
                    if again != rows { failed = true }
                }
                print("matrix \(size)x\(size) CH (\(ProcessInfo.processInfo.activeProcessorCount) threads): \(format(median(warm))) ms "
                    + "with reused search arrays, \(format(median(cold))) ms allocating them (medians of 5), "
                    + "\(rows.joined().filter { $0 == nil }.count) unreachable cells")
                hierarchyCells = rows
                if let clock, let departure {
                    // As the engine answers a table with `depart_at` (`Table`), snapping included, against the same
                    // table without it.
                    var query = TableQuery(mode: mode, points: points)
                    query.excluding = excluding
                    query.threads = ProcessInfo.processInfo.activeProcessorCount
                    var timed: [Double] = [], plain: [Double] = []
                    var changed = 0
                    for _ in 0..<3 {
                        query.departure = nil
                        var start = DispatchTime.now()
                        let untimedCells = try engine.table(query).rows(0..<size)
                        plain.append(milliseconds(since: start))
                        query.departure = clock
                        start = DispatchTime.now()
                        let timedCells = try engine.table(query).rows(0..<size)
                        timed.append(milliseconds(since: start))
                        changed = zip(timedCells.joined(), untimedCells.joined()).filter { $0?.weight != $1?.weight }.count
                    }
                    print("matrix \(size)x\(size) leaving at \(departure.local): \(format(median(timed))) ms against \(format(median(plain))) ms "
                        + String(format: "without a time (medians of 3, engine tables; ×%.1f); %d cells changed by the rules",
                                 median(timed) / median(plain), changed))
                }
            }
            if baselineSizes.contains(size) {
                let start = DispatchTime.now()
                let rows = TableSearch.rows(in: graph, sources: snaps, targets: snaps,
                                            threads: ProcessInfo.processInfo.activeProcessorCount, excluding: excluding)
                print("matrix \(size)x\(size) Dijkstra per source: \(format(milliseconds(since: start))) ms"
                    + (hierarchyCells.map { h in
                        let same = zip(h.joined(), rows.joined()).filter { $0?.weight == $1?.weight }.count
                        if same != size * size { failed = true }
                        return ", cells identical to CH: \(same)/\(size * size)"
                    } ?? ""))
            }
        }
        return failed ? .badInput : .ok
    }

    static func sizes(_ text: String?) throws -> [Int] {
        guard let text else { return [] }
        return try text.split(separator: ",").map {
            guard let n = Int($0), (1...100_000).contains(n) else { throw CommandError.usage("matrix sizes are whole numbers, e.g. 100,1000") }
            return n
        }
    }

    static func milliseconds(since start: DispatchTime) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e6
    }

    static func median(_ values: [Double]) -> Double { percentile(values, 0.5) }

    static func percentile(_ values: [Double], _ p: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
    }

    static func format(_ ms: Double) -> String { String(format: ms < 1 ? "%.3f" : "%.2f", ms) }
}
