import Engine
import Foundation
import Guidance
import HTTPService
import RoadGraph
import RouteFormats
import Routing
import Testing

/// Maneuvers on hand-drawn maps, one test per rule of OSRM v6's guidance (or our written deviation from it), each
/// checked in English and Chinese. Maps are drawn at 30 m a character unless a rule is about short distances:
/// name changes under 105 m and steps under 10 m are folded away by design.
@Suite struct GuidanceTests {
    func steps(_ graph: RoadGraph, _ points: [Coordinate], language: String = "en", units: Units = .metric) throws -> [GuidanceStep] {
        let route = try checkedRoute(graph, points)
        let directions = try Directions(route: route, graph: graph, options: DirectionsOptions(language: language, units: units))
        checkContiguous(route, directions)
        return Array(directions.legs.joined())
    }

    /// Every step starts where the previous ended, and the steps add up to the route.
    func checkContiguous(_ route: Route, _ directions: Directions) {
        for (leg, steps) in zip(route.legs, directions.legs) {
            for (a, b) in zip(steps, steps.dropFirst()) {
                #expect(Geo.distance(a.coordinates.last!, b.coordinates.first!) < 0.01, "steps are contiguous")
            }
            #expect(abs(steps.reduce(0) { $0 + $1.distance } - leg.distance) < 1)
            #expect(abs(steps.reduce(0) { $0 + $1.duration } - leg.duration) < 0.01)
        }
    }

    func kinds(_ steps: [GuidanceStep]) -> [String] {
        steps.map { [$0.maneuver.type.rawValue, $0.maneuver.modifier?.rawValue].compactMap { $0 }.joined(separator: " ") }
    }

    /// The steps between depart and arrive, in both languages.
    func texts(_ graph: RoadGraph, _ points: [Coordinate]) throws -> (en: [String], zh: [String]) {
        (try steps(graph, points).map(\.instruction), try steps(graph, points, language: "zh").map(\.instruction))
    }

    // MARK: Modifiers and plain turns

    @Test func modifiersFollowOSRMAngleRanges() {
        // OSRM's getTurnDirection: the angle turned through, 180 for straight on.
        let expected: [(Double, Modifier)] = [
            (0, .uturn), (1, .sharpRight), (59, .sharpRight), (60, .right), (139, .right), (140, .slightRight),
            (159, .slightRight), (160, .straight), (200, .straight), (201, .slightLeft), (220, .slightLeft),
            (221, .left), (300, .left), (301, .sharpLeft), (359, .sharpLeft),
        ]
        for (angle, modifier) in expected { #expect(Modifier(angle: angle) == modifier, "\(angle)°") }
    }

    /// A junction c with an approach from the west and four ways on.
    ///
    ///           l
    ///     w     c     e
    ///      h
    ///             r
    func junction() throws -> (TestMap, RoadGraph) {
        let map = TestMap("""
                  l

            w     c     e
             h
                      r
            """, gridSize: 30)
        map.way("wc", ["highway": "residential", "name": "Approach"])
        map.way("cl", ["highway": "residential", "name": "Left Street"])
        map.way("ce", ["highway": "residential", "name": "Ahead Street"])
        map.way("ch", ["highway": "residential", "name": "Hairpin Street"])
        map.way("cr", ["highway": "residential", "name": "Slight Street"])
        return (map, try map.build().driving)
    }

    @Test func turnsByAngle() throws {
        let (map, graph) = try junction()
        let w = map.position("w")
        #expect(kinds(try steps(graph, [w, map.position("l")])) == ["depart", "turn left", "arrive"])
        #expect(kinds(try steps(graph, [w, map.position("r")])) == ["depart", "turn slight right", "arrive"])
        #expect(kinds(try steps(graph, [w, map.position("h")])) == ["depart", "turn sharp right", "arrive"])
        #expect(kinds(try steps(graph, [w, map.position("e")])) == ["depart", "new name straight", "arrive"])
        let left = try texts(graph, [w, map.position("l")])
        #expect(left.en == ["Go east along Approach", "Turn left into Left Street", "Your destination is here"])
        #expect(left.zh == ["沿Approach向东出发", "左转进入Left Street", "您已到达目的地"])
        let sharp = try texts(graph, [w, map.position("h")])
        #expect(sharp.en[1] == "Turn sharp right into Hairpin Street")
        #expect(sharp.zh[1] == "向右急转进入Hairpin Street")
        let ahead = try texts(graph, [w, map.position("e")])
        #expect(ahead.en[1] == "Carry on as the road becomes Ahead Street")
        #expect(ahead.zh[1] == "继续沿Ahead Street前行")
        let turn = try steps(graph, [w, map.position("l")])[1]
        #expect(turn.maneuver.bearingBefore == 90 && turn.maneuver.bearingAfter == 0)
    }

    @Test func intersectionsCarryBearingsAndEntries() throws {
        let (map, graph) = try junction()
        let turn = try steps(graph, [map.position("w"), map.position("l")])[1]
        let at = try #require(turn.intersections.first)
        #expect(at.bearings.count == 5)
        #expect(at.bearings == at.bearings.sorted())
        #expect(at.bearings[try #require(at.inIndex)] == 270, "the approach, seen from the junction")
        #expect(at.bearings[try #require(at.outIndex)] == 0)
        #expect(at.entry.filter { $0 }.count == 4, "every way on is allowed; the approach's U-turn is not")
    }

    // MARK: Obvious turns: no step where the road simply goes on

    @Test func goingStraightThroughAnIntersectionOnTheSameRoadIsNoStep() throws {
        let map = TestMap("""
                  n
            w     c     e
                  s
            """, gridSize: 30)
        map.way("wce", ["highway": "primary", "name": "Main"])
        map.way("ncs", ["highway": "residential", "name": "Cross"])
        let graph = try map.build().driving
        let result = try steps(graph, [map.position("w"), map.position("e")])
        #expect(kinds(result) == ["depart", "arrive"])
        #expect(result[0].intersections.count == 2, "departure and the crossing passed")
    }

    /// The main road bends by 45° where a minor road goes straight on: the bend is obvious, no step.
    @Test func aBendWithAMinorRoadStraightOnIsNoStep() throws {
        let map = TestMap("""
            a     b     d

                      c
            """, gridSize: 30)
        map.way("abc", ["highway": "secondary", "name": "Main"])
        map.way("bd", ["highway": "service"])
        let graph = try map.build().driving
        let result = try texts(graph, [map.position("a"), map.position("c")])
        #expect(kinds(try steps(graph, [map.position("a"), map.position("c")])) == ["depart", "arrive"])
        #expect(result.en[0] == "Go east along Main")
        #expect(result.zh[0] == "沿Main向东出发")
        // Taking the minor road is the decision, and it is announced.
        #expect(kinds(try steps(graph, [map.position("a"), map.position("d")])).count == 3)
    }

    /// A driveway or service road does not take "straight on" from the street.
    @Test func drivewaysDoNotStealTheContinue() throws {
        let map = TestMap("""
            a     b     c
                  d
            """, gridSize: 30)
        map.way("ab", ["highway": "residential", "name": "Kotikatu"])
        map.way("bc", ["highway": "residential", "name": "Kotikatu"])
        map.way("bd", ["highway": "service", "service": "driveway"])
        let graph = try map.build().driving
        #expect(kinds(try steps(graph, [map.position("a"), map.position("c")])) == ["depart", "arrive"])
        let into = try texts(graph, [map.position("a"), map.position("d")])
        #expect(into.en[1] == "Turn right")
        #expect(into.zh[1] == "右转")
    }

    // MARK: Names

    @Test func aNameChangeWithoutAChoiceIsANewName() throws {
        let map = TestMap("a     b     c", gridSize: 30)
        map.way("ab", ["highway": "residential", "name": "First"])
        map.way("bc", ["highway": "residential", "name": "Second"])
        let result = try steps(try map.build().driving, [map.position("a"), map.position("c")])
        #expect(kinds(result) == ["depart", "new name straight", "arrive"])
        #expect(result[1].instruction == "Carry on as the road becomes Second")
    }

    /// OSRM's suffix rule (a compass word more or less) and our abbreviation rule (`St`/`Street`): one street.
    @Test func suffixesAndAbbreviationsAreNoNewName() throws {
        let map = TestMap("a     b     c     d     e", gridSize: 30)
        map.way("ab", ["highway": "residential", "name": "Main St"])
        map.way("bc", ["highway": "residential", "name": "Main Street"])
        map.way("cd", ["highway": "residential", "name": "N Main Street"])
        map.way("de", ["highway": "residential", "name": "Rua do Doutor Alfredo de Magalhães"])
        let graph = try map.build().driving
        #expect(kinds(try steps(graph, [map.position("a"), map.position("d")])) == ["depart", "arrive"])
        // A different street is still announced, and compass words are stripped from one side only.
        #expect(kinds(try steps(graph, [map.position("a"), map.position("e")])) == ["depart", "new name straight", "arrive"])
        #expect(RoadNames.same("Rua Doutor Alfredo Magalhães", "Rua do Doutor Alfredo de Magalhães"))
        #expect(!RoadNames.same("South Road", "East Road"))
        #expect(!RoadNames.same("Rua A", "Rua Alegria"))
    }

    /// "type modifier" of each step of an OSRM JSON answer.
    static func stepKinds(_ body: [String: Any]) -> [String] {
        let legs = ((body["routes"] as? [[String: Any]])?.first?["legs"] as? [[String: Any]]) ?? []
        return legs.flatMap { ($0["steps"] as? [[String: Any]]) ?? [] }.map { step in
            let m = step["maneuver"] as? [String: Any] ?? [:]
            return [m["type"] as? String, m["modifier"] as? String].compactMap { $0 }.joined(separator: " ")
        }
    }

    /// Where two ways of one road meet end to end, OSRM has no junction, and lists no intersection; where one of
    /// them is a tunnel, the car profile has one (its classes differ) and the foot profile does not.
    @Test(.enabled(if: OSRMOracle.available, Comment(rawValue: OSRMOracle.skipMessage)))
    func intersectionsWhereOSRMHasJunctions() throws {
        func intersections(_ body: [String: Any]) -> Int {
            let legs = ((body["routes"] as? [[String: Any]])?.first?["legs"] as? [[String: Any]]) ?? []
            return legs.flatMap { ($0["steps"] as? [[String: Any]]) ?? [] }.reduce(0) { $0 + (($1["intersections"] as? [Any])?.count ?? 0) }
        }
        for tunnel in [false, true] {
            let map = TestMap("a      b      c      d", gridSize: 20)
            map.way("ab", ["highway": "secondary", "name": "Long Road"])
            map.way("bc", ["highway": "secondary", "name": "Long Road"].merging(tunnel ? ["tunnel": "yes", "layer": "-1"] : [:]) { a, _ in a })
            map.way("cd", ["highway": "secondary", "name": "Long Road"])
            let service = try map.served()
            for (profile, mode) in [("car", "driving"), ("foot", "walking")] {
                let osrm = try OSRMOracle(map: map, profile: profile)
                let request = "/route/v1/\(mode)/\(OSRMCompatibilityTests.text(map.position("a")));"
                    + "\(OSRMCompatibilityTests.text(map.position("d")))?steps=true&overview=false"
                let theirs = intersections(try osrm.json(request).object)
                #expect(theirs == (tunnel && mode == "driving" ? 4 : 2), "\(mode), tunnel: \(tunnel)")
                #expect(intersections(try service.json(request + "&compat=osrm").object) == theirs, "\(mode), tunnel: \(tunnel)")
                #expect(intersections(try service.json(request).object) == theirs, "\(mode), tunnel: \(tunnel)")
            }
        }
    }

    /// A footway that turns into steps 6 m from a junction is one road to OSRM's foot profile (one priority class),
    /// and the junction reads its bearing 10 m along it, on the steps; a footway that turns into a track is two.
    @Test(.enabled(if: OSRMOracle.available, Comment(rawValue: OSRMOracle.skipMessage)))
    func bearingsReadAcrossPiecesOfOneClassAsOSRM() throws {
        func firstBearings(_ body: [String: Any]) -> [Int] {
            let legs = ((body["routes"] as? [[String: Any]])?.first?["legs"] as? [[String: Any]]) ?? []
            let steps = legs.flatMap { ($0["steps"] as? [[String: Any]]) ?? [] }
            guard steps.count > 1, let first = (steps[1]["intersections"] as? [[String: Any]])?.first else { return [] }
            return first["bearings"] as? [Int] ?? []
        }
        for next in ["steps", "track"] {
            let map = TestMap("""
                a         b         c

                          d        e
                """, gridSize: 3)
            map.way("ab", ["highway": "footway"])
            map.way("bc", ["highway": "footway"])
            map.way("bd", ["highway": "footway"])
            map.way("de", ["highway": next])
            let service = try map.served()
            let osrm = try OSRMOracle(map: map, profile: "foot")
            let request = "/route/v1/walking/\(OSRMCompatibilityTests.text(map.position("a")));"
                + "\(OSRMCompatibilityTests.text(map.position("e")))?steps=true&overview=false"
            let theirs = firstBearings(try osrm.json(request).object)
            #expect(theirs.count == 3, "\(next): OSRM's junction at b \(theirs)")
            let ours = firstBearings(try service.json(request + "&compat=osrm").object)
            #expect(ours == theirs, "\(next): Wayfinder \(ours), OSRM \(theirs)")
        }
    }

    /// A turn's time and weight (its penalty, a signal) belong to the step that leads to it, as in OSRM, whose
    /// edge-based edges end past each turn: step by step the same durations and weights.
    @Test(.enabled(if: OSRMOracle.available, Comment(rawValue: OSRMOracle.skipMessage)))
    func stepDurationsAsOSRM() throws {
        func figures(_ body: [String: Any]) -> [[Double]] {
            let legs = ((body["routes"] as? [[String: Any]])?.first?["legs"] as? [[String: Any]]) ?? []
            return legs.flatMap { ($0["steps"] as? [[String: Any]]) ?? [] }.map { step in
                [step["duration"] as? Double ?? -1, step["weight"] as? Double ?? -1]
            }
        }
        let map = TestMap("""
            a      b      c

                   d      e
            """, gridSize: 20)
        map.way("ab", ["highway": "residential", "name": "West"])
        map.way("bc", ["highway": "residential", "name": "East"])
        map.way("bd", ["highway": "residential", "name": "South"])
        map.way("de", ["highway": "residential", "name": "Low"])
        map.tagNode("b", ["highway": "traffic_signals"])
        let service = try map.served()
        let osrm = try OSRMOracle(map: map, profile: "car")
        let request = "/route/v1/driving/\(OSRMCompatibilityTests.text(map.position(between: "a", "b", at: 0.5)));"
            + "\(OSRMCompatibilityTests.text(map.position(between: "d", "e", at: 0.5)))?steps=true&overview=false"
        let theirs = figures(try osrm.json(request).object), ours = figures(try service.json(request + "&compat=osrm").object)
        // Depart (to the signal and the turn at b), the turn (South, then Low without a word), arrive.
        #expect(theirs.count == 3 && ours.count == theirs.count, "Wayfinder \(ours), OSRM \(theirs)")
        #expect(zip(ours, theirs).allSatisfy { zip($0, $1).allSatisfy { abs($0 - $1) <= 0.1 + 1e-9 } }, "Wayfinder \(ours), OSRM \(theirs)")
    }

    /// A named street whose ref changes is not announced, by OSRM either; a road known by its ref alone is.
    @Test(.enabled(if: OSRMOracle.available, Comment(rawValue: OSRMOracle.skipMessage)))
    func refChangesAsOSRM() throws {
        for named in [true, false] {
            let map = TestMap("""
                a     b     c
                      s
                """, gridSize: 150)
            var before = ["highway": "trunk", "ref": "A 44"], after = ["highway": "trunk", "ref": "IC 23"]
            if named { (before["name"], after["name"]) = ("Via X", "Via X") }
            map.way("ab", before)
            map.way("bc", after)
            map.way("bs", ["highway": "residential", "name": "Side"])
            let service = try map.served()
            let osrm = try OSRMOracle(map: map, profile: "car")
            let request = "/route/v1/driving/\(OSRMCompatibilityTests.text(map.position("a")));"
                + "\(OSRMCompatibilityTests.text(map.position("c")))?steps=true&overview=false"
            let theirs = Self.stepKinds(try osrm.json(request).object)
            #expect(theirs == (named ? ["depart", "arrive"] : ["depart", "new name straight", "arrive"]))
            #expect(Self.stepKinds(try service.json(request + "&compat=osrm").object) == theirs, "named: \(named)")
            #expect(Self.stepKinds(try service.json(request).object) == theirs, "named: \(named)")
        }
    }

    /// Maneuver relations (`type=maneuver`) say what OSRM says where a route follows them: a turn where the road
    /// goes straight on, nothing where it turns, a fork, a sharp turn onto a via way; and nothing at all where the
    /// relation does not fit the roads. Checked against OSRM for each, by car and on foot.
    @Test(.enabled(if: OSRMOracle.available, Comment(rawValue: OSRMOracle.skipMessage)))
    func maneuverRelationsAsOSRM() throws {
        struct Case {
            var name: String
            var picture: String
            var draw: (TestMap) -> Void
            var from: (Character, Character), to: (Character, Character)
            var profile = "car"
            /// A maneuver OSRM is known to say with the relation (so that the test cannot pass with it unread).
            var expected: String?
        }
        let tee = """
            a     b     c

                  d
            """
        // Two streets joined by a third: a maneuver via a way.
        let ladder = """
            a     c     e

                  g

            h     i     j
            """
        let turnWhereTheRoadGoesOn = { (map: TestMap) in
            let ab = map.way("ab", ["highway": "residential", "name": "Main"])
            let bc = map.way("bc", ["highway": "residential", "name": "Main"])
            map.way("bd", ["highway": "residential", "name": "Side"])
            map.maneuver(from: ab, viaNode: "b", to: bc, ["maneuver": "turn", "direction": "left"])
        }
        let cases = [
            Case(name: "turn left where the road goes on", picture: tee, draw: turnWhereTheRoadGoesOn,
                 from: ("a", "b"), to: ("b", "c"), expected: "turn left"),
            Case(name: "the same on foot", picture: tee, draw: turnWhereTheRoadGoesOn,
                 from: ("a", "b"), to: ("b", "c"), profile: "foot", expected: "turn left"),
            Case(name: "suppress", picture: tee, draw: { map in
                let ab = map.way("ab", ["highway": "residential", "name": "Main"])
                map.way("bc", ["highway": "residential", "name": "Main"])
                let bd = map.way("bd", ["highway": "residential", "name": "Side"])
                map.maneuver(from: ab, viaNode: "b", to: bd, ["maneuver": "suppress"])
            }, from: ("a", "b"), to: ("b", "d")),
            Case(name: "fork", picture: tee, draw: { map in
                let ab = map.way("ab", ["highway": "residential", "name": "Main"])
                map.way("bc", ["highway": "residential", "name": "Main"])
                let bd = map.way("bd", ["highway": "residential", "name": "Side"])
                map.maneuver(from: ab, viaNode: "b", to: bd, ["manoeuvre": "fork", "direction": "slight_right"])
            }, from: ("a", "b"), to: ("b", "d"), expected: "fork slight right"),
            Case(name: "a from way through the via node is no relation", picture: tee, draw: { map in
                let abc = map.way("abc", ["highway": "residential", "name": "Main"])
                let bd = map.way("bd", ["highway": "residential", "name": "Side"])
                map.maneuver(from: abc, viaNode: "b", to: bd, ["maneuver": "turn", "direction": "sharp_left"])
            }, from: ("a", "b"), to: ("b", "d"), expected: "turn right"),
            Case(name: "via a way", picture: ladder, draw: { map in
                let ac = map.way("ac", ["highway": "residential", "name": "A Street"])
                map.way("ce", ["highway": "residential", "name": "A Street"])
                let cgi = map.way("cgi", ["highway": "residential", "name": "C Street"])
                map.way("hi", ["highway": "residential", "name": "J Street"])
                let ij = map.way("ij", ["highway": "residential", "name": "J Street"])
                map.maneuver(from: ac, viaNode: "c", viaWays: [cgi], to: ij, ["maneuver": "turn", "direction": "sharp_right"])
            }, from: ("a", "c"), to: ("i", "j"), expected: "turn sharp right"),
            Case(name: "via ways out of order are no relation", picture: ladder, draw: { map in
                let ac = map.way("ac", ["highway": "residential", "name": "A Street"])
                map.way("ce", ["highway": "residential", "name": "A Street"])
                let cg = map.way("cg", ["highway": "residential", "name": "C Street"])
                let gi = map.way("gi", ["highway": "residential", "name": "C Street"])
                map.way("hi", ["highway": "residential", "name": "J Street"])
                let ij = map.way("ij", ["highway": "residential", "name": "J Street"])
                map.maneuver(from: ac, viaNode: "c", viaWays: [gi, cg], to: ij, ["maneuver": "turn", "direction": "sharp_right"])
            }, from: ("a", "c"), to: ("i", "j"), expected: "turn right"),
        ]
        for c in cases {
            let map = TestMap(c.picture, gridSize: 30)
            c.draw(map)
            let service = try map.served()
            let osrm = try OSRMOracle(map: map, profile: c.profile)
            let mode = c.profile == "car" ? "driving" : "walking"
            let request = "/route/v1/\(mode)/\(OSRMCompatibilityTests.text(map.position(between: c.from.0, c.from.1, at: 0.5)));"
                + "\(OSRMCompatibilityTests.text(map.position(between: c.to.0, c.to.1, at: 0.5)))?steps=true&overview=false"
            let theirs = Self.stepKinds(try osrm.json(request).object)
            if let expected = c.expected { #expect(theirs.contains(expected), "\(c.name): OSRM says \(theirs)") }
            #expect(Self.stepKinds(try service.json(request + "&compat=osrm").object) == theirs, "\(c.name)")
            let ours = Self.stepKinds(try service.json(request).object)
            #expect(ours == theirs, "\(c.name): \(ours), OSRM \(theirs)")
        }
    }

    /// A turn onto a 20 m street that then changes its name: OSRM says both on foot (its foot profile collapses
    /// steps within 10 m, 15 m for a name change) and one turn onto the second name by car (30 m).
    @Test(.enabled(if: OSRMOracle.available, Comment(rawValue: OSRMOracle.skipMessage)))
    func shortStreetBeforeANameChangeAsOSRM() throws {
        for (profile, mode) in [("foot", "walking"), ("car", "driving")] {
            let map = TestMap("""
                f                         e b    d


                                            s
                """)
            map.way("sb", ["highway": "residential", "name": "South"])
            map.way("bd", ["highway": "residential", "name": "East"])
            map.way("be", ["highway": "residential", "name": "Short"])
            map.way("ef", ["highway": "residential", "name": "Long"])
            let service = try map.served()
            let osrm = try OSRMOracle(map: map, profile: profile)
            let request = "/route/v1/\(mode)/\(OSRMCompatibilityTests.text(map.position(between: "s", "b", at: 0.5)));"
                + "\(OSRMCompatibilityTests.text(map.position(between: "e", "f", at: 0.5)))?steps=true&overview=false"
            let theirs = Self.stepKinds(try osrm.json(request).object)
            #expect(theirs.count == (mode == "walking" ? 4 : 3), "\(mode): OSRM says \(theirs)")
            #expect(Self.stepKinds(try service.json(request + "&compat=osrm").object) == theirs, "\(mode)")
        }
    }

    /// A bridge carrying its own name (and no ref) over a river is part of the street a driver is on.
    @Test func bridgesAndTunnelsAreNoNewName() throws {
        let map = TestMap("a     b       c     d       e     f", gridSize: 30)
        map.way("ab", ["highway": "primary", "name": "Hämeentie", "ref": "5"])
        map.way("bc", ["highway": "primary", "name": "Kulosaaren silta", "bridge": "yes", "ref": "5"])
        map.way("cd", ["highway": "primary", "name": "Hämeentie", "ref": "5"])
        map.way("de", ["highway": "primary", "name": "Kalasataman tunneli", "tunnel": "yes", "layer": "-1"])
        map.way("ef", ["highway": "primary", "name": "Hämeentie", "ref": "5"])
        let graph = try map.build().driving
        let result = try texts(graph, [map.position("a"), map.position("f")])
        #expect(result.en == ["Go east along Hämeentie (5)", "Your destination is here"])
        #expect(result.zh == ["沿Hämeentie（5）向东出发", "您已到达目的地"])
    }

    // MARK: Notifications: end of road, continue, mode changes

    /// A T where the road ends: `end of road`, once a crossing has been passed since the last maneuver
    /// (OSRM demotes it to a turn right after departing).
    @Test func endOfRoadOnlyAtARealT() throws {
        let map = TestMap("""
            a     b     c

            y     d     z

                  e
            """, gridSize: 30)
        map.way("abc", ["highway": "primary", "name": "Top Road"])
        map.way("edb", ["highway": "residential", "name": "Stem"])
        map.way("ydz", ["highway": "residential", "name": "Cross"])
        let graph = try map.build().driving
        #expect(kinds(try steps(graph, [map.position("e"), map.position("a")])) == ["depart", "end of road left", "arrive"])
        let right = try texts(graph, [map.position("e"), map.position("c")])
        #expect(right.en[1] == "Where the road ends, turn right into Top Road")
        #expect(right.zh[1] == "在道路尽头右转进入Top Road")
        // Starting on the stem's last block, nothing was passed: a plain turn.
        let near = map.position(between: "d", "b", at: 0.3)
        #expect(kinds(try steps(graph, [near, map.position("c")])) == ["depart", "turn right", "arrive"])
    }

    /// Where the road the driver is on turns and another road goes ahead: `continue` to stay on it.
    @Test func continueWhereTheRoadTurnsAway() throws {
        let map = TestMap("""
                  c

            a     b     d
            """, gridSize: 30)
        map.way("abc", ["highway": "secondary", "name": "Main"])
        map.way("bd", ["highway": "secondary", "name": "Side"])
        let graph = try map.build().driving
        #expect(kinds(try steps(graph, [map.position("a"), map.position("c")])) == ["depart", "continue left", "arrive"])
        let result = try texts(graph, [map.position("a"), map.position("c")])
        #expect(result.en[1] == "Turn left, still on Main")
        #expect(result.zh[1] == "左转，继续沿Main前行")
    }

    @Test func aFerryIsANotificationBothWays() throws {
        let map = TestMap("a     b              c     d", gridSize: 30)
        map.way("ab", ["highway": "residential", "name": "Harbour Road"])
        map.way("bc", ["route": "ferry", "name": "Suomenlinna ferry"])
        map.way("cd", ["highway": "residential", "name": "Island Road"])
        let graphs = try map.build()
        for graph in [graphs.driving, graphs.walking] {
            let result = try steps(graph, [map.position("a"), map.position("d")])
            #expect(kinds(result).map { $0.split(separator: " ")[0] } == ["depart", "notification", "notification", "arrive"])
            #expect(result[1].mode == "ferry" && result[2].mode == (graph.mode == .driving ? "driving" : "walking"))
            #expect(result[1].instruction == "Board the ferry (Suomenlinna ferry)")
            #expect(try steps(graph, [map.position("a"), map.position("d")], language: "zh")[1].instruction == "乘坐渡轮（Suomenlinna ferry）")
        }
    }

    @Test func aCarTrainIsANotification() throws {
        let map = TestMap("a     b              c     d", gridSize: 30)
        map.way("ab", ["highway": "residential", "name": "Station Road"])
        map.way("bc", ["route": "shuttle_train", "name": "Autojuna"])
        map.way("cd", ["highway": "residential", "name": "Terminal Road"])
        let graph = try map.build().driving
        let result = try steps(graph, [map.position("a"), map.position("d")])
        #expect(kinds(result).map { $0.split(separator: " ")[0] } == ["depart", "notification", "notification", "arrive"])
        #expect(result[1].mode == "train" && result[2].mode == "driving")
        let text = try texts(graph, [map.position("a"), map.position("d")])
        #expect(text.en[1] == "Board the train (Autojuna)")
        #expect(text.zh[1] == "乘坐火车（Autojuna）")
        // OSRM's car profile calls it a ferry: so does compat=osrm.
        let route = try checkedRoute(graph, [map.position("a"), map.position("d")])
        let osrm = try Directions(route: route, graph: graph, options: DirectionsOptions(compatibility: .osrm))
        #expect(osrm.legs[0][1].mode == "ferry" && osrm.legs[0][2].mode == "driving")
    }

    /// A destination behind bollards: the drive ends where the car must stop and the route says to walk the
    /// rest (OSRM answers NoRoute or stops at the road without a word; see PROFILES.md).
    /// A block the car drives round, and Quiet Lane behind a bollard at x: d is reached only on foot.
    static func laneBehindABollard() throws -> TestMap {
        let map = TestMap("""
            e     f
            a     b  x  c     d
            g     h
            """, gridSize: 30)
        map.way("ab", ["highway": "residential", "name": "Car Street"])
        for way in ["ef", "gh", "ae", "ag", "bf", "bh"] { map.way(way, ["highway": "residential", "name": "Block"]) }
        map.way("bxcd", ["highway": "residential", "name": "Quiet Lane"])
        map.tagNode("x", ["barrier": "bollard"])
        _ = try map.build()
        return map
    }

    @Test func theRestOnFoot() throws {
        let map = try Self.laneBehindABollard()
        let engine = try Engine(directory: map.graphDirectory)
        for (language, leave) in [("en", "Park here and walk the rest of the way along Quiet Lane"), ("zh", "下车后沿Quiet Lane步行前往")] {
            var query = RouteQuery(mode: .driving, points: [map.position("a"), map.position("d")])
            query.directions = DirectionsOptions(language: language)
            let answer = try engine.route(query)
            let steps = answer.best.directions.legs[0]
            #expect(kinds(steps) == ["depart", "notification straight", "arrive"])
            #expect(steps.map(\.mode) == ["driving", "walking", "walking"])
            #expect(steps[1].instruction == leave)
            // Drawn on the sphere, measured with OSRM's ruler (0.4 % longer east–west at 60° N).
            #expect(abs(answer.best.route.distance - 540) < 3, "180 m by car, 360 m on foot")
            #expect(abs(steps.reduce(0) { $0 + $1.distance } - answer.best.route.distance) < 1)
            #expect(Geo.distance(steps[0].coordinates.last!, steps[1].coordinates.first!) < 0.01)
            #expect(Geo.distance(answer.best.route.waypoints[1].location, map.position("d")) < 1)
        }
        // Where the car can reach the destination, no walk is added.
        let near = try engine.route(RouteQuery(mode: .driving, points: [map.position("a"), map.position(between: "a", "b", at: 0.9)]))
        #expect(near.best.directions.legs[0].allSatisfy { $0.mode == "driving" })
    }

    // MARK: U-turns

    @Test func uturnAtADeadEndOnlyWhereOneIsMade() throws {
        let map = TestMap("""
                  d

            a     b     c

                  e
            """, gridSize: 30)
        let ab = map.way("ab", ["highway": "residential", "name": "West"])
        map.way("bc", ["highway": "residential", "name": "East"])
        let bd = map.way("bd", ["highway": "residential", "name": "North"])
        map.way("be", ["highway": "residential", "name": "South"])
        map.restriction("no_left_turn", from: ab, viaNode: "b", to: bd)
        let result = try steps(try map.build().driving, [map.position("a"), map.position("d")])
        #expect(kinds(result).contains("continue uturn"), "OSRM's dead-end U-turn: \(kinds(result))")
        #expect(kinds(result).filter { $0.contains("uturn") }.count == 1)
        #expect(try #require(result.first { $0.maneuver.modifier == .uturn }).instruction.hasPrefix("Do a U-turn"))
    }

    /// A U-turn across the gap of a divided road is one step, not two left turns.
    @Test func crossingADividedRoadIsOneUturn() throws {
        let map = TestMap("""
            a     b     c
            d     e     f
            """)
        map.way("cba", ["highway": "primary", "name": "Main", "oneway": "yes"])
        map.way("def", ["highway": "primary", "name": "Main", "oneway": "yes"])
        map.way("be", ["highway": "primary"])
        let result = try texts(try map.build().driving, [map.position("c"), map.position("f")])
        #expect(kinds(try steps(try map.build().driving, [map.position("c"), map.position("f")]))
                    == ["depart", "continue uturn", "arrive"])
        #expect(result.en[1] == "Do a U-turn back along Main")
        #expect(result.zh[1] == "掉头，继续沿Main前行")
    }

    // MARK: Collapsing

    /// A dedicated right-turn road cutting the corner of a junction: one `turn right`, as OSRM gives.
    @Test func aSliproadIsOneTurn() throws {
        let map = TestMap("""
                        t
                        |
            a     b     c     d
                    s
                        e
            """, gridSize: 30)
        map.way("abcd", ["highway": "primary", "name": "Main"])
        map.way("tce", ["highway": "primary", "name": "Cross"])
        map.way("bse", ["highway": "primary_link", "oneway": "yes"])
        let graph = try map.build().driving
        let result = try steps(graph, [map.position("a"), map.position("e")])
        #expect(kinds(result) == ["depart", "turn right", "arrive"])
        #expect(result[1].name == "Cross")
        let text = try texts(graph, [map.position("a"), map.position("e")])
        #expect(text.en[1] == "Turn right into Cross")
        #expect(text.zh[1] == "右转进入Cross")
    }

    /// A side street that jogs 4 m along the main road as it crosses it: no turn right and turn left back.
    @Test func aStaggeredIntersectionIsNoStep() throws {
        let picture = ["          a"] + Array(repeating: "", count: 7) + ["w         bc         e"]
            + Array(repeating: "", count: 7) + ["           f"]
        let map = TestMap(picture.joined(separator: "\n"), gridSize: 4)
        map.way("ab", ["highway": "residential", "name": "Side"])
        map.way("wbce", ["highway": "primary", "name": "Main"])
        map.way("cf", ["highway": "residential", "name": "Side"])
        let graph = try map.build().driving
        let result = try texts(graph, [map.position("a"), map.position("f")])
        #expect(kinds(try steps(graph, [map.position("a"), map.position("f")])) == ["depart", "arrive"], "\(result.en)")
        #expect(result.en[0] == "Go south along Side")
        #expect(result.zh[0] == "沿Side向南出发")
    }

    /// A 6 m unnamed connector between a side road and the turn: it belongs to the turn, no step of its own.
    @Test func noStepShorterThanTenMetres() throws {
        let map = TestMap("""
                      t




            a        bc        d



                     s
            """, gridSize: 6)
        map.way("ab", ["highway": "residential", "name": "Long Street"])
        map.way("bs", ["highway": "residential", "name": "Side Street"])
        map.way("bc", ["highway": "service"])
        map.way("cd", ["highway": "residential", "name": "Long Street"])
        map.way("ct", ["highway": "residential", "name": "Up Street"])
        let graph = try map.build().driving
        let result = try steps(graph, [map.position("a"), map.position("t")])
        #expect(kinds(result) == ["depart", "turn left", "arrive"])
        #expect(result.dropFirst().dropLast().allSatisfy { $0.distance >= 10 })
        #expect(result[1].name == "Up Street")
    }

    /// A street that ends in footpaths: going straight on along the (lower-class) path is a decision OSRM
    /// announces; the paths after it are not, until the next named street.
    @Test func unnamedPathsAheadAreNoStep() throws {
        let map = TestMap("""
                        s
            a     b     c     d
                  u




                              e
            """, gridSize: 30)
        map.way("ab", ["highway": "residential", "name": "Long Street"])
        map.way("bcd", ["highway": "footway"])
        map.way("bu", ["highway": "footway"])
        map.way("cs", ["highway": "footway"])
        map.way("de", ["highway": "residential", "name": "Short Street"])
        let result = try steps(try map.build().walking, [map.position("a"), map.position("e")])
        #expect(kinds(result) == ["depart", "turn straight", "new name right", "arrive"], "\(result.map(\.instruction))")
        #expect(result.map(\.name) == ["Long Street", "", "Short Street", "Short Street"])
    }

    // MARK: Roundabouts

    /// A roundabout run anticlockwise with five arms, `size` metres a character.
    func roundabout(named: String? = nil, circular: Bool = false, size: Double = 10) throws -> (TestMap, RoadGraph) {
        let map = TestMap("""
                  n
             v
                  i
               h
                     j   e
               l
            w     k

                  s
            """, gridSize: size)
        var ring = ["highway": "primary", "junction": circular ? "circular" : "roundabout"]
        if let named { ring["name"] = named }
        map.way("kjihlk", ring)
        map.way("sk", ["highway": "primary", "name": "South Road"])
        map.way("je", ["highway": "primary", "name": "East Road"])
        map.way("in", ["highway": "primary", "name": "North Road"])
        map.way("hv", ["highway": "primary", "name": "Northwest Road"])
        map.way("lw", ["highway": "primary", "name": "West Road"])
        return (map, try map.build().driving)
    }

    /// The entry step keeps the direction of entering the ring (OSRM computes an overall direction only for
    /// roundabout turns); its name is the exit road's, and the exit step follows on that road.
    @Test(arguments: [("e", 1, "East Road"), ("n", 2, "North Road"), ("v", 3, "Northwest Road"), ("w", 4, "West Road")])
    func roundaboutExits(destination: Character, exit: Int, road: String) throws {
        let (map, graph) = try roundabout(size: 20)
        let result = try steps(graph, [map.position("s"), map.position(destination)])
        #expect(kinds(result).map { $0.split(separator: " ")[0] } == ["depart", "roundabout", "exit", "arrive"])
        #expect(result[1].maneuver.type == .roundabout && result[2].maneuver.type == .exitRoundabout)
        #expect(result[1].maneuver.exit == exit && result[2].maneuver.exit == exit)
        #expect(result[1].maneuver.modifier == .right)
        #expect(result[1].name == road)
        let ordinal = ["1st", "2nd", "3rd", "4th"][exit - 1]
        #expect(result[1].instruction == "At the roundabout, take the \(ordinal) exit into \(road)")
        let zh = try steps(graph, [map.position("s"), map.position(destination)], language: "zh")
        #expect(zh[1].instruction == "进入环岛，从第\(exit)个出口驶出，进入\(road)")
        // The entry step named the road; the exit step does not say it again.
        #expect(result[2].instruction == "Leave the roundabout" && result[2].name == road)
        #expect(zh[2].instruction == "驶出环岛")
    }

    /// Exits are counted over the roads that may be taken: an arm one may only come in by is not an exit.
    @Test func entryOnlyArmsAreNotCountedAsExits() throws {
        let map = TestMap("""
                  n
             v
                  i
               h
                     j   e
               l
            w     k

                  s
            """, gridSize: 20)
        map.way("kjihlk", ["highway": "primary", "junction": "roundabout"])
        map.way("sk", ["highway": "primary", "name": "South Road"])
        map.way("ej", ["highway": "primary", "name": "East Road", "oneway": "yes"])  // into the ring only
        map.way("in", ["highway": "primary", "name": "North Road"])
        map.way("hv", ["highway": "primary", "name": "Northwest Road"])
        map.way("lw", ["highway": "primary", "name": "West Road"])
        let result = try steps(try map.build().driving, [map.position("s"), map.position("n")])
        #expect(result[1].maneuver.exit == 1, "East Road is no exit: North Road is the first")
        #expect(result[1].instruction == "At the roundabout, take the 1st exit into North Road")
    }

    /// A named ring with a radius over 15 m whose name no arm carries is a rotary, announced by its name.
    @Test func aLargeNamedRoundaboutIsARotary() throws {
        let (map, graph) = try roundabout(named: "Central Circus", size: 20)
        let result = try steps(graph, [map.position("s"), map.position("n")])
        #expect(result[1].maneuver.type == .rotary && result[2].maneuver.type == .exitRotary)
        #expect(result[1].rotaryName == "Central Circus")
        #expect(result[1].instruction == "At Central Circus, take the 2nd exit into North Road")
        let zh = try steps(graph, [map.position("s"), map.position("n")], language: "zh")
        #expect(zh[1].instruction == "进入Central Circus，从第2个出口驶出，进入North Road")
    }

    /// A route that ends on the circle takes no exit: the entry step is said alone, not "… exit onto" the circle.
    @Test(arguments: [nil, "Central Circus"] as [String?])
    func aRouteEndingOnTheRingSaysOnlyTheEntry(named: String?) throws {
        let (map, graph) = try roundabout(named: named, size: 20)
        let points = [map.position("s"), map.position("h")]
        let en = try steps(graph, points), zh = try steps(graph, points, language: "zh")
        #expect(kinds(en).map { $0.split(separator: " ")[0] } == ["depart", named == nil ? "roundabout" : "rotary", "arrive"])
        #expect(en[1].maneuver.exit == nil)
        #expect(en[1].instruction == (named.map { "Go onto \($0)" } ?? "Go onto the roundabout"))
        #expect(zh[1].instruction == "进入" + (named ?? "环岛"))
    }

    /// `junction=circular` with a name is a rotary whatever its size.
    @Test func aNamedCircularJunctionIsARotary() throws {
        let (map, graph) = try roundabout(named: "Pikkuympyrä", circular: true, size: 5)
        let result = try steps(graph, [map.position("s"), map.position("n")])
        #expect(result[1].maneuver.type == .rotary && result[1].rotaryName == "Pikkuympyrä")
    }

    /// A small roundabout with four simple arms well apart is crossed like a junction: one `roundabout turn`.
    @Test func aSmallRoundaboutIsARoundaboutTurn() throws {
        let map = TestMap("""
                    n

                    i
            w     l   j     e
                    k

                    s
            """, gridSize: 6)
        map.way("kjilk", ["highway": "residential", "junction": "roundabout"])
        map.way("sk", ["highway": "residential", "name": "South Road"])
        map.way("je", ["highway": "residential", "name": "East Road"])
        map.way("in", ["highway": "residential", "name": "North Road"])
        map.way("lw", ["highway": "residential", "name": "West Road"])
        let graph = try map.build().driving
        let result = try steps(graph, [map.position("s"), map.position("w")])
        #expect(kinds(result) == ["depart", "roundabout turn left", "arrive"], "one step, no exit step")
        #expect(result[1].maneuver.exit == 3)
        let text = try texts(graph, [map.position("s"), map.position("w")])
        #expect(text.en[1] == "Turn left at the roundabout into West Road")
        #expect(text.zh[1] == "在环岛左转进入West Road")
    }

    // MARK: Motorways

    @Test func anOffRampCarriesItsExitAndDestination() throws {
        let map = TestMap("""
            a         b         c
                           d
                                e
            """, gridSize: 30)
        map.way("abc", ["highway": "motorway", "name": "Ring I", "ref": "E18"])
        // OSRM reads signposts on oneways only, and a motorway link is no implied oneway.
        map.way("bde", ["highway": "motorway_link", "oneway": "yes", "junction:ref": "12", "destination": "Porto;Braga"])
        let graph = try map.build().driving
        let result = try steps(graph, [map.position("a"), map.position("e")])
        #expect(kinds(result) == ["depart", "off ramp slight right", "arrive"])
        #expect(result[1].exits == "12")
        #expect(result[1].destinations == "Porto, Braga")
        let text = try texts(graph, [map.position("a"), map.position("e")])
        #expect(text.en[0] == "Go east along E18", "a motorway is known by its ref (osrm-text-instructions)")
        #expect(text.en[1] == "Leave at exit 12 for Porto")
        #expect(text.zh[1] == "从12号出口驶出，朝Porto方向行进")
    }

    @Test func anOnRampThenAMerge() throws {
        let map = TestMap("""
            a              b              c
                      r
            p     q
            """, gridSize: 30)
        map.way("pq", ["highway": "primary", "name": "Feeder"])
        map.way("qrb", ["highway": "motorway_link", "oneway": "yes"])
        map.way("abc", ["highway": "motorway", "name": "Ring I", "oneway": "yes"])
        let graph = try map.build().driving
        let result = try steps(graph, [map.position("p"), map.position("c")])
        #expect(kinds(result).map { $0.split(separator: " ").prefix(2).joined(separator: " ") }
                    == ["depart", "on ramp", "merge slight", "arrive"])
        let text = try texts(graph, [map.position("p"), map.position("c")])
        #expect(text.en[2] == "Merge left into Ring I")
        #expect(text.zh[2] == "向左汇入Ring I")
    }

    /// A motorway splitting in two: a fork, each side with its signposts.
    @Test func aMotorwayForkWithSignposts() throws {
        let map = TestMap("""
                                    x
            a           b
                                    y
            """, gridSize: 30)
        map.way("ab", ["highway": "motorway", "ref": "A 1", "oneway": "yes"])
        map.way("bx", ["highway": "motorway", "ref": "A 1", "oneway": "yes", "destination": "Lisboa"])
        map.way("by", ["highway": "motorway", "ref": "A 3", "oneway": "yes", "destination": "Braga"])
        let graph = try map.build().driving
        #expect(kinds(try steps(graph, [map.position("a"), map.position("x")])) == ["depart", "fork slight left", "arrive"])
        let right = try texts(graph, [map.position("a"), map.position("y")])
        #expect(kinds(try steps(graph, [map.position("a"), map.position("y")])) == ["depart", "fork slight right", "arrive"])
        #expect(right.en[1] == "Take the right fork for Braga")
        #expect(right.zh[1] == "在岔路口靠右，朝Braga方向行进")
    }

    @Test func aForkOfTwoEqualStreets() throws {
        let map = TestMap("""
                          x
            a       b
                          y
            """, gridSize: 30)
        map.way("ab", ["highway": "primary", "name": "Stem"])
        map.way("bx", ["highway": "primary", "name": "Left Branch"])
        map.way("by", ["highway": "primary", "name": "Right Branch"])
        let graph = try map.build().driving
        #expect(kinds(try steps(graph, [map.position("a"), map.position("x")])) == ["depart", "fork slight left", "arrive"])
        let right = try texts(graph, [map.position("a"), map.position("y")])
        #expect(right.en[1] == "Take the right fork into Right Branch")
        #expect(right.zh[1] == "在岔路口靠右进入Right Branch")
    }

    // MARK: Lanes

    @Test func turnLanesReachTheIntersectionAndTheText() throws {
        let map = TestMap("""
            w           c           e
                        s
            """, gridSize: 30)
        map.way("wc", ["highway": "primary", "name": "Approach", "oneway": "yes", "lanes": "3",
                       "turn:lanes": "through|through|right"])
        map.way("ce", ["highway": "primary", "name": "Approach"])
        map.way("cs", ["highway": "primary", "name": "South Road"])
        let graph = try map.build().driving
        let result = try steps(graph, [map.position("w"), map.position("s")])
        #expect(kinds(result) == ["depart", "turn right", "arrive"])
        let lanes = result[1].lanes
        #expect(lanes.map(\.indications) == [["straight"], ["straight"], ["right"]])
        #expect(lanes.map(\.valid) == [false, false, true])
        let text = try texts(graph, [map.position("w"), map.position("s")])
        #expect(text.en[1] == "Get in the right lane and turn right into South Road")
        #expect(text.zh[1] == "使用右侧车道，右转进入South Road")
        // Straight on, the lanes are on the departure's intersection list, not a step.
        let ahead = try steps(graph, [map.position("w"), map.position("e")])
        #expect(kinds(ahead) == ["depart", "arrive"])
        #expect(ahead[0].intersections.contains { $0.lanes.map(\.valid) == [true, true, false] })
    }

    /// Where only a minority of many lanes go on, staying on the road is a `use lane` step (OSRM keeps those as
    /// silent intersections; a driver is better served by the step).
    @Test func keepingToTheThroughLanesIsAUseLaneStep() throws {
        let map = TestMap("""
            w           c           e
                        s
            """, gridSize: 30)
        map.way("wc", ["highway": "primary", "name": "Approach", "oneway": "yes", "lanes": "3",
                       "turn:lanes": "through|right|right"])
        map.way("ce", ["highway": "primary", "name": "Approach"])
        map.way("cs", ["highway": "primary", "name": "South Road"])
        let graph = try map.build().driving
        let result = try steps(graph, [map.position("w"), map.position("e")])
        #expect(kinds(result) == ["depart", "use lane straight", "arrive"])
        #expect(result[1].lanes.map(\.valid) == [true, false, false])
        let text = try texts(graph, [map.position("w"), map.position("e")])
        #expect(text.en[1] == "Get in the left lane and keep going straight on Approach", "\(text.en[1])")
        #expect(text.zh[1].contains("左侧车道"), "\(text.zh[1])")
    }

    /// Two maneuvers close together: the lanes for the first are those that also lead to the second.
    @Test func lanesAreAnticipatedForTheNextManeuver() throws {
        let map = TestMap("""
            w           c     d     e
                        s     t
            """, gridSize: 20)
        map.way("wc", ["highway": "primary", "name": "Approach", "oneway": "yes", "lanes": "3",
                       "turn:lanes": "through|through|right"])
        map.way("cd", ["highway": "primary", "name": "Approach", "oneway": "yes", "lanes": "2",
                       "turn:lanes": "through|right"])
        map.way("de", ["highway": "primary", "name": "Approach"])
        map.way("cs", ["highway": "primary", "name": "First South"])
        map.way("dt", ["highway": "primary", "name": "Second South"])
        let graph = try map.build().driving
        let result = try steps(graph, [map.position("w"), map.position("t")])
        #expect(kinds(result).last(where: { $0 != "arrive" }) == "turn right")
        // At c the through lanes lead on; of them, the right one is the one for the turn at d.
        let atC = result.flatMap(\.intersections).first { Geo.distance($0.location, map.position("c")) < 1 }
        #expect(atC?.lanes.map(\.valid) == [false, true, false], "\(atC?.lanes.map(\.valid) ?? [])")
    }

    /// The OSRM JSON carries what the steps know: signposts, exit numbers, lanes and classes.
    @Test func stepJSONCarriesSignpostsLanesAndClasses() throws {
        let map = TestMap("""
            a         b         c
                           d
                                e
            """, gridSize: 30)
        map.way("abc", ["highway": "motorway", "ref": "A 1", "oneway": "yes", "lanes": "3",
                        "turn:lanes": "through|through|through;slight_right", "toll": "yes"])
        map.way("bde", ["highway": "motorway_link", "oneway": "yes", "junction:ref": "12", "destination": "Porto"])
        let graph = try map.build().driving
        let route = try checkedRoute(graph, [map.position("a"), map.position("e")])
        let directions = try Directions(route: route, graph: graph)
        let text = OSRMRouteResponse.make(GuidedRoute(route: route, directions: directions), graph: graph).serialized()
        let json = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let legs = try #require((json["routes"] as? [[String: Any]])?.first?["legs"] as? [[String: Any]])
        let steps = try #require(legs.first?["steps"] as? [[String: Any]])
        let ramp = try #require(steps.first { ($0["maneuver"] as? [String: Any])?["type"] as? String == "off ramp" })
        #expect(ramp["destinations"] as? String == "Porto" && ramp["exits"] as? String == "12")
        let at = try #require((ramp["intersections"] as? [[String: Any]])?.first)
        let lanes = try #require(at["lanes"] as? [[String: Any]])
        #expect(lanes.map { $0["indications"] as? [String] ?? [] } == [["straight"], ["straight"], ["straight", "slight right"]])
        #expect(lanes.map { $0["valid"] as? Bool ?? false } == [false, false, true])
        let depart = try #require((steps.first?["intersections"] as? [[String: Any]])?.first)
        #expect(depart["classes"] as? [String] == ["toll", "motorway"])
        // OSRM's waypoint name is the road's name, not its ref: this motorway has none.
        #expect((json["waypoints"] as? [[String: Any]])?.map { $0["name"] as? String } == ["", ""])
    }

    // MARK: Waypoints, departure and arrival

    @Test func arrivalSide() throws {
        let map = TestMap("a          b", gridSize: 30)
        map.way("ab", ["highway": "residential", "name": "Shore"])
        let graph = try map.build().driving
        let middle = map.position(between: "a", "b", at: 0.5)
        let south = Coordinate(latitude: middle.latitude - 10 / 111_195, longitude: middle.longitude)
        let north = Coordinate(latitude: middle.latitude + 10 / 111_195, longitude: middle.longitude)
        #expect(try steps(graph, [map.position("a"), south]).last!.instruction == "Your destination is on the right")
        #expect(try steps(graph, [map.position("a"), north]).last!.instruction == "Your destination is on the left")
        #expect(try steps(graph, [map.position("a"), south], language: "zh").last!.instruction == "您已到达目的地，目的地在右侧")
        let via = try steps(graph, [map.position("a"), middle, map.position("b")])
        #expect(via.filter { $0.maneuver.type == .arrive }.map(\.instruction)
                    == ["Your 1st destination is here", "Your destination is here"])
        #expect(try steps(graph, [map.position("a"), middle, map.position("b")], language: "zh")
                    .first { $0.maneuver.type == .arrive }?.instruction == "您已到达第1个途经点")
    }

    @Test func walkingThroughAPedestrianArea() throws {
        let map = TestMap("""
            a     b     c
                  e     d
            """, gridSize: 30)
        map.way("bcdeb", ["highway": "pedestrian", "area": "yes", "name": "Square"])
        map.way("ab", ["highway": "footway", "name": "Alley"])
        let graphs = try map.build()
        let result = try steps(graphs.walking, [map.position("a"), map.position("d")])
        #expect(result.first!.name == "Alley")
        #expect(result.dropLast().last!.name == "Square")
        #expect(graphs.driving.edgeCount == 0)
    }

    @Test func streetNamesInTheRequestedLanguageWithFallback() throws {
        let map = TestMap("a     b     c", gridSize: 30)
        map.way("ab", ["highway": "primary", "name": "Mannerheimintie", "name:sv": "Mannerheimvägen", "name:zh": "曼纳海姆路"])
        map.way("bc", ["highway": "primary", "name": "Kaivokatu"])
        let graph = try map.build().driving
        let points = [map.position("a"), map.position("c")]
        #expect(try steps(graph, points, language: "sv").map(\.name).prefix(2) == ["Mannerheimvägen", "Kaivokatu"])
        #expect(try steps(graph, points, language: "zh").map(\.name).prefix(2) == ["曼纳海姆路", "Kaivokatu"])
        #expect(try steps(graph, points, language: "en").map(\.name).prefix(2) == ["Mannerheimintie", "Kaivokatu"])
        #expect(try steps(graph, points, language: "sv")[1].instruction == "Carry on as the road becomes Kaivokatu", "no Swedish phrases: English")
        #expect(try steps(graph, points, language: "zh")[0].instruction == "沿曼纳海姆路向东出发")
    }

    @Test func distancesForPeople() throws {
        let en = try PhraseBook.load(language: "en"), zh = try PhraseBook.load(language: "zh")
        #expect(en.distance(42, units: .metric) == "40 m")
        #expect(en.distance(247, units: .metric) == "250 m")
        #expect(en.distance(1549, units: .metric) == "1.5 km")
        #expect(en.distance(23_400, units: .metric) == "23 km")
        #expect(en.distance(100, units: .imperial) == "330 ft")
        #expect(en.distance(3218.7, units: .imperial) == "2.0 mi")
        #expect(zh.distance(247, units: .metric) == "250米")
        #expect(zh.distance(1549, units: .metric) == "1.5公里")
        #expect(en.duration(3720) == "1 h 2 min")
        #expect(zh.duration(300) == "5分钟")
        #expect(PhraseBook.availableLanguages.contains("en") && PhraseBook.availableLanguages.contains("zh"))
    }
}
