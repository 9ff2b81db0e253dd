import Engine
import Foundation
import MapMatching
import RoadGraph
import Routing
import Testing

/// Map matching: traces simulated from known routes are matched back onto them; OSRM's match service and the CLI.
@Suite struct MatchTests {
    @Test(.enabled(if: Available.porto, "needs ../shared/data/r5-porto_portugal.osm.pbf"))
    func portoTracesAtTenMetresNoiseMatchTheirRoutes() throws {
        let porto = OracleTests.sharedData.appendingPathComponent("r5-porto_portugal.osm.pbf")
        let (directory, driving, walking) = try OracleTests.graphs(for: porto)
        defer { _ = directory }
        var limits = EngineLimits()
        limits.maxTracePoints = 10_000
        let engine = Engine(graphs: [.driving: driving, .walking: walking], limits: limits)
        var random = SplitMix64(seed: 31)
        let core = (0..<UInt32(driving.arcCount)).filter { driving.arcInCore[Int($0)] == 1 && driving.arcBase[Int($0)] == $0 }
        var total = 0.0, found = 0.0, routes = 0, worst = 1.0
        while routes < 20 {
            let ends = (0..<2).map { _ in driving.arcPoints(core[Int(random.next() % UInt64(core.count))], from: 0, to: 0.5).last! }
            guard (1500.0...12000).contains(Geo.distance(ends[0], ends[1])) else { continue }
            var query = RouteQuery(mode: .driving, points: ends)
            query.directions.steps = false
            guard let truth = try? engine.route(query).best.route else { continue }
            routes += 1
            // Every 5–15 s, 10 m of noise each way, a tenth of the fixes lost.
            let trace = TraceSimulation.trace(along: truth, interval: 5...15, noise: 10, dropRate: 0.1, seed: UInt64(routes))
            var match = MatchQuery(mode: .driving, points: trace.map(\.coordinate))
            match.timestamps = trace.map { $0.time! }
            match.accuracies = trace.map { _ in 10 }
            let answer = try engine.match(match)
            let overlap = TraceSimulation.overlap(of: truth, with: answer.matchings.map(\.guided.route), in: driving)
            worst = min(worst, overlap)
            total += truth.distance
            found += overlap * truth.distance
            #expect(answer.placement.count == trace.count)
            #expect(answer.matchings.allSatisfy { (0...1).contains($0.confidence) })
        }
        #expect(found / total >= 0.95, "matched roads cover \(100 * found / total) % of the routes (worst \(100 * worst) %)")
        print("match check: \(routes) routes, \(String(format: "%.1f", 100 * found / total)) % of their length matched, worst \(String(format: "%.1f", 100 * worst)) %")
    }

    /// A trace along a drawn street, with a long pause: split in two, or matched whole with `gaps=ignore`.
    @Test func gapsSplitTheTraceUnlessIgnored() throws {
        let map = TestMap("a                                                                                b", gridSize: 10)
        map.way("ab", ["highway": "residential", "name": "Long Street"])
        let (driving, walking) = try map.build()
        let engine = Engine(graphs: [.driving: driving, .walking: walking])
        let points = (0..<8).map { map.position(between: "a", "b", at: 0.1 + 0.1 * Double($0)) }
        var query = MatchQuery(mode: .driving, points: points)
        query.timestamps = [0, 10, 20, 30, 150, 160, 170, 180]
        let split = try engine.match(query)
        #expect(split.matchings.count == 2, "a 120 s gap splits the trace")
        #expect(split.placement.compactMap { $0?.matching } == [0, 0, 0, 0, 1, 1, 1, 1])
        query.splitGaps = false
        let whole = try engine.match(query)
        #expect(whole.matchings.count == 1)
        #expect(abs(whole.matchings[0].guided.route.distance - Geo.osrmRulerDistance(points[0], points[7])) < 2)
        #expect(whole.matchings[0].guided.route.legs.count == 7, "a leg between each pair of fixes")
        // tidy: fixes within 10 m of the one kept before, and repeated times, are left out.
        var jittery = MatchQuery(mode: .driving, points: [points[0], map.position(between: "a", "b", at: 0.101), points[1],
                                                         points[1], points[2]])
        jittery.timestamps = [0, 1, 10, 10, 20]
        jittery.tidy = true
        let tidied = try engine.match(jittery)
        #expect(tidied.placement.map { $0 != nil } == [true, false, true, false, true], "\(tidied.placement)")
        jittery.tidy = false
        #expect(try engine.match(jittery).placement.allSatisfy { $0 != nil })
    }

    @Test func matchServiceAnswersAsOSRMAndRefusesBadTraces() throws {
        let server = try ServerTests.Server()
        defer { _ = server.stop() }
        // Along Mannerheimintie, northwards, with a little noise.
        let coordinates = "24.9407,60.1692;24.9395,60.1705;24.9383,60.1718;24.9370,60.1731;24.9359,60.1744"
        let (status, body) = try ServerTests.json("\(server.base)/match/v1/driving/\(coordinates)?timestamps=0;10;20;30;40&radiuses=10;10;10;10;10&steps=true")
        #expect(status == 200 && body["code"] as? String == "Ok", "\(body)")
        let matchings = try #require(body["matchings"] as? [[String: Any]])
        #expect(!matchings.isEmpty)
        #expect(matchings.allSatisfy { ($0["confidence"] as? Double).map { (0...1).contains($0) } ?? false })
        #expect(matchings.allSatisfy { ($0["legs"] as? [Any]) != nil })
        let tracepoints = try #require(body["tracepoints"] as? [Any])
        #expect(tracepoints.count == 5)
        let matched = tracepoints.compactMap { $0 as? [String: Any] }
        // Cars may not use Mannerheimintie here: the fixes go to the streets beside it, and the one that only a
        // detour would reach is left unmatched, as OSRM leaves such fixes.
        #expect(matched.count >= 3, "most fixes are matched")
        #expect(matchings.reduce(0) { $0 + ($1["distance"] as? Double ?? 0) } < 900, "no detour to reach every fix")
        #expect(matched.allSatisfy { $0["matchings_index"] is Int && $0["waypoint_index"] is Int && $0["alternatives_count"] is Int })
        for (query, code) in [
            ("timestamps=0;10;5;30;40", "InvalidValue"), ("timestamps=0;10;20", "InvalidOptions"), ("gaps=sometimes", "InvalidQuery"),
            ("radiuses=10;10;-1;10;10", "InvalidValue"), ("tidy=maybe", "InvalidQuery"), ("waypointz=1", "InvalidQuery"),
        ] {
            let (status, body) = try ServerTests.json("\(server.base)/match/v1/driving/\(coordinates)?\(query)")
            #expect(status == 400 && body["code"] as? String == code, "\(query): \(body)")
        }
        let (single, one) = try ServerTests.json("\(server.base)/match/v1/driving/24.9407,60.1692")
        #expect(single == 400 && one["code"] as? String == "InvalidOptions", "OSRM 26.10's code")
        let many = (0..<101).map { "24.94\($0 % 10),60.16\($0 % 9)" }.joined(separator: ";")
        let (tooBig, big) = try ServerTests.json("\(server.base)/match/v1/driving/\(many)")
        #expect(tooBig == 400 && big["code"] as? String == "TooBig")
        let (far, farBody) = try ServerTests.json("\(server.base)/match/v1/driving/2.35,48.85;2.36,48.86")
        // OSRM 26.10 answers this NoSegment (no candidate for any fix), not NoMatch.
        #expect(far == 400 && farBody["code"] as? String == "NoSegment", "\(farBody)")
    }

    @Test func matchCommandReadsGPX() throws {
        let directory = try TemporaryDirectory()
        let gpx = directory.path + "/trace.gpx"
        let points = [(60.1692, 24.9407), (60.1705, 24.9395), (60.1718, 24.9383), (60.1731, 24.9370), (60.1744, 24.9359)]
        let track = points.enumerated().map { k, p in
            "<trkpt lat=\"\(p.0)\" lon=\"\(p.1)\"><time>2026-12-01T10:00:\(String(format: "%02d", 10 * k))Z</time></trkpt>"
        }.joined(separator: "\n")
        try """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
        \(track)
        </trkseg></trk></gpx>
        """.write(toFile: gpx, atomically: true, encoding: .utf8)
        let run = try CommandLineTests.run(["match", "--graph", CommandLineTests.graph.1, "--format", "json", "--accuracy", "10", gpx])
        #expect(run.status == 0, "\(run.stderr)")
        let body = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(body["code"] as? String == "Ok")
        #expect((body["tracepoints"] as? [Any])?.count == 5)
        let text = try CommandLineTests.run(["match", "--graph", CommandLineTests.graph.1, gpx])
        #expect(text.status == 0 && text.stdout.contains("fixes matched"), "\(text.stdout)")
        // Bad traces: not XML, not GPX, empty, one point, times going back.
        let cases: [(String, String)] = [
            ("<gpx version=\"1.1\"><trk><trkseg><trkpt lat=\"60.1\" lon=\"24.9\"></trkseg", "not a readable GPX"),
            ("<kml></kml>", "not a GPX file"),
            ("<gpx version=\"1.1\"><trk><trkseg></trkseg></trk></gpx>", "empty"),
            ("<gpx version=\"1.1\"><trk><trkseg><trkpt lat=\"60.1692\" lon=\"24.9407\"/></trkseg></trk></gpx>", "at least two"),
            ("<gpx version=\"1.1\"><trk><trkseg><trkpt lat=\"60.1692\" lon=\"24.9407\"><time>2026-12-01T10:00:10Z</time></trkpt><trkpt lat=\"60.1705\" lon=\"24.9395\"><time>2026-12-01T10:00:00Z</time></trkpt></trkseg></trk></gpx>", "must not decrease"),
            ("<gpx version=\"1.1\"><trk><trkseg><trkpt lat=\"95\" lon=\"24.9407\"/></trkseg></trk></gpx>", "no valid lat and lon"),
        ]
        for (content, message) in cases {
            try content.write(toFile: gpx, atomically: true, encoding: .utf8)
            let bad = try CommandLineTests.run(["match", "--graph", CommandLineTests.graph.1, gpx])
            #expect(bad.status == 2 && bad.stderr.contains(message), "\(message): \(bad.stderr)")
        }
    }
}
