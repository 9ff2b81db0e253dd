import GraphImport
import RoadGraph
import Testing

@Suite struct ProfileTests {
    let car = TravelProfile.driving, foot = TravelProfile.walking

    @Test(arguments: [
        ("50", 50.0), ("30 mph", 48.28032), ("20 knots", 37.04), ("DE:urban", 50), ("RU:urban", 60), ("FI:rural", 80),
        ("DE:zone30", 30), ("DE:zone:30", 30), ("zone:20", 20), ("walk", 7), ("50;30", 30), ("100 km/h", 100),
    ])
    func parsesMaxspeed(raw: String, kmh: Double) throws {
        let parsed = try #require(TravelProfile.parseMaxspeed(raw))
        #expect(abs(parsed - kmh) < 0.01)
    }

    @Test func turnPenaltiesFollowTheAngleAndFavourRightTurns() {
        let straight = car.turnPenalty(angle: 0, roads: 4, isUturn: false)
        let right = car.turnPenalty(angle: 90, roads: 4, isUturn: false)
        let left = car.turnPenalty(angle: -90, roads: 4, isUturn: false)
        #expect(straight < 0.05 && abs(right - 2.1) < 0.05 && abs(left - 5.4) < 0.05, "\(straight) \(right) \(left)")
        #expect(car.turnPenalty(angle: -150, roads: 3, isUturn: false) < 7.5)
        #expect(car.turnPenalty(angle: 180, roads: 1, isUturn: true) > 27, "U-turns cost 20 s more")
        #expect(car.turnPenalty(angle: -90, roads: 2, isUturn: false) == 0, "a bend of one road is no turn")
        #expect(foot.turnPenalty(angle: -90, roads: 4, isUturn: false) == 0 && foot.trafficSignalPenalty == 0)
    }

    @Test func maxspeedNoneIsUnlimitedAndJunkIsIgnored() {
        #expect(TravelProfile.parseMaxspeed("none")! == .infinity)
        #expect(TravelProfile.parseMaxspeed("fast") == nil)
        #expect(TravelProfile.parseMaxspeed("signals") == nil)
    }

    @Test func onewayValues() {
        #expect(car.rule(for: ["highway": "residential", "oneway": "yes"]).map { ($0.forward, $0.backward) }! == (true, false))
        #expect(car.rule(for: ["highway": "residential", "oneway": "1"]).map { ($0.forward, $0.backward) }! == (true, false))
        #expect(car.rule(for: ["highway": "residential", "oneway": "true"]).map { ($0.forward, $0.backward) }! == (true, false))
        #expect(car.rule(for: ["highway": "residential", "oneway": "-1"]).map { ($0.forward, $0.backward) }! == (false, true))
        #expect(car.rule(for: ["highway": "residential", "oneway": "reversible"]) == nil)
        #expect(car.rule(for: ["highway": "residential", "junction": "roundabout"]).map { ($0.forward, $0.backward) }! == (true, false))
        #expect(car.rule(for: ["highway": "motorway"]).map { ($0.forward, $0.backward) }! == (true, false))
        #expect(car.rule(for: ["highway": "motorway", "oneway": "no"]).map { ($0.forward, $0.backward) }! == (true, true))
    }

    @Test func walkingIgnoresOnewayUnlessOnewayFoot() {
        #expect(foot.rule(for: ["highway": "residential", "oneway": "yes"]).map { ($0.forward, $0.backward) }! == (true, true))
        #expect(foot.rule(for: ["highway": "footway", "oneway:foot": "yes"]).map { ($0.forward, $0.backward) }! == (true, false))
    }

    @Test func accessHierarchyMostSpecificWins() {
        #expect(car.rule(for: ["highway": "residential", "access": "no"]) == nil)
        #expect(car.rule(for: ["highway": "residential", "access": "no", "motorcar": "yes"]) != nil)
        #expect(car.rule(for: ["highway": "residential", "vehicle": "no", "motor_vehicle": "destination"]) != nil)
        #expect(car.rule(for: ["highway": "residential", "access": "yes", "motor_vehicle": "no"]) == nil)
        #expect(car.rule(for: ["highway": "residential", "motor_vehicle": "private"]) == nil)
        #expect(foot.rule(for: ["highway": "footway", "access": "no", "foot": "yes"]) != nil)
        #expect(foot.rule(for: ["highway": "residential", "foot": "no"]) == nil)
    }

    @Test func excludedWays() {
        #expect(car.rule(for: ["highway": "construction"]) == nil)
        #expect(foot.rule(for: ["highway": "proposed"]) == nil)
        #expect(car.rule(for: ["highway": "residential", "construction": "yes"]) == nil)
        #expect(car.rule(for: ["highway": "pedestrian", "area": "yes"]) == nil)
        #expect(car.rule(for: ["highway": "footway"]) == nil)
        #expect(car.rule(for: ["highway": "service", "area": "yes"]) == nil)
        #expect(foot.rule(for: ["highway": "motorway"]) == nil)
        #expect(foot.rule(for: ["highway": "pedestrian", "area": "yes"]) != nil)
    }

    @Test func speeds() {
        #expect(car.rule(for: ["highway": "primary"])!.speed == 65)
        #expect(car.rule(for: ["highway": "primary", "maxspeed": "50"])!.speed == 40)
        #expect(car.rule(for: ["highway": "service", "service": "parking_aisle"])!.speed == 10)
        #expect(foot.rule(for: ["highway": "primary"])!.speed == 5)
        #expect(foot.rule(for: ["highway": "steps"])!.speed < 5)
    }

    @Test func barriers() {
        #expect(car.isBlocked(byNode: ["barrier": "bollard"]))
        #expect(!foot.isBlocked(byNode: ["barrier": "bollard"]))
        #expect(!car.isBlocked(byNode: ["barrier": "gate"]))
        #expect(car.isBlocked(byNode: ["barrier": "gate", "access": "no"]))
        #expect(car.isBlocked(byNode: ["barrier": "gate", "access": "private"]))
        #expect(!car.isBlocked(byNode: ["barrier": "bollard", "motor_vehicle": "yes"]))
        #expect(foot.isBlocked(byNode: ["barrier": "gate", "access": "no"]))
        #expect(!foot.isBlocked(byNode: ["barrier": "gate", "access": "no", "foot": "yes"]))
        #expect(!car.isBlocked(byNode: ["highway": "traffic_signals"]))
    }
}
