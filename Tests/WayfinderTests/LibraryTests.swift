import Engine
import Foundation
import RoadGraph
import Testing
import WayfinderC
import WayfinderEngine
import WayfinderImport

/// The engine as a library: the Swift facade against the CLI and the HTTP API, the C entry points against bad
/// input, and the Python wheel installed into a fresh venv.
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
    @Test func swiftTablesAndServicesAgreeWithTheCLIAndHTTP() async throws {
        let wayfinder = try Wayfinder(directory: Self.graph, modes: [.driving])
        // Points on the main network, as the benchmarks draw them.
        let sample = try Self.cli(["bench", "--graph", Self.graph, "--sample-points", "25", "--seed", "3"])
        let points = sample.split(separator: "\n").dropFirst().map { line in
            let f = line.split(separator: ",")
            return Location(latitude: Double(f[0])!, longitude: Double(f[1])!)
        }
        let table = try Self.blockingTable(wayfinder, points)
        let csv = try Self.cli(["matrix", "--graph", Self.graph, "--sources", points.map(\.description).joined(separator: ";")])
        var compared = 0
        for line in csv.split(separator: "\n").dropFirst() {
            let f = line.split(separator: ",", omittingEmptySubsequences: false)
            let cell = table[Int(f[0])!, Int(f[1])!]
            #expect(cell?.duration == Double(f[2]) && cell?.distance == Double(f[3]), "\(line)")
            compared += 1
        }
        #expect(compared == 625)
        // The async form, for servers' event loops, gives the same table.
        let awaited = try await wayfinder.table(sources: points, threads: 2)
        #expect(awaited.durations.elementsEqual(table.durations) { $0 == $1 || ($0.isNaN && $1.isNaN) })

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

    /// The synchronous table (in an `async` function the `async` one is chosen).
    static func blockingTable(_ wayfinder: Wayfinder, _ points: [Location]) throws -> TravelTable {
        try wayfinder.table(sources: points, threads: 2)
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
        // Options a trip or a match has no use for are refused, not ignored.
        #expect(code { _ = try wayfinder.trip([kamppi, "Senaatintori"], options: RouteOptions(alternatives: 1)) } == "InvalidValue")
        #expect(code { _ = try wayfinder.match([Location(latitude: 60.169, longitude: 24.9323)],
                                               options: RouteOptions(snapRadius: 10)) } == "InvalidValue")
        let http = wayfinder.respond(to: "/route/v1/driving/24.93,60.169")
        #expect(http.status == 400 && http.text.contains("\"code\":\"InvalidOptions\""), "\(http.text)")
    }

    /// `bench-library` refuses what it cannot read, with the CLI's exit codes.
    @Test func libraryBenchRefusesBadPairs() throws {
        let scratch = try TemporaryDirectory()
        let bad = scratch.path + "/pairs.csv"
        try "60.17,24.94,60.18\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let missing = try CommandLineTests.run(["bench-library", "--graph", Self.graph])
        #expect(missing.status == 1 && missing.stderr.contains("--pairs"), "\(missing.stderr)")
        let unreadable = try CommandLineTests.run(["bench-library", "--graph", Self.graph, "--pairs", scratch.path + "/none.csv"])
        #expect(unreadable.status == 2 && unreadable.stderr.contains("cannot read"), "\(unreadable.stderr)")
        let short = try CommandLineTests.run(["bench-library", "--graph", Self.graph, "--pairs", bad])
        #expect(short.status == 2 && short.stderr.contains("line 1"), "\(short.stderr)")
        let mode = try CommandLineTests.run(["bench-library", "--graph", Self.graph, "--pairs", bad, "--mode", "boat"])
        #expect(mode.status == 1, "\(mode.stderr)")
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

    /// The C entry points refuse what a foreign caller may get wrong, with OSRM error bodies, and never trap.
    @Test func cEntryPointsRefuseBadInput() throws {
        func call(_ body: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, UnsafeMutablePointer<Int>) -> Int32)
            -> (Int32, String) {
            var out: UnsafeMutablePointer<UInt8>?
            var length = 0
            let status = body(&out, &length)
            defer { wf_free(out) }
            return (status, out.map { String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self) } ?? "")
        }
        var error: UnsafeMutablePointer<UInt8>?
        #expect(wf_open("/nonexistent", nil, &error) == nil)
        #expect(error.map { String(cString: $0) }?.contains("\"code\":\"NotFound\"") == true)
        wf_free(error)
        #expect(wf_open(Self.graph, "driving,boat", &error) == nil)
        wf_free(error)
        #expect(wf_open(nil, nil, nil) == nil)

        #expect(call { wf_route(nil, "{}", $0, $1) }.0 == 400)
        let engine = try #require(wf_open(Self.graph, "driving", nil))
        defer { wf_close(engine) }
        for request in ["", "[]", "{\"points\": 5}", "{\"points\": [[1]]}", "{\"points\": [[60.17, 24.94], [60.18, 24.95]], \"steps\": 1}",
                        "{\"points\": [[60.17, 24.94], [60.18, 24.95]], \"mode\": \"walking\"}",
                        "{\"points\": [[60.17, 24.94], [60.18, 24.95]], \"alternatives\": 1.5}",
                        "{\"points\": [[60.17, 24.94], [60.18, 24.95]], \"speed\": 3}", "\u{FF}\u{FE}"] {
            let (status, body) = call { wf_route(engine, request, $0, $1) }
            #expect(status >= 400 && body.contains("\"code\""), "\(request): \(status) \(body)")
        }
        let (ok, route) = call { wf_route(engine, "{\"points\": [[60.1675, 24.944], [60.1756, 24.9412]]}", $0, $1) }
        #expect(ok == 0 && route.hasPrefix("{\"code\":\"Ok\""), "\(route.prefix(200))")
        #expect(call { wf_request(engine, "/route/v1/driving/24.944,60.1675;24.9412,60.1756", nil, 0, $0, $1) }.0 == 200)
        #expect(call { wf_request(engine, nil, nil, 0, $0, $1) }.0 == 400)
        #expect(call { wf_request(engine, "/route/v1/driving/1,2", nil, -5, $0, $1) }.0 == 400)

        var points = [60.1675, 24.944, 60.1756, 24.9412, 0, 0]
        var durations = [Double](repeating: 0, count: 9), distances = durations
        let (status, body) = call { wf_table(engine, "driving", &points, 3, nil, 0, 0, 1, 0, &durations, &distances, $0, $1) }
        let snapped = try Self.json(body)
        #expect(status == 0 && snapped["unsnapped"] as? [Int] == [2], "\(body)")
        #expect((snapped["sources"] as? [Any])?.count == 3 && (snapped["sources"] as? [Any])?.last is NSNull, "\(body)")
        #expect(durations[0] == 0 && durations[1] > 0 && durations[2].isNaN && durations[8].isNaN)
        var floats = [Float](repeating: 0, count: 9), floatDistances = floats
        #expect(call { wf_table_float(engine, "driving", &points, 3, nil, 0, 0, 1, 0, &floats, &floatDistances, $0, $1) }.0 == 0)
        #expect(zip(floats, durations).allSatisfy { $0 == Float($1) || ($0.isNaN && $1.isNaN) }, "\(floats) \(durations)")
        #expect(call { wf_table(engine, "boat", &points, 3, nil, 0, 0, 1, 0, &durations, &distances, $0, $1) }.0 == 400)
        #expect(call { wf_table(engine, "driving", &points, -1, nil, 0, 0, 1, 0, &durations, &distances, $0, $1) }.0 == 400)
        #expect(call { wf_table(engine, "driving", nil, 3, nil, 0, 0, 1, 0, &durations, &distances, $0, $1) }.0 == 400)
        #expect(call { wf_table(engine, "driving", &points, 3, nil, 0, 0, 999, 0, &durations, &distances, $0, $1) }.0 == 400)
    }

    /// The wheel, installed into a fresh venv and run with no Swift toolchain on the PATH, answers as the CLI does
    /// (python/tests/check_package.py: routes, malformed calls, threads, and a 2,000 × 2,000 Porto table).
    @Test(.enabled(if: Available.wheelTools.ready, "\(Available.wheelTools.reason)"))
    func pythonWheelInFreshVenvAgreesWithTheCLI() throws {
        let scratch = try TemporaryDirectory()
        let root = OracleTests.packageRoot.path
        let built = try Subprocess.run(root + "/scripts/build-wheel.sh", ["--skip-build", scratch.path + "/dist"], timeout: 300)
        try #require(built.status == 0, "\(built.stderr.suffix(800))")
        let wheel = built.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let size = (try FileManager.default.attributesOfItem(atPath: wheel)[.size] as? Int) ?? 0
        print("wheel: \(wheel) (\(size / 1_000_000) MB)")
        let venv = scratch.path + "/venv"
        let made = try Subprocess.run("/usr/bin/env", ["python3", "-m", "venv", venv])
        try #require(made.status == 0, "\(made.stderr)")
        // numpy and orjson from the wheels install-test-tools.sh fetched: the install needs no network.
        let installed = try Subprocess.run(venv + "/bin/python", ["-m", "pip", "install", "-q", "--no-index",
                                                                  "--find-links", Available.wheelCache, wheel], timeout: 300)
        try #require(installed.status == 0, "\(installed.stderr.suffix(800))")
        var arguments = ["-i", "PATH=/usr/bin:/bin", "HOME=\(scratch.path)", venv + "/bin/python",
                         root + "/python/tests/check_package.py", "--wayfinder", CommandLineTests.binary, "--graph", Self.graph]
        if Available.porto {
            let porto = try DeploymentTests.portoGraph.get()
            let sample = try CommandLineTests.run(["bench", "--graph", porto, "--sample-points", "2000", "--seed", "11"])
            try sample.stdout.write(toFile: scratch.path + "/porto.csv", atomically: true, encoding: .utf8)
            arguments += ["--porto", porto, "--points", scratch.path + "/porto.csv"]
        }
        let run = try Subprocess.run("/usr/bin/env", arguments, timeout: 600)
        let report = run.stdout.split(separator: "\n").last.map(String.init) ?? ""
        #expect(run.status == 0 && report.hasPrefix("OK"), "\(run.stdout.suffix(600)) \(run.stderr.suffix(1200))")
        if Available.porto { #expect(report.contains("2000x2000 table equals wayfinder matrix"), "\(report)") }
    }
}

extension Available {
    /// Where install-test-tools.sh keeps the wheels the fresh venv installs from (numpy).
    static let wheelCache = FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/wayfinder/wheels").path

    /// What building and installing the wheel needs: the C library linked from the current objects,
    /// patchelf, PyPI's wheel, and numpy's and orjson's wheels in the cache.
    static let wheelTools: (ready: Bool, reason: String) = {
        guard cLibrary.ready else { return cLibrary }
        let files = FileManager.default
        guard files.isExecutableFile(atPath: "/usr/bin/patchelf") else { return (false, "needs patchelf (scripts/install-test-tools.sh)") }
        guard python("wheel, venv") else { return (false, "needs PyPI's wheel (scripts/install-test-tools.sh)") }
        let cached = (try? files.contentsOfDirectory(atPath: wheelCache)) ?? []
        guard cached.contains(where: { $0.hasPrefix("numpy-") }), cached.contains(where: { $0.hasPrefix("orjson-") }) else {
            return (false, "needs numpy's and orjson's wheels in \(wheelCache) (scripts/install-test-tools.sh)")
        }
        return (true, "")
    }()

    /// `.build/release/libWayfinderC.so`, linked from the objects this test run was built from.
    static let cLibrary: (ready: Bool, reason: String) = {
        let root = OracleTests.packageRoot
        let library = root.appendingPathComponent(".build/release/libWayfinderC.so").path
        let files = FileManager.default
        guard let built = (try? files.attributesOfItem(atPath: library))?[.modificationDate] as? Date else {
            return (false, "needs .build/release/libWayfinderC.so: swift build -c release --product WayfinderC")
        }
        // Stale when any object it links was compiled since (a `swift test` after an edit rebuilds those).
        let linked = (try? String(contentsOfFile: root.appendingPathComponent(".build/release/WayfinderC.product/Objects.LinkFileList").path,
                                  encoding: .utf8))?.split(separator: "\n").map(String.init) ?? []
        let newest = linked.compactMap { (try? files.attributesOfItem(atPath: $0))?[.modificationDate] as? Date }.max()
        guard let newest, built >= newest else {
            return (false, "libWayfinderC.so is older than the objects it links: swift build -c release --product WayfinderC")
        }
        return (true, "")
    }()
}
