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

    /// Two ways over b–c–d that cost the same: OSRM keeps the one with a name or a ref (a tram platform drawn over
    /// a footway: the platform), and of two names the first in byte order.
    static func tieMap(_ second: [String: String]) throws -> TestMap {
        let map = TestMap("""
            x    b    c    d    y
            """, gridSize: 30)
        map.way("xbcdy", ["highway": "footway", "name": "Zeta"])
        map.way("bcd", second)
        _ = try map.build(compatibility: .osrm)
        return map
    }

    /// The second way's tags, and the names and refs ("name|ref") a walk from x to y then passes.
    static let ties: [(second: [String: String], labels: Set<String>)] = [
        (["railway": "platform", "public_transport": "platform", "ref": "19"], ["Zeta|", "|19"]),
        (["highway": "footway", "name": "Alpha"], ["Zeta|", "Alpha|"]),
        (["highway": "footway", "name": "Zulu"], ["Zeta|"]),
    ]

    @Test func aTieKeepsTheNamedWay() throws {
        for tie in Self.ties {
            let map = try Self.tieMap(tie.second)
            let graph = try map.build(compatibility: .osrm).walking
            let route = try checkedRoute(graph, [map.position(between: "x", "b", at: 0.5), map.position(between: "d", "y", at: 0.5)])
            let labels = Set(route.legs[0].stretches.map { "\($0.name)|\($0.ref)" })
            #expect(labels == tie.labels, "\(tie.second): \(labels)")
        }
    }

    @Test(.enabled(if: OSRMOracle.available, Comment(rawValue: OSRMOracle.skipMessage)))
    func aTieKeepsTheWayOSRMKeeps() throws {
        for tie in Self.ties {
            let map = try Self.tieMap(tie.second)
            let service = WayfinderService(engine: try Engine(directory: map.graphDirectory))
            let osrm = try OSRMOracle(map: map, profile: "foot")
            let request = "/route/v1/walking/\(OSRMCompatibilityTests.text(map.position(between: "x", "b", at: 0.5)));"
                + "\(OSRMCompatibilityTests.text(map.position(between: "d", "y", at: 0.5)))?steps=true&overview=false"
            func labels(_ body: [String: Any]) -> [String] {
                let legs = ((body["routes"] as? [[String: Any]])?.first?["legs"] as? [[String: Any]]) ?? []
                return (legs.first?["steps"] as? [[String: Any]] ?? []).map { "\($0["name"] as? String ?? "")|\($0["ref"] as? String ?? "")" }
            }
            let ours = labels(try service.json(request + "&compat=osrm").object), theirs = labels(try osrm.json(request).object)
            #expect(!theirs.isEmpty && ours == theirs, "\(tie.second): Wayfinder \(ours), OSRM \(theirs)")
        }
    }
}
