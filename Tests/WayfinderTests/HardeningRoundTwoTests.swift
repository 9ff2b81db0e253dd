import Engine
import Foundation
import GraphImport
import HTTPService
import RoadGraph
import RouteFormats
import Routing
import Testing
import TraceReading

/// The defects of the second hostile round (issue 27), each pinned by a test that failed before its fix.
@Suite(.serialized) struct HardeningRoundTwoTests {
    static func run(_ arguments: [String]) throws -> CommandLineTests.Run { try CommandLineTests.run(arguments) }

    // MARK: Totals past 32 bits

    /// A line of 13 stops 300 km apart: each leg is some 60 hours on foot (2.2 × 10⁸ ms, under the most one arc may
    /// cost), and 24 of them add up to 5.2 × 10⁹ ms, past 2³². A 32-bit sum trapped (SIGILL, exit 132).
    static func longLine() throws -> (TestMap, [Coordinate]) {
        let letters = Array("abcdefghijklm")
        let map = TestMap(letters.map(String.init).joined(separator: "  "), gridSize: 100_000)
        for (a, b) in zip(letters, letters.dropFirst()) { map.way(String([a, b]), ["highway": "residential"]) }
        return (map, letters.map { map.position($0) })
    }

    @Test func routeAndTripTotalsPastTwoToThe32Milliseconds() throws {
        let (map, stops) = try Self.longLine()
        let (_, walking) = try map.build()
        let there = stops + stops.reversed().dropFirst()
        var limits = EngineLimits()
        limits.maxRouteWaypoints = 100
        let engine = Engine(graphs: [.walking: walking], limits: limits)
        let route = try engine.route(RouteQuery(mode: .walking, points: there)).best.route
        #expect(route.legs.count == 24)
        #expect(route.weight > UInt64(UInt32.max), "\(route.weight) ms")
        #expect(route.weight == route.legs.reduce(UInt64(0)) { $0 + $1.weight })
        // Each leg is exact: the reference Dijkstra's cost between its ends.
        for leg in route.legs {
            let expected = ReferenceDijkstra.cost(in: walking, from: walking.sourceEndpoints(leg.source),
                                                  to: walking.targetEndpoints(leg.target))
            #expect(expected == leg.weight)
        }
        let trip = try engine.trip(TripQuery(mode: .walking, points: stops))
        #expect(trip.trips.count == 1)
        #expect(trip.trips[0].cost > Int64(UInt32.max))
        #expect(UInt64(trip.trips[0].cost) == trip.trips[0].guided.route.weight)

        // Table cells past 24 days (2³¹ ms) are exact too: such a label used to be clamped in its bucket.
        let table = try engine.table(TableQuery(mode: .walking, points: stops))
        let rows = try table.rows(0..<stops.count)
        var past31 = 0
        for i in stops.indices {
            for j in stops.indices {
                let oracle = ReferenceDijkstra.cost(in: walking, from: walking.sourceEndpoints(table.sources[i]!),
                                                    to: walking.targetEndpoints(table.destinations[j]!))
                #expect(rows[i][j].map { UInt64($0.weight) } == oracle, "cell \(i),\(j)")
                if (oracle ?? 0) > UInt64(Int32.max) { past31 += 1 }
            }
        }
        #expect(past31 >= 12)

        // The command line, through OSRM's JSON: the route's weight and duration are the legs' sums.
        let arguments = ["route", "--graph", map.graphDirectory, "--mode", "walking", "--format", "json"]
            + there.map { "\($0.latitude),\($0.longitude)" }
        let run = try Self.run(arguments)
        #expect(run.status == 0, "\(run.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let answer = try #require((json["routes"] as? [[String: Any]])?.first)
        let weight = try #require(answer["weight"] as? Double)
        #expect(weight > Double(UInt32.max) / 1000)
        #expect(abs(weight - Double(route.weight) / 1000) < 0.2)
    }

    // MARK: Traces

    /// A GPX file is refused at its limit while it is read: past the limit this one is not even XML, and the error
    /// is the limit's, not the parser's. (A 150,000-point trace took 26 s to be refused.)
    @Test func gpxPointsAreCountedWhileReading() throws {
        var text = "<?xml version=\"1.0\"?><gpx><trk><trkseg>"
        for k in 0..<11 { text += "<trkpt lat=\"60.1\(k)\" lon=\"24.9\"><time>2024-05-01T12:00:0\(k % 10)Z</time></trkpt>" }
        text += "<trkpt lat=<<<"
        #expect(throws: GPXTrace.Failure.self) { try GPXTrace.read(Data(text.utf8), maxPoints: 10) }
        do { _ = try GPXTrace.read(Data(text.utf8), maxPoints: 10) } catch {
            #expect("\(error)".contains("more than 10 track points"), "\(error)")
        }
        // Waypoints over the limit count only when there is no track.
        let waypoints = "<gpx>" + String(repeating: "<wpt lat=\"1\" lon=\"2\"/>", count: 5)
        #expect(try GPXTrace.read(Data((waypoints + "<trk><trkseg><trkpt lat=\"3\" lon=\"4\"/></trkseg></trk></gpx>").utf8), maxPoints: 3).count == 1)
        #expect(throws: GPXTrace.Failure.self) { try GPXTrace.read(Data((waypoints + "</gpx>").utf8), maxPoints: 3) }
    }

    /// GPX times are read by a small parser, checked against Foundation's on random times in every form GPX uses.
    @Test func gpxTimesAgreeWithFoundation() throws {
        var random = SplitMix64(seed: 27)
        let plain = ISO8601DateFormatter()
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        for _ in 0..<2_000 {
            let instant = Double(random.next() % 4_000_000_000) - 500_000_000
            let date = Date(timeIntervalSince1970: instant)
            let zoned = ISO8601DateFormatter()
            zoned.timeZone = TimeZone(secondsFromGMT: (Int(random.next() % 49) - 24) * 1800)!
            for (text, formatter) in [(plain.string(from: date), plain), (zoned.string(from: date), zoned)] {
                #expect(GPXTrace.seconds(text) == formatter.date(from: text)?.timeIntervalSince1970, "\(text)")
            }
            let milli = Date(timeIntervalSince1970: instant + Double(random.next() % 1000) / 1000)
            let text = fractional.string(from: milli)
            let expected = try #require(fractional.date(from: text)).timeIntervalSince1970
            #expect(abs((GPXTrace.seconds(text) ?? .nan) - expected) < 1e-6, "\(text)")
        }
        for bad in ["", "2024", "2024-02-30T00:00:00Z", "2023-02-29T00:00:00Z", "2024-05-01T25:00:00Z", "2024-05-01 12:00",
                    "2024-05-01T12:00:00Zjunk", "2024-05-01T12:00:00+25:00", "0x10", "2024-05-01T12:00:00."] {
            #expect(GPXTrace.seconds(bad) == nil, "\(bad)")
        }
        #expect(GPXTrace.seconds("2024-05-01T12:00:00") == GPXTrace.seconds("2024-05-01T12:00:00Z"), "GPX times are UTC")
    }

    /// A GPX file with a UTF-8 byte-order mark, or in UTF-16 either way round, is GPX, not CSV (it was read as CSV
    /// and failed with "expected lat,lon").
    @Test(arguments: ["utf8-bom", "utf16le", "utf16be", "utf16le-no-bom"])
    func gpxFilesInOtherEncodingsAreRead(encoding: String) throws {
        let xml = "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\"><trk><trkseg>"
            + "<trkpt lat=\"60.1699\" lon=\"24.9384\"/><trkpt lat=\"60.1705\" lon=\"24.9400\"/>"
            + "<trkpt lat=\"60.1712\" lon=\"24.9420\"/></trkseg></trk></gpx>\n"
        var bytes: [UInt8]
        switch encoding {
        case "utf8-bom": bytes = [0xEF, 0xBB, 0xBF] + Array(xml.utf8)
        case "utf16le": bytes = [0xFF, 0xFE] + xml.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        case "utf16be": bytes = [0xFE, 0xFF] + xml.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        default: bytes = xml.replacingOccurrences(of: "<?xml version=\"1.0\"?>\n", with: "").utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        }
        #expect(GPXTrace.looksLikeXML(Data(bytes)))
        let directory = try TemporaryDirectory()
        let path = directory.path + "/trace.gpx"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let run = try Self.run(["match", "--graph", CommandLineTests.graph.1, "--mode", "walking", path])
        // Without a mark, expat tells UTF-16 by its first bytes, as XML's appendix F describes.
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("3 of 3 fixes matched"), "\(run.stdout)")
    }

    // MARK: Snapping far from every road

    /// The nearest segment by brute force over every segment: the oracle of the grid search.
    static func bruteNearest(_ graph: RoadGraph, _ point: Coordinate, count: Int) -> [(edge: Int, distance: Double)] {
        var best: [Int: Double] = [:]
        let cosLatitude = cos(point.latitude * Double.pi / 180)
        for s in Set(graph.gridSegments.map(Int.init)) {
            let (_, position) = Geo.project(point, ontoSegmentFrom: graph.shapePoint(s), to: graph.shapePoint(s + 1), cosLatitude: cosLatitude)
            let d = Geo.distance(point, position, cosLatitudeA: cos(point.latitude * (Double.pi / 180)))
            let e = graph.edge(ofSegmentStartingAt: s)
            if d < best[e] ?? .infinity { best[e] = d }
        }
        return best.sorted { $0.value < $1.value }.prefix(count).map { ($0.key, $0.value) }
    }

    /// Points far from every road made the grid search visit every cell (58 s of CPU for a 1,000-point table at
    /// sea); past a few rings it now searches the non-empty cells, nearest first. The answers are the brute-force
    /// nearest, near and far, for one segment and for the ten nearest roads.
    @Test func farPointsSnapToTheTrueNearestRoads() throws {
        let graph = try RoadGraph(contentsOf: try graphFile(CommandLineTests.graph.1, .walking))
        let b = graph.metadata.bounds
        var random = SplitMix64(seed: 4)
        func uniform(_ low: Double, _ high: Double) -> Double { low + (high - low) * Double(random.next() >> 11) / Double(1 << 53) }
        var points: [Coordinate] = []
        for _ in 0..<20 { points.append(Coordinate(latitude: uniform(b.minLatitude, b.maxLatitude), longitude: uniform(b.minLongitude, b.maxLongitude))) }
        for _ in 0..<20 { points.append(Coordinate(latitude: uniform(b.minLatitude - 0.3, b.maxLatitude + 0.3), longitude: uniform(b.minLongitude - 0.6, b.maxLongitude + 0.6))) }
        for _ in 0..<20 { points.append(Coordinate(latitude: uniform(-80, 80), longitude: uniform(-180, 180))) }
        for point in points {
            let oracle = Self.bruteNearest(graph, point, count: 10)
            let hit = try #require(graph.nearestSegment(to: point, maxDistance: .infinity, rankedAsOSRM: false))
            #expect(abs(hit.distance - oracle[0].distance) < 1e-6, "\(point): \(hit.distance) m against \(oracle[0].distance) m")
            // Ranked as OSRM ranks nearly equal ones: at most the slack (1.25 m) farther.
            let ranked = try #require(graph.nearestSegment(to: point, maxDistance: .infinity))
            #expect(ranked.distance - oracle[0].distance <= 1.25 + 1e-6, "\(point): \(ranked.distance) m against \(oracle[0].distance) m")
            let roads = graph.nearestSegments(to: point, count: 10, maxDistance: .infinity, key: { graph.edge(ofSegmentStartingAt: $0) })
            #expect(roads.map(\.distance).elementsEqual(oracle.map(\.distance)) { abs($0 - $1) < 1e-6 }, "\(point)")
            // Within a radius too: nothing beyond it, everything within it.
            let radius = oracle[4].distance
            let near = graph.nearestSegments(to: point, count: 10, maxDistance: radius, key: { graph.edge(ofSegmentStartingAt: $0) })
            #expect(near.count == oracle.filter { $0.distance <= radius }.count, "\(point) within \(radius) m")
        }
    }

    /// The same far points through the server's budget: a 200-point table and a 100-point trip at sea, 50 far
    /// points in a route, and 100 nearest roads at sea are answered, not refused, and snapping is counted in the
    /// budget (a point at sea under a 1 ms budget is refused).
    @Test func snappingFarPointsStaysWithinTheBudget() throws {
        let engine = try Engine(directory: CommandLineTests.graph.1, limits: .server)
        var random = SplitMix64(seed: 5)
        func sea() -> Coordinate {
            Coordinate(latitude: 40 + Double(random.next() % 1000) / 1000, longitude: -30 + Double(random.next() % 1000) / 1000)
        }
        let table = try engine.table(TableQuery(mode: .driving, points: (0..<200).map { _ in sea() }))
        #expect(try table.rows(0..<200).count == 200)
        #expect(try engine.trip(TripQuery(mode: .walking, points: (0..<100).map { _ in sea() })).trips.count >= 1)
        #expect(try engine.route(RouteQuery(mode: .driving, points: (0..<50).map { _ in sea() })).best.route.legs.count == 49)
        #expect(try engine.nearest(mode: .walking, point: sea(), count: 100).1.count == 100)
        var tight = EngineLimits.server
        tight.maxComputeMilliseconds = 0.001
        let hurried = try Engine(directory: CommandLineTests.graph.1, limits: tight)
        #expect(throws: EngineError.self) { try hurried.table(TableQuery(mode: .driving, points: (0..<200).map { _ in sea() })) }
    }

    // MARK: Match radiuses

    /// `radiuses=1e300` made the candidate search unbounded (4.5 s for 100 points) and `1e-300` answered single
    /// fixes with confidence 1. Past `--max-matching-radius` a request is refused as OSRM refuses it; a radius too
    /// small for any road is no candidate (OSRM: NoSegment).
    @Test func matchRadiusesAreBounded() throws {
        let engine = try Engine(directory: CommandLineTests.graph.1, limits: .server)
        let trace = [Coordinate(latitude: 60.1699, longitude: 24.9384), Coordinate(latitude: 60.1705, longitude: 24.9400),
                     Coordinate(latitude: 60.1712, longitude: 24.9420)]
        var huge = MatchQuery(mode: .walking, points: trace)
        huge.accuracies = [1e300, 1e300, 1e300]
        do { _ = try engine.match(huge); Issue.record("a radius of 1e300 m was accepted") } catch let error as EngineError {
            #expect(error.code == "TooBig" && error.message.contains("Radius search size is too large"), "\(error)")
        }
        var tiny = MatchQuery(mode: .walking, points: trace)
        tiny.accuracies = [1e-300, 1e-300, 1e-300]
        do { _ = try engine.match(tiny); Issue.record("a radius of 1e-300 m matched") } catch let error as EngineError {
            #expect(error.code == "NoSegment", "\(error)")
        }
        var usual = MatchQuery(mode: .walking, points: trace)
        usual.accuracies = [10, 10, 10]
        #expect(try engine.match(usual).matchings.count == 1)
    }

    // MARK: HTTP framing

    /// Sends `text` on a new connection and reads until the server closes it (or 5 s pass): every answer sent.
    static func exchange(_ port: Int, _ text: String) throws -> String {
        let fd = try RawHTTP.connect(port: port, timeout: 5)
        defer { close(fd) }
        #expect(RawHTTP.send(fd, text))
        var data = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            data += buffer[0..<n]
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// What libmicrohttpd 0.9.75 let through: two Content-Length headers (the rest of the body became a second,
    /// smuggled request), an unknown Transfer-Encoding (no answer until the timeout), HTTP/1.1 without Host, and
    /// a NUL in the target (the URL was cut there and answered 200).
    @Test func requestFramingIsCheckedAtTheHead() throws {
        let server = try ServerTests.Server(quiet: false)
        defer { _ = server.stop() }
        let path = "/nearest/v1/driving/24.9384,60.1699"
        let smuggled = "GET /smuggled HTTP/1.1\r\nHost: a\r\n\r\n"
        let twoLengths = try Self.exchange(server.port, "GET \(path) HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n"
            + "Content-Length: \(smuggled.utf8.count)\r\n\r\n" + smuggled)
        #expect(twoLengths.hasPrefix("HTTP/1.1 400") && twoLengths.components(separatedBy: "HTTP/1.1 ").count == 2, "\(twoLengths)")
        let both = try Self.exchange(server.port, "GET \(path) HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n"
            + "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
        #expect(both.hasPrefix("HTTP/1.1 400"), "\(both)")
        let started = Date()
        let gzip = try Self.exchange(server.port, "GET \(path) HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\nxyz")
        #expect(gzip.hasPrefix("HTTP/1.1 501") && Date().timeIntervalSince(started) < 4, "\(gzip)")
        let noHost = try Self.exchange(server.port, "GET \(path) HTTP/1.1\r\nConnection: close\r\n\r\n")
        #expect(noHost.hasPrefix("HTTP/1.1 400") && noHost.contains("Host"), "\(noHost)")
        let twoHosts = try Self.exchange(server.port, "GET \(path) HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n")
        #expect(twoHosts.hasPrefix("HTTP/1.1 400"), "\(twoHosts)")
        let old = try Self.exchange(server.port, "GET \(path) HTTP/1.0\r\n\r\n")
        #expect(old.hasPrefix("HTTP/1.0 200") || old.hasPrefix("HTTP/1.1 200"), "HTTP/1.0 needs no Host: \(old)")
        for target in ["\(path)%00junk", "\(path)?number=1%00", "\(path)\u{0}junk", "\(path)?number=1\u{0}0"] {
            let answer = try Self.exchange(server.port, "GET \(target) HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
            #expect(answer.hasPrefix("HTTP/1.1 400") && answer.contains("NUL"), "\(target.debugDescription): \(answer)")
        }
        let fine = try Self.exchange(server.port, "GET \(path)?number=2 HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
        #expect(fine.hasPrefix("HTTP/1.1 200"), "\(fine)")
        usleep(200_000)
        #expect(!server.stderr.contains("/smuggled"), "the body after a conflicting length was not read as a request")
    }

    // MARK: Isochrones

    /// 100 km on foot at a 20 m resolution took 4.5 s of CPU and 47 MB of answer, outside the budget. The points to
    /// triangulate are now bounded (`--max-isochrone-points`) and counted before the triangulation.
    @Test func isochronesAreBoundedByTheirPoints() throws {
        var limits = EngineLimits.server
        limits.maxIsochronePoints = 5_000
        let engine = try Engine(directory: CommandLineTests.graph.1, limits: limits)
        var query = IsochroneQuery(mode: .walking, point: Coordinate(latitude: 60.1699, longitude: 24.9384), metric: .distance,
                                   limits: [100_000, 99_999, 99_998, 99_997])
        query.resolution = 20
        query.denoise = 0
        do { _ = try engine.isochrone(query); Issue.record("an isochrone over its points was answered") } catch let error as EngineError {
            #expect(error.code == "TooBig" && error.message.contains("5000 points"), "\(error)")
        }
        let small = IsochroneQuery(mode: .walking, point: Coordinate(latitude: 60.1699, longitude: 24.9384), metric: .duration, limits: [300])
        #expect(try engine.isochrone(small).isochrone.points <= 5_000)
    }

    /// `generalize` past a ring's size kept the whole ring (4,569 → 2,651 → 1,626 → 1,918 → 4,569 points as it
    /// rose): now a ring keeps its simplest valid form, a triangle, and never more points than at a smaller one.
    @Test func generalizingNeverGrowsARing() throws {
        let engine = try Engine(directory: CommandLineTests.graph.1)
        var counts: [Int] = []
        for tolerance in [0.0, 10, 100, 1_000, 1_000_000] {
            var query = IsochroneQuery(mode: .walking, point: Coordinate(latitude: 60.1699, longitude: 24.9384), metric: .duration,
                                       limits: [600, 900])
            query.denoise = 0
            query.generalize = tolerance
            let rings = try engine.isochrone(query).isochrone.contours.flatMap { $0.polygons.flatMap { $0 } }
            #expect(rings.allSatisfy { $0.count >= 4 && $0.first == $0.last }, "closed rings of a triangle or more")
            if tolerance == 1_000_000 { #expect(rings.allSatisfy { $0.count == 4 }, "\(rings.map(\.count))") }
            counts.append(rings.reduce(0) { $0 + $1.count })
        }
        #expect(counts == counts.sorted(by: >), "\(counts)")
    }

    /// `contours_minutes=1e308` and `--minutes nan` said "must be above zero"; `0x10` was read as 16 minutes.
    @Test func isochroneLimitsAreDecimalNumbersWithClearErrors() throws {
        let engine = try Engine(directory: CommandLineTests.graph.1, limits: .server)
        func answer(_ minutes: String) -> EngineError? {
            do {
                let request = try OSRMRequest(target: "/isochrone/v1/walking/24.9384,60.1699?contours_minutes=\(minutes)")
                _ = try engine.isochrone(try request.isochroneQuery().0)
                return nil
            } catch { return error as? EngineError }
        }
        #expect(answer("1e308").map { $0.code == "TooBig" && $0.message.contains("60 minutes") } == true)
        #expect(answer("0x10").map { $0.code == "InvalidValue" && $0.message.contains("not a number") } == true)
        #expect(answer("nan").map { $0.code == "InvalidValue" && $0.message.contains("not a number") } == true)
        #expect(answer("-5").map { $0.message.contains("above zero") } == true)
        #expect(answer("5") == nil)
        let run = try Self.run(["reach", "--graph", CommandLineTests.graph.1, "--minutes", "nan", "60.1699,24.9384"])
        #expect(run.status != 0 && run.stderr.contains("not a number") && !run.stderr.contains("above zero"), "\(run.stderr)")
        for text in ["0x10", "inf", "nan", "1e", "--5", "1.2.3", "", "e5", "."] { #expect(Double(decimal: text) == nil, "\(text)") }
        for (text, value) in [("16", 16.0), ("-2.5", -2.5), ("1e3", 1000), ("+.5", 0.5), ("5.", 5), ("2E-2", 0.02)] {
            #expect(Double(decimal: text) == value, "\(text)")
        }
    }

    // MARK: The budget of every service

    /// A process's CPU seconds (user and system) and resident kilobytes, from /proc.
    static func usage(_ pid: Int32) throws -> (cpu: Double, rss: Int) {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        let fields = stat[stat.range(of: ") ", options: .backwards)!.upperBound...].split(separator: " ")
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        let cpu = (Double(fields[11])! + Double(fields[12])!) / ticks
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let rss = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }.flatMap { Int($0.split(separator: " ")[1]) } ?? 0
        return (cpu, rss)
    }

    /// The worst request of issue 27 for each service, and one made worse, are answered or refused within twice
    /// the CPU budget (measured as the server's CPU time, which other load does not change); a trivial /nearest
    /// sent while two of them run is answered within 100 ms (the median of five); and the server's memory does not
    /// grow from three more rounds of them to the three after (by under 30 % of its level under ordinary requests).
    /// After the first round it stays within 2.5 times that level: what the workers' malloc arenas and the label
    /// cache keep varies with the load beside the test, from 10 % more alone to 130 % more beside the whole suite.
    /// The server runs with two malloc arenas: with one per thread, an arena first used late (beside the whole suite,
    /// 61 → 131 MB in the fifth round, then down) looks like a leak. glibc's mmap and trim thresholds are pinned at
    /// 128 KiB: left to move, the threshold rises after the first big buffer is freed, later big buffers come from an
    /// arena and stay resident, and the rounds swung by 20 MB (51 → 72 MB, no leak); pinned, by under 1 MB.
    @Test func everyServiceStaysWithinItsBudget() throws {
        let budget = 1000.0
        let server = try ServerTests.Server(extra: ["--max-compute-ms", "\(Int(budget))", "--max-url-length", "200000",
                                                    "--max-table-size", "1000", "--threads", "4"],
                                            environment: ["MALLOC_ARENA_MAX": "2", "MALLOC_MMAP_THRESHOLD_": "131072", "MALLOC_TRIM_THRESHOLD_": "131072"])
        defer { _ = server.stop() }
        var random = SplitMix64(seed: 27)
        func sea() -> String { "\(-30 + Double(random.next() % 10_000) / 10_000),\(40 + Double(random.next() % 10_000) / 10_000)" }
        func city() -> String { "\(24.92 + Double(random.next() % 400) / 10_000),\(60.16 + Double(random.next() % 200) / 10_000)" }
        func points(_ n: Int, _ make: () -> String) -> String { (0..<n).map { _ in make() }.joined(separator: ";") }
        let base = server.base
        let heavy: [(String, String)] = [
            ("route, 50 points at sea", "/route/v1/walking/\(points(50, sea))?steps=true"),
            ("route, 50 far apart in turn", "/route/v1/walking/\((0..<50).map { $0 % 2 == 0 ? sea() : city() }.joined(separator: ";"))?steps=true&alternatives=3"),
            ("table, 1,000 points at sea", "/table/v1/driving/\(points(1000, sea))"),
            ("table, 1,000 points half at sea", "/table/v1/walking/\((0..<1000).map { $0 % 2 == 0 ? sea() : city() }.joined(separator: ";"))?annotations=duration,distance"),
            ("nearest, 100 at sea", "/nearest/v1/driving/-30,40?number=100"),
            ("nearest, 100 at the antipode", "/nearest/v1/walking/-155.06,-60.17?number=100"),
            ("trip, 100 points at sea", "/trip/v1/driving/\(points(100, sea))"),
            ("trip, 100 points half at sea", "/trip/v1/walking/\((0..<100).map { $0 % 2 == 0 ? sea() : city() }.joined(separator: ";"))?steps=true"),
            ("match, 100 at sea at the largest radius", "/match/v1/driving/\(points(100, sea))?radiuses=\(Array(repeating: "1000", count: 100).joined(separator: ";"))"),
            ("match, 100 in the city at the largest radius", "/match/v1/walking/\(points(100, city))?radiuses=\(Array(repeating: "1000", count: 100).joined(separator: ";"))&steps=true"),
            ("isochrone, 100 km on foot at 20 m", "/isochrone/v1/walking/24.9384,60.1699?contours_meters=100000,99999,99998,99997&resolution=20&denoise=0&polygons=true"),
            ("isochrone, 60 min driving at 20 m", "/isochrone/v1/driving/24.9384,60.1699?contours_minutes=60,59,58,57&resolution=20&denoise=0&polygons=true&generalize=1"),
            ("geocode, 512 bytes of typos", "/geocode?q=\(String(repeating: "Mannerhiemintei%20", count: 28).prefix(512))"),
            ("geocode, 32 words near the sea", "/geocode?q=\((0..<32).map { _ in "kat" }.joined(separator: "%20"))&near=40,-30"),
        ]
        // Ordinary requests first, from four clients at once as a server sees them (each worker then has the memory
        // it keeps between requests): the memory's steady level.
        let ordinary = (0..<4).map { _ in
            (0..<30).flatMap { _ in
                ["/route/v1/walking/\(city());\(city())?steps=true", "/table/v1/driving/\(points(20, city))",
                 "/isochrone/v1/walking/\(city())?contours_minutes=10", "/trip/v1/driving/\(points(5, city))"]
            }
        }
        startClients(4) { k in for path in ordinary[k] { _ = try? ServerTests.get(base + path) } }.wait()
        let steady = try Self.usage(server.pid).rss
        var figures: [String] = []
        for (name, path) in heavy {
            let before = try Self.usage(server.pid).cpu
            let (status, body, _) = try ServerTests.get(base + path)
            let cpu = try Self.usage(server.pid).cpu - before
            let text = String(decoding: body.prefix(200), as: UTF8.self)
            #expect(status == 200 || (status == 400 && text.contains("\"code\"")), "\(name): \(status) \(text)")
            #expect(cpu <= 2 * budget / 1000, "\(name): \(cpu) s of CPU against a budget of \(budget) ms")
            figures.append("\(name): \(status), \(Int(cpu * 1000)) ms")
        }
        // Two heavy requests at once, and trivial ones beside them.
        let group = DispatchGroup()
        for path in [heavy[2].1, heavy[6].1] {
            group.enter()
            DispatchQueue.global().async { _ = try? ServerTests.get(base + path); group.leave() }
        }
        usleep(100_000)
        var latencies: [Double] = []
        for _ in 0..<5 {
            // On a connection of its own, as a new client's (URLSession's pool adds waits of its own).
            let started = Date()
            #expect(try RawHTTP.request(port: server.port, target: "/nearest/v1/driving/24.9384,60.1699").status == 200)
            latencies.append(Date().timeIntervalSince(started))
            usleep(20_000)
        }
        group.wait()
        #expect(latencies.sorted()[2] < 0.1, "nearest beside two heavy requests: \(latencies)")
        #expect(latencies.max()! < 0.5, "nearest beside two heavy requests: \(latencies)")
        let after = try Self.usage(server.pid).rss
        #expect(Double(after) <= 2.5 * Double(steady), "RSS \(steady) KB under ordinary requests, \(after) KB after the heavy ones")
        // The heaviest again, alone and two at once, six more rounds: a leak grows the memory with every round,
        // where the arenas stop growing once they have had their share; the later rounds' median is held against
        // the earlier rounds', not one round against another.
        var rounds: [Int] = []
        for _ in 0..<6 {
            for path in [heavy[3].1, heavy[7].1] { _ = try? ServerTests.get(base + path) }
            let again = DispatchGroup()
            for path in [heavy[2].1, heavy[6].1] {
                again.enter()
                DispatchQueue.global().async { _ = try? ServerTests.get(base + path); again.leave() }
            }
            again.wait()
            rounds.append(try Self.usage(server.pid).rss)
        }
        func median(_ values: ArraySlice<Int>) -> Int { values.sorted()[values.count / 2] }
        #expect(Double(median(rounds[3...]) - median(rounds[..<3])) <= 0.3 * Double(steady),
                "RSS \(steady) KB under ordinary requests, \(after) KB after a round of heavy ones, then \(rounds) KB")
        // The figures RELIABILITY.md records.
        print("budget: " + figures.joined(separator: "; ")
              + "; nearest beside two: \(latencies.map { Int($0 * 1000) }) ms; RSS \(steady) → \(after) → \(rounds) KB")
    }
}
