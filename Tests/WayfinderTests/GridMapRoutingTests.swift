import Foundation
import RoadGraph
import Routing
import Testing

/// Small hand-drawn maps, each checking one rule end to end (OSM XML → import → graph file → route), every route
/// checked against the reference Dijkstra.
@Suite struct GridMapRoutingTests {
    @Test func onewayIsRespectedByCarsAndIgnoredOnFoot() throws {
        let map = TestMap("""
            a     b

            c     d
            """)
        map.way("ab", ["highway": "residential", "oneway": "yes", "name": "One"])
        map.way("acdb", ["highway": "residential", "name": "Loop"])
        let graphs = try map.build()
        let forward = try checkedRoute(graphs.driving, [map.position("a"), map.position("b")])
        let backward = try checkedRoute(graphs.driving, [map.position("b"), map.position("a")])
        #expect(abs(forward.distance - 60) < 1)
        #expect(abs(backward.distance - 100) < 1, "against the oneway: b-d-c-a")
        #expect(roadNames(backward) == ["Loop"], "\(backward.legs[0].stretches.map { ($0.name, $0.distance, $0.duration) })")
        let walk = try checkedRoute(graphs.walking, [map.position("b"), map.position("a")])
        #expect(abs(walk.distance - 60) < 1)
    }

    /// Turns cost time at junctions (left more than right), and the cheaper turns win between roads of one length.
    @Test func turnsCostTimeAndRightBeatsLeft() throws {
        let map = TestMap("""
            s     a     b     g

                  c     d
                        t
            """)
        map.way("sa", ["highway": "residential", "name": "Entry"])
        map.way("ab", ["highway": "residential", "name": "North"])
        map.way("bg", ["highway": "residential", "name": "Stub"])
        map.way("bd", ["highway": "residential", "name": "East"])
        map.way("ac", ["highway": "residential", "name": "West"])
        map.way("cd", ["highway": "residential", "name": "South"])
        map.way("dt", ["highway": "residential", "name": "Exit"])
        let graphs = try map.build()
        // s→t: right at b, or right at a and right again at d; the same length either way.
        let st = try checkedRoute(graphs.driving, [map.position("s"), map.position("t")])
        #expect(roadNames(st) == ["Entry", "North", "East", "Exit"], "one turn, not two")
        // What the turns cost beyond driving time at 25 km/h, in OSRM's tenths of a second: 2.1 s turning right,
        // 7.3 s left (across oncoming traffic), nothing straight on through a junction.
        func turnTime(_ route: Route) -> Double { route.duration - osrmSeconds(route.coordinates, kmh: 25) }
        #expect(abs(turnTime(st) - 2.1) < 0.01, "\(turnTime(st))")
        let gt = try checkedRoute(graphs.driving, [map.position("g"), map.position("t")])
        #expect(roadNames(gt) == ["Stub", "East", "Exit"] && abs(turnTime(gt) - 7.3) < 0.01, "\(turnTime(gt))")
        let sg = try checkedRoute(graphs.driving, [map.position("s"), map.position("g")])
        #expect(abs(turnTime(sg)) < 0.01, "straight on")
        // Walking has no turn costs.
        let walk = try checkedRoute(graphs.walking, [map.position("g"), map.position("t")])
        #expect(abs(walk.duration - osrmSeconds(walk.coordinates, kmh: 5)) < 0.01)
    }

    /// continue_straight: a car passes a via point without turning back there (OSRM's default for cars); on foot,
    /// or when asked, it may turn around at the point.
    @Test func viaPointsArePassedStraightByCar() throws {
        let map = TestMap("""
            a                 b


            c                 d
            """)
        map.way("ab", ["highway": "residential", "name": "Main"])
        map.way("acdb", ["highway": "residential", "name": "Loop"])
        let graphs = try map.build()
        // Out along Main to a via point, then back to just behind the start.
        let points = [map.position(between: "a", "b", at: 0.3), map.position(between: "a", "b", at: 0.6),
                      map.position(between: "a", "b", at: 0.2)]
        let straight = try checkedRoute(graphs.driving, points)
        #expect(roadNames(straight) == ["Main", "Loop", "Main"], "on past the via point and round the block")
        #expect(straight.distance > 200)
        let turning = try checkedRoute(graphs.driving, points, continueStraight: false)
        #expect(roadNames(turning) == ["Main"] && abs(turning.distance - 0.3 * 180 - 0.4 * 180) < 2, "\(turning.distance)")
        let walking = try checkedRoute(graphs.walking, points)
        #expect(abs(walking.distance - turning.distance) < 1, "walkers turn round where they stand")
        #expect(try checkedRoute(graphs.walking, points, continueStraight: true).distance > 200)
    }

    /// Alternatives: the lower road of a ladder, a little longer, shares only its ends with the main route.
    @Test func alternativeRoutesDifferAndStayReasonable() throws {
        let map = TestMap("""
            s a                   b t
              c                   d
            """)
        map.way("sabt", ["highway": "residential", "name": "Upper"])
        map.way("acdb", ["highway": "residential", "name": "Lower"])
        let graphs = try map.build()
        var router = Router(graph: graphs.driving)
        let main = try checkedRoute(graphs.driving, [map.position("s"), map.position("t")])
        #expect(roadNames(main) == ["Upper"])
        let others = router.alternatives(to: main, count: 2)
        #expect(others.count == 1, "one other road")
        let other = try #require(others.first)
        #expect(roadNames(other) == ["Upper", "Lower", "Upper"] && other.weight > main.weight)
        #expect(Double(other.weight) <= 1.3 * Double(main.weight))
        let stretchSum = other.legs[0].stretches.reduce(0.0) { $0 + $1.duration }
        #expect(abs(stretchSum - other.duration) < 0.0015, "the alternative's duration is its true one, not the penalised")
        #expect(router.alternatives(to: main, count: 0).isEmpty)
        let via = try checkedRoute(graphs.driving, [map.position("s"), map.position("c"), map.position("t")])
        #expect(router.alternatives(to: via, count: 2).isEmpty, "only between two points, as in OSRM")
    }

    @Test func trafficSignalsCostTwoSeconds() throws {
        func duration(signal: Bool) throws -> (Double, Double) {
            let map = TestMap("a     s     b")
            map.way("asb", ["highway": "primary"])
            if signal { map.tagNode("s", ["highway": "traffic_signals"]) }
            let graphs = try map.build()
            return (try checkedRoute(graphs.driving, [map.position("a"), map.position("b")]).duration,
                    try checkedRoute(graphs.walking, [map.position("a"), map.position("b")]).duration)
        }
        let with = try duration(signal: true), without = try duration(signal: false)
        #expect(abs(with.0 - without.0 - 2) < 0.01, "\(with) \(without)")
        #expect(abs(with.1 - without.1 - 2) < 0.01, "walkers wait at signals too (2 s, OSRM's foot profile)")
        // A signal facing one direction of the way stops only that direction.
        let map = TestMap("a     s     b")
        map.way("asb", ["highway": "primary"])
        map.tagNode("s", ["highway": "traffic_signals", "traffic_signals:direction": "backward"])
        let driving = try map.build().driving
        let ab = try checkedRoute(driving, [map.position("a"), map.position("b")]).duration
        let ba = try checkedRoute(driving, [map.position("b"), map.position("a")]).duration
        #expect(abs(ab - without.0) < 0.01 && abs(ba - without.0 - 2) < 0.01, "\(ab) \(ba)")
    }

    @Test func onewayFootAppliesToWalking() throws {
        let map = TestMap("""
            a     b

            c     d
            """)
        map.way("ab", ["highway": "footway", "oneway:foot": "yes"])
        map.way("acdb", ["highway": "footway"])
        let walking = try map.build().walking
        #expect(abs(try checkedRoute(walking, [map.position("b"), map.position("a")]).distance - 100) < 1)
    }

    @Test func accessTagsCloseAndOpenWays() throws {
        let map = TestMap("""
            a     b

            c     d
            """)
        map.way("ab", ["highway": "residential", "access": "no"])
        map.way("cd", ["highway": "residential", "access": "no", "motorcar": "yes"])
        map.way("ac", ["highway": "residential"])
        map.way("bd", ["highway": "residential"])
        let graphs = try map.build()
        // a→b must go round by c and d: ab is closed, cd is open to cars.
        let route = try checkedRoute(graphs.driving, [map.position("a"), map.position("b")])
        #expect(abs(route.distance - 100) < 1)
    }

    @Test func bollardBlocksCarsButNotWalkers() throws {
        let map = TestMap("a    b    c")
        map.way("abc", ["highway": "residential", "name": "Street"])
        map.tagNode("b", ["barrier": "bollard"])
        let graphs = try map.build()
        // The car gets as far as the bollard (the destination moves to the nearest reachable road), no farther.
        let car = try checkedRoute(graphs.driving, [map.position("a"), map.position("c")])
        #expect(abs(car.distance - 50) < 1 && abs(car.waypoints[1].distance - 50) < 1)
        #expect(abs(try checkedRoute(graphs.walking, [map.position("a"), map.position("c")]).distance - 100) < 1)
    }

    @Test func gatesPassUnlessClosed() throws {
        let open = TestMap("a    b    c")
        open.way("abc", ["highway": "residential"])
        open.tagNode("b", ["barrier": "gate"])
        #expect(abs(try checkedRoute(try open.build().driving, [open.position("a"), open.position("c")]).distance - 100) < 1)
        let closed = TestMap("d    e    f")
        closed.way("def", ["highway": "residential"])
        closed.tagNode("e", ["barrier": "gate", "access": "no"])
        let route = try checkedRoute(try closed.build().driving, [closed.position("d"), closed.position("f")])
        #expect(route.distance < 51 && route.waypoints[1].distance > 49, "stops at the closed gate")
        // A private gate lets cars through, as OSRM decides (the roads behind it carry their own access tags).
        let privateGate = TestMap("g    h    i")
        privateGate.way("ghi", ["highway": "residential"])
        privateGate.tagNode("h", ["barrier": "gate", "access": "private"])
        #expect(abs(try checkedRoute(try privateGate.build().driving, [privateGate.position("g"), privateGate.position("i")]).distance - 100) < 1)
    }

    /// A plus-shaped junction at b; c is a dead end where a U-turn is allowed.
    ///
    ///           d
    ///     a     b     c
    ///           e
    func junctionMap() -> (TestMap, ab: Int64, bc: Int64, bd: Int64, be: Int64) {
        let map = TestMap("""
                  d

            a     b     c

                  e
            """)
        let ab = map.way("ab", ["highway": "residential", "name": "West"])
        let bc = map.way("bc", ["highway": "residential", "name": "East"])
        let bd = map.way("bd", ["highway": "residential", "name": "North"])
        let be = map.way("be", ["highway": "residential", "name": "South"])
        return (map, ab, bc, bd, be)
    }

    @Test func noTurnViaNodeForcesAUturnAtADeadEnd() throws {
        let (map, ab, _, bd, _) = junctionMap()
        map.restriction("no_left_turn", from: ab, viaNode: "b", to: bd)
        let graphs = try map.build()
        let route = try checkedRoute(graphs.driving, [map.position("a"), map.position("d")])
        // a-b-e, U-turn at the dead end e (the nearest), e-b-d: 60 + 20 + 20 + 20.
        #expect(abs(route.distance - 120) < 1)
        #expect(roadNames(route) == ["West", "South", "North"])
        // The restriction is for cars only.
        #expect(abs(try checkedRoute(graphs.walking, [map.position("a"), map.position("d")]).distance - 80) < 1)
        // Other turns from the same approach are unaffected.
        #expect(abs(try checkedRoute(graphs.driving, [map.position("a"), map.position("e")]).distance - 80) < 1)
    }

    @Test func onlyStraightOnViaNode() throws {
        let (map, ab, bc, _, _) = junctionMap()
        map.restriction("only_straight_on", from: ab, viaNode: "b", to: bc)
        let graphs = try map.build()
        let route = try checkedRoute(graphs.driving, [map.position("a"), map.position("e")])
        #expect(abs(route.distance - 200) < 1)
        #expect(abs(try checkedRoute(graphs.driving, [map.position("a"), map.position("c")]).distance - 120) < 1)
    }

    @Test func restrictionForOtherVehiclesOrWithCarExemptionIsIgnored() throws {
        let (map, ab, _, bd, be) = junctionMap()
        map.restriction("no_left_turn", from: ab, viaNode: "b", to: bd, extraTags: ["except": "motorcar"])
        map.restriction("", from: ab, viaNode: "b", to: be, extraTags: ["restriction:hgv": "no_right_turn"])
        let graphs = try map.build()
        #expect(abs(try checkedRoute(graphs.driving, [map.position("a"), map.position("d")]).distance - 80) < 1)
        #expect(abs(try checkedRoute(graphs.driving, [map.position("a"), map.position("e")]).distance - 80) < 1)
    }

    /// From ab via be to ef is forbidden; going round by c and g is the legal way. hb is one way towards b, so
    /// there is no dead end to turn at; k is a dead end south of e.
    ///
    ///           h
    ///     a     b     c
    ///
    ///           e  f  g
    ///
    ///           k
    func viaWayMap() -> (TestMap, ab: Int64, be: Int64, ef: Int64) {
        let map = TestMap("""
                  h
            a     b     c

                  e  f  g

                  k
            """)
        let ab = map.way("ab", ["highway": "residential", "name": "From"])
        let be = map.way("be", ["highway": "residential", "name": "Via"])
        let ef = map.way("ef", ["highway": "residential", "name": "To"])
        map.way("bc", ["highway": "residential", "name": "North"])
        map.way("cgf", ["highway": "residential", "name": "Around"])
        map.way("hb", ["highway": "residential", "name": "Side", "oneway": "yes"])
        return (map, ab, be, ef)
    }

    @Test func noTurnViaWay() throws {
        let (map, ab, be, ef) = viaWayMap()
        map.restriction("no_left_turn", from: ab, viaWays: [be], to: ef)
        let graphs = try map.build()
        let route = try checkedRoute(graphs.driving, [map.position("a"), map.position("f")])
        #expect(roadNames(route) == ["From", "North", "Around"])
        #expect(abs(route.distance - (60 + 60 + 20 + 30)) < 1)
        // Entering the via way from elsewhere, or starting on it, is not restricted.
        let fromSide = try checkedRoute(graphs.driving, [map.position("h"), map.position("f")])
        #expect(roadNames(fromSide) == ["Side", "Via", "To"])
        let fromMiddle = try checkedRoute(graphs.driving, [map.position(between: "b", "e", at: 0.5), map.position("f")])
        #expect(roadNames(fromMiddle) == ["Via", "To"])
        // The same turn without the restriction takes the short way.
        let (plain, _, _, _) = viaWayMap()
        let open = try checkedRoute(try plain.build().driving, [plain.position("a"), plain.position("f")])
        #expect(abs(open.distance - (60 + 20 + 30)) < 1)
    }

    @Test func onlyTurnViaWay() throws {
        let (map, ab, be, ef) = viaWayMap()
        map.way("ek", ["highway": "residential", "name": "Stub"])
        map.restriction("only_left_turn", from: ab, viaWays: [be], to: ef)
        let graphs = try map.build()
        // Stopping on the via way itself is fine.
        let onVia = try checkedRoute(graphs.driving, [map.position("a"), map.position(between: "b", "e", at: 0.9)])
        #expect(abs(onVia.distance - 78) < 1)
        // From ab through be the only way on is ef: reaching k means coming back to e from f.
        let toStub = try checkedRoute(graphs.driving, [map.position("a"), map.position("k")])
        #expect(roadNames(toStub) == ["From", "North", "Around", "To", "Stub"])
        #expect(abs(toStub.distance - (60 + 60 + 20 + 30 + 30 + 20)) < 1)
        #expect(abs(try checkedRoute(graphs.walking, [map.position("a"), map.position("k")]).distance - 100) < 1)
    }

    @Test func viaPointsMakeOneLegEach() throws {
        let map = TestMap("a     b     c")
        map.way("abc", ["highway": "primary", "name": "Main"])
        let graphs = try map.build()
        let route = try checkedRoute(graphs.driving, [map.position("a"), map.position("b"), map.position("c")])
        #expect(route.legs.count == 2)
        #expect(abs(route.legs[0].distance - 60) < 1 && abs(route.legs[1].distance - 60) < 1)
        #expect(abs(route.distance - 120) < 1)
        // Back and forth through a via point: the U-turn at the via point is allowed.
        let back = try checkedRoute(graphs.driving, [map.position("a"), map.position("c"), map.position("b")])
        #expect(abs(back.distance - 180) < 1)
    }

    @Test func snapsOntoTheSegmentAndStartsMidStreet() throws {
        let map = TestMap("a         b")
        map.way("ab", ["highway": "residential", "name": "Long"])
        let graph = try map.build().driving
        // 30 m along the 100 m street, 15 m to the side.
        let along = map.position(between: "a", "b", at: 0.3)
        let beside = Coordinate(latitude: along.latitude + 15 / 111_195, longitude: along.longitude)
        let candidates = try #require(graph.snap(beside))
        #expect(abs(candidates.nearest.distance - 15) < 0.5)
        #expect(abs(candidates.nearest.offset - 30) < 0.5)
        #expect(candidates.nearest.name == "Long")
        let route = try checkedRoute(graph, [beside, map.position("b")])
        #expect(abs(route.distance - 70) < 0.5)
        #expect(abs(route.waypoints[0].location.latitude - along.latitude) < 1e-6)
        // Both ends on one street, target behind the source: the car turns at the dead end.
        let reverse = try checkedRoute(graph, [map.position(between: "a", "b", at: 0.6), map.position(between: "a", "b", at: 0.4)])
        #expect(abs(reverse.distance - 20) < 0.5)
    }

    @Test func avoidsSnappingOntoAnIslandWhenTheMainNetworkIsNear() throws {
        let map = TestMap("""
            a   b   c   d   e
                            f
                            g
            h   i           j
                x   y
            """)
        map.way("abcde", ["highway": "residential", "name": "Main"])
        map.way("efgj", ["highway": "residential", "name": "Main"])
        map.way("hi", ["highway": "residential", "name": "Mainland"])
        map.way("ah", ["highway": "residential", "name": "Mainland"])
        map.way("xy", ["highway": "service", "name": "Island"])  // unconnected
        let graph = try map.build().driving
        // Next to the island (5 m) but the main network (i, 10 m away) is close too: route from the main network.
        let nearIsland = Coordinate(latitude: map.position("x").latitude + 5 / 111_195, longitude: map.position("x").longitude)
        let route = try checkedRoute(graph, [nearIsland, map.position("c")])
        #expect(route.waypoints[0].name == "Mainland")
        // Both ends on the island: route on the island.
        let onIsland = try checkedRoute(graph, [map.position("x"), map.position("y")])
        #expect(onIsland.waypoints.map(\.name) == ["Island", "Island"])
    }

    @Test func aStartThatCannotBeLeftMovesToTheCoreNetwork() throws {
        let map = TestMap("""
            a     b     c
                     t
            d     e     f
            """)
        map.way("abcfeda", ["highway": "residential", "name": "Loop"])
        map.way("ct", ["highway": "residential", "name": "Trap", "oneway": "yes"])  // in, never out
        let graph = try map.build().driving
        let route = try checkedRoute(graph, [map.position("t"), map.position("d")])
        #expect(route.waypoints[0].name == "Loop", "moved off the one-way trap onto the loop")
        // Reaching the trap is fine: it is only leaving it that is impossible.
        let into = try checkedRoute(graph, [map.position("d"), map.position("t")])
        #expect(into.waypoints[1].name == "Trap")
    }

    @Test func unconnectedPointsGiveNoRouteAndFarPointsNoSegment() throws {
        // The two roads are 200 m apart: too far to move a waypoint from one to the other.
        let map = TestMap("a    b\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\nc    d")
        map.way("ab", ["highway": "residential"])
        map.way("cd", ["highway": "residential"])
        let graph = try map.build().driving
        var router = Router(graph: graph)
        #expect(throws: RoutingError.noRoute(fromWaypoint: 0, toWaypoint: 1)) {
            try router.route([map.position("a"), map.position("d")])
        }
        let far = Coordinate(latitude: 61, longitude: 25)
        #expect(throws: RoutingError.self) { try router.route([map.position("a"), far]) }
        do {
            _ = try router.route([map.position("a"), far])
        } catch let error as RoutingError {
            #expect(error.code == "NoSegment")
        }
    }

    @Test func extractWithoutCarRoadsImportsAndAnswersNoSegment() throws {
        let map = TestMap("a    b    c")
        map.way("abc", ["highway": "footway"])
        let graphs = try map.build()
        #expect(graphs.driving.edgeCount == 0)
        var router = Router(graph: graphs.driving)
        #expect(throws: RoutingError.noSegment(index: 0, coordinate: map.position("a"), maxDistance: RoadGraph.defaultSnapDistance)) {
            try router.route([map.position("a"), map.position("c")])
        }
        #expect(abs(try checkedRoute(graphs.walking, [map.position("a"), map.position("c")]).distance - 100) < 1)
    }

    @Test func waysKeepWorkingWithoutTheirMissingNodes() throws {
        let map = TestMap("a    b    c")
        map.way("abc", ["highway": "residential"], missingNodes: [999])
        let graph = try map.build().driving
        #expect(abs(try checkedRoute(graph, [map.position("a"), map.position("c")]).distance - 100) < 1)
    }

    @Test func fasterRoadWinsOverShorterSlowerOne() throws {
        let map = TestMap("""
            a          b
            c          d
            """, gridSize: 50)
        map.way("ab", ["highway": "living_street", "name": "Slow"])
        map.way("acdb", ["highway": "primary", "name": "Fast"])
        let route = try checkedRoute(try map.build().driving, [map.position("a"), map.position("b")])
        #expect(roadNames(route) == ["Fast"])
    }
}
