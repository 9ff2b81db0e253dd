import Customization
import Engine
import Foundation
import GraphImport
import HTTPAPI
import RoadGraph
import Routing
import Testing
import WayfinderC
import WayfinderEngine

/// Departure times and the conditional tags they read: the opening-hours subset, conditional restrictions against
/// OSRM's (`--parse-conditional-restrictions` with a timestamp), closures OSRM does not read, a time reached
/// mid-route, and every timed route against the reference Dijkstra at the same time.
@Suite struct TimedRulesTests {
    struct HoursCase: CustomStringConvertible, Sendable {
        var condition: String, at: String, active: Bool
        var description: String { "\(condition) at \(at)" }
    }

    // 2025-01-15 is a Wednesday, 2025-01-17 a Friday, 2025-01-18 a Saturday.
    static let hoursCases: [HoursCase] = [
        .init(condition: "Mo-Fr 07:00-09:00", at: "2025-01-15T07:00", active: true),
        .init(condition: "Mo-Fr 07:00-09:00", at: "2025-01-15T06:59", active: false),
        .init(condition: "Mo-Fr 07:00-09:00", at: "2025-01-15T08:59", active: true),
        .init(condition: "Mo-Fr 07:00-09:00", at: "2025-01-15T09:00", active: false),
        .init(condition: "Mo-Fr 07:00-09:00", at: "2025-01-18T07:30", active: false),
        .init(condition: "22:00-06:00", at: "2025-01-15T23:00", active: true),
        .init(condition: "22:00-06:00", at: "2025-01-15T05:00", active: true),
        .init(condition: "22:00-06:00", at: "2025-01-15T06:30", active: false),
        .init(condition: "Mo-Fr 22:00-06:00", at: "2025-01-18T05:00", active: true),
        .init(condition: "Mo-Fr 22:00-06:00", at: "2025-01-19T23:00", active: false),
        .init(condition: "Mo-Fr 22:00-06:00", at: "2025-01-20T05:00", active: false),
        .init(condition: "Sa,Su", at: "2025-01-18T12:00", active: true),
        .init(condition: "Sa,Su", at: "2025-01-15T12:00", active: false),
        .init(condition: "Fr-Mo", at: "2025-01-19T12:00", active: true),
        .init(condition: "Fr-Mo", at: "2025-01-15T12:00", active: false),
        .init(condition: "Mo-Fr 07:00-09:00,16:00-18:00", at: "2025-01-15T17:00", active: true),
        .init(condition: "Mo-Fr 07:00-09:00,16:00-18:00", at: "2025-01-15T12:00", active: false),
        .init(condition: "Mar-Oct", at: "2025-07-16T12:00", active: true),
        .init(condition: "Mar-Oct", at: "2025-01-15T12:00", active: false),
        .init(condition: "Dec 24-Jan 20", at: "2025-01-15T12:00", active: true),
        .init(condition: "Dec 24-Jan 20", at: "2025-12-25T12:00", active: true),
        .init(condition: "Dec 24-Jan 20", at: "2025-01-25T12:00", active: false),
        .init(condition: "Mar-Oct Mo-Fr 07:00-09:00", at: "2025-07-16T07:30", active: true),
        .init(condition: "Mar-Oct Mo-Fr 07:00-09:00", at: "2025-01-15T07:30", active: false),
        .init(condition: "Mo-Fr 07:00-09:00; Sa 10:00-12:00", at: "2025-01-18T11:00", active: true),
        .init(condition: "Mo-Fr 07:00-09:00; Sa 10:00-12:00", at: "2025-01-18T07:30", active: false),
        .init(condition: "Mo-Fr 07:00-09:00, Sa 10:00-12:00", at: "2025-01-15T07:30", active: true),
        .init(condition: "Mo-Su; Sa off", at: "2025-01-15T12:00", active: true),
        .init(condition: "Mo-Su; Sa off", at: "2025-01-18T12:00", active: false),
        .init(condition: "24/7", at: "2025-01-18T03:00", active: true),
        .init(condition: "2025 Jan-Feb", at: "2025-01-15T12:00", active: true),
        .init(condition: "2024", at: "2025-01-15T12:00", active: false),
        .init(condition: "PH", at: "2025-01-15T12:00", active: false),
        .init(condition: "Mo-Fr 07:00-09:00; PH off", at: "2025-01-15T07:30", active: true),
        .init(condition: "Mo-Fr 07:00-09:00 \"school days\"", at: "2025-01-15T07:30", active: true),
        .init(condition: "Mo-Fr 07:00-24:00", at: "2025-01-15T23:59", active: true),
    ]

    @Test(arguments: hoursCases)
    func openingHours(_ c: HoursCase) throws {
        let hours = try #require(OpeningHours(c.condition))
        #expect(hours.isActive(at: LocalTime(wallSeconds: try ClockTime(iso8601: c.at).wallSeconds)) == c.active)
    }

    /// What OSRM drops (a weight, the weather, a time before its days, lower case) is not read either.
    @Test func conditionsOutsideTheSubsetAreNotRead() {
        for text in ["wet", "weight>7", "Mo-Fr 07:00-09:00 AND weight>7", "07:00-09:00 Mo-Fr", "mo-fr 07:00-09:00",
                     "sunrise-sunset", "", "Mo-Fr 07:00-", "Mo[1] 07:00-09:00", "25:00-26:00"] {
            #expect(OpeningHours(text) == nil, "\(text)")
        }
    }

    @Test func conditionalValuesSplitOnSemicolonsOutsideBrackets() throws {
        let parts = try #require(ConditionalValue.parse("no @ (Mo-Fr 07:00-09:00; Sa 10:00-12:00); private @ Su"))
        #expect(parts.map(\.value) == ["no", "private"])
        #expect(parts.map(\.condition) == ["Mo-Fr 07:00-09:00; Sa 10:00-12:00", "Su"])
        #expect(ConditionalValue.parse("no") == nil)
    }

    @Test func clockTimesReadISO8601AndRefuseTheRest() throws {
        #expect(try ClockTime(iso8601: "2026-12-07T08:00").offset == nil)
        #expect(try ClockTime(iso8601: "2026-12-07T08:00:30Z").offset == 0)
        #expect(try ClockTime(iso8601: "2026-12-07T08:00+05:30").offset == 19_800)
        for bad in ["2026-12-07", "2026-13-07T08:00", "2026-02-29T08:00", "2026-12-07T24:00", "tomorrow", "2026-12-07T08:00+5"] {
            #expect(throws: EngineError.self, "\(bad)") { try ClockTime(iso8601: bad) }
        }
    }

    // MARK: - Drawn maps

    /// A crossroads x with a ring around it; South runs up from s (far below with a large `gridSize`).
    static func crossroads(gridSize: Double = 25, restriction: [String: String]? = nil,
                           westTags: [String: String] = [:]) -> (TestMap, south: Int64, west: Int64) {
        let map = TestMap("""
            a   b   c

            d   x   e

            f   g   h

                s
            """, gridSize: gridSize)
        let south = map.way("sgx", ["highway": "primary", "name": "South"])
        map.way("xb", ["highway": "primary", "name": "North"])
        map.way("xe", ["highway": "primary", "name": "East"])
        let west = map.way("dx", ["highway": "primary", "name": "West"].merging(westTags) { $1 })
        map.way("abcehgfda", ["highway": "residential", "name": "Ring"])
        if let restriction {
            map.relation([("way", south, "from"), ("node", map.nodes["x"]!.id, "via"), ("way", west, "to")],
                         ["type": "restriction"].merging(restriction) { $1 })
        }
        return (map, south, west)
    }

    /// A time zone file for the drawn maps (which lie at 60° N, 25° E), as osrm-contract takes it.
    static func helsinkiZones() throws -> (TemporaryDirectory, String) {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/zones.geojson"
        try """
        {"type":"FeatureCollection","features":[{"type":"Feature","properties":{"tzid":"Europe/Helsinki"},
        "geometry":{"type":"Polygon","coordinates":[[[20,55],[32,55],[32,66],[20,66],[20,55]]]}}]}
        """.write(toFile: path, atomically: true, encoding: .utf8)
        return (directory, path)
    }

    struct OSRMCase: CustomStringConvertible, Sendable {
        var tags: [String: String]
        /// UTC instants (Helsinki is UTC+2 in winter, UTC+3 in summer).
        var times: [String]
        /// Where the route from South goes: West (the turn restricted) by default.
        var target: (Character, Character) = ("d", "x")
        var description: String { "\(tags) at \(times) to \(target)" }
    }

    static let osrmCases: [OSRMCase] = [
        .init(tags: ["restriction:conditional": "no_left_turn @ (Mo-Fr 07:00-09:00)"],
              times: ["2025-01-15T05:30Z", "2025-01-15T07:30Z", "2025-01-18T05:30Z", "2025-07-16T04:30Z", "2025-07-16T06:30Z"]),
        .init(tags: ["restriction:conditional": "no_left_turn @ (22:00-06:00)"], times: ["2025-01-15T21:00Z", "2025-01-15T12:00Z"]),
        .init(tags: ["restriction:conditional": "no_left_turn @ (Sa,Su)"], times: ["2025-01-17T22:30Z", "2025-01-17T12:00Z"]),
        .init(tags: ["restriction:conditional": "no_left_turn @ (Dec 24-Jan 20)"], times: ["2025-01-15T12:00Z", "2025-02-15T12:00Z"]),
        // OSRM reads any `only_*` as "only into the to-way" (here West): the right turn to East is what it forbids.
        .init(tags: ["restriction:motorcar:conditional": "only_straight_on @ (Mo-Su; Sa off)"],
              times: ["2025-01-15T12:00Z", "2025-01-18T12:00Z"], target: ("e", "x")),
        .init(tags: ["restriction:conditional": "no_left_turn @ (wet)"], times: ["2025-01-15T12:00Z"]),
        .init(tags: ["restriction:conditional": "no_left_turn @ (Mo-Fr 07:00-09:00)", "except": "motorcar"],
              times: ["2025-01-15T05:30Z"]),
    ]

    /// The left turn from South to West under a conditional restriction, at instants inside and outside its
    /// condition: the same route as OSRM contracted with that instant (`--parse-conditionals-from-now`).
    @Test(.enabled(if: OSRMOracle.available, Comment(rawValue: OSRMOracle.skipMessage)), arguments: osrmCases)
    func conditionalRestrictionAsOSRM(_ c: OSRMCase) throws {
        let (map, _, _) = Self.crossroads(restriction: c.tags)
        _ = try map.build(timeZone: .named("Europe/Helsinki"))
        let (zones, zoneFile) = try Self.helsinkiZones()
        let service = WayfinderService(engine: try Engine(directory: map.graphDirectory))
        let from = map.position(between: "g", "x", at: 0.5), to = map.position(between: c.target.0, c.target.1, at: 0.5)
        let request = "/route/v1/driving/\(OSRMCompatibilityTests.text(from));\(OSRMCompatibilityTests.text(to))"
        var distances: Set<Double> = []
        for time in c.times {
            let instant = try ClockTime(iso8601: time).wallSeconds
            let osrm = try OSRMOracle(map: map, profile: "car", extractArguments: ["--parse-conditional-restrictions"],
                                      contractArguments: ["--time-zone-file", zoneFile, "--parse-conditionals-from-now", "\(instant)"])
            let ours = CustomizationTests.figures(try service.json(request + "?compat=osrm&depart_at=\(time)").object)
            let theirs = CustomizationTests.figures(try osrm.json(request).object)
            distances.insert(theirs.distance)
            #expect(ours.code == theirs.code && abs(ours.distance - theirs.distance) <= 0.2
                    && abs(ours.duration - theirs.duration) <= CyclingTests.sameTenth, "\(c) at \(time): \(ours) against OSRM's \(theirs)")
        }
        #expect(c.times.count == 1 || distances.count == 2, "the condition's times change OSRM's route: \(distances)")
        withExtendedLifetime(zones) {}
    }

    /// A restriction via a way (South, then Mid, then left into West2) that holds at times: OSRM applies it at its
    /// contraction's instant, Wayfinder at the time the turn is reached; both at 07:30 and at 12:00, and the
    /// oracle at the same times.
    @Test(.enabled(if: OSRMOracle.available, Comment(rawValue: OSRMOracle.skipMessage)))
    func conditionalViaWayRestrictionAsOSRM() throws {
        let map = TestMap("""
            a   b   c

            d   y   e

            f   x   h

                g

                s
            """, gridSize: 25)
        let south = map.way("sgx", ["highway": "primary", "name": "South"])
        let mid = map.way("xy", ["highway": "primary", "name": "Mid"])
        let west = map.way("yd", ["highway": "primary", "name": "West2"])
        map.way("yb", ["highway": "primary", "name": "North"])
        map.way("xh", ["highway": "primary", "name": "East1"])
        map.way("ye", ["highway": "primary", "name": "East2"])
        map.way("xf", ["highway": "primary", "name": "West1"])
        map.way("abcehgfda", ["highway": "residential", "name": "Ring"])
        map.relation([("way", south, "from"), ("way", mid, "via"), ("way", west, "to")],
                     ["type": "restriction", "restriction:conditional": "no_left_turn @ (Mo-Fr 07:00-09:00)"])
        let graph = try map.build(timeZone: .named("Europe/Helsinki")).driving
        #expect(graph.timedRuleList.contains(where: \.isTurn) && graph.conditionNotes.isEmpty)
        let (zones, zoneFile) = try Self.helsinkiZones()
        let service = WayfinderService(engine: try Engine(directory: map.graphDirectory))
        let from = map.position(between: "g", "x", at: 0.5), to = map.position(between: "y", "d", at: 0.5)
        let request = "/route/v1/driving/\(OSRMCompatibilityTests.text(from));\(OSRMCompatibilityTests.text(to))"
        var distances: [Double] = []
        for (time, local) in [("2025-01-15T05:30Z", "2025-01-15T07:30"), ("2025-01-15T10:00Z", "2025-01-15T12:00")] {
            let osrm = try OSRMOracle(map: map, profile: "car", extractArguments: ["--parse-conditional-restrictions"],
                                      contractArguments: ["--time-zone-file", zoneFile, "--parse-conditionals-from-now",
                                                          "\(try ClockTime(iso8601: time).wallSeconds)"])
            let ours = CustomizationTests.figures(try service.json(request + "?compat=osrm&depart_at=\(time)").object)
            let theirs = CustomizationTests.figures(try osrm.json(request).object)
            #expect(ours.code == theirs.code && abs(ours.distance - theirs.distance) <= 0.2
                    && abs(ours.duration - theirs.duration) <= CyclingTests.sameTenth, "\(time): \(ours) against OSRM's \(theirs)")
            distances.append(try Self.timedRoute(graph, [from, to], Departure(local: try Self.local(local))).distance)
        }
        #expect(distances[0] > distances[1] + 50, "the restriction holds at 07:30 only: \(distances)")
        withExtendedLifetime(zones) {}
    }

    /// A route, checked at its departure: the hierarchy (with its check), A* and Dijkstra cost the same as the
    /// reference Dijkstra at the same time.
    static func timedRoute(_ graph: RoadGraph, _ points: [Coordinate], _ departure: Departure) throws -> Routing.Route {
        var router = Router(graph: graph)
        router.departure = departure
        let route = try router.route(points, algorithm: .ch)
        let astar = try router.route(points, algorithm: .astar)
        let dijkstra = try router.route(points, algorithm: .dijkstra)
        guard route.weight == dijkstra.weight, astar.weight == dijkstra.weight else {
            throw OracleMismatch(message: "CH \(route.weight), A* \(astar.weight), Dijkstra \(dijkstra.weight) at \(departure.local)")
        }
        for leg in route.legs {
            let oracle = ReferenceDijkstra.cost(in: graph, from: graph.sourceEndpoints(leg.source),
                                                to: graph.targetEndpoints(leg.target), departure: departure)
            guard oracle == leg.weight else {
                throw OracleMismatch(message: "route \(leg.weight) ≠ oracle \(String(describing: oracle)) at \(departure.local)")
            }
        }
        return route
    }

    static func local(_ text: String) throws -> LocalTime { LocalTime(wallSeconds: try ClockTime(iso8601: text).wallSeconds) }

    /// The restriction holds at the time the junction is reached, not at the departure: a car that leaves before
    /// 07:00 and reaches the junction after it must go round, and one that reaches it after 09:00 may turn.
    @Test func restrictionHoldsWhenTheJunctionIsReached() throws {
        let (map, _, _) = Self.crossroads(gridSize: 250, restriction: ["restriction:conditional": "no_left_turn @ (Mo-Fr 07:00-09:00)"])
        let graph = try map.build().driving
        let start = map.position(between: "s", "g", at: 0.1), end = map.position(between: "d", "x", at: 0.5)
        var plain = Router(graph: graph)
        let direct = try plain.route([start, end])
        let toJunction = try plain.route([start, map.position("x")]).duration
        #expect(toJunction > 30, "the approach takes \(toJunction) s")
        let seven = try Self.local("2025-01-15T07:00").wallSeconds, nine = try Self.local("2025-01-15T09:00").wallSeconds
        func departing(_ wall: Int64) throws -> Routing.Route { try Self.timedRoute(graph, [start, end], Departure(local: LocalTime(wallSeconds: wall))) }
        let half = Int64(toJunction / 2)
        #expect(try departing(seven - 2 * half - 60).distance == direct.distance, "reaches the junction before 07:00")
        #expect(try departing(seven - half).distance > direct.distance + 100, "leaves before 07:00, turns after it")
        #expect(try departing(nine - 2 * half - 60).distance > direct.distance + 100, "reaches the junction before 09:00")
        #expect(try departing(nine - half).distance == direct.distance, "leaves before 09:00, turns after it")
        #expect(try departing(nine + 600).duration == direct.duration)
    }

    /// `access:conditional` and `oneway:conditional` close roads at times for Wayfinder, as Valhalla reads them;
    /// OSRM reads neither, and `compat=osrm` (`closesRoads` off) ignores them too.
    @Test func conditionalAccessAndOnewaysCloseRoadsUnlessAsOSRM() throws {
        for tags in [["access:conditional": "no @ (Mo-Fr 07:00-09:00)"], ["motor_vehicle:conditional": "private @ (Mo-Fr 07:00-09:00)"],
                     ["oneway:conditional": "-1 @ (Mo-Fr 07:00-09:00)"]] {
            let (map, _, _) = Self.crossroads(westTags: tags)
            let graph = try map.build().driving
            #expect(graph.timedRuleList.count >= 1, "\(tags)")
            // Through West from d towards x (the way's own direction, which `oneway=-1` closes), or round by North.
            let points = [map.position(between: "a", "d", at: 0.5), map.position(between: "x", "e", at: 0.5)]
            let open = try Self.timedRoute(graph, points, Departure(local: try Self.local("2025-01-15T12:00")))
            let closed = try Self.timedRoute(graph, points, Departure(local: try Self.local("2025-01-15T07:30")))
            let asOSRM = try Self.timedRoute(graph, points, Departure(local: try Self.local("2025-01-15T07:30"), closesRoads: false))
            #expect(closed.distance > open.distance + 40, "\(tags): \(closed.distance) m against \(open.distance) m")
            #expect(asOSRM.distance == open.distance, "\(tags)")
        }
    }

    /// Walkers read `foot:conditional` (their hierarchy is over vertices, whose tables check the closures too), and
    /// cyclists `restriction:bicycle:conditional`.
    @Test func walkersAndCyclistsReadTheirOwnConditionalTags() throws {
        let (map, south, west) = Self.crossroads(westTags: ["foot:conditional": "no @ (Mo-Fr 07:00-09:00)"])
        map.relation([("way", south, "from"), ("node", map.nodes["x"]!.id, "via"), ("way", west, "to")],
                     ["type": "restriction", "restriction:bicycle:conditional": "no_left_turn @ (Mo-Fr 07:00-09:00)"])
        _ = try map.build(modes: [.driving, .walking, .cycling])
        let walking = try RoadGraph(contentsOf: try graphFile(map.graphDirectory, .walking))
        let cycling = try RoadGraph(contentsOf: try graphFile(map.graphDirectory, .cycling))
        #expect(walking.hierarchyOverVertices && walking.timedRuleList.count == 2 && cycling.timedRuleList.contains(where: \.isTurn))
        let across = [map.position(between: "a", "d", at: 0.5), map.position(between: "x", "e", at: 0.5)]
        let leftTurn = [map.position(between: "g", "x", at: 0.5), map.position(between: "d", "x", at: 0.5)]
        for (graph, points) in [(walking, across), (cycling, leftTurn)] {
            let noon = try Self.timedRoute(graph, points, Departure(local: try Self.local("2025-01-15T12:00")))
            let morning = try Self.timedRoute(graph, points, Departure(local: try Self.local("2025-01-15T07:30")))
            #expect(morning.distance > noon.distance + 40, "\(graph.mode): \(morning.distance) m against \(noon.distance) m")
        }
        let engine = try Engine(directory: map.graphDirectory)
        var query = TableQuery(mode: .walking, points: across)
        query.departure = try ClockTime(iso8601: "2025-01-15T07:30")
        let table = try engine.table(query)
        let cell = try #require(try table.rows(0..<2)[0][1])
        let oracle = ReferenceDijkstra.cost(in: walking, from: walking.sourceEndpoints(table.sources[0]!),
                                            to: walking.targetEndpoints(table.destinations[1]!),
                                            departure: Departure(local: try Self.local("2025-01-15T07:30")))
        #expect(UInt64(cell.weight) == oracle)
    }

    /// Conditional tags the import cannot apply are listed in the graph, with why; the import counts them.
    @Test func unreadConditionsAreListed() throws {
        let (map, _, _) = Self.crossroads(restriction: ["restriction:conditional": "no_left_turn @ (wet)"],
                                          westTags: ["maxspeed:conditional": "30 @ (22:00-06:00)",
                                                     "access:conditional": "destination @ (Mo-Fr 07:00-09:00)"])
        let graph = try map.build(timeZone: .named("Europe/Helsinki")).driving
        let notes = graph.conditionNoteLines
        #expect(notes.count == 3, "\(notes)")
        #expect(notes.contains { $0.contains("`wet` is not a time condition") }, "\(notes)")
        #expect(notes.contains { $0.contains("maxspeed:conditional") }, "\(notes)")
        #expect(notes.contains { $0.contains("destination-only at times") }, "\(notes)")
        #expect(graph.timeZoneName == "Europe/Helsinki" && graph.timedRuleList.isEmpty)
    }

    @Test func importRefusesAnUnknownTimeZoneAndFindsOneInABoundaryFile() throws {
        let (map, _, _) = Self.crossroads()
        #expect(throws: ImportError.self) { try map.build(timeZone: .named("Nowhere/Bogus")) }
        let (zones, zoneFile) = try Self.helsinkiZones()
        #expect(try map.build(timeZone: .boundaries(path: zoneFile)).driving.timeZoneName == "Europe/Helsinki")
        try #"{"type":"FeatureCollection","features":[]}"#.write(toFile: zoneFile, atomically: true, encoding: .utf8)
        #expect(throws: ImportError.self) { try map.build(timeZone: .boundaries(path: zoneFile)) }
        withExtendedLifetime(zones) {}
    }

    /// A customized graph keeps its timed rules and time zone; its hierarchy has no `timed` class, so its tables
    /// leaving at a time search every row with the rules: routes and cells still equal the oracle at the time.
    @Test func customizedGraphsKeepTheirTimedRules() throws {
        let (map, _, _) = Self.crossroads(restriction: ["restriction:conditional": "no_left_turn @ (Mo-Fr 07:00-09:00)"],
                                          westTags: ["oneway:conditional": "-1 @ (Sa,Su)"])
        _ = try map.build(timeZone: .named("Europe/Helsinki"))
        _ = try GraphCustomizer.customize(directory: map.graphDirectory, mode: .driving, speedFiles: [], turnFiles: [])
        let graph = try RoadGraph(contentsOf: try graphFile(map.graphDirectory, .driving))
        #expect(!graph.cchUpStart.isEmpty && graph.timedRuleList.count == 2 && graph.timeZoneName == "Europe/Helsinki",
                "\(graph.cchUpStart.count) \(graph.timedRuleList.count) \(String(describing: graph.timeZoneName))")
        let points = [map.position(between: "g", "x", at: 0.5), map.position(between: "d", "x", at: 0.5),
                      map.position(between: "a", "d", at: 0.5), map.position(between: "x", "e", at: 0.5)]
        let engine = try Engine(directory: map.graphDirectory)
        for time in ["2025-01-15T07:30", "2025-01-15T12:00", "2025-01-18T12:00"] {
            let at = Departure(local: try Self.local(time))
            _ = try Self.timedRoute(graph, [points[0], points[1]], at)
            _ = try Self.timedRoute(graph, [points[2], points[3]], at)
            var query = TableQuery(mode: .driving, points: points)
            query.departure = try ClockTime(iso8601: time)
            let table = try engine.table(query)
            let cells = try table.rows(0..<points.count)
            for i in points.indices {
                for j in points.indices where i != j {
                    let oracle = ReferenceDijkstra.cost(in: graph, from: graph.sourceEndpoints(table.sources[i]!),
                                                        to: graph.targetEndpoints(table.destinations[j]!), departure: at)
                    #expect(cells[i][j].map { UInt64($0.weight) } == oracle, "\(time) cell \(i),\(j)")
                }
            }
        }
    }

    /// The command line: `route --arrive-by` says when to leave, in text and in JSON; bad times and zones are usage
    /// errors (exit 1), the zone refused before the extract is read.
    @Test func commandLineTakesTimesAndRefusesBadOnes() throws {
        let (map, _, _) = Self.crossroads(gridSize: 250, restriction: ["restriction:conditional": "no_left_turn @ (Mo-Fr 07:00-09:00)"])
        _ = try map.build(timeZone: .named("Europe/Helsinki"))
        func point(_ c: Coordinate) -> String { "\(c.latitude),\(c.longitude)" }
        let points = [point(map.position(between: "s", "g", at: 0.1)), point(map.position(between: "d", "x", at: 0.5))]
        let text = try CommandLineTests.run(["route", "--graph", map.graphDirectory, "--arrive-by", "2025-01-15T07:40"] + points)
        #expect(text.status == 0 && text.stdout.hasPrefix("Leave at 2025-01-15T07:"), "\(text.stdout.prefix(100)) \(text.stderr)")
        let json = try CommandLineTests.run(["route", "--graph", map.graphDirectory, "--format", "json", "--depart-at",
                                             "2025-01-15T05:30Z"] + points)
        let body = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(body?["depart_at"] as? String == "2025-01-15T07:30", "\(json.stdout.suffix(120))")
        for bad in [["route", "--graph", map.graphDirectory, "--depart-at", "07:30"] + points,
                    ["route", "--graph", map.graphDirectory, "--depart-at", "2025-01-15T07:30", "--arrive-by", "2025-01-15T08:00"] + points,
                    ["import", map.directory!.path + "/map.osm", "--output", map.directory!.path + "/other", "--time-zone", "Mars/Olympus"]] {
            let run = try CommandLineTests.run(bad)
            #expect(run.status == 1 && !run.stderr.contains("reading"), "\(bad): \(run.status) \(run.stderr)")
        }
    }

    /// A grid of short streets with random conditional restrictions, closures and oneways whose windows are minutes
    /// long, routed at random times: every route equals the reference Dijkstra at its time, and the rules change
    /// some of them.
    @Test func randomRulesMatchTheOracleAtEveryTime() throws {
        let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJ")
        let size = 6
        let picture = (0..<size).map { r in (0..<size).map { String(letters[r * size + $0]) }.joined(separator: " ") }.joined(separator: "\n")
        let map = TestMap(picture, gridSize: 60)
        var random = SplitMix64(seed: 31)
        let windows = ["Mo-Fr 07:00-07:04", "07:02-07:06", "Sa,Su", "Mo-Fr 07:00-09:00", "06:58-07:01; We off"]
        func window() -> String { windows[Int(random.next() % UInt64(windows.count))] }
        var ways: [(Int64, Character, Character)] = []
        for r in 0..<size {
            for c in 0..<size {
                let here = letters[r * size + c]
                for (dr, dc) in [(0, 1), (1, 0)] where r + dr < size && c + dc < size {
                    let there = letters[(r + dr) * size + c + dc]
                    var tags = ["highway": random.next() % 3 == 0 ? "primary" : "residential"]
                    switch random.next() % 8 {
                    case 0: tags["access:conditional"] = "no @ (\(window()))"
                    case 1: tags["oneway:conditional"] = "yes @ (\(window()))"
                    default: break
                    }
                    ways.append((map.way(String([here, there]), tags), here, there))
                }
            }
        }
        for _ in 0..<30 {
            let (from, a, b) = ways[Int(random.next() % UInt64(ways.count))]
            let via = random.next() % 2 == 0 ? a : b
            let onward = ways.filter { $0.0 != from && ($0.1 == via || $0.2 == via) }
            guard let (to, _, _) = onward.isEmpty ? nil : onward[Int(random.next() % UInt64(onward.count))] else { continue }
            let kind = random.next() % 3 == 0 ? "only_straight_on" : "no_left_turn"
            map.relation([("way", from, "from"), ("node", map.nodes[via]!.id, "via"), ("way", to, "to")],
                         ["type": "restriction", "restriction:conditional": "\(kind) @ (\(window()))"])
        }
        // And via ways: from a way, along the next, onto the one after.
        for _ in 0..<12 {
            let (from, a, b) = ways[Int(random.next() % UInt64(ways.count))]
            let joint = random.next() % 2 == 0 ? a : b
            let vias = ways.filter { $0.0 != from && ($0.1 == joint || $0.2 == joint) }
            guard !vias.isEmpty else { continue }
            let (via, c, d) = vias[Int(random.next() % UInt64(vias.count))]
            let far = c == joint ? d : c
            let onward = ways.filter { $0.0 != via && $0.0 != from && ($0.1 == far || $0.2 == far) }
            guard !onward.isEmpty else { continue }
            let to = onward[Int(random.next() % UInt64(onward.count))].0
            map.relation([("way", from, "from"), ("way", via, "via"), ("way", to, "to")],
                         ["type": "restriction", "restriction:conditional": "no_left_turn @ (\(window()))"])
        }
        let graph = try map.build().driving
        #expect(!graph.timedRules.isEmpty && graph.arcBase.indices.contains { graph.arcBase[$0] != UInt32($0) })
        var plain = Router(graph: graph)
        var changed = 0
        let base = try Self.local("2025-01-15T06:55").wallSeconds
        for _ in 0..<150 {
            func point() -> Coordinate {
                let (_, a, b) = ways[Int(random.next() % UInt64(ways.count))]
                return map.position(between: a, b, at: Double(random.next() % 1000) / 1000)
            }
            let points = [point(), point()]
            let departure = Departure(local: LocalTime(wallSeconds: base + Int64(random.next() % 900)))
            let untimed = try? plain.route(points)
            let timed: Routing.Route?
            do { timed = try Self.timedRoute(graph, points, departure) } catch let error as OracleMismatch { throw error } catch { timed = nil }
            if untimed?.weight != timed?.weight { changed += 1 }
            if timed == nil, untimed != nil {
                // No route at that time: the oracle agrees.
                var router = Router(graph: graph)
                router.departure = departure
                let snaps = try router.snapWaypoints(points)
                #expect(ReferenceDijkstra.cost(in: graph, from: graph.sourceEndpoints(snaps[0]), to: graph.targetEndpoints(snaps[1]),
                                               departure: departure) == nil)
            }
        }
        #expect(changed >= 10, "the rules changed \(changed) of 150 routes")

        // Tables leaving at a time, cell by cell against the oracle at that time: the cells the hierarchy's `timed`
        // class proves open, and those searched again.
        let engine = try Engine(directory: map.graphDirectory)
        let points = (0..<12).map { _ -> Coordinate in
            let (_, a, b) = ways[Int(random.next() % UInt64(ways.count))]
            return map.position(between: a, b, at: Double(random.next() % 1000) / 1000)
        }
        var differing = 0
        for minute in [0, 6, 7, 9, 12] {
            var query = TableQuery(mode: .driving, points: points)
            let departure = try ClockTime(iso8601: "2025-01-15T06:55").wallSeconds + Int64(minute * 60)
            query.departure = ClockTime(wallSeconds: departure)
            let table = try engine.table(query)
            let cells = try table.rows(0..<points.count)
            let plain = try engine.table(TableQuery(mode: .driving, points: points)).rows(0..<points.count)
            let at = Departure(local: LocalTime(wallSeconds: departure))
            for i in points.indices {
                for j in points.indices {
                    let oracle = ReferenceDijkstra.cost(in: graph, from: graph.sourceEndpoints(table.sources[i]!),
                                                        to: graph.targetEndpoints(table.destinations[j]!), departure: at)
                    if i != j { #expect(cells[i][j].map { UInt64($0.weight) } == oracle, "cell \(i),\(j) at +\(minute) min") }
                    if cells[i][j]?.weight != plain[i][j]?.weight { differing += 1 }
                }
            }
        }
        #expect(differing > 0, "the rules change some cells")
    }

    // MARK: - Requests

    /// `depart_at` on a route and a table gives the same duration for the same pair; `arrive_by` leaves in time;
    /// bad times and both at once are refused.
    @Test func departureAndArrivalOverHTTP() throws {
        let (map, _, _) = Self.crossroads(gridSize: 250, restriction: ["restriction:conditional": "no_left_turn @ (Mo-Fr 07:00-09:00)"])
        _ = try map.build(timeZone: .named("Europe/Helsinki"))
        let engine = try Engine(directory: map.graphDirectory)
        let service = WayfinderService(engine: engine)
        let from = map.position(between: "s", "g", at: 0.1), to = map.position(between: "d", "x", at: 0.5)
        let pair = "\(OSRMCompatibilityTests.text(from));\(OSRMCompatibilityTests.text(to))"
        func duration(_ body: [String: Any]) -> Double? { ((body["routes"] as? [[String: Any]])?.first)?["duration"] as? Double }
        let noon = try service.json("/route/v1/driving/\(pair)?depart_at=2025-01-15T12:00")
        let morning = try service.json("/route/v1/driving/\(pair)?depart_at=2025-01-15T07:30")
        let untimed = try service.json("/route/v1/driving/\(pair)")
        #expect(noon.status == 200 && morning.status == 200)
        #expect(duration(noon.object) == duration(untimed.object))
        #expect((duration(morning.object) ?? 0) > (duration(noon.object) ?? .infinity) + 20)
        // Helsinki is UTC+2 in January: 05:30Z is 07:30 there.
        let utc = try service.json("/route/v1/driving/\(pair)?depart_at=2025-01-15T05:30Z").object
        #expect(duration(utc) == duration(morning.object) && utc["depart_at"] as? String == "2025-01-15T07:30")
        #expect(untimed.object["depart_at"] == nil)
        let table = try service.json("/table/v1/driving/\(pair)?sources=0&destinations=1&depart_at=2025-01-15T07:30")
        let cell = ((table.object["durations"] as? [[Double?]])?.first?.first).flatMap { $0 }
        #expect(cell.map { abs($0 - (duration(morning.object) ?? 0)) <= 0.1 } == true, "table \(String(describing: cell))")

        var query = RouteQuery(mode: .driving, points: [from, to])
        query.time = .arrival(try ClockTime(iso8601: "2025-01-15T07:40"))
        let answer = try engine.route(query)
        let leave = try #require(answer.departure)
        let deadline = try Self.local("2025-01-15T07:40").wallSeconds
        #expect(leave.adding(seconds: Int64(answer.best.route.duration.rounded(.up))).wallSeconds <= deadline)
        #expect(answer.best.route.distance > (try engine.route(RouteQuery(mode: .driving, points: [from, to]))).best.route.distance + 100,
                "arriving at 07:40 means turning inside the window")

        for bad in ["depart_at=2025-01-15", "depart_at=soon", "arrive_by=2025-01-15T07:40&depart_at=2025-01-15T07:00"] {
            let response = try service.json("/route/v1/driving/\(pair)?\(bad)")
            #expect(response.status == 400, "\(bad): \(response.object)")
        }
        #expect(try service.json("/table/v1/driving/\(pair)?arrive_by=2025-01-15T07:40").status == 400)

        // The Swift library and the C entry point take the same times.
        let wayfinder = try Wayfinder(directory: map.graphDirectory, modes: [.driving])
        let waypoints: [Waypoint] = [.location(Location(latitude: from.latitude, longitude: from.longitude)),
                                     .location(Location(latitude: to.latitude, longitude: to.longitude))]
        let swiftMorning = try wayfinder.route(waypoints, options: RouteOptions(time: .departing("2025-01-15T07:30")))
        #expect(abs(swiftMorning.best.duration - (duration(morning.object) ?? 0)) < 0.05 && swiftMorning.departure == "2025-01-15T07:30")
        let instant = try wayfinder.route(waypoints, options: RouteOptions(time: .departing(at: Date(timeIntervalSince1970: 1_736_926_200))))
        #expect(instant.departure == "2025-01-15T09:30", "07:30Z is 09:30 in Helsinki: \(String(describing: instant.departure))")
        #expect(try wayfinder.route(waypoints, options: RouteOptions()).departure == nil)
        #expect(throws: WayfinderError.self) { try wayfinder.route(waypoints, options: RouteOptions(time: .arriving("noon"))) }
        let engineHandle = try #require(wf_open(map.graphDirectory, "driving", nil))
        defer { wf_close(engineHandle) }
        for (request, expected) in [("\"depart_at\": \"2025-01-15T07:30\"", Int32(0)), ("\"depart_at\": 5", 400),
                                    ("\"depart_at\": \"2025-01-15T07:30\", \"arrive_by\": \"2025-01-15T08:00\"", 400)] {
            var out: UnsafeMutablePointer<UInt8>?
            var length = 0
            let json = "{\"points\": [[\(from.latitude), \(from.longitude)], [\(to.latitude), \(to.longitude)]], \(request)}"
            let status = wf_route(engineHandle, json, &out, &length)
            let body = out.map { String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self) } ?? ""
            wf_free(out)
            #expect(status == expected, "\(request): \(body.prefix(200))")
            if expected == 0 { #expect(body.contains("\"depart_at\":\"2025-01-15T07:30\""), "\(body.suffix(200))") }
        }
    }
}
