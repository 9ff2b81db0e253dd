import Foundation
import Guidance
import RoadGraph
import Routing
import Testing

/// Maneuvers on hand-drawn maps: every type, both languages, name:xx selection.
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
            """)
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
        let left = try steps(graph, [w, map.position("l")])
        #expect(left[1].instruction == "Turn left onto Left Street")
        #expect(left[0].instruction == "Head east on Approach")
        #expect(left[1].maneuver.bearingBefore == 90 && left[1].maneuver.bearingAfter == 0)
        let zh = try steps(graph, [w, map.position("l")], language: "zh")
        #expect(zh[1].instruction == "左转进入Left Street")
        #expect(zh[0].instruction == "向东出发，沿Approach前行")
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

    @Test func goingStraightThroughAnIntersectionOnTheSameRoadIsNoStep() throws {
        let map = TestMap("""
                  n
            w     c     e
                  s
            """)
        map.way("wce", ["highway": "primary", "name": "Main"])
        map.way("ncs", ["highway": "residential", "name": "Cross"])
        let graph = try map.build().driving
        let result = try steps(graph, [map.position("w"), map.position("e")])
        #expect(kinds(result) == ["depart", "arrive"])
        #expect(result[0].intersections.count == 2, "departure and the crossing passed")
    }

    @Test func nameChangeWithoutAChoice() throws {
        let map = TestMap("a     b     c")
        map.way("ab", ["highway": "residential", "name": "First"])
        map.way("bc", ["highway": "residential", "name": "Second"])
        let result = try steps(try map.build().driving, [map.position("a"), map.position("c")])
        #expect(kinds(result) == ["depart", "new name straight", "arrive"])
        #expect(result[1].instruction == "Continue onto Second")
    }

    @Test func fork() throws {
        let map = TestMap("""
                          x
            a       b
                          y
            """)
        map.way("ab", ["highway": "primary", "name": "Stem"])
        map.way("bx", ["highway": "primary", "name": "Left Branch"])
        map.way("by", ["highway": "primary", "name": "Right Branch"])
        let graph = try map.build().driving
        #expect(kinds(try steps(graph, [map.position("a"), map.position("x")])) == ["depart", "fork slight left", "arrive"])
        let right = try steps(graph, [map.position("a"), map.position("y")])
        #expect(kinds(right) == ["depart", "fork slight right", "arrive"])
        #expect(right[1].instruction == "Keep right at the fork onto Right Branch")
        #expect(try steps(graph, [map.position("a"), map.position("y")], language: "zh")[1].instruction == "在岔路口靠右，进入Right Branch")
    }

    @Test func offRamp() throws {
        let map = TestMap("""
            a         b         c
                           d
                                e
            """)
        map.way("abc", ["highway": "motorway", "name": "Ring I", "ref": "E18"])
        map.way("bde", ["highway": "motorway_link", "name": "Exit 5"])
        let result = try steps(try map.build().driving, [map.position("a"), map.position("e")])
        #expect(kinds(result) == ["depart", "off ramp slight right", "arrive"])
        #expect(result[0].instruction == "Head east on Ring I (E18)")
        #expect(result[1].instruction == "Take the exit on the right onto Exit 5")
    }

    @Test func onRampAndMerge() throws {
        let map = TestMap("""
            a              b              c
                      r
            p     q
            """)
        map.way("pq", ["highway": "primary", "name": "Feeder"])
        map.way("qrb", ["highway": "motorway_link"])
        map.way("abc", ["highway": "motorway", "name": "Ring I"])
        let result = try steps(try map.build().driving, [map.position("p"), map.position("c")])
        #expect(kinds(result) == ["depart", "on ramp slight left", "merge slight left", "arrive"])
        #expect(result[2].instruction == "Merge slight left onto Ring I")
    }

    @Test func endOfRoad() throws {
        let map = TestMap("""
            a     b     c

                  d
            """)
        map.way("abc", ["highway": "primary", "name": "Top Road"])
        map.way("db", ["highway": "residential", "name": "Stem"])
        let graph = try map.build().driving
        #expect(kinds(try steps(graph, [map.position("d"), map.position("a")])) == ["depart", "end of road left", "arrive"])
        let right = try steps(graph, [map.position("d"), map.position("c")])
        #expect(kinds(right) == ["depart", "end of road right", "arrive"])
        #expect(right[1].instruction == "Turn right at the end of the road onto Top Road")
        #expect(try steps(graph, [map.position("d"), map.position("c")], language: "zh")[1].instruction == "在道路尽头右转，进入Top Road")
    }

    /// A five-node roundabout run anticlockwise, with an arm at each node.
    func roundabout(named: String? = nil) throws -> (TestMap, RoadGraph) {
        let map = TestMap("""
                  n
             v
                  i
               h
                     j   e
               l
            w     k

                  s
            """)
        var ring = ["highway": "primary", "junction": "roundabout"]
        if let named { ring["name"] = named }
        map.way("kjihlk", ring)
        map.way("sk", ["highway": "primary", "name": "South Road"])
        map.way("je", ["highway": "primary", "name": "East Road"])
        map.way("in", ["highway": "primary", "name": "North Road"])
        map.way("hv", ["highway": "primary", "name": "Northwest Road"])
        map.way("lw", ["highway": "primary", "name": "West Road"])
        return (map, try map.build().driving)
    }

    @Test(arguments: [("e", 1, "East Road"), ("n", 2, "North Road"), ("v", 3, "Northwest Road"), ("w", 4, "West Road")])
    func roundaboutExits(destination: Character, exit: Int, road: String) throws {
        let (map, graph) = try roundabout()
        let result = try steps(graph, [map.position("s"), map.position(destination)])
        #expect(kinds(result).map { $0.split(separator: " ").prefix(2).joined(separator: " ") }
                    == ["depart", "roundabout", "exit roundabout", "arrive"])
        #expect(result[1].maneuver.exit == exit)
        #expect(result[1].name == road)
        let ordinal = ["1st", "2nd", "3rd", "4th"][exit - 1]
        #expect(result[1].instruction == "At the roundabout, take the \(ordinal) exit onto \(road)")
        let zh = try steps(graph, [map.position("s"), map.position(destination)], language: "zh")
        #expect(zh[1].instruction == "在环岛从第\(exit)个出口离开，进入\(road)")
        #expect(zh[2].instruction == "离开环岛，进入\(road)")
    }

    @Test func namedRoundaboutIsARotary() throws {
        let (map, graph) = try roundabout(named: "Central Circus")
        let result = try steps(graph, [map.position("s"), map.position("n")])
        #expect(result[1].maneuver.type == .rotary)
        #expect(result[1].rotaryName == "Central Circus")
        #expect(result[1].instruction == "At Central Circus, take the 2nd exit onto North Road")
    }

    @Test func uturnAtADeadEndOnlyWhereOneIsMade() throws {
        let map = TestMap("""
                  d

            a     b     c

                  e
            """)
        let ab = map.way("ab", ["highway": "residential", "name": "West"])
        map.way("bc", ["highway": "residential", "name": "East"])
        let bd = map.way("bd", ["highway": "residential", "name": "North"])
        map.way("be", ["highway": "residential", "name": "South"])
        map.restriction("no_left_turn", from: ab, viaNode: "b", to: bd)
        let result = try steps(try map.build().driving, [map.position("a"), map.position("d")])
        #expect(kinds(result).contains("continue uturn"))
        #expect(kinds(result).filter { $0.contains("uturn") }.count == 1)
        #expect(try #require(result.first { $0.maneuver.modifier == .uturn }).instruction.hasPrefix("Make a U-turn"))
    }

    @Test func crossingADividedRoadIsOneUturn() throws {
        let map = TestMap("""
            a     b     c
            d     e     f
            """)
        map.way("cba", ["highway": "primary", "name": "Main", "oneway": "yes"])
        map.way("def", ["highway": "primary", "name": "Main", "oneway": "yes"])
        map.way("be", ["highway": "primary"])
        let result = try steps(try map.build().driving, [map.position("c"), map.position("f")])
        #expect(kinds(result) == ["depart", "continue uturn", "arrive"])
        #expect(result[1].name == "Main")
        #expect(result[1].instruction == "Make a U-turn and continue on Main")
    }

    @Test func shortConnectorCollapsesIntoTheTurn() throws {
        let map = TestMap("""
                    t
            a     b c
            """)
        map.way("ab", ["highway": "residential", "name": "Long Street"])
        map.way("bc", ["highway": "service"])  // a 20-metre unnamed stub
        map.way("ct", ["highway": "residential", "name": "Up Street"])
        let result = try steps(try map.build().driving, [map.position("a"), map.position("t")])
        #expect(kinds(result) == ["depart", "turn left", "arrive"])
        #expect(result[1].instruction == "Turn left onto Up Street")
    }

    /// Walking on from a street onto unnamed paths: nothing to announce until a real turn or a new name.
    @Test func unnamedPathsAheadAreNoStep() throws {
        let map = TestMap("""
                        s
            a     b     c     d
                  u           e
            """)
        map.way("ab", ["highway": "residential", "name": "Long Street"])
        map.way("bcd", ["highway": "footway"])
        map.way("bu", ["highway": "footway"])
        map.way("cs", ["highway": "footway"])
        map.way("de", ["highway": "residential", "name": "Short Street"])
        let result = try steps(try map.build().walking, [map.position("a"), map.position("e")])
        #expect(kinds(result) == ["depart", "turn right", "arrive"], "\(result.map(\.instruction))")
        #expect(result[0].name == "Long Street" && result[1].name == "Short Street")
    }

    @Test func ferryIsANotificationInFerryMode() throws {
        let map = TestMap("a     b              c     d")
        map.way("ab", ["highway": "residential", "name": "Harbour Road"])
        map.way("bc", ["route": "ferry", "name": "Suomenlinna ferry"])
        map.way("cd", ["highway": "residential", "name": "Island Road"])
        let graphs = try map.build()
        for graph in [graphs.driving, graphs.walking] {
            let result = try steps(graph, [map.position("a"), map.position("d")])
            #expect(kinds(result).map { $0.split(separator: " ")[0] } == ["depart", "notification", "new", "arrive"])
            #expect(result[1].mode == "ferry")
            #expect(result[1].instruction == "Take the ferry Suomenlinna ferry")
        }
    }

    @Test func arrivalSide() throws {
        let map = TestMap("a          b")
        map.way("ab", ["highway": "residential", "name": "Shore"])
        let graph = try map.build().driving
        let middle = map.position(between: "a", "b", at: 0.5)
        let south = Coordinate(latitude: middle.latitude - 10 / 111_195, longitude: middle.longitude)
        let north = Coordinate(latitude: middle.latitude + 10 / 111_195, longitude: middle.longitude)
        #expect(try steps(graph, [map.position("a"), south]).last!.instruction == "You have arrived at your destination, on the right")
        #expect(try steps(graph, [map.position("a"), north]).last!.instruction == "You have arrived at your destination, on the left")
        #expect(try steps(graph, [map.position("a"), south], language: "zh").last!.instruction == "到达目的地，在右侧")
        let via = try steps(graph, [map.position("a"), middle, map.position("b")])
        #expect(via.filter { $0.maneuver.type == .arrive }.map(\.instruction)
                    == ["You have arrived at your 1st waypoint", "You have arrived at your destination"])
    }

    @Test func walkingThroughAPedestrianArea() throws {
        let map = TestMap("""
            a     b     c
                  e     d
            """)
        map.way("bcdeb", ["highway": "pedestrian", "area": "yes", "name": "Square"])
        map.way("ab", ["highway": "footway", "name": "Alley"])
        let graphs = try map.build()
        let result = try steps(graphs.walking, [map.position("a"), map.position("d")])
        #expect(result.first!.name == "Alley")
        #expect(result.dropLast().last!.name == "Square")
        #expect(graphs.driving.edgeCount == 0)
    }

    @Test func streetNamesInTheRequestedLanguageWithFallback() throws {
        let map = TestMap("a     b     c")
        map.way("ab", ["highway": "primary", "name": "Mannerheimintie", "name:sv": "Mannerheimvägen", "name:zh": "曼纳海姆路"])
        map.way("bc", ["highway": "primary", "name": "Kaivokatu"])
        let graph = try map.build().driving
        let points = [map.position("a"), map.position("c")]
        #expect(try steps(graph, points, language: "sv").map(\.name).prefix(2) == ["Mannerheimvägen", "Kaivokatu"])
        #expect(try steps(graph, points, language: "zh").map(\.name).prefix(2) == ["曼纳海姆路", "Kaivokatu"])
        #expect(try steps(graph, points, language: "en").map(\.name).prefix(2) == ["Mannerheimintie", "Kaivokatu"])
        #expect(try steps(graph, points, language: "sv")[1].instruction == "Continue onto Kaivokatu", "no Swedish phrases: English")
        #expect(try steps(graph, points, language: "zh")[0].instruction == "向东出发，沿曼纳海姆路前行")
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
