import Foundation
import Guidance
import RoadGraph
import Routing
import Testing

/// Directions on real extracts: contiguous steps that add up to the route, no empty steps, complete instructions.
@Suite struct GuidanceRealDataTests {
    func check(_ extract: URL, pairs: Int) throws {
        let (directory, driving, walking) = try OracleTests.graphs(for: extract)
        defer { _ = directory }
        for graph in [driving, walking] {
            var router = Router(graph: graph)
            var state: UInt64 = 99
            let main = (0..<UInt32(graph.arcCount)).filter { graph.isMainNetwork(arc: $0) && graph.arcBase[Int($0)] == $0 }
            var routed = 0
            for _ in 0..<pairs {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                let a = main[Int((state >> 20) % UInt64(main.count))]
                state = state &* 6364136223846793005 &+ 1442695040888963407
                let b = main[Int((state >> 20) % UInt64(main.count))]
                let points = [graph.arcPoints(a, from: 0, to: 0.5).last!, graph.arcPoints(b, from: 0, to: 0.3).last!]
                guard let route = try? router.route(points) else { continue }
                routed += 1
                for language in ["en", "zh"] {
                    let directions = try Directions(route: route, graph: graph, options: DirectionsOptions(language: language))
                    for (leg, steps) in zip(route.legs, directions.legs) {
                        #expect(steps.first?.maneuver.type == .depart && steps.last?.maneuver.type == .arrive)
                        for (x, y) in zip(steps, steps.dropFirst()) {
                            #expect(Geo.distance(x.coordinates.last!, y.coordinates.first!) < 0.01)
                        }
                        #expect(abs(steps.reduce(0) { $0 + $1.distance } - leg.distance) < 1)
                        for step in steps where step.maneuver.type != .depart && step.maneuver.type != .arrive {
                            #expect(step.distance > 0, "\(step.maneuver.type.rawValue) step of zero length")
                        }
                        for step in steps {
                            #expect(!step.instruction.isEmpty && !step.instruction.contains("{"), "\(step.instruction)")
                        }
                    }
                }
            }
            #expect(routed > pairs / 2)
        }
    }

    @Test func helsinki() throws {
        try check(OracleTests.packageRoot.appendingPathComponent("graphs/helsinki.osm.pbf"), pairs: 150)
    }

    @Test(.enabled(if: Available.portoCentre, "needs ../shared/data/vh-bench-porto.osm.pbf"))
    func porto() throws {
        try check(OracleTests.sharedData.appendingPathComponent("vh-bench-porto.osm.pbf"), pairs: 150)
    }
}
