import Engine
import Foundation
import RoadGraph
import Testing
import WayfinderEngine
import WayfinderImport

/// The engine as a library: the Swift facade against the CLI and the HTTP API.
@Suite(.serialized) struct LibraryTests {
    static var graph: String { CommandLineTests.graph.1 }

    static func cli(_ arguments: [String]) throws -> String {
        let run = try CommandLineTests.run(arguments)
        #expect(run.status == 0, "\(arguments): \(run.stderr)")
        return run.stdout.trimmingCharacters(in: .newlines)
    }

    static func json(_ text: String) throws -> NSDictionary {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? NSDictionary)
    }

    /// Routes between names and between coordinates give the CLI's JSON byte for byte, and their Swift values
    /// say the same as that JSON.
    @Test func swiftRoutesEqualTheCLIs() throws {
        let wayfinder = try Wayfinder(directory: Self.graph)
        #expect(Set(wayfinder.modes) == [.driving, .walking, .cycling] && wayfinder.hasPlaceIndex)
        let cases: [([Waypoint], [String], RouteOptions)] = [
            (["Kamppi", "Senaatintori"], ["Kamppi", "Senaatintori"], RouteOptions(mode: .walking)),
            ([.coordinate(60.1675, 24.9440), .coordinate(60.1756, 24.9412)], ["60.1675,24.944", "60.1756,24.9412"],
             RouteOptions(language: "zh", units: .imperial)),
            ([.coordinate(60.1699, 24.9384), .coordinate(60.1720, 24.9450), .coordinate(60.1756, 24.9412)],
             ["60.1699,24.9384", "60.172,24.945", "60.1756,24.9412"], RouteOptions(mode: .cycling, compatibility: .osrm)),
        ]
        for (waypoints, texts, options) in cases {
            let directions = try wayfinder.route(waypoints, options: options)
            let expected = try Self.cli(["route", "--graph", Self.graph, "--format", "json", "--mode", options.mode.rawValue,
                                         "--language", options.language, "--units", options.units.rawValue,
                                         "--compat", options.compatibility.rawValue] + texts)
            #expect(directions.osrmJSON() == expected, "\(texts)")
            let route = directions.best
            let answer = try #require((try Self.json(expected))["routes"] as? [NSDictionary]).first
            #expect(abs(route.distance - (answer?["distance"] as? Double ?? -1)) < 0.05)
            #expect(route.legs.count == waypoints.count - 1 && route.waypoints.count == waypoints.count)
            for leg in route.legs {
                #expect(leg.steps.first?.maneuver.type == "depart" && leg.steps.last?.maneuver.type == "arrive")
                #expect(abs(leg.steps.reduce(0) { $0 + $1.distance } - leg.distance) < 1)
            }
            #expect(route.geometry.count >= 2 && route.encodedPolyline().count > 4 && route.gpx().contains("<gpx"))
        }
    }

    /// A table equals `wayfinder matrix` cell for cell; nearest, trip, match and isochrone agree with the HTTP
    /// API answering the same request in-process.
    @Test func swiftTablesAndServicesAgreeWithTheCLIAndHTTP() throws {
        let wayfinder = try Wayfinder(directory: Self.graph, modes: [.driving])
        // Points on the main network, as the benchmarks draw them.
        let sample = try Self.cli(["bench", "--graph", Self.graph, "--sample-points", "25", "--seed", "3"])
        let points = sample.split(separator: "\n").dropFirst().map { line in
            let f = line.split(separator: ",")
            return Location(latitude: Double(f[0])!, longitude: Double(f[1])!)
        }
        let table = try wayfinder.table(sources: points, threads: 2)
        let csv = try Self.cli(["matrix", "--graph", Self.graph, "--sources", points.map(\.description).joined(separator: ";")])
        var compared = 0
        for line in csv.split(separator: "\n").dropFirst() {
            let f = line.split(separator: ",", omittingEmptySubsequences: false)
            let cell = table[Int(f[0])!, Int(f[1])!]
            #expect(cell?.duration == Double(f[2]) && cell?.distance == Double(f[3]), "\(line)")
            compared += 1
        }
        #expect(compared == 625)

        let here = points[0]
        let near = try wayfinder.nearest(here, count: 2)
        let http = try Self.json(wayfinder.respond(to: "/nearest/v1/driving/\(here.longitude),\(here.latitude)?number=2").text)
        let waypoints = try #require(http["waypoints"] as? [NSDictionary])
        #expect(near.map(\.name) == waypoints.map { $0["name"] as? String ?? "?" })

        let stops = Array(points.prefix(5))
        let trip = try wayfinder.trip(stops.map(Waypoint.location))
        let tripHTTP = try Self.json(wayfinder.respond(to: "/trip/v1/driving/"
            + stops.map { "\($0.longitude),\($0.latitude)" }.joined(separator: ";")).text)
        let httpTrip = try #require((tripHTTP["trips"] as? [NSDictionary])?.first)
        #expect(abs(trip.route.duration - (httpTrip["duration"] as? Double ?? -1)) < 0.05)
        #expect(Set(trip.order) == Set(0..<5))

        let drive = try wayfinder.route(from: .location(points[1]), to: .location(points[2]))
        let matched = try wayfinder.match(stride(from: 0, to: drive.geometry.count, by: max(1, drive.geometry.count / 20)).map { drive.geometry[$0] })
        #expect(!matched.isEmpty && matched.allSatisfy { $0.confidence > 0 })

        let isochrone = try wayfinder.isochrone(from: here, limits: [120, 300])
        #expect(isochrone.contours.map(\.limit) == [120, 300] && isochrone.contours.allSatisfy { !$0.polygons.isEmpty })
    }

    /// Every failure is a `WayfinderError` with the code and message the CLI and the HTTP API give.
    @Test func swiftErrorsCarryOSRMsCodes() throws {
        func code(_ body: () throws -> Void) -> String? {
            do { try body(); return nil } catch let error as WayfinderError { return error.code } catch { return "untyped \(error)" }
        }
        #expect(code { _ = try Wayfinder(directory: "/nonexistent/graph") } == "NotFound")
        let wayfinder = try Wayfinder(directory: Self.graph)
        let kamppi = Waypoint.coordinate(60.1690, 24.9323)
        #expect(code { _ = try wayfinder.route([kamppi]) } == "InvalidQuery")
        #expect(code { _ = try wayfinder.route([kamppi, .coordinate(0, 0)]) } == "NoSegment")
        #expect(code { _ = try wayfinder.route([kamppi, .coordinate(91, 0)]) } == "InvalidValue")
        #expect(code { _ = try wayfinder.route([kamppi, "Qwxyzzy Plaza"]) } == "NoMatch")
        #expect(code { _ = try wayfinder.route([kamppi, "Senaatintori"], options: RouteOptions(mode: .walking, avoiding: [.toll])) }
            == "InvalidValue")
        #expect(code { _ = try wayfinder.nearest(Location(latitude: 60.17, longitude: 24.94), count: 0) } == "InvalidOptions")
        #expect(code { _ = try wayfinder.table(sources: [Location(latitude: .nan, longitude: 0)]) } == "InvalidValue")
        #expect(code { _ = try wayfinder.isochrone(from: Location(latitude: 60.17, longitude: 24.94), limits: [-5]) } != nil)
        let http = wayfinder.respond(to: "/route/v1/driving/24.93,60.169")
        #expect(http.status == 400 && http.text.contains("\"code\":\"InvalidOptions\""), "\(http.text)")
    }

    /// The import library writes a graph the engine routes on as it does on the CLI's import.
    @Test func importLibraryWritesWhatTheCLIWrites() throws {
        let scratch = try TemporaryDirectory()
        let sample = OracleTests.packageRoot.appendingPathComponent("graphs/helsinki.osm.pbf").path
        let report = try GraphImporting.importGraphs(from: sample, to: scratch.path + "/g", modes: [.walking])
        #expect(report.graphs.map(\.mode) == [.walking] && report.graphs[0].vertices > 1000 && (report.places ?? 0) > 100)
        let mine = try Wayfinder(directory: scratch.path + "/g")
        let theirs = try Wayfinder(directory: Self.graph, modes: [.walking])
        let options = RouteOptions(mode: .walking)
        let a = try mine.route(["Kamppi", "Senaatintori"], options: options)
        let b = try theirs.route(["Kamppi", "Senaatintori"], options: options)
        #expect(a.osrmJSON() == b.osrmJSON())
        #expect(throws: WayfinderError.self) { try GraphImporting.importGraphs(from: "/nonexistent.osm.pbf", to: scratch.path + "/h") }
    }
}
