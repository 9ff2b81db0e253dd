import Engine
import Foundation
import Guidance
import HTTPService
import RoadGraph
import Routing
import Testing

/// A road mapped twice: two ways over the same nodes for a stretch (a common mapping mistake). The import keeps one
/// edge per node sequence and direction, as OSRM does, so no junction on the shared stretch offers a fork.
@Suite struct OverlappingWaysTests {
    /// Way A runs x–b–c–d–e–y; way B joins it at b from f, shares b–c–d–e, and turns off at e for g.
    static func map() throws -> TestMap {
        let map = TestMap("""
            x    b    c    d    e    y
            f                   g
            """, gridSize: 30)
        map.way("xbcdey", ["highway": "primary", "name": "Bundesstraße", "ref": "B 2"])
        map.way("fbcdeg", ["highway": "primary", "name": "Bundesstraße", "ref": "B 2"])
        _ = try map.build()
        return map
    }

    static func vertex(_ graph: RoadGraph, at point: Coordinate) -> Int? {
        (0..<graph.vertexCount).first {
            Geo.distance(Coordinate(fixedLatitude: graph.vertexLatitudes[$0], fixedLongitude: graph.vertexLongitudes[$0]), point) < 0.5
        }
    }

    @Test func theSharedStretchIsOneRoad() throws {
        let map = try Self.map()
        let graphs = try map.build()
        for graph in [graphs.driving, graphs.walking] {
            // Inside the shared stretch a junction sees one road each way.
            for node: Character in ["c", "d"] {
                let vertex = try #require(Self.vertex(graph, at: map.position(node)))
                let edges = graph.vertexEdgeStart[vertex + 1] - graph.vertexEdgeStart[vertex]
                #expect(edges == 2, "\(graph.mode) at \(node): \(edges) edges")
            }
            let route = try checkedRoute(graph, [map.position("x"), map.position("y")])
            let directions = try Directions(route: route, graph: graph)
            let kinds = directions.legs[0].map(\.maneuver.type.rawValue)
            #expect(!kinds.contains("fork"), "\(graph.mode): \(kinds)")
            #expect(kinds == ["depart", "arrive"], "\(graph.mode): straight along one road, \(kinds)")
        }
    }

    @Test(.enabled(if: OSRMOracle.available, Comment(rawValue: OSRMOracle.skipMessage)))
    func maneuversAsOSRM() throws {
        let map = try Self.map()
        let service = WayfinderService(engine: try Engine(directory: map.graphDirectory))
        let osrm = try OSRMOracle(map: map, profile: "car")
        for (from, to) in [("x", "y"), ("f", "y"), ("x", "g")] {
            let request = "/route/v1/driving/\(OSRMCompatibilityTests.text(map.position(Character(from))));"
                + "\(OSRMCompatibilityTests.text(map.position(Character(to))))?steps=true&overview=false"
            func maneuvers(_ body: [String: Any]) -> [String] {
                let legs = ((body["routes"] as? [[String: Any]])?.first?["legs"] as? [[String: Any]]) ?? []
                return (legs.first?["steps"] as? [[String: Any]] ?? []).map {
                    let m = $0["maneuver"] as? [String: Any] ?? [:]
                    return [m["type"] as? String, m["modifier"] as? String].compactMap { $0 }.joined(separator: " ")
                }
            }
            let ours = maneuvers(try service.json(request + "&compat=osrm").object), theirs = maneuvers(try osrm.json(request).object)
            #expect(!ours.isEmpty && ours == theirs, "\(from) → \(to): Wayfinder \(ours), OSRM \(theirs)")
        }
    }
}
