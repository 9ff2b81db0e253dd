import Foundation
import Engine
import Guidance
import RoadGraph
import Routing
import Testing

/// Mapbox Directions' voice and banner instructions (issue 30): their words and timing on a drawn map, the options
/// over HTTP, and on random routes the schema written from Mapbox's documentation and simulated drives.
@Suite struct NavigationInstructionTests {
    /// A long avenue, then a right turn into a street whose name needs escaping in SSML.
    static func avenueAndTurn() throws -> (TestMap, RoadGraph) {
        let map = TestMap("""
            a                              b d

                                           c
            """, gridSize: 100)
        map.way("abd", ["highway": "primary", "name": "Avenida Longa"])
        map.way("bc", ["highway": "residential", "name": "Rua A & B", "ref": "N1"])
        return (map, try map.build().driving)
    }

    @Test func announcementsComeAtTheirDistancesAndNameTheRoad() throws {
        let (map, graph) = try Self.avenueAndTurn()
        let route = try checkedRoute(graph, [map.position("a"), map.position("c")])
        var options = DirectionsOptions()
        options.voiceInstructions = true
        options.bannerInstructions = true
        let steps = try Directions(route: route, graph: graph, options: options).legs[0]
        #expect(steps.map(\.maneuver.type) == [.depart, .turn, .arrive])
        let voice = steps[0].voiceInstructions
        // The departure as it starts, then what comes, nearer and nearer, the last without a distance.
        #expect(abs((voice.first?.distanceAlongGeometry ?? 0) - steps[0].distance) < 0.1 && voice.first?.announcement == steps[0].instruction)
        #expect(voice.map(\.distanceAlongGeometry) == voice.map(\.distanceAlongGeometry).sorted(by: >), "\(voice)")
        #expect(voice.contains { $0.distanceAlongGeometry == 400 && $0.announcement == "In 400 metres, turn right into Rua A & B (N1)" },
                "\(voice.map(\.announcement))")
        let last = try #require(voice.last)
        #expect(last.announcement == "Turn right into Rua A & B (N1)")
        // About 7 s ahead at the avenue's speed, and never nearer than 30 m.
        let speed = steps[0].distance / steps[0].duration
        #expect(last.distanceAlongGeometry >= 30 && abs(last.distanceAlongGeometry - 7 * speed) < 0.2 * 7 * speed,
                "\(last.distanceAlongGeometry) m at \(speed) m/s")
        #expect(last.ssmlAnnouncement == #"<speak>Turn right into <say-as interpret-as="address">Rua A &amp; B (N1)</say-as></speak>"#)
        // The last step before the arrival says it; the arrival itself has nothing to say or show.
        #expect(steps[1].voiceInstructions.last?.announcement == "You will arrive at your destination", "\(steps[1].voiceInstructions)")
        #expect(steps[2].voiceInstructions.isEmpty && steps[2].bannerInstructions.isEmpty)

        // One banner per step, shown from its start, for the maneuver at its end: the ref as a shield.
        let banner = try #require(steps[0].bannerInstructions.first)
        #expect(steps[0].bannerInstructions.count == 1 && banner.distanceAlongGeometry == steps[0].distance)
        #expect(banner.primary.type == .turn && banner.primary.modifier == .right && banner.primary.text == "N1 / Rua A & B")
        #expect(banner.primary.components.map(\.kind) == [.icon, .delimiter, .text])
        #expect(steps[1].bannerInstructions.first?.primary.type == .arrive)
    }

    @Test func imperialUnitsAndChineseWords() throws {
        let (map, graph) = try Self.avenueAndTurn()
        let route = try checkedRoute(graph, [map.position("a"), map.position("c")])
        var options = DirectionsOptions(language: "zh")
        options.voiceInstructions = true
        options.voiceUnits = .imperial
        let steps = try Directions(route: route, graph: graph, options: options).legs[0]
        let said = steps[0].voiceInstructions.map(\.announcement)
        #expect(said.contains { $0.hasPrefix("0.2英里后") || $0.hasPrefix("0.1英里后") }, "\(said)")
        #expect(said.last == "右转进入Rua A & B（N1）", "\(said)")
        // A distance is said where it is true: "0.2 miles" at 0.2 miles.
        for v in steps[0].voiceInstructions where v.announcement.hasPrefix("0.2英里后") {
            #expect(abs(v.distanceAlongGeometry - 0.2 * 1609.344) < 0.1)
        }
        #expect(steps[0].bannerInstructions.isEmpty, "banners only when asked for")
    }

    /// A turn, then within seconds a turn from the lanes of a short link: the two are one announcement, and the
    /// second is said without its lane advice, which the banner shows, and without "still on" a road the chain
    /// just named, so that the words fit the seconds.
    @Test(arguments: [("East Road", "turn left into East Road", "左转进入East Road"),
                      ("Short Link", "turn left", "左转")])
    func aChainSaysItsLaterManeuversShorter(eastName: String, english: String, chinese: String) throws {
        let map = TestMap("""
            a       b       f


                    c       e
                    s
            """, gridSize: 30)
        map.way("abf", ["highway": "primary", "name": "First Street"])
        map.way("bc", ["highway": "primary", "name": "Short Link", "oneway": "yes", "lanes": "2", "turn:lanes": "left|through"])
        map.way("ce", ["highway": "primary", "name": eastName])
        map.way("cs", ["highway": "primary", "name": eastName == "Short Link" ? "South Road" : "Short Link"])
        let graph = try map.build().driving
        let route = try checkedRoute(graph, [map.position("a"), map.position("e")])
        let stays = eastName == "Short Link"
        for (language, second, chain) in [("en", stays ? "Get in the left lane and turn left, still on Short Link" : "Get in the left lane and turn left into East Road",
                                           "Turn right into Short Link, then " + english),
                                          ("zh", stays ? "使用左侧车道，左转，继续沿Short Link前行" : "使用左侧车道，左转进入East Road",
                                           "右转进入Short Link，然后" + chinese)] {
            var options = DirectionsOptions(language: language)
            options.voiceInstructions = true
            let steps = try Directions(route: route, graph: graph, options: options).legs[0]
            #expect(steps.map(\.maneuver.type) == [.depart, .turn, stays ? .continueOn : .turn, .arrive])
            #expect(steps[2].instruction == second)
            let said = steps.flatMap(\.voiceInstructions).map(\.announcement)
            #expect(said.contains(chain), "\(said)")
            // No chain says a later maneuver's lane advice.
            #expect(!said.contains { $0.contains("then get in") || $0.contains("然后使用") }, "\(said)")
        }
    }

    /// Four maneuvers in the first 12 s of a drive, in Porto (a loop onto Avenida Doutor Fernando Aroso): the
    /// departure, said as the car sets off, says all four. Left out, the fourth had its words only once the
    /// departure's ended, under a second before it.
    @Test(.enabled(if: Available.porto, "needs ../shared/data/r5-porto_portugal.osm.pbf"))
    func aDepartureSaysTheManeuversBeforeItsWordsEnd() throws {
        let engine = try Engine(directory: try DeploymentTests.portoGraph.get())
        for (language, then) in [("en", ", then "), ("zh", "，然后")] {
            var query = RouteQuery(mode: .driving, points: [Coordinate(latitude: 41.191725, longitude: -8.696440),
                                                            Coordinate(latitude: 41.199171, longitude: -8.551883)])
            query.directions = DirectionsOptions(language: language)
            query.directions.voiceInstructions = true
            let steps = try engine.route(query).best.directions.legs[0]
            try #require(steps.count > 5)
            // Four maneuvers in the first 21 s, turns and all; then 85 s along.
            #expect(steps[0...3].reduce(0) { $0 + $1.duration } < 21 && steps[4].duration > 60, "\(steps.map(\.duration))")
            let departure = try #require(steps[0].voiceInstructions.first?.announcement)
            #expect(departure.components(separatedBy: then).count == 5, "\(departure)")
            let between = steps[1...3].map(\.voiceInstructions.count)
            #expect(between == [0, 0, 0], "\(steps[1...3].map(\.voiceInstructions))")
        }
    }

    @Test func optionsOverHTTP() throws {
        let server = try ServerTests.Server()
        defer { _ = server.stop() }
        let path = "/route/v1/driving/24.9384,60.1699;24.9450,60.1720"
        let (status, object) = try ServerTests.json(server.base + path + "?steps=true&voice_instructions=true&banner_instructions=true&language=zh")
        #expect(status == 200)
        let route = try #require((object["routes"] as? [[String: Any]])?.first)
        #expect(route["voiceLocale"] as? String == "zh")
        let steps = try #require(((route["legs"] as? [[String: Any]])?.first?["steps"]) as? [[String: Any]])
        for (i, step) in steps.enumerated() {
            let voice = try #require(step["voiceInstructions"] as? [[String: Any]])
            let banners = try #require(step["bannerInstructions"] as? [[String: Any]])
            if i == steps.count - 1 {
                #expect(voice.isEmpty && banners.isEmpty)
            } else {
                #expect(!banners.isEmpty)
                for v in voice { #expect((v["ssmlAnnouncement"] as? String)?.hasPrefix("<speak>") == true) }
            }
        }
        #expect(steps.contains { !(($0["voiceInstructions"] as? [Any])?.isEmpty ?? true) })
        // Not asked for, not written.
        let plain = try ServerTests.json(server.base + path + "?steps=true").object
        let plainRoute = try #require((plain["routes"] as? [[String: Any]])?.first)
        #expect(plainRoute["voiceLocale"] == nil)
        let plainStep = try #require((((plainRoute["legs"] as? [[String: Any]])?.first?["steps"]) as? [[String: Any]])?.first)
        #expect(plainStep["voiceInstructions"] == nil && plainStep["bannerInstructions"] == nil)
        // Refused as Mapbox refuses them: without steps, or with units it does not know; units without announcements
        // would do nothing.
        for (query, code) in [("voice_instructions=true", "InvalidOptions"), ("steps=true&voice_units=furlongs", "InvalidQuery"),
                              ("steps=true&banner_instructions=yes", "InvalidQuery"),
                              ("steps=true&voice_units=imperial", "InvalidOptions"),
                              ("steps=true&banner_instructions=true&voice_units=metric", "InvalidOptions")] {
            let answer = try ServerTests.json(server.base + path + "?" + query)
            #expect(answer.status == 400 && answer.object["code"] as? String == code, "\(query): \(answer.object)")
        }
        // The same in a POST body.
        let posted = try RawHTTP.request(port: server.port, method: "POST", target: "/route/v1/driving",
                                         headers: ["Content-Type: application/json"],
                                         body: #"{"coordinates": [[24.9384, 60.1699], [24.9450, 60.1720]], "steps": true, "voice_instructions": true, "voice_units": "imperial"}"#)
        #expect(posted.status == 200 && posted.body.contains("\"voiceInstructions\""), "\(posted.status) \(posted.body.prefix(300))")
    }

    /// Random routes in both languages and modes, against the schema and on simulated drives
    /// (scripts/navigation_check.py): driving maneuvers' last announcements 3–15 s ahead but for runs of maneuvers
    /// faster than their words can be said (at most two, or 0.2 %), on foot (and on the walk that ends a drive) 90 %
    /// within a 5 m fix's spread; no announcement over the one before while driving.
    static func check(graph: String, bbox: String, pairs: Int) throws -> [[String: Any]] {
        let server = try ServerTests.Server(graph: graph)
        defer { _ = server.stop() }
        let scratch = try TemporaryDirectory()
        let script = OracleTests.packageRoot.appendingPathComponent("scripts/navigation_check.py").path
        let run = try Subprocess.run("/usr/bin/env", ["python3", script, "--base", server.base, "--bbox=\(bbox)",
                                                      "--pairs", "\(pairs)", "--json", scratch.path + "/summary.json"],
                                     timeout: 600)
        print(run.stdout)
        #expect(run.status == 0, "\(run.stdout.suffix(3000)) \(run.stderr.suffix(1000))")
        let summary = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: scratch.path + "/summary.json"))) as? [String: Any]
        let runs = summary?["runs"] as? [[String: Any]] ?? []
        #expect(runs.count == 4)
        for r in runs {
            func count(_ key: String) -> Int { r[key] as? Int ?? -1 }
            let label = "\(r["mode"] ?? "") \(r["language"] ?? ""): \(r)"
            #expect(count("routes") >= pairs / 2, "\(label)")
            #expect(count("schema_errors") == 0 && count("banner_problems") == 0 && count("unannounced") == 0, "\(label)")
            if r["mode"] as? String == "driving" {
                #expect(Double(count("outside_3_15s")) <= max(2, 0.002 * Double(count("maneuvers"))), "\(label)")
                #expect(count("overlaps") == 0, "\(label)")
                // The walk at the end of a drive, timed as a walk.
                #expect(Double(count("walked_outside_3_15s")) <= max(2, 0.1 * Double(count("walked_in_drive"))), "\(label)")
            } else {
                #expect(Double(count("outside_3_15s")) <= 0.1 * Double(count("maneuvers")), "\(label)")
                #expect(Double(count("overlaps")) <= 0.01 * Double(count("announcements")), "\(label)")
            }
        }
        return runs
    }

    @Test(.enabled(if: Available.python("jsonschema"), "needs python3's jsonschema (scripts/install-test-tools.sh)"))
    func helsinkiRoutesFollowTheSchemaAndTiming() throws {
        _ = try Self.check(graph: CommandLineTests.graph.1, bbox: "24.92,60.155,24.965,60.18", pairs: 40)
    }

    @Test(.enabled(if: Available.python("jsonschema"), "needs python3's jsonschema (scripts/install-test-tools.sh)"),
          .enabled(if: Available.porto, "needs ../shared/data/r5-porto_portugal.osm.pbf"))
    func portoRoutesFollowTheSchemaAndTiming() throws {
        _ = try Self.check(graph: try DeploymentTests.portoGraph.get(), bbox: "-8.70,41.13,-8.55,41.20", pairs: 100)
    }
}
