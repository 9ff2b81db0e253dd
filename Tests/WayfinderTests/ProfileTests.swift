import GraphImport
import RoadGraph
import Testing

/// The profiles' decisions for single ways and nodes (OSRM v6's car and foot rules; PROFILES.md). Whole-map
/// behaviour is in RoadRulesTests.
@Suite struct ProfileTests {
    let car = TravelProfile.driving, foot = TravelProfile.walking

    func directions(_ profile: TravelProfile, _ tags: Tags) -> (Bool, Bool)? {
        profile.rule(for: tags).map { ($0.forward != nil, $0.backward != nil) }
    }

    @Test(arguments: [
        ("50", 50.0), ("30 mph", 48.27), ("DE:urban", 50), ("RU:urban", 60), ("FR:rural", 80), ("none", 140),
        ("GB:nsl_single", 96.54), ("BE-WAL:urban", 50), ("50;70", 50), ("100 km/h", 100), ("RU:living_street", 20),
    ])
    func parsesMaxspeed(raw: String, kmh: Double) throws {
        let parsed = try #require(TagValues.maxspeed(raw))
        #expect(abs(parsed - kmh) < 0.01, "\(raw)")
    }

    @Test(arguments: ["DE:motorway", "walk", "signals", "DE:zone30", "fast", " 50"])
    func maxspeedsWithoutAUsableNumber(raw: String) {
        #expect(TagValues.maxspeed(raw) == nil, "\(raw)")
    }

    @Test(arguments: [
        ("5", 300.0), ("61", 3660), ("120", 7200), ("1:30", 5400), ("01:30:00", 5400), ("PT15M", 900),
        ("P1DT2H15M1S", 94501), ("PT120M", 7200), ("PT022506", 8706), ("P2W", 1_209_600), ("pt1h", 3600), ("PT", 0),
    ])
    func parsesDurations(raw: String, seconds: Double) throws {
        #expect(try #require(TagValues.duration(raw)) == seconds, "\(raw)")
    }

    @Test(arguments: ["15 min", "PT1.5H", "T15M", "abc", "1:2:3:4", ""])
    func rejectsOtherDurations(raw: String) {
        #expect(TagValues.duration(raw) == nil, "\(raw)")
    }

    @Test func measures() {
        #expect(TagValues.metres("3.5 m") == 3.5 && TagValues.metres("2,5") == 2.5)
        #expect(abs(TagValues.metres("6'6\"")! - 1.9812) < 1e-9)
        #expect(TagValues.height("default") == 4.5 && TagValues.height("below_default") == nil)
        #expect(TagValues.kilograms("7.5") == 7500 && TagValues.kilograms("800 kg") == 800)
        #expect(abs(TagValues.kilograms("8000 lbs")! - 3628.74) < 0.01)
    }

    @Test func turnPenaltiesFollowTheAngleAndFavourRightTurns() {
        let straight = car.turnPenalty(angle: 0, roads: 4, isUturn: false)
        let right = car.turnPenalty(angle: 90, roads: 4, isUturn: false)
        let left = car.turnPenalty(angle: -90, roads: 4, isUturn: false)
        // OSRM 26.10 measured at drawn junctions, to the tenth of a second it keeps (cut down): the left turns
        // pay for crossing oncoming traffic, a bend of one road and a roundabout do not.
        #expect(straight < 0.05 && abs(right - 2.1) < 0.05 && abs(left - 7.3) < 0.05, "\(straight) \(right) \(left)")
        let measured: [(angle: Double, seconds: Double)] = [(-165, 9.4), (-120, 9.2), (-60, 2.9), (-30, 0.6), (-15, 0.2),
                                                             (45, 0.1), (75, 0.9), (120, 5.5), (165, 7.3)]
        for (angle, seconds) in measured {
            let cost = (car.turnPenalty(angle: angle, roads: 3, isUturn: false) * 10).rounded(.down) / 10
            #expect(abs(cost - seconds) < 0.01, "\(angle)°: \(cost) s, OSRM \(seconds) s")
        }
        #expect(abs(car.turnPenalty(angle: -90, roads: 4, isUturn: false, onRoundabout: true) - 5.3) < 0.1)
        #expect(car.turnPenalty(angle: 180, roads: 1, isUturn: true) > 27, "U-turns cost 20 s more")
        #expect(car.turnPenalty(angle: -90, roads: 2, isUturn: false) == 0, "a bend of one road is no turn")
        #expect(car.turnPenalty(angle: -90, roads: 2, isUturn: false, modeChanges: true) > 5, "boarding a ferry is")
        #expect(foot.turnPenalty(angle: -90, roads: 4, isUturn: false) == 0)
        #expect(foot.turnPenalty(angle: 180, roads: 4, isUturn: true) == 2, "walkers turn round in 2 s")
    }

    /// Refs listed with `;` come out as OSRM gives them, joined with "; " (checked against OSRM 26.10).
    @Test func refListsAsOSRM() {
        #expect(TravelProfile.ref(["ref": "A1;E1"]) == "A1; E1")
        #expect(TravelProfile.ref(["ref": "A 1 ; E 80;"]) == "A 1; E 80")
        #expect(TravelProfile.ref(["ref": "N 12"]) == "N 12")
        #expect(TravelProfile.ref([:]) == "")
    }

    @Test func onewayValues() {
        #expect(directions(car, ["highway": "residential", "oneway": "yes"])! == (true, false))
        #expect(directions(car, ["highway": "residential", "oneway": "1"])! == (true, false))
        #expect(directions(car, ["highway": "residential", "oneway": "true"])! == (true, false))
        #expect(directions(car, ["highway": "residential", "oneway": "-1"])! == (false, true))
        #expect(car.rule(for: ["highway": "residential", "oneway": "reversible"]) == nil)
        #expect(directions(car, ["highway": "residential", "oneway": "alternating"])! == (true, true))
        #expect(directions(car, ["highway": "residential", "junction": "roundabout"])! == (true, false))
        #expect(directions(car, ["highway": "motorway"])! == (true, false))
        #expect(directions(car, ["highway": "motorway_link"])! == (true, true), "a link is no oneway by itself")
        #expect(directions(car, ["highway": "motorway", "oneway": "no"])! == (true, true))
        #expect(directions(car, ["highway": "motorway", "oneway": "false"])! == (true, false), "only 'no' lifts it")
        #expect(directions(car, ["highway": "residential", "oneway": "yes", "oneway:motorcar": "no"])! == (true, true))
        #expect(directions(car, ["highway": "residential", "oneway:vehicle": "-1"])! == (false, true))
    }

    @Test func walkingIgnoresOnewayUnlessOnewayFoot() {
        #expect(directions(foot, ["highway": "residential", "oneway": "yes"])! == (true, true))
        #expect(directions(foot, ["highway": "footway", "oneway:foot": "yes"])! == (true, false))
        #expect(directions(foot, ["highway": "footway", "oneway:foot": "-1"])! == (false, true))
    }

    @Test func accessHierarchyAndDirections() {
        #expect(car.rule(for: ["highway": "residential", "access": "no"]) == nil)
        #expect(car.rule(for: ["highway": "residential", "access": "no", "motorcar": "yes"]) != nil)
        #expect(car.rule(for: ["highway": "residential", "access": "yes", "motor_vehicle": "no"]) == nil)
        #expect(car.rule(for: ["highway": "residential", "vehicle": "agricultural"]) == nil)
        #expect(directions(car, ["highway": "residential", "access:forward": "no"])! == (false, true))
        #expect(directions(car, ["highway": "residential", "motorcar:forward": "no"])! == (false, true))
        #expect(directions(car, ["highway": "residential", "vehicle:backward": "no"])! == (true, false))
        #expect(directions(car, ["highway": "residential", "motor_vehicle:forward": "no", "motorcar": "yes"])! == (true, true),
                "a more specific key wins")
        #expect(foot.rule(for: ["highway": "footway", "access": "no", "foot": "yes"]) != nil)
        #expect(foot.rule(for: ["highway": "residential", "foot": "no"]) == nil)
        #expect(directions(foot, ["highway": "footway", "foot:backward": "no"])! == (true, false))
        // An empty value is no value.
        #expect(car.rule(for: ["highway": "residential", "access": ""]) != nil)
    }

    @Test func restrictedValuesKeepTheRoadForStartsAndEnds() throws {
        for value in ["private", "delivery", "destination", "customers"] {
            let rule = try #require(car.rule(for: ["highway": "residential", "access": value]), "\(value)")
            #expect(rule.forward?.restricted == true && rule.forward?.classes.contains(.restricted) == true)
        }
        #expect(car.rule(for: ["highway": "track", "access": "private"]) == nil, "only on the road classes OSRM lists")
        for value in ["no", "agricultural", "forestry", "emergency", "psv"] {
            #expect(car.rule(for: ["highway": "residential", "access": value]) == nil, "\(value)")
        }
        // A list: the most permissive value decides.
        #expect(try #require(car.rule(for: ["highway": "residential", "access": "destination;agricultural"])).forward?.restricted == true)
        #expect(try #require(car.rule(for: ["highway": "residential", "access": "no;yes"])).forward?.restricted == false)
        #expect(car.rule(for: ["highway": "residential", "access": "no;agricultural"]) == nil)
        // HOV lanes are restricted too.
        #expect(try #require(car.rule(for: ["highway": "primary", "hov": "designated"])).backward?.restricted == true)
        let lanes = try #require(car.rule(for: ["highway": "primary", "hov:lanes:forward": "designated|designated"]))
        #expect(lanes.forward?.restricted == true && lanes.backward?.restricted == false)
        // Walkers are never restricted; private is closed to them.
        #expect(foot.rule(for: ["highway": "residential", "access": "private"]) == nil)
        #expect(try #require(foot.rule(for: ["highway": "residential", "access": "destination"])).forward?.restricted == false)
    }

    @Test func impliedAccessPerHighwayClass() throws {
        #expect(car.rule(for: ["highway": "track"]) == nil)
        #expect(try #require(car.rule(for: ["highway": "track", "motor_vehicle": "yes"])).forward?.speed == 10)
        #expect(try #require(car.rule(for: ["highway": "runway", "access": "yes"])).forward?.speed == 10)
        #expect(car.rule(for: ["highway": "runway"]) == nil)
        #expect(car.rule(for: ["highway": "footway"]) == nil)
        #expect(car.rule(for: ["highway": "road"]) == nil)
        #expect(foot.rule(for: ["highway": "cycleway"]) == nil)
        #expect(foot.rule(for: ["highway": "cycleway", "foot": "yes"]) != nil)
        #expect(foot.rule(for: ["highway": "motorway"]) == nil)
        #expect(foot.rule(for: ["highway": "trunk"]) == nil)
        #expect(foot.rule(for: ["highway": "trunk", "foot": "yes"]) != nil)
        #expect(foot.rule(for: ["highway": "trunk", "sidewalk": "both"]) != nil)
        #expect(foot.rule(for: ["railway": "platform"]) != nil && car.rule(for: ["railway": "platform"]) == nil)
        #expect(foot.rule(for: ["man_made": "pier"]) != nil)
    }

    @Test func blockedWays() {
        #expect(car.rule(for: ["highway": "construction"]) == nil)
        #expect(foot.rule(for: ["highway": "proposed"]) == nil)
        #expect(car.rule(for: ["highway": "residential", "construction": "yes"]) == nil)
        #expect(car.rule(for: ["highway": "residential", "construction": "minor"]) != nil)
        #expect(car.rule(for: ["highway": "tertiary", "proposed": "secondary"]) != nil, "a built road with plans stays")
        #expect(car.rule(for: ["highway": "pedestrian", "area": "yes"]) == nil)
        #expect(car.rule(for: ["highway": "steps"]) == nil)
        #expect(car.rule(for: ["highway": "service", "service": "emergency_access"]) == nil)
        #expect(car.rule(for: ["highway": "residential", "impassable": "yes"]) == nil)
        #expect(foot.rule(for: ["highway": "footway", "status": "impassable"]) == nil)
        #expect(foot.rule(for: ["highway": "pedestrian", "area": "yes"]) != nil)
    }

    @Test func speedsPenaltiesAndLimits() throws {
        func forward(_ tags: Tags) throws -> DirectionRule { try #require(car.rule(for: tags)?.forward) }
        #expect(try forward(["highway": "primary"]).speed == 65)
        #expect(try forward(["highway": "primary", "maxspeed": "50"]).speed == 40)
        #expect(try forward(["highway": "primary", "maxspeed": "50", "maxspeed:advisory": "30"]).speed == 24)
        #expect(try forward(["highway": "residential", "maxspeed": "100"]).speed == 80, "a limit replaces the class speed")
        #expect(try forward(["highway": "motorway", "maxspeed": "DE:motorway"]).speed == 90)
        let split = try #require(car.rule(for: ["highway": "primary", "maxspeed:forward": "50", "maxspeed:backward": "70"]))
        #expect(split.forward?.speed == 40 && split.backward?.speed == 56)
        #expect(try forward(["highway": "primary", "source:maxspeed": "FR:rural"]).speed == 64)
        #expect(try forward(["highway": "primary", "surface": "gravel"]).speed == 40)
        #expect(try forward(["highway": "primary", "maxspeed": "100", "surface": "cobblestone"]).speed == 30)
        #expect(try forward(["highway": "track", "motor_vehicle": "yes", "tracktype": "grade5"]).speed == 10)
        #expect(car.rule(for: ["highway": "primary", "smoothness": "impassable"]) == nil)
        #expect(try forward(["highway": "service", "service": "parking_aisle"]).penalty == 0.5)
        #expect(try forward(["highway": "residential", "width": "2.5"]).penalty == 0.5)
        // OSRM 26.10's grades for roads open both ways: under 4 m 0.6, under 5 m 0.75, under 6 m 0.8.
        #expect(try forward(["highway": "residential", "width": "3.5"]).penalty == 0.6)
        #expect(try forward(["highway": "residential", "width": "5.5"]).penalty == 0.8)
        #expect(try forward(["highway": "residential", "width": "2.5", "oneway": "yes"]).penalty == 1, "one-way roads are not narrow")
        #expect(try forward(["highway": "residential", "lane_markings": "no"]).penalty == 0.75)
        #expect(try forward(["highway": "residential", "priority": "forward"]).penalty == 1)
        #expect(try car.rule(for: ["highway": "residential", "priority": "forward"])?.backward?.penalty == 0.7)
        #expect(try forward(["highway": "residential", "lanes": "1"]).penalty == 0.5)
        #expect(try forward(["highway": "residential", "lanes": "1", "oneway": "yes"]).penalty == 1)
        #expect(try forward(["highway": "residential", "oneway": "alternating"]).penalty == 0.4)
        #expect(try forward(["highway": "primary", "side_road": "yes"]).penalty == 0.8)
        #expect(try #require(foot.rule(for: ["highway": "footway", "surface": "sand"])?.forward).speed == 2.5)
    }

    @Test func physicalLimitsAgainstTheCar() {
        #expect(car.rule(for: ["highway": "residential", "maxheight": "1.9"]) == nil)
        #expect(car.rule(for: ["highway": "residential", "maxheight": "default"]) != nil)
        #expect(car.rule(for: ["highway": "residential", "maxheight:physical": "1.8", "maxheight": "4"]) == nil)
        #expect(car.rule(for: ["highway": "residential", "maxwidth": "1.8"]) == nil)
        #expect(car.rule(for: ["highway": "residential", "maxweight": "1.5"]) == nil)
        #expect(car.rule(for: ["highway": "residential", "maxweight": "3.5"]) != nil)
        #expect(car.rule(for: ["highway": "residential", "maxlength": "4"]) == nil)
        #expect(foot.rule(for: ["highway": "residential", "maxheight": "1.5"]) != nil)
    }

    @Test func ferriesTrainsAndBridges() throws {
        let ferry = try #require(car.rule(for: ["route": "ferry"]))
        #expect(ferry.forward?.speed == 5 && ferry.flags.contains(.ferry) && !ferry.isStartpoint)
        #expect(ferry.forward?.classes.contains(.ferry) == true)
        #expect(try #require(car.rule(for: ["route": "ferry", "duration": "PT30M"])).duration == 1800)
        #expect(car.rule(for: ["route": "ferry", "motor_vehicle": "no"]) == nil)
        let train = try #require(car.rule(for: ["route": "shuttle_train"]))
        #expect(train.forward?.speed == 10 && train.flags.contains(.train))
        #expect(foot.rule(for: ["route": "shuttle_train"]) == nil)
        #expect(try #require(foot.rule(for: ["route": "ferry"])).flags.contains(.ferry))
        let bridge = try #require(car.rule(for: ["highway": "primary", "bridge": "movable", "duration": "10"]))
        #expect(bridge.duration == 600 && bridge.forward?.speed == 5)
        #expect(try #require(car.rule(for: ["route": "ferry", "oneway": "yes"])).backward == nil, "a oneway ferry stays one")
    }

    @Test func namesSignsAndClasses() throws {
        let ramp = try #require(car.rule(for: ["highway": "motorway_link", "oneway": "yes", "destination": "Porto;Lisboa",
                                              "destination:ref": "A1", "junction:ref": "12", "toll": "yes",
                                              "name:pronunciation": "ei-um"]))
        #expect(ramp.forward?.destinations == "A1: Porto, Lisboa")
        #expect(ramp.exits == "12" && ramp.pronunciation == "ei-um")
        #expect(ramp.forward?.classes == [.toll, .motorway])
        #expect(try #require(car.rule(for: ["highway": "primary", "tunnel": "yes"])).forward?.classes == [.tunnel])
        let tollBack = try #require(car.rule(for: ["highway": "primary", "toll:backward": "yes"]))
        #expect(tollBack.forward?.classes == [] && tollBack.backward?.classes == [.toll])
        #expect(!(try #require(car.rule(for: ["highway": "service", "access": "private"]))).isStartpoint)
        #expect(ArcClasses(names: ["toll", "ferry"]) == [.toll, .ferry] && ArcClasses(names: ["tolls"]) == nil)
    }

    @Test func barriersAndNodeAccess() {
        func blocked(_ profile: TravelProfile, _ tags: Tags) -> Bool { profile.rule(forNode: tags).blocked }
        #expect(blocked(car, ["barrier": "bollard"]))
        #expect(!blocked(car, ["barrier": "bollard", "bollard": "rising"]))
        #expect(blocked(car, ["barrier": "bollard", "bollard": "removable"]))
        #expect(!blocked(foot, ["barrier": "bollard"]))
        #expect(blocked(car, ["barrier": "kerb"]) && blocked(car, ["barrier": "kerb", "kerb": "raised"]))
        #expect(!blocked(car, ["barrier": "kerb", "kerb": "lowered"]) && !blocked(car, ["barrier": "kerb", "kerb": "flush"]))
        #expect(!blocked(car, ["barrier": "kerb", "highway": "crossing"]))
        #expect(!blocked(car, ["barrier": "height_restrictor", "maxheight": "2.5"]))
        #expect(blocked(car, ["barrier": "height_restrictor", "maxheight": "1.9"]))
        #expect(blocked(car, ["barrier": "height_restrictor", "maxheight": "1.9", "access": "yes"]), "a physical limit")
        #expect(!blocked(car, ["barrier": "gate"]))
        #expect(blocked(car, ["barrier": "gate", "access": "no"]))
        #expect(!blocked(car, ["barrier": "gate", "access": "private"]), "private gates let cars through, as OSRM")
        #expect(!blocked(car, ["barrier": "wall", "access": "yes"]), "the access tag wins")
        #expect(blocked(car, ["access": "no"]), "access on any node")
        #expect(blocked(car, ["vehicle": "no"]) && blocked(car, ["motor_vehicle": "agricultural"]) && blocked(car, ["access": "psv"]))
        #expect(!blocked(car, ["barrier": "bollard", "motor_vehicle": "yes"]))
        #expect(blocked(foot, ["barrier": "gate", "access": "no"]))
        #expect(!blocked(foot, ["barrier": "gate", "access": "no", "foot": "yes"]))
        #expect(blocked(foot, ["foot": "no"]) && blocked(foot, ["access": "no"]) && blocked(foot, ["barrier": "wall"]))
        #expect(!blocked(car, ["highway": "traffic_signals"]))
        #expect(!blocked(car, ["barrier": ""]), "an empty value is no value")
    }

    @Test func delaysAtNodes() {
        #expect(car.rule(forNode: ["highway": "traffic_signals"]).obstacles == [Obstacle(kind: .signals, direction: .any, seconds: 2)])
        #expect(car.rule(forNode: ["highway": "traffic_signals", "traffic_signals:direction": "forward"]).obstacles.first?.direction == .forward)
        #expect(car.rule(forNode: ["highway": "stop", "direction": "backward"]).obstacles == [Obstacle(kind: .stop, direction: .backward, seconds: 2)])
        #expect(car.rule(forNode: ["highway": "stop", "stop": "minor"]).obstacles.first?.kind == .minorStop)
        #expect(car.rule(forNode: ["highway": "give_way"]).obstacles.first?.seconds == 1)
        #expect(foot.rule(forNode: ["highway": "traffic_signals"]).obstacles.first?.seconds == 2)
        #expect(foot.rule(forNode: ["highway": "stop"]).obstacles.isEmpty)
    }
}
