import Engine
import GraphImport
import Foundation
import HTTPAPI
import RoadGraph
import Routing
import Testing
import WayfinderEngine

/// Per-request weights by kind of road (`avoid=`, `prefer=`): each sends a route round the roads it weighs, leaves
/// durations as they are, agrees with the Dijkstra oracle at the same weights, and refuses bad values.
@Suite(.serialized) struct WeightFactorsTests {
    /// A street a–b–c–d whose middle b–c is tagged `direct`, and a detour b–e–f–c tagged `detour` (twice as long).
    static func street(direct: [String: String], detour: [String: String]) -> TestMap {
        let map = TestMap("""
            a    b    c    d

                 e    f
            """, gridSize: 30)
        map.way("ab", ["highway": "residential", "name": "West"])
        map.way("bc", direct.merging(["name": "Direct"]) { $1 })
        map.way("cd", ["highway": "residential", "name": "East"])
        map.way("befc", detour.merging(["name": "Detour"]) { $1 })
        return map
    }

    struct Case: CustomStringConvertible, Sendable {
        var name: String
        var direct: [String: String]
        var detour: [String: String]
        /// The request's options, and whether they send the route round.
        var options: String
        var detours: Bool
        var description: String { name }
    }

    static let cases: [Case] = [
        Case(name: "avoid a toll road", direct: ["highway": "primary", "toll": "yes"], detour: ["highway": "primary"],
             options: "avoid=toll", detours: true),
        Case(name: "a toll road avoided by too little", direct: ["highway": "primary", "toll": "yes"], detour: ["highway": "primary"],
             options: "avoid=toll:1.2", detours: false),
        Case(name: "avoid an unpaved road", direct: ["highway": "residential", "surface": "gravel"],
             detour: ["highway": "residential", "surface": "asphalt"], options: "avoid=unpaved", detours: true),
        Case(name: "a road of track grade 1 is paved", direct: ["highway": "residential", "tracktype": "grade1"],
             detour: ["highway": "residential"], options: "avoid=unpaved", detours: false),
        Case(name: "avoid a tunnel", direct: ["highway": "primary", "tunnel": "yes"], detour: ["highway": "primary"],
             options: "avoid=tunnel:5", detours: true),
        Case(name: "prefer major roads", direct: ["highway": "tertiary"], detour: ["highway": "primary"],
             options: "prefer=major_roads:3", detours: true),
    ]

    /// Each case over HTTP, both ways: the detour where the weights send the route round, the route's duration the
    /// roads' own (the route without options, or the detour's), and its weight at least its duration.
    @Test(arguments: cases)
    func weightsSendRoutesRound(_ c: Case) throws {
        let map = Self.street(direct: c.direct, detour: c.detour)
        let service = try map.served()
        let west = map.position(between: "a", "b", at: 0.5), east = map.position(between: "c", "d", at: 0.5)
        for (from, to) in [(west, east), (east, west)] {
            let path = "/route/v1/driving/\(OSRMCompatibilityTests.text(from));\(OSRMCompatibilityTests.text(to))?steps=true"
            let plain = try Self.route(service, path), weighed = try Self.route(service, path + "&" + c.options)
            #expect(!plain.names.contains("Detour"), "\(c.name): \(plain.names)")
            #expect(weighed.names.contains("Detour") == c.detours, "\(c.name): \(weighed.names)")
            if !c.detours { #expect(weighed.duration == plain.duration && weighed.weight >= plain.weight) }
            #expect(weighed.weight >= weighed.duration - 0.05)
        }
    }

    static func route(_ service: WayfinderService, _ path: String) throws -> (names: [String], duration: Double, weight: Double) {
        let response = try service.json(path)
        #expect(response.status == 200, "\(path): \(response.object)")
        let route = try #require((response.object["routes"] as? [[String: Any]])?.first)
        let steps = (route["legs"] as? [[String: Any]] ?? []).flatMap { $0["steps"] as? [[String: Any]] ?? [] }
        return (steps.compactMap { $0["name"] as? String }, route["duration"] as? Double ?? -1, route["weight"] as? Double ?? -1)
    }

    /// Bad values are refused with OSRM's `InvalidValue` and a reason, on routes, tables and trips, and on the
    /// command line as usage errors.
    @Test func badValuesAreRefused() throws {
        let map = Self.street(direct: ["highway": "primary"], detour: ["highway": "primary"])
        let service = try map.served()
        let pair = "\(OSRMCompatibilityTests.text(map.position("a")));\(OSRMCompatibilityTests.text(map.position("d")))"
        for bad in ["avoid=bridges", "avoid=toll:0.5", "avoid=toll:1000", "avoid=toll:x", "prefer=toll", "avoid="] {
            for service_ in ["route", "table", "trip"] {
                let response = try service.json("/\(service_)/v1/driving/\(pair)?\(bad)")
                #expect(response.status == 400 && response.object["code"] as? String == "InvalidValue", "\(service_) \(bad): \(response.object)")
            }
        }
        #expect(try service.json("/table/v1/driving/\(pair)?avoid=toll,unpaved:2&prefer=major_roads:1.2").status == 200)
        let run = try CommandLineTests.run(["route", "--graph", map.graphDirectory, "--avoid", "bridges",
                                            "\(map.position("a").latitude),\(map.position("a").longitude)",
                                            "\(map.position("d").latitude),\(map.position("d").longitude)"])
        #expect(run.status == 1 && run.stderr.contains("--avoid"), "\(run.stderr)")
    }

    /// The Swift library takes the same weights (`RouteOptions.weights`), and refuses a factor below 1.
    @Test func libraryWeighsRoads() throws {
        let map = Self.street(direct: ["highway": "primary", "toll": "yes"], detour: ["highway": "primary"])
        _ = try map.build()
        let wayfinder = try Wayfinder(directory: map.graphDirectory, modes: [.driving])
        func location(_ c: Coordinate) -> Waypoint { .location(Location(latitude: c.latitude, longitude: c.longitude)) }
        let ends = [location(map.position(between: "a", "b", at: 0.5)), location(map.position(between: "c", "d", at: 0.5))]
        let plain = try wayfinder.route(ends).best
        let weighed = try wayfinder.route(ends, options: RouteOptions(weights: [.toll: 10])).best
        #expect(weighed.distance > plain.distance + 100, "the detour: \(weighed.distance) m against \(plain.distance) m")
        #expect(throws: WayfinderError.self) { try wayfinder.route(ends, options: RouteOptions(weights: [.toll: 0.5])) }
        // A trip takes them too; a match, where the trace decides the roads, refuses them rather than ignore them.
        let trip = try wayfinder.trip(ends, roundTrip: true, options: RouteOptions(weights: [.toll: 10]))
        let plainTrip = try wayfinder.trip(ends, roundTrip: true)
        #expect(trip.route.distance > plainTrip.route.distance + 100, "\(trip.route.distance) m against \(plainTrip.route.distance) m")
        let trace = [map.position("a"), map.position("d")].map { Location(latitude: $0.latitude, longitude: $0.longitude) }
        #expect(throws: WayfinderError.self) { try wayfinder.match(trace, options: RouteOptions(weights: [.toll: 10])) }
    }

    /// Helsinki with every kind weighed: every leg by the hierarchy's guide, A* and Dijkstra costs what the oracle
    /// says at the same weights, its pieces add up to it, and engine tables equal the oracle cell by cell (with
    /// historical speeds too: `HistoricalSpeedsTests.checkWeek`).
    @Test func helsinkiWeightsMatchTheOracle() throws {
        let directory = try TemporaryDirectory()
        let graphs = directory.path + "/g"
        _ = try GraphImporter.importGraphs(from: OracleTests.packageRoot.appendingPathComponent("graphs/helsinki.osm.pbf").path,
                                           to: graphs, modes: [.driving])
        let graph = try RoadGraph(contentsOf: try graphFile(graphs, .driving))
        #expect(graph.knowsSurfaces && (0..<graph.edgeCount).contains { graph.isUnpaved(edge: $0) })
        var factors = WeightFactors()
        #expect(factors.read("toll:5,unpaved:3,tunnel:2,motorway:1.5", kinds: WeightFactors.avoidable, defaultFactor: 10) == nil)
        #expect(factors.read("major_roads:1.7", kinds: WeightFactors.preferable, defaultFactor: 1.5) == nil)
        var random = SplitMix64(seed: 23)
        var router = Router(graph: graph)
        var routed = 0, changed = 0
        for _ in 0..<120 {
            guard let snaps = try? router.snapWaypoints([PricedOracle.point(graph, &random), PricedOracle.point(graph, &random)]) else { continue }
            let (oracle, legs) = PricedOracle.legs(&router, from: snaps[0], to: snaps[1], factors: factors)
            let plain = router.routeLeg(from: snaps[0], to: snaps[1], algorithm: .automatic)
            if oracle != nil { routed += 1 }
            if let plain, let weighed = legs[0], Set(plain.stretches.map(\.arc)) != Set(weighed.stretches.map(\.arc)) { changed += 1 }
        }
        #expect(routed > 60 && changed > 5, "\(changed) of \(routed) legs changed by the weights")

        let engine = try Engine(directory: graphs)
        var query = TableQuery(mode: .driving, points: (0..<10).map { _ in PricedOracle.point(graph, &random) })
        query.unsnappedPointsAreNull = true
        query.weightFactors = factors
        let compared = try PricedOracle.table(engine, graph, query)
        #expect(compared >= 40, "\(compared) cells compared")
    }
}
