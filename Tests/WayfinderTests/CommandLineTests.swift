import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import RoadGraph
import RouteFormats
import Testing

/// The `wayfinder` binary as a user runs it: outputs, error messages and exit codes.
@Suite(.serialized) struct CommandLineTests {
    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static var binary: String {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("wayfinder")
        if FileManager.default.isExecutableFile(atPath: beside.path) { return beside.path }
        for config in ["release", "debug"] {
            let path = OracleTests.packageRoot.appendingPathComponent(".build/\(config)/wayfinder").path
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return "wayfinder"
    }

    static func run(_ arguments: [String]) throws -> Run { try runTool(binary, arguments) }

    static func runTool(_ tool: String, _ arguments: [String]) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                   stderr: String(decoding: stderr, as: UTF8.self))
    }

    /// The bundled sample, imported once per run into the (git-ignored) build directory, with every mode.
    static let graph: (Void, String) = {
        let output = OracleTests.packageRoot.appendingPathComponent(".build/test-graphs/helsinki").path
        let sample = OracleTests.packageRoot.appendingPathComponent("graphs/helsinki.osm.pbf").path
        let result = try! run(["import", sample, "--output", output, "--quiet", "--modes", "driving,walking,cycling"])
        precondition(result.status == 0, result.stderr)
        return ((), output)
    }()

    @Test func reachGivesContoursAndRefusesBadLimits() throws {
        let text = try Self.run(["reach", "--graph", Self.graph.1, "--mode", "walking", "--minutes", "5,10", "--format", "text",
                                 "60.1699,24.9384"])
        #expect(text.status == 0, "\(text.stderr)")
        let lines = text.stdout.split(separator: "\n")
        #expect(lines.count == 2 && lines[0].hasPrefix("5 min: ") && lines[1].hasPrefix("10 min: "), "\(text.stdout)")
        let json = try Self.run(["reach", "--graph", Self.graph.1, "--meters", "800", "Kampin kappeli"])
        #expect(json.status == 0, "\(json.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect((object["features"] as? [Any])?.count == 1)
        for (arguments, message) in [(["--minutes", "0"], "above zero"), (["--minutes", "61"], "at most 60 minutes"),
                                     (["--minutes", "1,2,3,4,5"], "at most 4 contours"), (["--meters", "-3"], "above zero"),
                                     (["--minutes", "five"], "not a number")] {
            let bad = try Self.run(["reach", "--graph", Self.graph.1] + arguments + ["60.1699,24.9384"])
            #expect(bad.status != 0 && bad.stderr.contains(message), "\(arguments): \(bad.stderr)")
        }
        let both = try Self.run(["reach", "--graph", Self.graph.1, "--minutes", "5", "--meters", "5", "60.1699,24.9384"])
        #expect(both.status == 1)
    }

    @Test func readmeRouteInText() throws {
        let r = try Self.run(["route", "--graph", Self.graph.1, "--mode", "driving", "60.1675,24.9440", "60.1756,24.9412"])
        #expect(r.status == 0, "\(r.stderr)")
        let firstLine = r.stdout.split(separator: "\n").first.map(String.init) ?? ""
        #expect(firstLine.contains("km") || firstLine.contains(" m,"))
        #expect(firstLine.contains("by car"))
        #expect(!r.stdout.contains("U-turn"), "the README's route reads as a plain drive")
    }

    @Test func readmeRouteInOSRMJSON() throws {
        let r = try Self.run(["route", "--graph", Self.graph.1, "--mode", "walking", "--format", "json",
                              "60.1699,24.9384", "60.1720,24.9450", "60.1756,24.9412"])
        #expect(r.status == 0, "\(r.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(json["code"] as? String == "Ok")
        let route = try #require((json["routes"] as? [[String: Any]])?.first)
        let legs = try #require(route["legs"] as? [[String: Any]])
        #expect(legs.count == 2, "one leg per pair of consecutive points")
        let waypoints = try #require(json["waypoints"] as? [[String: Any]])
        #expect(waypoints.count == 3)
        let location = try #require(waypoints[0]["location"] as? [Double])
        #expect(abs(location[0] - 24.9384) < 0.01 && abs(location[1] - 60.1699) < 0.01, "[lon, lat] order")
        let geometry = try #require(route["geometry"] as? String)
        let line = try #require(Polyline.decode(geometry))
        #expect(line.count >= 2)
        let distance = try #require(route["distance"] as? Double)
        let legSum = legs.compactMap { $0["distance"] as? Double }.reduce(0, +)
        #expect(abs(distance - legSum) < 0.5)
        let steps = try #require(legs[0]["steps"] as? [[String: Any]])
        #expect((steps.first?["maneuver"] as? [String: Any])?["type"] as? String == "depart")
        #expect((steps.last?["maneuver"] as? [String: Any])?["type"] as? String == "arrive")
        for step in steps {
            let maneuver = try #require(step["maneuver"] as? [String: Any])
            #expect(maneuver["instruction"] is String && maneuver["bearing_after"] is Double && maneuver["location"] is [Double])
            let intersections = try #require(step["intersections"] as? [[String: Any]])
            #expect(!intersections.isEmpty)
            for i in intersections {
                #expect((i["bearings"] as? [Double])?.count == (i["entry"] as? [Bool])?.count)
            }
            #expect(step["mode"] as? String == "walking" && step["geometry"] is String && step["distance"] is Double)
        }
    }

    @Test func geojsonIsLonLat() throws {
        let r = try Self.run(["route", "--graph", Self.graph.1, "--format", "geojson", "60.1699,24.9384", "60.1756,24.9412"])
        #expect(r.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(json["type"] as? String == "FeatureCollection")
        let features = try #require(json["features"] as? [[String: Any]])
        let roles = features.dropFirst().map { ($0["properties"] as? [String: Any])?["role"] as? String ?? "" }
        #expect(roles.prefix(2) == ["start", "end"])
        #expect(roles.dropFirst(2).allSatisfy { $0 == "maneuver" } && roles.count >= 4, "a point per step")
        let line = try #require((features[0]["geometry"] as? [String: Any])?["coordinates"] as? [[Double]])
        #expect(line.allSatisfy { abs($0[0] - 24.94) < 0.05 && abs($0[1] - 60.17) < 0.05 })
        // The steps' instructions honour --language, as the JSON output does.
        let zh = try Self.run(["route", "--graph", Self.graph.1, "--format", "geojson", "--language", "zh",
                               "60.1699,24.9384", "60.1756,24.9412"])
        let zhJSON = try #require(try JSONSerialization.jsonObject(with: Data(zh.stdout.utf8)) as? [String: Any])
        let last = try #require((zhJSON["features"] as? [[String: Any]])?.last?["properties"] as? [String: Any])
        #expect((last["instruction"] as? String)?.hasPrefix("您已到达") == true)
    }

    @Test func polylineFormatsDecodeToTheSameLine() throws {
        let five = try Self.run(["route", "--graph", Self.graph.1, "--format", "polyline", "60.1699,24.9384", "60.1756,24.9412"])
        let six = try Self.run(["route", "--graph", Self.graph.1, "--format", "polyline6", "60.1699,24.9384", "60.1756,24.9412"])
        let a = try #require(Polyline.decode(five.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        let b = try #require(Polyline.decode(six.stdout.trimmingCharacters(in: .whitespacesAndNewlines), precision: 6))
        #expect(a.count == b.count)
        for (p, q) in zip(a, b) { #expect(abs(p.latitude - q.latitude) < 1e-5 && abs(p.longitude - q.longitude) < 1e-5) }
    }

    @Test func directionsInChineseAndImperialUnits() throws {
        let zh = try Self.run(["route", "--graph", Self.graph.1, "--language", "zh", "60.1699,24.9384", "60.1756,24.9412"])
        #expect(zh.status == 0)
        #expect(zh.stdout.contains("驾车") && zh.stdout.contains("到达目的地"))
        let miles = try Self.run(["route", "--graph", Self.graph.1, "--units", "imperial", "60.1699,24.9384", "60.1756,24.9412"])
        #expect(miles.stdout.split(separator: "\n")[0].contains(" mi,"))
        #expect(try Self.run(["route", "--graph", Self.graph.1, "--units", "cubits", "60.1699,24.9384", "60.1756,24.9412"]).status == 1)
    }

    @Test func gpxIsWellFormedWithARouteAndATrack() throws {
        let r = try Self.run(["route", "--graph", Self.graph.1, "--format", "gpx", "60.1699,24.9384", "60.1756,24.9412"])
        #expect(r.status == 0)
        final class Counter: NSObject, XMLParserDelegate {
            var elements: [String: Int] = [:]
            func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                        attributes: [String: String] = [:]) { elements[name, default: 0] += 1 }
        }
        let parser = XMLParser(data: Data(r.stdout.utf8))
        let counter = Counter()
        parser.delegate = counter
        #expect(parser.parse(), "GPX parses as XML")
        #expect(counter.elements["gpx"] == 1 && counter.elements["rte"] == 1 && counter.elements["trk"] == 1)
        #expect((counter.elements["rtept"] ?? 0) >= 2 && (counter.elements["trkpt"] ?? 0) > (counter.elements["rtept"] ?? 0))
    }

    @Test func exitCodes() throws {
        let g = Self.graph.1
        #expect(try Self.run(["--version"]).status == 0)
        #expect(try Self.run(["--help"]).status == 0)
        #expect(try Self.run(["route", "--help"]).status == 0)
        #expect(try Self.run([]).status == 1)
        #expect(try Self.run(["fly"]).status == 1)
        #expect(try Self.run(["route", "--graph", g, "60.1699,24.9384"]).status == 1, "one point is a usage error")
        #expect(try Self.run(["route", "--graph", g, "--format", "xml", "60.1699,24.9384", "60.1756,24.9412"]).status == 1)
        #expect(try Self.run(["route", "--graph", g, "--mode", "flying", "60.1699,24.9384", "60.1756,24.9412"]).status == 1)
        #expect(try Self.run(["route", "--graph", g, "--deviations", "shortcuts", "60.1699,24.9384", "60.1756,24.9412"]).status == 1)
        let bad = try Self.run(["route", "--graph", g, "60.1699;24.9384", "60.1756,24.9412"])
        #expect(bad.status == 2 && bad.stderr.contains("not a coordinate"))
        #expect(try Self.run(["route", "--graph", g, "95,24.9384", "60.1756,24.9412"]).status == 2)
        let far = try Self.run(["route", "--graph", g, "--format", "json", "48.85,2.35", "60.1756,24.9412"])
        #expect(far.status == 2 && far.stderr.contains("NoSegment"))
        #expect(far.stdout.contains("\"code\":\"NoSegment\""), "JSON callers get an OSRM error body")
        #expect(try Self.run(["route", "--graph", "/nonexistent", "60.1699,24.9384", "60.1756,24.9412"]).status == 2)
        let missing = try Self.run(["import", "/nonexistent.osm.pbf", "--output", NSTemporaryDirectory() + "/never"])
        #expect(missing.status == 2 && missing.stderr.split(separator: "\n").count == 1)
        // Import rules that are not Wayfinder's or OSRM's: a usage error, before anything is read or written.
        let never = NSTemporaryDirectory() + "/wayfinder-never-\(UUID().uuidString)"
        let rules = try Self.run(["import", OracleTests.packageRoot.appendingPathComponent("graphs/helsinki.osm.pbf").path, "--output", never, "--compat", "valhalla"])
        #expect(rules.status == 1 && rules.stderr.contains("--compat") && !FileManager.default.fileExists(atPath: never))
    }

    @Test func alternativesAndContinueStraightOptions() throws {
        let g = Self.graph.1, points = ["60.1675,24.9440", "60.1756,24.9412"]
        for bad in [["--alternatives", "9"], ["--alternatives", "many"], ["--continue-straight", "maybe"]] {
            let run = try Self.run(["route", "--graph", g] + bad + points)
            #expect(run.status == 1 && run.stderr.contains(bad[0]), "\(bad): \(run.stderr)")
        }
        let json = try Self.run(["route", "--graph", g, "--alternatives", "2", "--format", "json"] + points)
        let routes = (try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])?["routes"] as? [Any]
        #expect(json.status == 0 && (1...3).contains(routes?.count ?? 0))
        let via = try Self.run(["route", "--graph", g, "--continue-straight", "false", "60.1675,24.9440", "60.1720,24.9450", "60.1756,24.9412"])
        #expect(via.status == 0, "\(via.stderr)")
    }

    @Test func unconnectedRoadsExitWithCodeThree() throws {
        let directory = try TemporaryDirectory()
        let map = TestMap("a    b" + String(repeating: "\n", count: 30) + "c    d")
        map.way("ab", ["highway": "residential"])
        map.way("cd", ["highway": "residential"])
        try map.xml().write(toFile: directory.path + "/islands.osm", atomically: true, encoding: .utf8)
        #expect(try Self.run(["import", directory.path + "/islands.osm", "--output", directory.path + "/g", "--quiet"]).status == 0)
        let a = map.position("a"), d = map.position("d")
        let r = try Self.run(["route", "--graph", directory.path + "/g", "--format", "json", "\(a.latitude),\(a.longitude)",
                              "\(d.latitude),\(d.longitude)"])
        #expect(r.status == 3 && r.stderr.contains("NoRoute") && r.stdout.contains("\"code\":\"NoRoute\""))
    }

    @Test func matrixFormatsAgree() throws {
        let points = "60.1699,24.9384;60.1756,24.9412;60.1720,24.9450"
        let json = try Self.run(["matrix", "--graph", Self.graph.1, "--sources", points, "--format", "json"])
        #expect(json.status == 0, "\(json.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let durations = try #require(object["durations"] as? [[Double]])
        #expect(durations.count == 3 && durations.allSatisfy { $0.count == 3 })
        let csv = try Self.run(["matrix", "--graph", Self.graph.1, "--sources", points, "--format", "csv"])
        let lines = csv.stdout.split(separator: "\n")
        #expect(lines.count == 10 && lines[0] == "source,destination,duration,distance")
        #expect(Double(lines[2].split(separator: ",")[2]) == durations[0][1])
        let dijkstra = try Self.run(["matrix", "--graph", Self.graph.1, "--sources", points, "--format", "json", "--algorithm", "dijkstra"])
        let baseline = try #require(try JSONSerialization.jsonObject(with: Data(dijkstra.stdout.utf8)) as? [String: Any])
        #expect((baseline["durations"] as? [[Double]]) == durations, "hierarchy and Dijkstra tables agree")
        // Files: CSV with a header, and GeoJSON points.
        let directory = try TemporaryDirectory()
        try "lat,lon\n60.1699,24.9384\n60.1756,24.9412\n".write(toFile: directory.path + "/s.csv", atomically: true, encoding: .utf8)
        try #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[24.9450,60.1720]},"properties":{}}]}"#
            .write(toFile: directory.path + "/d.geojson", atomically: true, encoding: .utf8)
        let files = try Self.run(["matrix", "--graph", Self.graph.1, "--sources", directory.path + "/s.csv",
                                  "--destinations", directory.path + "/d.geojson", "--format", "json"])
        let fromFiles = try #require(try JSONSerialization.jsonObject(with: Data(files.stdout.utf8)) as? [String: Any])
        #expect((fromFiles["durations"] as? [[Double]]) == [[durations[0][2]], [durations[1][2]]])
        #expect(try Self.run(["matrix", "--graph", Self.graph.1, "--sources", "60.1699;24.9"]).status == 2)
        #expect(try Self.run(["matrix", "--graph", Self.graph.1, "--sources", "/nonexistent.csv"]).status == 2)
    }

    @Test(.enabled(if: Available.protoc, "needs protoc (apt-get install protobuf-compiler)"))
    func protobufDecodesIndependently() throws {
        let directory = try TemporaryDirectory()
        let proto = OracleTests.packageRoot.appendingPathComponent("proto").path
        func decode(_ message: String, _ bytes: String) throws -> String {
            let shell = "\(Self.binary) \(bytes) | protoc --proto_path=\(proto) --decode=wayfinder.\(message) \(proto)/wayfinder.proto"
            return try Self.runTool("/bin/sh", ["-c", shell]).stdout
        }
        let route = try decode("Route", "route --graph \(Self.graph.1) --format protobuf 60.1699,24.9384 60.1756,24.9412")
        #expect(route.contains("mode: \"driving\"") && route.contains("polyline6:") && route.contains("type: \"arrive\""))
        let json = try Self.run(["route", "--graph", Self.graph.1, "--format", "json", "60.1699,24.9384", "60.1756,24.9412"])
        let distance = try #require(((try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])?["routes"] as? [[String: Any]])?[0]["distance"] as? Double)
        let decoded = route.split(separator: "\n").first { $0.hasPrefix("distance:") }.flatMap { Double($0.dropFirst(10)) }
        #expect(abs((decoded ?? 0) - distance) < 0.1)
        let matrix = try decode("Matrix", "matrix --graph \(Self.graph.1) --format protobuf --sources '60.1699,24.9384;60.1756,24.9412;60.1720,24.9450'")
        #expect(matrix.split(separator: "\n").filter { $0.hasPrefix("durations:") }.count == 9)
        #expect(matrix.contains("columns: 3"))
        _ = directory
    }

    @Test func geocodingCommandsAndRoutesBetweenNames() throws {
        let g = Self.graph.1
        let found = try Self.run(["geocode", "--graph", g, "--format", "json", "Lonnrotinkatu"])
        #expect(found.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(found.stdout.utf8)) as? [String: Any])
        let first = try #require((json["features"] as? [[String: Any]])?.first)
        let properties = try #require((first["properties"] as? [String: Any])?["geocoding"] as? [String: Any])
        #expect(properties["name"] as? String == "Lönnrotinkatu")
        let reverse = try Self.run(["reverse", "--graph", g, "--format", "geojson", "60.1699,24.9384"])
        #expect(reverse.status == 0 && reverse.stdout.contains("\"title\""))
        let search = try Self.run(["search", "--graph", g, "--near", "60.1699,24.9384", "--radius", "1km", "restaurant"])
        #expect(search.status == 0 && search.stdout.contains("amenity=restaurant"))
        let route = try Self.run(["route", "--graph", g, "--mode", "walking", "Kampin kappeli", "Tuomiokirkko"])
        #expect(route.status == 0 && route.stdout.hasPrefix("From: "), "\(route.stderr)")
        let missing = try Self.run(["route", "--graph", g, "Xyzzyq Plaza", "60.1756,24.9412"])
        #expect(missing.status == 2 && missing.stderr.contains("no place matches"))
        // A matrix between names: the same table as between the coordinates the names resolve to.
        let names = try Self.run(["matrix", "--graph", g, "--mode", "walking", "--sources", "Kampin kappeli;Tuomiokirkko", "--format", "json"])
        #expect(names.status == 0 && names.stderr.contains("'Tuomiokirkko': "), "\(names.stderr)")
        let resolved = names.stderr.split(separator: "\n").compactMap { line in
            line.split(separator: "(").last.map { String($0.dropLast()) }
        }
        let coordinates = try Self.run(["matrix", "--graph", g, "--mode", "walking", "--sources", resolved.joined(separator: ";"), "--format", "json"])
        let table = { (run: Run) in (try? JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])?["durations"] as? [[Double]] }
        #expect(resolved.count == 2 && table(names) != nil && table(names) == table(coordinates))
        #expect(try Self.run(["matrix", "--graph", g, "--sources", "Xyzzyq Plaza;60.1756,24.9412"]).status == 2)
    }

    @Test func negativeCoordinatesAreNotOptions() throws {
        let r = try Self.run(["route", "--graph", Self.graph.1, "-33.86,151.21", "-33.87,151.20"])
        #expect(r.status == 2 && r.stderr.contains("NoSegment"), "Sydney is not in the Helsinki graph: \(r.stderr)")
    }

    @Test func benchReportsBothAlgorithms() throws {
        let r = try Self.run(["bench", "--graph", Self.graph.1, "--queries", "20", "--seed", "7"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("A*") && r.stdout.contains("Dijkstra") && r.stdout.contains("CH"))
        #expect(r.stdout.components(separatedBy: "same cost 20/20").count == 3, "A* and CH agree with Dijkstra")
    }

    /// A benchmark asked for a mode the directory was imported without says so and exits 2; in process,
    /// bench-http opened every mode there was and trapped on the missing one.
    @Test func benchmarksRefuseAModeTheGraphLacks() throws {
        let map = TestMap("""
            a   b   c
            """)
        map.way("abc", ["highway": "residential", "name": "Katu"])
        _ = try map.build(modes: [.driving, .walking])
        for command in [["bench-http", "--in-process", "--pairs", "2", "--rounds", "1"], ["bench", "--queries", "2"],
                        ["guidebench", "--pairs", "2"]] {
            let r = try Self.run(command + ["--graph", map.graphDirectory, "--mode", "cycling"])
            #expect(r.status == 2 && r.stderr.contains("has no cycling graph"), "\(command[0]): \(r.status) \(r.stderr)")
        }
    }

    /// The HTTP benchmark starts its own server and reads every answer through its client (a wrong length or a
    /// misread head would stall or fail it): all three variants report, and no answer is unexpected.
    @Test func benchHTTPReadsEveryAnswer() throws {
        for extra in [[], ["--in-process"]] {
            let r = try Self.run(["bench-http", "--graph", Self.graph.1, "--pairs", "5", "--seed", "3", "--rounds", "1"] + extra)
            #expect(r.status == 0, "\(extra): \(r.stdout) \(r.stderr)")
            for variant in ["route steps=true&overview=full", "route steps=false&overview=false", "nearest"] {
                let line = r.stdout.split(separator: "\n").first { $0.hasPrefix(variant + " ") } ?? ""
                #expect(line.range(of: #"[1-5] requests +p50 [0-9.]+ ms +p95 [0-9.]+ ms"#, options: .regularExpression) != nil,
                        "\(extra): \(variant): \(r.stdout)")
            }
            #expect(!r.stdout.contains("unexpected"), "\(r.stdout)")
        }
    }
}
