import Foundation
import RoadGraph
import Routing

/// `wayfinder bench`: route latency on random pairs, A* against Dijkstra in the same run.
enum BenchCommand {
    static let help = """
    Usage: wayfinder bench --graph <dir> [--mode driving|walking] [--queries N] [--seed S]

    Picks N random pairs of points on the largest connected part of the network and routes each with A* and with
    Dijkstra (snapping, search and geometry included). Prints medians, 95th percentiles, arcs settled, and the
    ratio; checks that both find the same cost.
    """

    static func run(_ raw: [String]) throws -> ExitCode {
        let args = try Arguments(raw, flags: ["--help"], options: ["--graph", "--mode", "--queries", "--seed"])
        if args.has("--help") { print(help); return .ok }
        let mode = try args.mode()
        let queries = try args.integer("--queries", default: 1000, range: 1...1_000_000)
        let seed = try args.integer("--seed", default: 42, range: 0...Int.max)
        let loadStart = DispatchTime.now()
        let graph = try loadGraph(directory: args["--graph"], mode: mode)
        let loadMs = milliseconds(since: loadStart)
        guard let largest = graph.componentSize.indices.max(by: { graph.componentSize[$0] < graph.componentSize[$1] }) else {
            throw CommandError.badInput("the \(mode.rawValue) graph is empty")
        }
        let candidates = (0..<UInt32(graph.arcCount)).filter {
            graph.arcComponent[Int($0)] == UInt32(largest) && graph.arcBase[Int($0)] == $0
        }
        var random = SplitMix64(seed: UInt64(seed))
        func randomPoint() -> Coordinate {
            let arc = candidates[Int(random.next() % UInt64(candidates.count))]
            let points = graph.arcPoints(arc, from: 0, to: Double(random.next() % 1000) / 1000)
            return points[points.count - 1]
        }
        let pairs = (0..<queries).map { _ in [randomPoint(), randomPoint()] }

        var router = Router(graph: graph)
        var results: [SearchAlgorithm: (times: [Double], settled: [Int], costs: [UInt32?])] = [:]
        for algorithm in [SearchAlgorithm.dijkstra, .astar] {
            var times: [Double] = [], settled: [Int] = [], costs: [UInt32?] = []
            for pair in pairs {
                let start = DispatchTime.now()
                let route = try? router.route(pair, algorithm: algorithm)
                times.append(milliseconds(since: start))
                settled.append(route?.legs.reduce(0) { $0 + $1.settled } ?? 0)
                costs.append(route?.weight)
            }
            results[algorithm] = (times, settled, costs)
        }
        let a = results[.astar]!, d = results[.dijkstra]!
        let agree = zip(a.costs, d.costs).filter { $0 == $1 }.count
        let routed = a.costs.compactMap { $0 }.count
        print("graph \(args["--graph"]!) (\(mode.rawValue)): \(graph.vertexCount) vertices, \(graph.arcCount) arcs; "
            + "load \(String(format: "%.2f", loadMs)) ms; \(queries) random pairs, seed \(seed), \(routed) routed")
        for (name, r) in [("A*      ", a), ("Dijkstra", d)] {
            print("\(name)  median \(format(median(r.times))) ms  p95 \(format(percentile(r.times, 0.95))) ms  "
                + "settled median \(Int(median(r.settled.map(Double.init))))")
        }
        print("ratio     A* \(String(format: "%.1f", median(d.times) / median(a.times)))x faster (median), "
            + "settles \(String(format: "%.1f", median(d.settled.map(Double.init)) / max(1, median(a.settled.map(Double.init)))))x fewer arcs; "
            + "same cost in \(agree)/\(queries) queries")
        return agree == queries ? .ok : .badInput
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

/// A small seeded generator, so benchmark pairs are the same on every run.
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
