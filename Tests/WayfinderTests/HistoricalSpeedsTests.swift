import Customization
import Engine
import GraphImport
import Foundation
import RoadGraph
import Routing
import Testing

/// Historical speeds (`customize --historical-speeds`): a road slowed at some quarter hours of the week changes
/// the routes that reach it then, routes and tables at a departure time equal the time-dependent Dijkstra oracle,
/// and routes without a time keep the metric.
@Suite(.serialized) struct HistoricalSpeedsTests {
    @Test func filesReadSlotsAndWeeklyHoursAndRefuseTheRest() throws {
        let rows = try TrafficFiles.historicalSpeeds(Data("""
            1,2,30,0
            1,2,20,Mo-Fr 07:00-09:00
            3,4,15,Sa,Su 10:00-10:30
            5,6,50,671

            """.utf8), name: "week.csv")
        #expect(rows.count == 4)
        #expect(rows[0].slots == [0] && rows[3].slots == [671])
        // Five mornings of eight quarter hours: Monday's from slot 28.
        #expect(rows[1].slots.count == 40 && rows[1].slots.first == 28 && rows[1].slots.last == 419)
        let weekend: [UInt16] = [520, 521, 616, 617]  // Saturday's and Sunday's slots 40 and 41
        #expect(rows[2].slots == weekend, "\(rows[2].slots)")
        let bad = """
            1,2,30,0
            1,2,30,672
            1,2,0,5
            1,2,30,Jan 07:00-09:00
            1,2,30,someday
            x,2,30,1
            1,2,30

            """
        do {
            _ = try TrafficFiles.historicalSpeeds(Data(bad.utf8), name: "bad.csv")
            Issue.record("a bad file was read")
        } catch let error as TrafficFileError {
            #expect(error.count == 6 && error.problems.map(\.line) == [2, 3, 4, 5, 6, 7], "\(error)")
            #expect(error.description.contains("bad.csv:4: 'Jan 07:00-09:00' depends on the date"), "\(error)")
        }
    }

    /// Week slots of a departure: Monday 00:00 is slot 0, and the clock runs on from the departure.
    @Test func departuresFindTheirSlot() throws {
        let monday = try ClockTime(iso8601: "2025-01-13T08:07").wallSeconds  // a Monday
        let departure = Departure(local: LocalTime(wallSeconds: monday))
        #expect(departure.slot(after: 0) == 32)
        #expect(departure.slot(after: 8 * 60_000) == 33)
        #expect(Departure(local: LocalTime(wallSeconds: monday - 8 * 3600 - 7 * 60 - 1)).slot(after: 0) == 671)
    }

    /// Main Street's c–d slowed to 5 km/h on weekday mornings: the detour at Monday 08:00, Main Street at 10:00 and
    /// on Saturday, and a car leaving a few seconds before 07:00 reaches c–d after it and takes the detour.
    @Test func aSlowMorningSendsRoutesRound() throws {
        let map = CustomizationTests.street()
        _ = try map.build()
        let files = try TemporaryDirectory()
        let week = files.path + "/week.csv"
        try CustomizationTests.rows(["c,d,5,Mo-Fr 07:00-09:00"], map).write(toFile: week, atomically: true, encoding: .utf8)
        let run = try CommandLineTests.run(["customize", "--graph", map.graphDirectory, "--historical-speeds", week])
        #expect(run.status == 0 && run.stderr.contains("historical speeds: 1 segments used, 0 naming no segment"), "\(run.stderr)")
        let graph = try RoadGraph(contentsOf: try graphFile(map.graphDirectory, .driving))
        #expect(graph.hasHistory && !graph.hasWeekBounds, "slower only: the metric's bounds hold")
        let info = try CommandLineTests.run(["info", "--graph", map.graphDirectory])
        #expect(info.stdout.contains("historical speeds on 1 arcs"), "\(info.stdout)")
        let points = [map.position(between: "a", "b", at: 0.5), map.position(between: "d", "e", at: 0.5)]
        let plain = try checkedRoute(graph, points)
        func at(_ time: String) throws -> Routing.Route {
            try TimedRulesTests.timedRoute(graph, points, Departure(local: try TimedRulesTests.local(time)))
        }
        #expect(!roadNames(plain).contains("Detour"))
        #expect(roadNames(try at("2025-01-13T08:00")).contains("Detour"))
        let later = try at("2025-01-13T10:00"), saturday = try at("2025-01-18T08:00")
        for route in [later, saturday] {
            #expect(!roadNames(route).contains("Detour") && route.weight == plain.weight && route.duration == plain.duration)
        }
        // Leaving at 06:59:59, c is reached after 07:00 (the street is 100 m a segment at 25 km/h).
        #expect(roadNames(try at("2025-01-13T06:59:59")).contains("Detour"))
        #expect(!roadNames(try at("2025-01-13T06:58")).contains("Detour"))

        // Over HTTP: the morning's duration, and none without a time.
        let engine = try Engine(directory: map.graphDirectory)
        var query = RouteQuery(mode: .driving, points: points)
        query.time = .departure(try ClockTime(iso8601: "2025-01-13T08:00"))
        let morning = try engine.route(query)
        #expect(roadNames(morning.best.route).contains("Detour") && morning.best.route.duration > plain.duration)
        query.time = nil
        #expect(try engine.route(query).best.route.duration == plain.duration)
    }

    /// A random week for a third of Helsinki's roads (some faster than the import, some slower, in windows from a
    /// quarter hour to the whole weekday), routed at random times about the morning's edges: every leg, by the
    /// hierarchy's guide, A* and Dijkstra, costs what the oracle says at that time; its pieces add up to it; the
    /// week changes many legs; tables at a time equal the oracle cell by cell.
    @Test func helsinkiWeeksMatchTheOracleAtEveryTime() throws {
        try Self.checkWeek(OracleTests.packageRoot.appendingPathComponent("graphs/helsinki.osm.pbf").path, pairs: 120, tablePoints: 10)
    }

    @Test(.enabled(if: Available.porto, "the Porto extract is not in ../shared/data"))
    func portoWeeksMatchTheOracleAtEveryTime() throws {
        try Self.checkWeek(OracleTests.sharedData.appendingPathComponent("r5-porto_portugal.osm.pbf").path, pairs: 40, tablePoints: 6)
    }

    static func checkWeek(_ input: String, pairs: Int, tablePoints: Int) throws {
        let directory = try TemporaryDirectory()
        let graphs = directory.path + "/g"
        _ = try GraphImporter.importGraphs(from: input, to: graphs, modes: [.driving])
        let imported = try RoadGraph(contentsOf: try graphFile(graphs, .driving))
        let windows = ["Mo-Fr 07:00-09:00", "Mo 08:00-08:15", "Mo 07:45-08:30", "Mo-Su 06:00-22:00", "Sa,Su", "32", "33"]
        let rows = CustomizationTests.trafficRows(imported, seed: 7) { _, random in
            random.next() % 3 == 0 ? "\(3 + random.next() % 110),\(windows[Int(random.next() % UInt64(windows.count))])" : nil
        }
        let files = try TemporaryDirectory()
        let week = files.path + "/week.csv"
        try rows.speeds.write(toFile: week, atomically: true, encoding: .utf8)
        let report = try GraphCustomizer.customize(directory: graphs, mode: .driving, speedFiles: [], turnFiles: [], historyFiles: [week])
        let graph = try RoadGraph(contentsOf: try graphFile(graphs, .driving))
        #expect(report.unusedHistorySegments == 0 && report.historicalArcs > graph.arcCount / 5,
                "\(report.historicalArcs) of \(graph.arcCount) arcs")
        #expect(graph.hasHistory && graph.hasWeekBounds, "some roads faster than the import, and bounds for them")

        var random = SplitMix64(seed: 17)
        let monday = try ClockTime(iso8601: "2025-01-13T07:40").wallSeconds
        var router = Router(graph: graph)
        var routed = 0, changed = 0
        for _ in 0..<pairs {
            guard let snaps = try? router.snapWaypoints([PricedOracle.point(graph, &random), PricedOracle.point(graph, &random)]) else { continue }
            let departure = Departure(local: LocalTime(wallSeconds: monday + Int64(random.next() % 3600)))
            let (oracle, legs) = PricedOracle.legs(&router, from: snaps[0], to: snaps[1], departure: departure)
            // With weights by kind of road as well.
            var factors = WeightFactors()
            factors.weigh(.toll, by: 4)
            factors.weigh(.minorRoads, by: 1.3)
            _ = PricedOracle.legs(&router, from: snaps[0], to: snaps[1], departure: departure, factors: factors)
            let untimed = router.routeLeg(from: snaps[0], to: snaps[1], algorithm: .automatic)
            #expect(untimed?.weight == ReferenceDijkstra.cost(in: graph, from: graph.sourceEndpoints(snaps[0]),
                                                              to: graph.targetEndpoints(snaps[1])), "no time: the metric")
            if oracle != nil { routed += 1 }
            if untimed?.weight != legs[0]?.weight { changed += 1 }
        }
        #expect(routed > pairs / 2 && changed > routed / 3, "\(changed) of \(routed) legs changed by the week")

        let engine = try Engine(directory: graphs)
        let points = (0..<tablePoints).map { _ in PricedOracle.point(graph, &random) }
        var compared = 0
        for minutes in [0, 20, 35] {
            var query = TableQuery(mode: .driving, points: points)
            query.unsnappedPointsAreNull = true  // a random point may be out at sea
            let departure = monday + Int64(minutes * 60)
            query.departure = ClockTime(wallSeconds: departure)
            compared += try PricedOracle.table(engine, graph, query, departure: Departure(local: LocalTime(wallSeconds: departure)))
        }
        #expect(compared >= tablePoints * tablePoints, "\(compared) cells compared")

        // A customization without the week drops it, bounds included, and the graph loads.
        _ = try GraphCustomizer.customize(directory: graphs, mode: .driving, speedFiles: [], turnFiles: [])
        let plain = try RoadGraph(contentsOf: try graphFile(graphs, .driving))
        #expect(!plain.hasHistory && !plain.hasWeekBounds)
    }
}
