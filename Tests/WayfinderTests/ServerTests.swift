import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import RoadGraph
import RouteFormats
import Routing
import Testing

/// `wayfinder serve` on a free loopback port, exercised as clients would: every endpoint and the error cases.
@Suite(.serialized) struct ServerTests {
    final class Server: @unchecked Sendable {
        let process = Process()
        let base: String
        private let errors = Pipe()
        private let log = Locked("")

        /// `environment`: variables added to the test's own for the server process.
        init(extra: [String] = [], graph: String? = nil, quiet: Bool = true, environment: [String: String] = [:]) throws {
            process.executableURL = URL(fileURLWithPath: CommandLineTests.binary)
            if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
            process.arguments = ["serve", "--graph", graph ?? CommandLineTests.graph.1, "--port", "0"]
                + (quiet ? ["--quiet"] : []) + extra
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            // The first stderr line names the port it got; the rest is kept (read as it comes, so the server never
            // blocks on a full pipe).
            var line = ""
            let handle = errors.fileHandleForReading
            while !line.contains("\n") {
                let data = handle.availableData
                if data.isEmpty { break }
                line += String(decoding: data, as: UTF8.self)
            }
            guard let range = line.range(of: #"http://127\.0\.0\.1:\d+"#, options: .regularExpression) else {
                throw OracleMismatch(message: "server did not start: \(line)")
            }
            base = String(line[range])
            let rest = String(line[line.index(after: line.firstIndex(of: "\n")!)...])
            log.mutate { $0 = rest }
            handle.readabilityHandler = { [log] h in
                let data = h.availableData
                if !data.isEmpty { log.mutate { $0 += String(decoding: data, as: UTF8.self) } }
            }
            // It listens before its graphs are loaded (answering 503 meanwhile): wait until it is ready.
            try waitUntilReady()
        }

        /// Polls /health until it answers 200 (at most `timeout` seconds).
        func waitUntilReady(timeout: Double = 60) throws {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                if (try? ServerTests.get(base + "/health"))?.status == 200 { return }
                guard process.isRunning else { break }
                usleep(20_000)
            }
            throw OracleMismatch(message: "server at \(base) never became ready: \(stderr)")
        }

        var port: Int { Int(base.split(separator: ":").last!)! }
        /// What the server wrote to stderr after its first line.
        var stderr: String { log.value }
        var pid: Int32 { process.processIdentifier }

        /// SIGTERM, then up to `wait` seconds for a clean exit; a server that does not stop is killed and reported.
        func stop(wait: Double = 10) -> Int32 {
            process.terminate()
            let deadline = Date().addingTimeInterval(wait)
            while process.isRunning && Date() < deadline { usleep(20_000) }
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                errors.fileHandleForReading.readabilityHandler = nil
                return -1
            }
            errors.fileHandleForReading.readabilityHandler = nil
            return process.terminationStatus
        }
    }

    static func get(_ url: String) throws -> (status: Int, body: Data, type: String) {
        let semaphore = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: (Int, Data, String)?
        guard let target = URL(string: url) else { throw OracleMismatch(message: "bad URL \(url)") }
        URLSession.shared.dataTask(with: URLRequest(url: target, timeoutInterval: 30)) { data, response, _ in
            let http = response as? HTTPURLResponse
            result = (http?.statusCode ?? 0, data ?? Data(), http?.value(forHTTPHeaderField: "Content-Type") ?? "")
            semaphore.signal()
        }.resume()
        semaphore.wait()
        return result!
    }

    static func json(_ url: String) throws -> (status: Int, object: [String: Any]) {
        let (status, body, _) = try get(url)
        let object = try JSONSerialization.jsonObject(with: body) as? [String: Any] ?? [:]
        return (status, object)
    }

    let a = "24.9384,60.1699", b = "24.9412,60.1756", c = "24.9450,60.1720"

    @Test func routeMatchesTheEngine() throws {
        let server = try Server()
        defer { #expect(server.stop() == 0, "SIGTERM stops the server cleanly") }
        let (status, body) = try Self.json("\(server.base)/route/v1/driving/\(a);\(b)?overview=full&steps=true")
        #expect(status == 200 && body["code"] as? String == "Ok")
        let route = try #require((body["routes"] as? [[String: Any]])?.first)
        let graph = try RoadGraph(contentsOf: try graphFile(CommandLineTests.graph.1, .driving))
        let expected = try checkedRoute(graph, [Coordinate(latitude: 60.1699, longitude: 24.9384), Coordinate(latitude: 60.1756, longitude: 24.9412)])
        #expect(abs((route["duration"] as? Double ?? 0) - expected.duration) < 0.06)
        #expect(abs((route["distance"] as? Double ?? 0) - expected.distance) < 0.06)
        let line = try #require(Polyline.decode(route["geometry"] as? String ?? ""))
        #expect(line.count == expected.coordinates.count)
        let steps = try #require(((route["legs"] as? [[String: Any]])?.first?["steps"]) as? [[String: Any]])
        #expect(steps.count >= 2)
    }

    @Test func routeOptions() throws {
        let server = try Server()
        defer { _ = server.stop() }
        let geojson = try Self.json("\(server.base)/route/v1/foot/\(a);\(c);\(b)?geometries=geojson&overview=full&annotations=true")
        let route = try #require((geojson.object["routes"] as? [[String: Any]])?.first)
        let geometry = try #require(route["geometry"] as? [String: Any])
        #expect(geometry["type"] as? String == "LineString")
        let legs = try #require(route["legs"] as? [[String: Any]])
        #expect(legs.count == 2)
        let annotation = try #require(legs[0]["annotation"] as? [String: Any])
        let distances = try #require(annotation["distance"] as? [Double])
        #expect(abs(distances.reduce(0, +) - (legs[0]["distance"] as? Double ?? 0)) < 1)
        #expect((legs[0]["steps"] as? [Any])?.isEmpty == true, "steps default to false, as in OSRM")
        let simplified = try Self.json("\(server.base)/route/v1/car/\(a);\(b)")
        let full = try Self.json("\(server.base)/route/v1/car/\(a);\(b)?overview=full")
        let short = Polyline.decode(((simplified.object["routes"] as? [[String: Any]])?[0]["geometry"] as? String) ?? "")!
        let long = Polyline.decode(((full.object["routes"] as? [[String: Any]])?[0]["geometry"] as? String) ?? "")!
        #expect(short.count < long.count, "overview=simplified (the default) thins the line")
        let none = try Self.json("\(server.base)/route/v1/car/\(a);\(b)?overview=false")
        #expect((none.object["routes"] as? [[String: Any]])?[0]["geometry"] == nil)
        let encoded = Polyline.encode([Coordinate(latitude: 60.1699, longitude: 24.9384), Coordinate(latitude: 60.1756, longitude: 24.9412)])
        let viaPolyline = try Self.json("\(server.base)/route/v1/driving/polyline(\(encoded.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!))")
        #expect(viaPolyline.object["code"] as? String == "Ok")
        let chinese = try Self.json("\(server.base)/route/v1/driving/\(a);\(b)?steps=true&language=zh")
        let firstStep = (((chinese.object["routes"] as? [[String: Any]])?[0]["legs"] as? [[String: Any]])?[0]["steps"] as? [[String: Any]])?[0]
        #expect(((firstStep?["maneuver"] as? [String: Any])?["instruction"] as? String)?.contains("出发") == true)
        // continue_straight: the profile's default (on for cars) equals true; false may only be as fast or faster.
        func duration(_ query: String) throws -> Double {
            let object = try Self.json("\(server.base)/route/v1/driving/\(a);\(c);\(b)\(query)").object
            return try #require((object["routes"] as? [[String: Any]])?.first?["duration"] as? Double)
        }
        let byDefault = try duration(""), straight = try duration("?continue_straight=true")
        let turning = try duration("?continue_straight=false"), profileDefault = try duration("?continue_straight=default")
        #expect(byDefault == straight && turning <= straight && profileDefault == straight)
        let withAlternatives = try Self.json("\(server.base)/route/v1/driving/\(a);\(b)?alternatives=3")
        let routes = try #require(withAlternatives.object["routes"] as? [[String: Any]])
        let durations = routes.compactMap { $0["duration"] as? Double }
        #expect(!routes.isEmpty && routes.count <= 4 && durations.count == routes.count)
        #expect(durations.dropFirst().allSatisfy { $0 >= durations[0] && $0 <= 1.31 * durations[0] }, "\(durations)")
        // A bearing that only fits travel in one direction, and a radius.
        let filtered = try Self.json("\(server.base)/route/v1/foot/\(a);\(b)?radiuses=50;unlimited&bearings=;")
        #expect(filtered.object["code"] as? String == "Ok")
    }

    @Test func tableCellsEqualRoutes() throws {
        let server = try Server()
        defer { _ = server.stop() }
        let (status, body) = try Self.json("\(server.base)/table/v1/driving/\(a);\(b);\(c)?annotations=duration,distance")
        #expect(status == 200)
        let durations = try #require(body["durations"] as? [[Double]])
        let distances = try #require(body["distances"] as? [[Double]])
        let points = [a, b, c]
        for i in 0..<3 {
            for j in 0..<3 where i != j {
                let route = try Self.json("\(server.base)/route/v1/driving/\(points[i]);\(points[j])?overview=false")
                let r = try #require((route.object["routes"] as? [[String: Any]])?.first)
                #expect(abs(durations[i][j] - (r["duration"] as? Double ?? -1)) < 0.06, "cell \(i),\(j)")
                // Each rounded to a tenth of a metre from sums taken in another order: a tenth apart at most.
                #expect(abs(distances[i][j] - (r["distance"] as? Double ?? -1)) < 0.1 + 1e-6, "cell \(i),\(j)")
            }
            #expect(durations[i][i] == 0)
        }
        let subset = try Self.json("\(server.base)/table/v1/driving/\(a);\(b);\(c)?sources=0&destinations=1;2")
        let row = try #require(subset.object["durations"] as? [[Double]])
        #expect(row.count == 1 && row[0].count == 2 && row[0] == [durations[0][1], durations[0][2]])
        #expect(subset.object["distances"] == nil, "duration only by default")
    }

    @Test func nearest() throws {
        let server = try Server()
        defer { _ = server.stop() }
        let (status, body) = try Self.json("\(server.base)/nearest/v1/driving/\(a)?number=3")
        #expect(status == 200)
        let waypoints = try #require(body["waypoints"] as? [[String: Any]])
        #expect(waypoints.count == 3)
        let distances = waypoints.compactMap { $0["distance"] as? Double }
        #expect(distances == distances.sorted())
    }

    /// Mapbox's isochrone shape: one feature per contour, farthest first, polygons or lines as asked.
    @Test func isochroneAnswersContoursAsGeoJSON() throws {
        let server = try Server()
        defer { _ = server.stop() }
        let (status, body) = try Self.json("\(server.base)/isochrone/v1/walking/24.9384,60.1699?contours_minutes=5,10&polygons=true&contours_colors=ff0000,00ff00")
        #expect(status == 200)
        #expect(body["type"] as? String == "FeatureCollection")
        let features = try #require(body["features"] as? [[String: Any]])
        #expect(features.count == 2)
        let properties = features.map { $0["properties"] as? [String: Any] ?? [:] }
        #expect(properties.map { $0["contour"] as? Double } == [10, 5], "farthest first")
        #expect(properties.map { $0["color"] as? String } == ["#00ff00", "#ff0000"], "colours follow their contours")
        #expect(properties.allSatisfy { $0["metric"] as? String == "time" })
        let geometry = try #require(features[0]["geometry"] as? [String: Any])
        #expect(["Polygon", "MultiPolygon"].contains(geometry["type"] as? String ?? ""))
        let (_, lines) = try Self.json("\(server.base)/isochrone/v1/foot/24.9384,60.1699?contours_meters=500")
        let line = try #require(((lines["features"] as? [[String: Any]])?.first?["geometry"]) as? [String: Any])
        #expect(["LineString", "MultiLineString"].contains(line["type"] as? String ?? ""), "lines by default, as Mapbox")
        #expect(((lines["features"] as? [[String: Any]])?.first?["properties"] as? [String: Any])?["metric"] as? String == "distance")
    }

    @Test(arguments: [
        ("/garbage", "InvalidUrl"), ("/route/v1/driving", "InvalidUrl"), ("/bogus/v1/driving/1,2;3,4", "InvalidService"),
        ("/route/v2/driving/1,2;3,4", "InvalidVersion"), ("/route/v1/unicycle/1,2;3,4", "InvalidValue"),
        ("/route/v1/driving/24.9,60.1;abc", "InvalidUrl"), ("/route/v1/driving/24.9,95;24.9,60.1", "InvalidValue"),
        ("/route/v1/driving/24.9384,60.1699", "InvalidOptions"), ("/route/v1/driving/24.9384,60.1699;24.9412,60.1756?stepz=true", "InvalidQuery"),
        ("/route/v1/driving/24.9384,60.1699;24.9412,60.1756?steps=maybe", "InvalidQuery"),
        ("/route/v1/driving/24.9384,60.1699;24.9412,60.1756?continue_straight=sometimes", "InvalidQuery"),
        ("/route/v1/driving/24.9384,60.1699;24.9412,60.1756?alternatives=9", "TooBig"),
        ("/route/v1/driving/24.9384,60.1699;24.9412,60.1756?radiuses=5", "InvalidOptions"),
        ("/route/v1/driving/24.9384,60.1699;2.35,48.85?radiuses=;5000", "NoSegment"),
        ("/route/v1/driving/24.9384,60.1699;24.9412,60.1756?bearings=400,10;", "InvalidOptions"),
        ("/table/v1/driving/24.9384,60.1699;24.9412,60.1756?sources=7", "InvalidOptions"),
        ("/table/v1/driving/24.9384,60.1699;24.9412,60.1756;24.945,60.172;24.94,60.17", "TooBig"),
        ("/nearest/v1/driving/24.9384,60.1699?number=0", "InvalidOptions"),
        ("/isochrone/v1/driving/24.9384,60.1699", "InvalidQuery"),
        ("/isochrone/v1/driving/24.9384,60.1699?contours_minutes=0", "InvalidValue"),
        ("/isochrone/v1/driving/24.9384,60.1699?contours_minutes=-5", "InvalidValue"),
        ("/isochrone/v1/driving/24.9384,60.1699?contours_minutes=61", "TooBig"),
        ("/isochrone/v1/walking/24.9384,60.1699?contours_meters=100001", "TooBig"),
        ("/isochrone/v1/driving/24.9384,60.1699?contours_minutes=1,2,3,4,5", "TooBig"),
        ("/isochrone/v1/driving/24.9384,60.1699?contours_minutes=5&contours_meters=500", "InvalidQuery"),
        ("/isochrone/v1/driving/24.9384,60.1699;24.94,60.17?contours_minutes=5", "InvalidQuery"),
        ("/isochrone/v1/driving/24.9384,60.1699?contours_minutes=abc", "InvalidValue"),
        ("/isochrone/v1/driving/24.9384,60.1699?contours_minutes=5&denoise=2", "InvalidValue"),
        ("/isochrone/v1/driving/24.9384,60.1699?contours_minutes=5&resolution=5", "InvalidValue"),
        ("/isochrone/v1/driving/24.9384,60.1699?contours_minutes=5,10&contours_colors=ff0000", "InvalidValue"),
        ("/isochrone/v1/driving/2.35,48.85?contours_minutes=5&radiuses=100", "NoSegment"),
        ("/directions?from=60.1699,24.9384", "InvalidQuery"), ("/directions?saddr=60.1699,24.9384&daddr=60.1756,24.9412&dirflg=r", "InvalidValue"),
        ("/roads?bbox=1,2,3", "InvalidValue"),
    ])
    func badRequestsGetOSRMErrors(path: String, code: String) throws {
        let server = try Server(extra: ["--max-table-size", "3"])
        defer { _ = server.stop() }
        let (status, body) = try Self.json(server.base + path)
        #expect(status == 400, "\(path)")
        #expect(body["code"] as? String == code, "\(path): \(body)")
        #expect(!(body["message"] as? String ?? "").isEmpty)
    }

    @Test func oversizedURLAndParallelLoad() throws {
        let server = try Server(extra: ["--max-url-length", "300"])
        defer { _ = server.stop() }
        let long = (0..<40).map { _ in a }.joined(separator: ";")
        let (status, body, _) = try Self.get("\(server.base)/route/v1/driving/\(long)")
        #expect(status == 414 || status == 400)
        #expect(String(decoding: body, as: UTF8.self).contains("TooBig"))
        // Many requests at once on the thread pool: all answered, all correct.
        let statuses = parallelMap(64, threads: 8, pool: Pool { () }) { _, i in
            let url = i % 2 == 0 ? "\(server.base)/route/v1/driving/\(a);\(b)?steps=true" : "\(server.base)/table/v1/foot/\(a);\(b);\(c)"
            return (try? Self.get(url).status) ?? 0
        }
        #expect(statuses.count == 64 && statuses.allSatisfy { $0 == 200 })
    }

    @Test func directionsFeedForRenderers() throws {
        let server = try Server()
        defer { _ = server.stop() }
        let (status, body) = try Self.json("\(server.base)/directions?from=60.1699,24.9384&to=60.1756,24.9412&mode=walking&width=400&height=300")
        #expect(status == 200 && body["type"] as? String == "FeatureCollection")
        let features = try #require(body["features"] as? [[String: Any]])
        let kinds = features.compactMap { ($0["properties"] as? [String: Any])?["kind"] as? String }
        #expect(kinds.first == "route" && kinds.contains("start") && kinds.contains("end") && kinds.filter { $0 == "step" }.count >= 2)
        let start = try #require(features.first { ($0["properties"] as? [String: Any])?["kind"] as? String == "start" })
        #expect(((start["properties"] as? [String: Any])?["title"] as? String)?.isEmpty == false)
        let zoom = try #require(body["zoom"] as? Double)
        #expect((13...17).contains(zoom), "a 1 km route in a 400x300 view")
        let region = try #require(body["region"] as? [String: Any])
        #expect((region["latitudeDelta"] as? Double ?? 0) > 0.004)
        let apple = try Self.json("\(server.base)/directions?saddr=60.1699,24.9384&daddr=60.1756,24.9412&dirflg=d")
        let line = (apple.object["features"] as? [[String: Any]])?.first
        #expect(((line?["properties"] as? [String: Any])?["mode"] as? String) == "driving")
    }

    @Test func geocodingEndpoints() throws {
        let server = try Server()
        defer { _ = server.stop() }
        let geocode = try Self.json("\(server.base)/geocode?q=Lonnrotinkatu&limit=3")
        let features = try #require(geocode.object["features"] as? [[String: Any]])
        #expect(geocode.status == 200 && !features.isEmpty && features.count <= 3)
        let reverse = try Self.json("\(server.base)/reverse?lat=60.1699&lon=24.9384")
        #expect((reverse.object["features"] as? [Any])?.count == 1)
        let search = try Self.json("\(server.base)/search?q=pharmacy&near=60.1699,24.9384&radius=500")
        #expect(((search.object["features"] as? [Any])?.count ?? 0) >= 1)
        let named = try Self.json("\(server.base)/directions?from=Kampin%20kappeli&to=60.1756,24.9412&mode=walking")
        #expect(named.status == 200 && named.object["type"] as? String == "FeatureCollection")
        #expect(try Self.json("\(server.base)/geocode").status == 400)
        #expect(try Self.json("\(server.base)/reverse?lat=100&lon=1").status == 400)
    }

    @Test func mapPageAndRoadLayer() throws {
        let server = try Server()
        defer { _ = server.stop() }
        let page = try Self.get("\(server.base)/")
        #expect(page.status == 200 && page.type.hasPrefix("text/html"))
        #expect(String(decoding: page.body, as: UTF8.self).contains("/leaflet/leaflet.js"))
        let graph = try Self.json("\(server.base)/graph")
        #expect((graph.object["bounds"] as? [Double])?.count == 4)
        let roads = try Self.json("\(server.base)/roads?mode=walking&zoom=16&bbox=24.935,60.165,24.945,60.172")
        #expect(((roads.object["features"] as? [Any])?.count ?? 0) > 100)
        #expect(try Self.get("\(server.base)/leaflet/../../etc/passwd").status != 200)
    }

    @Test(.enabled(if: Available.leaflet, "needs libjs-leaflet"))
    func leafletIsServed() throws {
        let server = try Server()
        defer { _ = server.stop() }
        let script = try Self.get("\(server.base)/leaflet/leaflet.js")
        #expect(script.status == 200 && script.body.count > 10_000)
    }

    @Test(.enabled(if: Available.routingpy, "needs the PyPI packages routingpy and polyline"))
    func realOSRMClient() throws {
        let server = try Server()
        defer { _ = server.stop() }
        let script = OracleTests.packageRoot.appendingPathComponent("Tests/clients/osrm_client_check.py").path
        let result = try CommandLineTests.runTool("/usr/bin/env", ["python3", script, server.base])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.split(separator: "\n").filter { $0.hasPrefix("ok") }.count >= 18)
    }

    @Test(.enabled(if: Available.chromium != nil, "needs chromium"))
    func pageDrawsARouteInAHeadlessBrowser() throws {
        let chromium = Available.chromium!
        let server = try Server()
        defer { _ = server.stop() }
        let directory = try TemporaryDirectory()
        let url = "\(server.base)/?from=60.1699,24.9384&to=60.1756,24.9412&mode=walking"
        let common = ["--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(directory.path)/profile",
                      "--virtual-time-budget=10000"]
        let dom = try CommandLineTests.runTool(chromium, common + ["--dump-dom", url])
        #expect(dom.stdout.contains("data-route=\"loaded\""), "the page reports the route as loaded")
        #expect(dom.stdout.contains("Route loaded:"))
        let shot = try CommandLineTests.runTool(chromium, common + ["--window-size=1000,700", "--screenshot=\(directory.path)/page.png", url])
        let png = try Data(contentsOf: URL(fileURLWithPath: directory.path + "/page.png"))
        #expect(shot.status == 0 && png.count > 30_000, "a drawn map is not a blank page (\(png.count) bytes)")
        // The reach overlay: an isochrone from the start, drawn as polygons.
        let reach = try CommandLineTests.runTool(chromium, common + ["--dump-dom", "\(server.base)/?from=60.1699,24.9384&mode=walking&reach=5,10"])
        #expect(reach.stdout.contains("data-reach=\"loaded\""), "the page reports the isochrone as loaded")
        #expect(reach.stdout.contains("Reach loaded: 10 min, 5 min (walking)"))
        // A maps link (saddr, daddr, dirflg) opens the route, and playing it drives a marker along it: the banner
        // shows the next maneuver, and the announcements come in order until the arrival.
        let played = try CommandLineTests.runTool(chromium, ["--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(directory.path)/profile",
                                                             "--virtual-time-budget=60000", "--dump-dom",
                                                             "\(server.base)/?saddr=60.1675,24.9440&daddr=60.1756,24.9412&dirflg=d&play=1&speed=50"])
        #expect(played.stdout.contains("data-route=\"loaded\"") && played.stdout.contains("data-play=\"arrived\""), "\(played.stdout.suffix(2000))")
        let saidList = played.stdout.components(separatedBy: "<ol id=\"said\">").last?.components(separatedBy: "</ol>").first ?? ""
        #expect(saidList.components(separatedBy: "<li>").count - 1 >= 5, "\(saidList)")
        #expect(saidList.contains("Turn right into Mannerheimintie") && saidList.contains("destination"), "\(saidList)")
        let walking = try CommandLineTests.runTool(chromium, common + ["--dump-dom", "\(server.base)/?saddr=60.1699,24.9384&daddr=60.1756,24.9412&dirflg=w"])
        #expect(walking.stdout.contains("data-route=\"loaded\"") && walking.stdout.contains("data-mode=\"walking\" class=\"active\""),
                "dirflg=w opens the walking route")
        let moving = try CommandLineTests.runTool(chromium, common + ["--window-size=1000,700", "--screenshot=\(directory.path)/play.png",
                                                                      "\(server.base)/?saddr=60.1675,24.9440&daddr=60.1756,24.9412&play=1&speed=8"])
        let frame = try Data(contentsOf: URL(fileURLWithPath: directory.path + "/play.png"))
        #expect(moving.status == 0 && frame.count > 30_000, "a route being played is drawn (\(frame.count) bytes)")
    }
}
