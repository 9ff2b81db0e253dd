import Engine
import Foundation
import HTTPService
import RoadGraph
import Testing

/// The cycling graph: OSRM's bicycle.lua rules on drawn maps, each answered by Wayfinder and by OSRM itself with the
/// wheel's profile (skipped with a message where the wheel is not installed), and the guidance a cyclist gets.
@Suite struct CyclingTests {
    /// One rule: tags on the street a–b–c, or on its middle node b, between a street x–a and one c–y where the
    /// routes start and end. A slow detour a–d–e–c (mud, 3 km/h) is there for the directions the rule closes, and is
    /// slower than pushing the bike along the street. OSRM does not join the detour into one edge beside the
    /// street's (two edges between a and c), and keeps one of its bends as a turn; so does Wayfinder.
    struct Case: CustomStringConvertible {
        var name: String
        var street: [String: String] = ["highway": "residential"]
        var node: [String: String]? = nil
        /// b–c under another name: b is where two roads meet, not a node inside one.
        var renamed = false
        /// a–b and b–c the same street with different translations (`name:fi`, `name:sv`): still one road to OSRM.
        var translated = false
        var description: String { name }
    }

    static let cases: [Case] = [
        Case(name: "a residential street"),
        Case(name: "a oneway, pushed against its direction", street: ["highway": "residential", "oneway": "yes"]),
        Case(name: "a oneway with a contraflow lane", street: ["highway": "residential", "oneway": "yes", "cycleway": "opposite"]),
        Case(name: "a oneway open to bikes both ways", street: ["highway": "residential", "oneway": "yes", "oneway:bicycle": "no"]),
        Case(name: "a oneway with an opposite lane on the left",
             street: ["highway": "residential", "oneway": "yes", "cycleway:left": "opposite_lane"]),
        Case(name: "a oneway for bikes only", street: ["highway": "residential", "oneway:bicycle": "yes"]),
        Case(name: "a reversed oneway", street: ["highway": "residential", "oneway": "-1"]),
        Case(name: "a roundabout's ring, one way by implication", street: ["highway": "residential", "junction": "roundabout"]),
        Case(name: "a footway, pushed", street: ["highway": "footway"]),
        Case(name: "a footway open to bikes", street: ["highway": "footway", "bicycle": "yes"]),
        Case(name: "a footway closed to walkers", street: ["highway": "footway", "foot": "no"]),
        Case(name: "a pedestrian street", street: ["highway": "pedestrian"]),
        Case(name: "steps", street: ["highway": "steps"]),
        Case(name: "a street where cyclists dismount", street: ["highway": "residential", "bicycle": "dismount"]),
        Case(name: "bicycle=no", street: ["highway": "residential", "bicycle": "no"]),
        Case(name: "access=no, bicycle=yes", street: ["highway": "residential", "access": "no", "bicycle": "yes"]),
        Case(name: "vehicle=no", street: ["highway": "residential", "vehicle": "no"]),
        Case(name: "a private road", street: ["highway": "residential", "access": "private"]),
        Case(name: "use_sidepath", street: ["highway": "primary", "bicycle": "use_sidepath"]),
        Case(name: "an access list", street: ["highway": "residential", "access": "destination;agricultural"]),
        Case(name: "one direction closed by a list", street: ["highway": "residential", "bicycle:backward": "no;private"]),
        Case(name: "a separately mapped cycleway", street: ["highway": "primary", "cycleway:right": "separate"]),
        Case(name: "a separately mapped cycleway, bikes let on",
             street: ["highway": "primary", "cycleway:both": "separate", "bicycle": "designated"]),
        Case(name: "a motorway", street: ["highway": "motorway"]),
        Case(name: "a trunk road", street: ["highway": "trunk"]),
        Case(name: "a trunk road open to walkers", street: ["highway": "trunk", "foot": "yes"]),
        Case(name: "a motorroad", street: ["highway": "secondary", "motorroad": "yes"]),
        Case(name: "a road under construction", street: ["highway": "construction"]),
        Case(name: "a road with minor works", street: ["highway": "tertiary", "construction": "minor"]),
        Case(name: "a cycleway", street: ["highway": "cycleway"]),
        Case(name: "a oneway cycleway", street: ["highway": "cycleway", "oneway": "yes"]),
        Case(name: "a track on gravel", street: ["highway": "track", "surface": "gravel"]),
        Case(name: "a path on setts", street: ["highway": "path", "surface": "sett"]),
        Case(name: "cobblestones", street: ["highway": "residential", "surface": "cobblestone"]),
        Case(name: "a speed limit below a bike's", street: ["highway": "living_street", "maxspeed": "10"]),
        Case(name: "a speed limit in mph", street: ["highway": "residential", "maxspeed:forward": "5 mph"]),
        Case(name: "a car park's aisle", street: ["amenity": "parking"]),
        Case(name: "a pier", street: ["man_made": "pier"]),
        Case(name: "a platform", street: ["railway": "platform"]),
        Case(name: "a movable bridge", street: ["highway": "residential", "bridge": "movable"]),
        Case(name: "a train that takes bikes", street: ["railway": "train", "bicycle": "yes"]),
        Case(name: "a ferry", street: ["route": "ferry", "duration": "00:05"]),
        Case(name: "a bollard", node: ["barrier": "bollard"]),
        Case(name: "a cycle barrier", node: ["barrier": "cycle_barrier"]),
        Case(name: "a fence", node: ["barrier": "fence"]),
        Case(name: "a private gate", node: ["barrier": "gate", "access": "private"]),
        Case(name: "a crossing closed to its road's traffic", node: ["highway": "crossing", "access": "no"]),
        Case(name: "traffic signals", node: ["highway": "traffic_signals"]),
        Case(name: "traffic signals facing forward", node: ["highway": "traffic_signals", "traffic_signals:direction": "forward"]),
        Case(name: "traffic signals where the street changes name", node: ["highway": "traffic_signals"], renamed: true),
        Case(name: "traffic signals where the street's translations change", node: ["highway": "traffic_signals"], translated: true),
    ]

    /// Vilhonkatu in the bundled Helsinki sample: a one-way street bending gently over its first 40 m meets a
    /// service road at node 3929024819. OSRM fits a line to points every metre along the street, counted in its own
    /// arithmetic; there the point due at 40 m falls to rounding, the line ends short, does not fit, and OSRM reads
    /// the street at its 10 m point. A bike crossing the junction pays what osrm-routed charges (4.2 s, not 6.5 s).
    @Test(.enabled(if: OSRMOracle.available, Comment(rawValue: OSRMOracle.skipMessage)))
    func aGentleBendReadAsOSRMSamplesIt() throws {
        let sample = OracleTests.packageRoot.appendingPathComponent("graphs/helsinki.osm.pbf").path
        let (service, osrm) = try OSRMOracle.beside(extract: sample, fileExtension: "osm.pbf", profile: "bicycle", mode: .cycling)
        // From the middle of the segment before the junction to the middle of the one after it.
        let request = "/route/v1/cycling/24.9426865,60.1718487;24.9426357,60.1718091?overview=false&radiuses=1;1"
            + "&annotations=duration"
        let ours = try #require(DividedRoadTests.junctionCost(try service.json(request).object))
        let theirs = try #require(DividedRoadTests.junctionCost(try osrm.json(request).object))
        #expect(abs(ours - theirs) < 0.05, "Wayfinder \(ours) s, OSRM \(theirs) s")
    }

    /// A point in the bundled Helsinki sample 30 m from a bend of Birger Brunilan puistokuja, 1 cm nearer the
    /// segment before node 5566659031 than the node itself: OSRM ranks the segments by its R-tree's measure
    /// (web Mercator, rounded to millionths of a degree) and snaps to the node, so the route ends there as OSRM's.
    @Test(.enabled(if: OSRMOracle.available, Comment(rawValue: OSRMOracle.skipMessage)))
    func aPointNearlyAsNearTwoSegmentsSnapsAsOSRM() throws {
        let sample = OracleTests.packageRoot.appendingPathComponent("graphs/helsinki.osm.pbf").path
        let (service, osrm) = try OSRMOracle.beside(extract: sample, fileExtension: "osm.pbf", profile: "bicycle", mode: .cycling)
        let request = "/route/v1/cycling/24.946531,60.168891;24.943416,60.175856?overview=false"
        let ours = try service.json(request + "&compat=osrm").object, theirs = try osrm.json(request).object
        func locations(_ body: [String: Any]) -> [[Double]] {
            (body["waypoints"] as? [[String: Any]] ?? []).compactMap { $0["location"] as? [Double] }
        }
        func duration(_ body: [String: Any]) -> Double? { (body["routes"] as? [[String: Any]])?.first?["duration"] as? Double }
        #expect(locations(ours).count == 2)
        #expect(locations(ours) == locations(theirs))
        #expect(try #require(duration(ours)) == duration(theirs))
    }

    static func map(_ c: Case) -> TestMap {
        let map = TestMap("""
            x    a    b    c    y

                 d         e
            """, gridSize: 20)
        map.way("xa", ["highway": "residential", "name": "West"])
        map.way("cy", ["highway": "residential", "name": "East"])
        map.way("ab", c.street.merging(["name": "Street"].merging(c.translated ? ["name:fi": "Katu"] : [:]) { $1 }) { $1 })
        map.way("bc", c.street.merging(["name": c.renamed ? "Other Street" : "Street"]
            .merging(c.translated ? ["name:sv": "Gatan"] : [:]) { $1 }) { $1 })
        map.way("adec", ["highway": "residential", "name": "Detour", "surface": "mud"])
        if let node = c.node { map.tagNode("b", node) }
        return map
    }

    /// What a route answer says that the rules decide: code, distance, duration, and the modes in the order the
    /// steps change between them (how many steps a mode takes is guidance's business, not the rules').
    static func figures(_ body: [String: Any]) -> (code: String, distance: Double, duration: Double, modes: [String]) {
        let route = (body["routes"] as? [[String: Any]])?.first
        let steps = ((route?["legs"] as? [[String: Any]])?.first?["steps"] as? [[String: Any]]) ?? []
        var modes: [String] = []
        for mode in steps.compactMap({ $0["mode"] as? String }) where mode != modes.last { modes.append(mode) }
        return (body["code"] as? String ?? "", route?["distance"] as? Double ?? -1, route?["duration"] as? Double ?? -1, modes)
    }

    /// A route's duration as OSRM's, to the tenth of a second, its ends included (`RoadGraph.partialCost` splits
    /// the segments there as OSRM does): what is left is the binary fraction of a tenth.
    static let sameTenth = 1e-6

    /// Every rule, both ways along the street, as OSRM answers with bicycle.lua: the same path (distance within
    /// 0.2 m), the same duration to the tenth, and the same modes in the same order (cycling, pushing bike,
    /// ferry, train).
    @Test(.enabled(if: OSRMOracle.available, Comment(rawValue: OSRMOracle.skipMessage)), arguments: cases)
    func ruleAsOSRM(_ c: Case) throws {
        let map = Self.map(c)
        _ = try map.build(modes: TravelMode.allCases)
        let service = WayfinderService(engine: try Engine(directory: map.graphDirectory))
        let osrm = try OSRMOracle(map: map, profile: "bicycle")
        let west = map.position(between: "x", "a", at: 0.5), east = map.position(between: "c", "y", at: 0.5)
        for (from, to) in [(west, east), (east, west)] {
            let request = "/route/v1/cycling/\(OSRMCompatibilityTests.text(from));"
                + "\(OSRMCompatibilityTests.text(to))?steps=true&compat=osrm"
            let ours = Self.figures(try service.json(request).object)
            let theirs = Self.figures(try osrm.json(request.replacingOccurrences(of: "&compat=osrm", with: "")).object)
            let way = from == west ? "eastwards" : "westwards"
            #expect(ours.code == theirs.code, "\(c.name) \(way)")
            #expect(abs(ours.distance - theirs.distance) <= 0.2, "\(c.name) \(way): \(ours) against OSRM's \(theirs)")
            #expect(abs(ours.duration - theirs.duration) <= Self.sameTenth, "\(c.name) \(way): \(ours) against OSRM's \(theirs)")
            #expect(ours.modes == theirs.modes, "\(c.name) \(way): \(ours.modes) against OSRM's \(theirs.modes)")
        }
    }

    /// A cross of four streets; a `no_left_turn` for all, one that exempts bikes, and one for bikes alone.
    static func junction(_ restriction: [String: String]) -> TestMap {
        let map = TestMap("""
                 n

            w    x    e

                 s
            """, gridSize: 20)
        let south = map.way("sx", ["highway": "residential", "name": "South"])
        map.way("xn", ["highway": "residential", "name": "North"])
        let west = map.way("xw", ["highway": "residential", "name": "West"])
        map.way("xe", ["highway": "residential", "name": "East"])
        map.relation([("way", south, "from"), ("node", map.nodes["x"]!.id, "via"), ("way", west, "to")],
                     ["type": "restriction"].merging(restriction) { $1 })
        return map
    }

    /// Turns cost what bicycle.lua says (the square of the angle, cheaper to the right), and restrictions bind bikes
    /// unless they say `except=bicycle`; `restriction:motorcar` does not bind them. Checked against OSRM.
    @Test(.enabled(if: OSRMOracle.available, Comment(rawValue: OSRMOracle.skipMessage)),
          arguments: [["restriction": "no_left_turn"], ["restriction": "no_left_turn", "except": "bicycle"],
                      ["restriction:bicycle": "no_left_turn"], ["restriction:motorcar": "no_left_turn"]])
    func turnsAndRestrictionsAsOSRM(_ restriction: [String: String]) throws {
        let map = Self.junction(restriction)
        _ = try map.build(modes: TravelMode.allCases)
        let service = WayfinderService(engine: try Engine(directory: map.graphDirectory))
        let osrm = try OSRMOracle(map: map, profile: "bicycle")
        for to in ["w", "n", "e"] as [Character] {
            let request = "/route/v1/bicycle/\(OSRMCompatibilityTests.text(map.position(between: "s", "x", at: 0.2)));"
                + "\(OSRMCompatibilityTests.text(map.position(between: "x", to, at: 0.8)))?steps=true"
            let ours = Self.figures(try service.json(request).object), theirs = Self.figures(try osrm.json(request).object)
            #expect(ours.code == theirs.code && abs(ours.distance - theirs.distance) <= 0.2
                    && abs(ours.duration - theirs.duration) <= Self.sameTenth, "\(restriction) to \(to): \(ours) against OSRM's \(theirs)")
        }
    }

    /// A ride that has to push along a footway: the steps say so, in both languages, and the text names the mode
    /// changes; the walking and driving graphs of the same import are untouched by the third.
    @Test func pushingSectionsAreSaid() throws {
        let map = TestMap("""
            a    b    c    d
            """, gridSize: 40)
        map.way("ab", ["highway": "residential", "name": "Rua Alta"])
        map.way("bc", ["highway": "footway", "name": "Passeio"])
        map.way("cd", ["highway": "residential", "name": "Rua Baixa"])
        _ = try map.build(modes: TravelMode.allCases)
        let engine = try Engine(directory: map.graphDirectory)
        #expect(Set(engine.current.graphs.keys) == [.driving, .walking, .cycling])
        let service = WayfinderService(engine: engine)
        let points = "\(OSRMCompatibilityTests.text(map.position("a")));\(OSRMCompatibilityTests.text(map.position("d")))"
        let english = try service.json("/route/v1/bike/\(points)?steps=true").object
        let steps = try #require(((english["routes"] as? [[String: Any]])?.first?["legs"] as? [[String: Any]])?.first?["steps"] as? [[String: Any]])
        #expect(steps.map { $0["mode"] as? String } == ["cycling", "pushing bike", "cycling", "cycling"], "\(steps)")
        let texts = steps.map { ($0["maneuver"] as? [String: Any])?["instruction"] as? String ?? "" }
        #expect(texts[1] == "Dismount and walk your bike along Passeio", "\(texts)")
        #expect(texts[2].hasPrefix("Get back on your bike"), "\(texts)")
        let osrmWords = try service.json("/route/v1/bike/\(points)?steps=true&compat=osrm").object
        #expect(!"\(osrmWords)".contains("Dismount"), "compat=osrm: osrm-text-instructions' words")
        let chinese = try service.json("/route/v1/bike/\(points)?steps=true&language=zh").object
        let zhSteps = try #require(((chinese["routes"] as? [[String: Any]])?.first?["legs"] as? [[String: Any]])?.first?["steps"] as? [[String: Any]])
        #expect((zhSteps[1]["maneuver"] as? [String: Any])?["instruction"] as? String == "下车推行，沿Passeio前行")
        // The walker's and the driver's answers do not know the cyclist's graph exists.
        let walking = try service.json("/route/v1/foot/\(points)?steps=true").object
        #expect(Self.figures(walking).modes.allSatisfy { $0 == "walking" })
    }

    /// An unnamed cycleway is "the cycle path" in the words, and stays unnamed in `name` (as OSRM's); to a driver's
    /// or walker's graph nothing changes.
    @Test func unnamedCyclewaysAreTheCyclePath() throws {
        let map = TestMap("""
            a    b    d

                 c
            """, gridSize: 40)
        map.way("abd", ["highway": "residential", "name": "Rua Alta"])
        map.way("bc", ["highway": "cycleway"])
        _ = try map.build(modes: TravelMode.allCases)
        let service = WayfinderService(engine: try Engine(directory: map.graphDirectory))
        let points = "\(OSRMCompatibilityTests.text(map.position("a")));\(OSRMCompatibilityTests.text(map.position("c")))"
        for (language, words) in [("en", "Turn right onto the cycle path"), ("zh", "自行车道")] {
            let body = try service.json("/route/v1/cycling/\(points)?steps=true&language=\(language)").object
            let steps = try #require(((body["routes"] as? [[String: Any]])?.first?["legs"] as? [[String: Any]])?.first?["steps"] as? [[String: Any]])
            let turn = try #require(steps.first { ($0["maneuver"] as? [String: Any])?["type"] as? String == "turn" }, "\(steps)")
            #expect(((turn["maneuver"] as? [String: Any])?["instruction"] as? String ?? "").contains(words), "\(turn)")
            #expect(turn["name"] as? String == "")
        }
        // OSRM's words with compat=osrm.
        let osrm = try service.json("/route/v1/cycling/\(points)?steps=true&compat=osrm").object
        #expect(!"\(osrm)".contains("cycle path"))
    }

    /// A cycleway that crosses a road straight on says nothing there, as OSRM says nothing: one step from start to
    /// arrival.
    @Test func crossingARoadStraightOnIsNoStep() throws {
        let map = TestMap("""
                 d

            a    b    c

                 e
            """, gridSize: 40)
        map.way("ab", ["highway": "cycleway"])
        map.way("bc", ["highway": "cycleway"])
        map.way("dbe", ["highway": "secondary", "name": "Rua Grande"])
        map.tagNode("b", ["highway": "crossing"])
        _ = try map.build(modes: TravelMode.allCases)
        let service = WayfinderService(engine: try Engine(directory: map.graphDirectory))
        let request = "/route/v1/cycling/\(OSRMCompatibilityTests.text(map.position(between: "a", "b", at: 0.2)));"
            + "\(OSRMCompatibilityTests.text(map.position(between: "b", "c", at: 0.8)))?steps=true"
        let body = try service.json(request).object
        let steps = ((body["routes"] as? [[String: Any]])?.first?["legs"] as? [[String: Any]])?.first?["steps"] as? [[String: Any]] ?? []
        #expect(steps.compactMap { ($0["maneuver"] as? [String: Any])?["type"] as? String } == ["depart", "arrive"], "\(steps)")
        if OSRMOracle.available {
            let osrm = try OSRMOracle(map: map, profile: "bicycle")
            let theirs = ((try osrm.json(request).object["routes"] as? [[String: Any]])?.first?["legs"] as? [[String: Any]])?.first?["steps"] as? [[String: Any]]
            #expect(theirs?.count == steps.count, "OSRM: \(String(describing: theirs))")
        }
    }

    /// `import --modes` builds the graphs asked for; a server on such a graph refuses the others by name, and a bad
    /// list is refused.
    @Test func importBuildsTheModesAsked() throws {
        let map = Self.map(Case(name: "plain"))
        let directory = try TemporaryDirectory()
        try map.xml().write(toFile: directory.path + "/map.osm", atomically: true, encoding: .utf8)
        let binary = OracleTests.packageRoot.appendingPathComponent(".build/release/wayfinder").path
        let run = try Subprocess.run(binary, ["import", directory.path + "/map.osm", "--output", directory.path + "/g",
                                              "--modes", "cycling,walking", "--quiet"])
        #expect(run.status == 0, "\(run.stderr)")
        let engine = try Engine(directory: directory.path + "/g")
        #expect(Set(engine.current.graphs.keys) == [.walking, .cycling])
        let service = WayfinderService(engine: engine)
        let points = "\(OSRMCompatibilityTests.text(map.position("a")));\(OSRMCompatibilityTests.text(map.position("c")))"
        #expect(try service.json("/route/v1/cycling/\(points)").object["code"] as? String == "Ok")
        let driving = try service.json("/route/v1/driving/\(points)")
        #expect(driving.status == 400 && (driving.object["message"] as? String ?? "").contains("driving"), "\(driving)")
        let bad = try Subprocess.run(binary, ["import", directory.path + "/map.osm", "--output", directory.path + "/h",
                                              "--modes", "driving,unicycle"])
        #expect(bad.status != 0 && bad.stderr.contains("--modes"), "\(bad.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/h"))
    }
}
