import Engine
import Foundation
import HTTPService
import RoadGraph
import Testing

/// A road that splits into two one-way carriageways, as OSRM's extractor reads it (its mergeable-road detector):
/// where the carriageways run side by side, the junction sees one road at their mean bearing, and a turn there
/// counts the roads without the arriving carriageway. Where they part ways, nothing is merged.
@Suite struct DividedRoadTests {
    /// a–b is a two-way road; at b it splits into b→c→d (east) and f→e→b (west).
    static func map(fanning: Bool = false) throws -> TestMap {
        // Side by side: 10 m apart, parallel after 40 m. Fanning: 18° either side of the road, never parallel.
        let map = fanning ? TestMap("""
                                                d



                                    c



            a           b



                                    e



                                                f
            """, gridSize: 5) : TestMap("""
                                c                   d
            a           b
                                e                   f
            """, gridSize: 5)
        let avenue = ["highway": "primary", "name": "Avenida Central"]
        map.way("ab", avenue)
        map.way("bcd", avenue.merging(["oneway": "yes"]) { $1 })
        map.way("feb", avenue.merging(["oneway": "yes"]) { $1 })
        _ = try map.build(compatibility: .osrm)
        return map
    }

    /// The bearings a junction at `node` sees of its roads.
    static func bearings(_ graph: RoadGraph, _ map: TestMap, at node: Character) throws -> [Double] {
        try ends(graph, map, at: node).map(\.bearing)
    }

    static func ends(_ graph: RoadGraph, _ map: TestMap, at node: Character) throws -> [EdgeEnd] {
        let vertex = try #require(OverlappingWaysTests.vertex(graph, at: map.position(node)))
        return graph.vertexEdges[Int(graph.vertexEdgeStart[vertex])..<Int(graph.vertexEdgeStart[vertex + 1])].map {
            graph.edgeEnds[Int($0)]
        }
    }

    /// What a route's junctions cost: its duration less its segments' (`annotations=duration`).
    static func junctionCost(_ body: [String: Any]) -> Double? {
        guard let leg = ((body["routes"] as? [[String: Any]])?.first?["legs"] as? [[String: Any]])?.first,
              let duration = leg["duration"] as? Double,
              let segments = (leg["annotation"] as? [String: Any])?["duration"] as? [Double] else { return nil }
        return duration - segments.reduce(0, +)
    }

    @Test func carriagewaysSideBySideAreOneRoadAtTheSplit() throws {
        let map = try Self.map()
        let graph = try RoadGraph(contentsOf: try graphFile(map.graphDirectory, .driving))
        let seen = try Self.bearings(graph, map, at: "b")
        #expect(seen.count == 3)
        // The carriageways' ends at b share one bearing, east, between their own (±7°).
        let east = seen.filter { $0 < 180 }
        #expect(east.count == 2 && east[0] == east[1] && abs(east[0] - 90) < 1, "\(seen)")
        // OSRM's initial bearing (2 m along), which guidance compares where a road bends at once, is the merged one.
        for end in try Self.ends(graph, map, at: "b") where end.bearing < 180 { #expect(end.initialBearing == end.bearing) }
    }

    @Test func carriagewaysThatFanOutStayApart() throws {
        let map = try Self.map(fanning: true)
        let graph = try RoadGraph(contentsOf: try graphFile(map.graphDirectory, .driving))
        let seen = try Self.bearings(graph, map, at: "b")
        let east = seen.filter { $0 < 180 }.sorted()
        #expect(east.count == 2 && east[1] - east[0] > 20, "\(seen)")
    }

    /// Drives across the split in each direction, and back over the median (a U-turn to OSRM): what the junction
    /// costs (a route's duration less its segments') as in OSRM, on both maps.
    @Test(.enabled(if: OSRMOracle.available, Comment(rawValue: OSRMOracle.skipMessage)))
    func junctionCostsAsOSRM() throws {
        for fanning in [false, true] {
            let map = try Self.map(fanning: fanning)
            let service = WayfinderService(engine: try Engine(directory: map.graphDirectory))
            let osrm = try OSRMOracle(map: map, profile: "car")
            for (from, to) in [("a", "d"), ("f", "a"), ("f", "d")] {
                let start = map.position(between: Character(from), from == "a" ? "b" : "e", at: 0.5)
                let end = map.position(between: to == "a" ? "b" : "c", Character(to), at: 0.5)
                let request = "/route/v1/driving/\(OSRMCompatibilityTests.text(start));\(OSRMCompatibilityTests.text(end))"
                    + "?overview=false&annotations=duration"
                let ours = try #require(Self.junctionCost(try service.json(request + "&compat=osrm").object), "\(from) → \(to)")
                let theirs = try #require(Self.junctionCost(try osrm.json(request).object), "\(from) → \(to)")
                #expect(abs(ours - theirs) < 0.05, "fanning \(fanning), \(from) → \(to): Wayfinder \(ours) s, OSRM \(theirs) s")
                // Over the median: a U-turn, with car.lua's 20 s, only where the carriageways are one road.
                if from == "f" && to == "d" { #expect((theirs > 20) == !fanning, "fanning \(fanning): OSRM \(theirs) s") }
            }
        }
    }
    /// The inbound carriageway f→e→b is fed at f by a slip road of its name (i→h→f) and by a one-way of its name
    /// with destination signs (g→f). OSRM's walk along a road follows one string (name, ref, signs and all), so at
    /// f it sees two roads of the carriageway's string, not three, goes on down the slip road, and finds the
    /// carriageways not parallel: the split at b stays a junction of three roads, and going back over the median is
    /// a sharp turn, not a U-turn.
    @Test(.enabled(if: OSRMOracle.available, Comment(rawValue: OSRMOracle.skipMessage)))
    func signsMakeAnotherRoadToOSRMsWalk() throws {
        let map = TestMap("""
                                c         d                   k
                    a       b
                                e         f
                                          h



                          g





                                          i
            """, gridSize: 5)
        let avenue = ["highway": "primary", "name": "Avenida Central"]
        map.way("ab", avenue)
        map.way("bcdk", avenue.merging(["oneway": "yes"]) { $1 })
        map.way("feb", avenue.merging(["oneway": "yes"]) { $1 })
        map.way("ihf", avenue.merging(["oneway": "yes", "highway": "primary_link"]) { $1 })
        map.way("gf", avenue.merging(["oneway": "yes", "destination": "Centro"]) { $1 })
        _ = try map.build(compatibility: .osrm)
        let service = WayfinderService(engine: try Engine(directory: map.graphDirectory))
        let osrm = try OSRMOracle(map: map, profile: "car")
        for (name, start, end) in [("across the split", map.position(between: "a", "b", at: 0.5), map.position(between: "c", "d", at: 0.5)),
                                   ("into the road", map.position(between: "f", "e", at: 0.5), map.position(between: "b", "a", at: 0.5)),
                                   ("over the median", map.position(between: "f", "e", at: 0.5), map.position(between: "c", "d", at: 0.5))] {
            let request = "/route/v1/driving/\(OSRMCompatibilityTests.text(start));\(OSRMCompatibilityTests.text(end))"
                + "?overview=false&annotations=duration"
            let ours = try #require(Self.junctionCost(try service.json(request + "&compat=osrm").object), "\(name)")
            let theirs = try #require(Self.junctionCost(try osrm.json(request).object), "\(name)")
            #expect(abs(ours - theirs) < 0.05, "\(name): Wayfinder \(ours) s, OSRM \(theirs) s")
            if name == "over the median" { #expect(theirs < 20, "OSRM reads the split as three roads: \(theirs) s") }
        }
    }

    /// Two one-way carriageways between the same two junctions, x and y: OSRM does not lay its second edge beside
    /// the first, so the carriageway whose inner nodes come last (x→p→q→y) keeps q, a bend 3 m before y. A bike pays
    /// that bend as a turn; at y, car and bike alike turn by the bearing of q→y, OSRM's edge, not of the whole road.
    /// Signals on the other carriageway (at d) change none of this. Under one name (the outbound road's walk from y
    /// meets q's edge at x, not a road back to y) the carriageways are not merged at y either.
    @Test(.enabled(if: OSRMOracle.available, Comment(rawValue: OSRMOracle.skipMessage)),
          arguments: [(false, false), (true, false), (false, true), (true, true)])
    func aNodeKeptBesideAnotherRoadEndsTheRoadThere(_ signals: Bool, _ oneName: Bool) throws {
        let map = TestMap("""
                      c                 d
            w   x                             y    z
                        p                    q
            """, gridSize: 2)
        let name = oneName ? ["name": "Avenida Central"] : [:]
        map.way("wx", ["highway": "primary"].merging(name) { $1 })
        map.way("xpqy", ["highway": "primary", "oneway": "yes", "name": "Avenida Central"])
        map.way("ydcx", ["highway": "primary", "oneway": "yes"].merging(name) { $1 })
        map.way("yz", ["highway": "primary"].merging(name) { $1 })
        if signals { map.tagNode("d", ["highway": "traffic_signals"]) }
        _ = try map.build(compatibility: .osrm, modes: [.driving, .walking, .cycling])
        let service = WayfinderService(engine: try Engine(directory: map.graphDirectory))
        for (profile, mode) in [("car", "driving"), ("bicycle", "cycling")] {
            let osrm = try OSRMOracle(map: map, profile: profile)
            let legs: [(from: (Character, Character), to: (Character, Character))] = [
                (("w", "x"), ("y", "z")), (("x", "p"), ("y", "z")), (("q", "y"), ("y", "z")), (("z", "y"), ("d", "c"))]
            for (from, to) in legs {
                let start = map.position(between: from.0, from.1, at: 0.5), end = map.position(between: to.0, to.1, at: 0.5)
                let request = "/route/v1/\(mode)/\(OSRMCompatibilityTests.text(start));\(OSRMCompatibilityTests.text(end))"
                    + "?overview=false&annotations=duration"
                let label = "signals \(signals), one name \(oneName), \(mode) \(from) → \(to)"
                let ours = try #require(Self.junctionCost(try service.json(request + "&compat=osrm").object), "\(label)")
                let theirs = try #require(Self.junctionCost(try osrm.json(request).object), "\(label)")
                #expect(abs(ours - theirs) < 0.05, "\(label): Wayfinder \(ours) s, OSRM \(theirs) s")
            }
        }
    }
}
