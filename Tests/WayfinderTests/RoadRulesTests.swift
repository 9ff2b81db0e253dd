import Foundation
import RoadGraph
import Routing
import Testing

/// The road rules of PROFILES.md on small drawn maps, end to end (OSM XML → import → route), both modes, each with
/// the case it allows and the case it forbids. Every route is checked against the reference Dijkstra.
@Suite struct RoadRulesTests {
    /// A straight street a–b–c (100 m) with a detour a–d–e–c around it (140 m). Tags on b, or on the street,
    /// decide whether a route from a to c goes straight on.
    func streetWithDetour(street: [String: String] = [:], node: [String: String]? = nil,
                          detour: [String: String] = [:]) throws
        -> (map: TestMap, driving: RoadGraph, walking: RoadGraph)
    {
        let map = TestMap("""
            a    b    c

            d         e
            """)
        map.way("ab", ["highway": "residential", "name": "Street"].merging(street) { $1 })
        map.way("bc", ["highway": "residential", "name": "Street"].merging(street) { $1 })
        map.way("adec", ["highway": "residential", "name": "Detour"].merging(detour) { $1 })
        if let node { map.tagNode("b", node) }
        let graphs = try map.build()
        return (map, graphs.driving, graphs.walking)
    }

    func length(_ graph: RoadGraph, _ map: TestMap, _ from: Character, _ to: Character, excluding: ArcClasses = []) throws -> Double {
        try checkedRoute(graph, [map.position(from), map.position(to)], excluding: excluding).distance
    }

    // MARK: Access

    @Test(arguments: [["access": "no"], ["vehicle": "no"], ["motor_vehicle": "agricultural"], ["access": "psv"],
                      ["motorcar": "forestry"]])
    func accessOnAnyNodeStopsCars(tags: [String: String]) throws {
        let (map, driving, walking) = try streetWithDetour(node: tags)
        #expect(try length(driving, map, "a", "c") > 130, "the car goes round \(tags)")
        // `access=no` binds walkers too; `access=psv` and the vehicle keys do not.
        let walkingLength = try length(walking, map, "a", "c")
        #expect(tags["access"] == "no" ? walkingLength > 130 : walkingLength < 110, "walkers and \(tags)")
    }

    @Test(arguments: [["foot": "no"], ["access": "no"]])
    func footOrAccessNoOnANodeStopsWalkers(tags: [String: String]) throws {
        let (map, _, walking) = try streetWithDetour(node: tags)
        #expect(try length(walking, map, "a", "c") > 130)
        let (open, _, openWalking) = try streetWithDetour(node: tags.merging(["foot": "yes"]) { $1 })
        #expect(try length(openWalking, open, "a", "c") < 110, "foot=yes lets walkers through")
    }

    @Test func directionalAccess() throws {
        for key in ["access:forward", "motorcar:forward", "vehicle:forward", "motor_vehicle:forward"] {
            let (map, driving, walking) = try streetWithDetour(street: [key: "no"])
            #expect(try length(driving, map, "a", "c") > 130, "\(key)=no closes a→c")
            #expect(try length(driving, map, "c", "a") < 110, "\(key)=no leaves c→a open")
            let walkingLength = try length(walking, map, "a", "c")
            #expect(key.hasPrefix("access") ? walkingLength > 130 : walkingLength < 110, "\(key) and walkers")
        }
        let (map, _, walking) = try streetWithDetour(street: ["foot:forward": "no"])
        #expect(try length(walking, map, "a", "c") > 130 && length(walking, map, "c", "a") < 110)
    }

    /// Private, delivery, destination and customers roads: a route may start or end there, never pass through.
    @Test(arguments: ["private", "delivery", "destination", "customers", "destination;agricultural"])
    func restrictedRoadsOnlyStartOrEndRoutes(value: String) throws {
        let (map, driving, walking) = try streetWithDetour(street: ["access": value])
        #expect(try length(driving, map, "a", "c") > 130, "no passing through \(value)")
        // An address on the restricted street is reached, and left.
        let onIt = map.position(between: "a", "b", at: 0.5)
        let there = try checkedRoute(driving, [map.position("d"), onIt])
        #expect(there.waypoints[1].distance < 1 && there.legs[0].stretches.last?.classes.contains(.restricted) == true)
        let back = try checkedRoute(driving, [onIt, map.position("e")])
        #expect(back.waypoints[0].distance < 1)
        // Both ends on it: along it.
        #expect(try checkedRoute(driving, [onIt, map.position(between: "b", "c", at: 0.5)]).distance < 60)
        // Walkers: private and delivery are closed, the others open.
        let walkingLength = try length(walking, map, "a", "c")
        #expect(["private", "delivery"].contains(value) ? walkingLength > 130 : walkingLength < 110)
    }

    @Test func hovRoadsAreRestricted() throws {
        let (map, driving, _) = try streetWithDetour(street: ["hov": "designated"])
        #expect(try length(driving, map, "a", "c") > 130)
        let (lanes, lanesDriving, _) = try streetWithDetour(street: ["hov:lanes": "designated|designated"])
        #expect(try length(lanesDriving, lanes, "a", "c") > 130)
        let (some, someDriving, _) = try streetWithDetour(street: ["hov:lanes": "designated|yes"])
        #expect(try length(someDriving, some, "a", "c") < 110, "one open lane keeps the road open")
    }

    @Test func impliedAccessAndExplicitOverrides() throws {
        // A slow detour (a track, 10 km/h): the runway, at 10 km/h too, is shorter.
        let slow = ["highway": "track", "motor_vehicle": "yes"]
        let (map, driving, _) = try streetWithDetour(street: ["highway": "runway", "access": "yes"], detour: slow)
        #expect(try length(driving, map, "a", "c") < 110, "a runway open to all is driven")
        let (closed, closedDriving, _) = try streetWithDetour(street: ["highway": "runway"], detour: slow)
        #expect(try length(closedDriving, closed, "a", "c") > 130, "without access it is not")
        // Walkers: a cycleway only with foot=yes.
        let (bikes, _, bikeWalking) = try streetWithDetour(street: ["highway": "cycleway"])
        #expect(try length(bikeWalking, bikes, "a", "c") > 130)
        let (shared, _, sharedWalking) = try streetWithDetour(street: ["highway": "cycleway", "foot": "yes"])
        #expect(try length(sharedWalking, shared, "a", "c") < 110)
    }

    @Test func walkersKeepOffTrunkRoadsWithoutSidewalks() throws {
        let (map, driving, walking) = try streetWithDetour(street: ["highway": "trunk"])
        #expect(try length(walking, map, "a", "c") > 130)
        #expect(try length(driving, map, "a", "c") < 110)
        let (sidewalk, _, sidewalkWalking) = try streetWithDetour(street: ["highway": "trunk", "sidewalk": "right"])
        #expect(try length(sidewalkWalking, sidewalk, "a", "c") < 110)
    }

    @Test func emptyValuesCountAsAbsent() throws {
        let (map, driving, walking) = try streetWithDetour(street: ["access": "", "oneway": ""], node: ["barrier": "", "access": ""])
        #expect(try length(driving, map, "a", "c") < 110 && length(driving, map, "c", "a") < 110)
        #expect(try length(walking, map, "a", "c") < 110)
    }

    // MARK: Barriers

    @Test(arguments: [
        (["barrier": "bollard"], false), (["barrier": "bollard", "bollard": "rising"], true),
        (["barrier": "bollard", "bollard": "removable"], false), (["barrier": "kerb"], false),
        (["barrier": "kerb", "kerb": "raised"], false), (["barrier": "kerb", "kerb": "lowered"], true),
        (["barrier": "kerb", "highway": "crossing"], true), (["barrier": "height_restrictor", "maxheight": "1.8"], false),
        (["barrier": "height_restrictor", "maxheight": "2.4"], true), (["barrier": "gate", "access": "no"], false),
        (["barrier": "wall", "access": "yes"], true), (["barrier": "cattle_grid"], true), (["barrier": "block"], false),
    ])
    func barriersForCars(tags: [String: String], passes: Bool) throws {
        let (map, driving, walking) = try streetWithDetour(node: tags)
        let car = try length(driving, map, "a", "c")
        #expect(passes ? car < 110 : car > 130, "\(tags)")
        if tags["barrier"] != "wall" && tags["access"] != "no" {
            #expect(try length(walking, map, "a", "c") < 110, "walkers pass \(tags)")
        }
    }

    /// A gate (or lift gate) lets a car through but costs a minute, each way (car.lua's barrier_penalties); an
    /// access tag on it decides instead. A virtual fence that only beeps is no barrier.
    @Test func gatesCostAMinute() throws {
        func time(_ tags: [String: String]?) throws -> Double {
            let map = TestMap("a    b    c")
            map.way("abc", ["highway": "residential"])
            if let tags { map.tagNode("b", tags) }
            return try checkedRoute(try map.build().driving, [map.position("a"), map.position("c")]).duration
        }
        let plain = try time(nil)
        #expect(abs(try time(["barrier": "gate"]) - plain - 60) < 0.01)
        #expect(abs(try time(["barrier": "lift_gate"]) - plain - 60) < 0.01)
        #expect(abs(try time(["barrier": "gate", "access": "yes"]) - plain) < 0.01, "an access tag decides")
        #expect(abs(try time(["barrier": "fence", "sensory": "audible"]) - plain) < 0.01)
        let (map, driving, _) = try streetWithDetour(node: ["barrier": "fence"])
        #expect(try length(driving, map, "a", "c") > 130, "a plain fence stops cars")
    }

    @Test func wallsStopWalkers() throws {
        let (map, _, walking) = try streetWithDetour(node: ["barrier": "wall"])
        #expect(try length(walking, map, "a", "c") > 130)
        let (open, _, openWalking) = try streetWithDetour(node: ["barrier": "wall", "foot": "yes"])
        #expect(try length(openWalking, open, "a", "c") < 110, "the access tag wins")
    }

    // MARK: Direction

    @Test func modeSpecificOnewaysAndImpliedOnes() throws {
        let (map, driving, walking) = try streetWithDetour(street: ["oneway:motorcar": "yes"])
        #expect(try length(driving, map, "c", "a") > 130 && length(walking, map, "c", "a") < 110)
        let (foot, footDriving, footWalking) = try streetWithDetour(street: ["oneway:foot": "yes"])
        #expect(try length(footWalking, foot, "c", "a") > 130 && length(footDriving, foot, "c", "a") < 110)
        let (vehicle, vehicleDriving, _) = try streetWithDetour(street: ["oneway": "yes", "oneway:vehicle": "no"])
        #expect(try length(vehicleDriving, vehicle, "c", "a") < 110, "the more specific key lifts it")
        let (alternating, alternatingDriving, _) = try streetWithDetour(street: ["oneway": "alternating"],
                                                                          detour: ["highway": "track", "motor_vehicle": "yes"])
        #expect(try length(alternatingDriving, alternating, "c", "a") < 110, "alternating: both ways, dearer")
        let (reversible, reversibleDriving, _) = try streetWithDetour(street: ["oneway": "reversible"])
        #expect(try length(reversibleDriving, reversible, "a", "c") > 130, "reversible: not at all")
        let (link, linkDriving, _) = try streetWithDetour(street: ["highway": "motorway_link"])
        #expect(try length(linkDriving, link, "c", "a") < 110, "a link is not a oneway by itself")
        let (motorway, motorwayDriving, _) = try streetWithDetour(street: ["highway": "motorway"])
        #expect(try length(motorwayDriving, motorway, "c", "a") > 130, "a motorway is")
    }

    // MARK: Speeds, weights, limits, delays

    @Test func speedsFromLimitsAndSurfaces() throws {
        func time(_ tags: [String: String], from: Character = "a", to: Character = "c") throws -> Double {
            let map = TestMap("a         c")
            map.way("ac", ["highway": "primary"].merging(tags) { $1 })
            return try checkedRoute(try map.build().driving, [map.position(from), map.position(to)]).duration
        }
        // 100 m (one segment) at each speed, timed as OSRM times it.
        let line = TestMap("a         c")
        func expected(_ kmh: Double) -> Double { osrmSeconds([line.position("a"), line.position("c")], kmh: kmh) }
        let plain = try time([:])  // 100 m at 65 km/h
        #expect(abs(plain - expected(65)) < 0.01)
        #expect(abs(try time(["maxspeed": "50"]) - expected(40)) < 0.01)
        #expect(abs(try time(["maxspeed": "50", "maxspeed:advisory": "45"]) - expected(36)) < 0.01, "the advisory counts")
        #expect(abs(try time(["maxspeed:forward": "30", "maxspeed:backward": "90"]) - expected(24)) < 0.01)
        #expect(abs(try time(["maxspeed:forward": "30", "maxspeed:backward": "90"], from: "c", to: "a") - expected(72)) < 0.01)
        #expect(abs(try time(["maxspeed": "RU:urban"]) - expected(48)) < 0.01)
        #expect(abs(try time(["source:maxspeed": "DE:urban"]) - expected(40)) < 0.01, "zone form")
        #expect(abs(try time(["surface": "cobblestone"]) - expected(30)) < 0.01)
        #expect(abs(try time(["smoothness": "horrible"]) - expected(10)) < 0.01)
    }

    /// Narrow roads, one lane for both directions and service roads are avoided where there is a choice, but a
    /// route along one is timed at its true speed.
    @Test func penaltiesSteerTheChoiceNotTheClock() throws {
        // 100 m straight on at half weight (28.8 s) loses to the 140 m detour (20.2 s).
        let (map, driving, _) = try streetWithDetour(street: ["width": "2.5"])
        #expect(try length(driving, map, "a", "c") > 130)
        let (lanes, lanesDriving, _) = try streetWithDetour(street: ["lanes": "1"])
        #expect(try length(lanesDriving, lanes, "a", "c") > 130)
        let (wide, wideDriving, _) = try streetWithDetour(street: ["width": "4"])
        #expect(try length(wideDriving, wide, "a", "c") < 110)
        // Along a narrow street with no choice: twice the weight, the true duration.
        let only = TestMap("a         c")
        only.way("ac", ["highway": "residential", "width": "2.5"])
        let route = try checkedRoute(try only.build().driving, [only.position("a"), only.position("c")])
        #expect(abs(route.duration - osrmSeconds([only.position("a"), only.position("c")], kmh: 25)) < 0.01)
        #expect(abs(Double(route.weight) / 1000 - 2 * route.duration) < 0.1 + 1e-9, "the weight rounded on its own")
    }

    @Test func physicalLimitsOnWays() throws {
        for tags in [["maxheight": "1.8"], ["maxwidth": "1.7"], ["maxweight": "1.5"], ["maxlength": "3"],
                     ["maxheight:physical": "1.9", "maxheight": "3"]] {
            let (map, driving, walking) = try streetWithDetour(street: tags)
            #expect(try length(driving, map, "a", "c") > 130, "\(tags)")
            #expect(try length(walking, map, "a", "c") < 110)
        }
        let (map, driving, _) = try streetWithDetour(street: ["maxheight": "3.5", "maxweight": "7.5"])
        #expect(try length(driving, map, "a", "c") < 110)
    }

    @Test func stopAndGiveWaySignsCostTime() throws {
        func time(_ tags: [String: String]?, from: Character = "a", to: Character = "c") throws -> Double {
            let map = TestMap("a    b    c")
            map.way("abc", ["highway": "primary"])
            if let tags { map.tagNode("b", tags) }
            return try checkedRoute(try map.build().driving, [map.position(from), map.position(to)]).duration
        }
        let plain = try time(nil)
        #expect(abs(try time(["highway": "stop"]) - plain - 2) < 0.01)
        #expect(abs(try time(["highway": "give_way"]) - plain - 1) < 0.01)
        #expect(abs(try time(["highway": "stop", "direction": "backward"]) - plain) < 0.01, "facing the other way")
        #expect(abs(try time(["highway": "stop", "direction": "backward"], from: "c", to: "a") - plain - 2) < 0.01)
        // A minor-road stop sign on a node of one road applies to no junction: it costs nothing here.
        #expect(abs(try time(["highway": "stop", "stop": "minor"]) - plain) < 0.01)
    }

    @Test func minorStopSignsCostOnlyComingFromTheSlowerRoad() throws {
        let map = TestMap("""
            a    b    c
                 d
            """)
        map.way("abc", ["highway": "primary"])
        map.way("db", ["highway": "residential"])
        map.tagNode("b", ["highway": "stop", "stop": "minor"])
        let driving = try map.build().driving
        let fromMinor = try checkedRoute(driving, [map.position("d"), map.position("c")])
        let onMain = try checkedRoute(driving, [map.position("a"), map.position("c")])
        let drive = { (r: Route) in r.legs[0].stretches.reduce(0.0) { $0 + $1.distance / ($1.roadClass == .primary ? 65 / 3.6 : 25 / 3.6) } }
        #expect(abs(onMain.duration - drive(onMain)) < 0.15, "no stop on the main road (times rounded per segment)")
        #expect(fromMinor.duration - drive(fromMinor) > 2, "the minor road stops (2 s plus the turn)")
    }

    // MARK: Ferries, trains, movable bridges

    @Test func ferriesTrainsAndMovableBridges() throws {
        let map = TestMap("""
            a    b                                                  c    d
            """, gridSize: 20)
        map.way("ab", ["highway": "residential"])
        map.way("bc", ["route": "ferry"])
        map.way("cd", ["highway": "residential"])
        let graphs = try map.build()
        let crossing = try checkedRoute(graphs.driving, [map.position("a"), map.position("d")])
        let ferryLength = Geo.distance(map.position("b"), map.position("c"))
        let ferry = crossing.legs[0].stretches.filter { $0.classes.contains(.ferry) }
        #expect(abs(ferry.reduce(0) { $0 + $1.duration } - osrmSeconds([map.position("b"), map.position("c")], kmh: 5)) < 0.5,
                "5 km/h without a duration")
        #expect(try checkedRoute(graphs.walking, [map.position("a"), map.position("d")]).distance > ferryLength)
        // Never a start or end on the ferry itself: a point on it snaps to the land.
        let onFerry = try checkedRoute(graphs.driving, [map.position("a"), map.position(between: "b", "c", at: 0.1)])
        #expect(onFerry.legs[0].stretches.allSatisfy { !$0.classes.contains(.ferry) })
        // A duration spreads over the crossing; a shuttle train is a train.
        let timed = TestMap("a    b                                                  c    d", gridSize: 20)
        timed.way("ab", ["highway": "residential"])
        timed.way("bc", ["route": "ferry", "duration": "00:20"])
        timed.way("cd", ["highway": "residential"])
        let timedRoute = try checkedRoute(try timed.build().driving, [timed.position("a"), timed.position("d")])
        #expect(abs(timedRoute.legs[0].stretches.filter { $0.classes.contains(.ferry) }.reduce(0) { $0 + $1.duration } - 1200) < 1)
        let bridge = TestMap("a    b    c    d")
        bridge.way("ab", ["highway": "primary"])
        bridge.way("bc", ["highway": "primary", "bridge": "movable", "duration": "5"])
        bridge.way("cd", ["highway": "primary"])
        let bridgeRoute = try checkedRoute(try bridge.build().driving, [bridge.position("a"), bridge.position("d")])
        #expect(abs(bridgeRoute.duration - (100 / (65 / 3.6) + 300)) < 0.5, "a movable bridge takes its duration")
        let train = TestMap("a    b                                                  c    d", gridSize: 20)
        train.way("ab", ["highway": "residential"])
        train.way("bc", ["route": "shuttle_train"])
        train.way("cd", ["highway": "residential"])
        let trainGraphs = try train.build()
        let byTrain = try checkedRoute(trainGraphs.driving, [train.position("a"), train.position("d")])
        #expect(byTrain.legs[0].stretches.contains { trainGraphs.driving.flags(ofEdge: trainGraphs.driving.edge(ofArc: $0.arc).edge).contains(.train) })
    }

    // MARK: Classes and exclusion

    @Test func excludeAvoidsTollsMotorwaysAndFerries() throws {
        let map = TestMap("""
            a    b    c

            d         e
            """)
        map.way("abc", ["highway": "primary", "toll": "yes"])
        map.way("adec", ["highway": "residential"])
        let graphs = try map.build()
        let toll = try checkedRoute(graphs.driving, [map.position("a"), map.position("c")])
        #expect(toll.distance < 110 && toll.classes.contains(.toll))
        let avoided = try checkedRoute(graphs.driving, [map.position("a"), map.position("c")], excluding: .toll)
        #expect(avoided.distance > 130 && !avoided.classes.contains(.toll))
        #expect(try checkedRoute(graphs.driving, [map.position("a"), map.position("c")], excluding: .motorway).distance < 110)
        // Walkers can avoid ferries, and nothing else.
        #expect(try checkedRoute(graphs.walking, [map.position("a"), map.position("c")], excluding: .ferry).distance < 110)
    }

    // MARK: Snapping

    @Test func snappingPrefersRoadsOpenToAll() throws {
        let map = TestMap("""
            a                   b

            c                   d
            """)
        map.way("ab", ["highway": "residential", "name": "Street"])
        map.way("cd", ["highway": "residential", "access": "private", "name": "Private"])
        map.way("ac", ["highway": "residential"])
        let driving = try map.build().driving
        let router = Router(graph: driving)
        // 8 m from the private road, 12 m from the street: the street (the private one is not 10 m nearer).
        let middle = map.position(between: "a", "b", at: 0.5)
        let between = Coordinate(latitude: middle.latitude - 12 / 111_195, longitude: middle.longitude)
        #expect(try router.snapWaypoints([between])[0].name == "Street")
        // On the private road itself: the private road.
        #expect(try router.snapWaypoints([map.position(between: "c", "d", at: 0.5)])[0].name == "Private")
    }

    // MARK: Areas

    @Test func platformsMappedAsAreasAreCrossed() throws {
        let map = TestMap("""
            p    a              b    q

                 d              c
            """)
        map.way("abcda", ["railway": "platform", "area": "yes"])
        map.way("pa", ["highway": "footway"])
        map.way("bq", ["highway": "footway"])
        map.way("cd", ["highway": "footway"])  // the platform's far side is also a path
        let walking = try map.build().walking
        let across = try checkedRoute(walking, [map.position("p"), map.position("q")])
        #expect(abs(across.distance - 250) < 2, "along the platform from a to b")
        #expect(try checkedRoute(walking, [map.position("a"), map.position("c")]).distance < 160, "and straight across it")
    }
}
