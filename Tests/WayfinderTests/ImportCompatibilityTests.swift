import Engine
import Foundation
import HTTPService
import RoadGraph
import Routing
import Testing

/// `import --compat osrm`: the deviations PROFILES.md lists as decided at import follow OSRM instead. Each rule on
/// a drawn map: Wayfinder's import differs from OSRM's answer, OSRM's import gives it (checked against OSRM
/// itself where its wheel is installed; the Wayfinder side of each case runs everywhere).
@Suite struct ImportCompatibilityTests {
    struct Case {
        var name: String
        var mode: TravelMode
        var street: [String: String] = [:]
        var node: [String: String]? = nil
        /// Wayfinder's import and OSRM's choose different paths (else: the same path, other weights).
        var differsInPath = true
        /// False for a rule both imports share, kept to check it against OSRM.
        var deviates = true
        /// A map of its own instead of the street with a detour, routed from `from` to `to`.
        var drawn: (@Sendable () -> TestMap)? = nil
        var from: Character = "a", to: Character = "c"
    }

    /// A platform mapped as an area, a path meeting it on each side: Wayfinder crosses it straight, OSRM walks
    /// round its outline.
    static func platform() -> TestMap {
        let map = TestMap("""
               p     q     r


            x  s           t  y


               u     v     w
            """)
        map.way("pqrtwvusp", ["railway": "platform", "public_transport": "platform"])
        map.way("xs", ["highway": "footway"])
        map.way("ty", ["highway": "footway"])
        return map
    }

    /// A bus platform tagged `public_transport=platform` alone from a to c, and a footway round it.
    static func busPlatform() -> TestMap {
        let map = TestMap("""
            a    b    c

            d         e
            """)
        map.way("abc", ["public_transport": "platform", "bus": "yes"])
        map.way("adec", ["highway": "footway"])
        return map
    }

    /// A street a–b–c (100 m) with a detour a–d–e–c round it (140 m), as in RoadRulesTests.
    static func map(_ c: Case) -> TestMap {
        if let drawn = c.drawn { return drawn() }
        let map = TestMap("""
            a    b    c

            d         e
            """)
        let highway = c.mode == .walking ? "footway" : "residential"
        map.way("ab", ["highway": highway, "name": "Street"].merging(c.street) { $1 })
        map.way("bc", ["highway": highway, "name": "Street"].merging(c.street) { $1 })
        map.way("adec", ["highway": highway, "name": "Detour"])
        if let node = c.node { map.tagNode("b", node) }
        return map
    }

    static let cases: [Case] = [
        Case(name: "a built road with plans (proposed=*), driven by both", mode: .driving,
             street: ["highway": "tertiary", "proposed": "secondary"], deviates: false),
        Case(name: "an access list", mode: .driving, street: ["access": "destination;agricultural"]),
        Case(name: "a decimal width, read as a decimal by both", mode: .driving, street: ["width": "3.9"],
             differsInPath: false, deviates: false, to: "b"),
        Case(name: "a trunk road with a sidewalk, on foot", mode: .walking,
             street: ["highway": "trunk", "sidewalk": "both"]),
        Case(name: "a hedge, on foot", mode: .walking, node: ["barrier": "hedge"]),
        Case(name: "a low height restrictor with an access tag", mode: .driving,
             node: ["barrier": "height_restrictor", "maxheight": "1.8", "access": "yes"]),
        Case(name: "a platform area, on foot", mode: .walking, drawn: platform, from: "x", to: "y"),
        Case(name: "a bus platform without a highway tag, on foot", mode: .walking, drawn: busPlatform),
    ]

    /// The leg a → c: its length and weight, from a graph imported with `rules`.
    static func answer(_ c: Case, rules: Compatibility) throws -> (distance: Double, weight: Double) {
        let map = Self.map(c)
        let graphs = try map.build(compatibility: rules)
        let graph = c.mode == .driving ? graphs.driving : graphs.walking
        #expect(graph.metadata.compatibility == rules)
        let route = try checkedRoute(graph, [map.position(c.from), map.position(c.to)])
        return (route.distance, Double(route.weight) / 1000)
    }

    @Test func osrmRulesChangeTheAnswer() throws {
        for c in Self.cases where c.deviates {
            let ours = try Self.answer(c, rules: .wayfinder), theirs = try Self.answer(c, rules: .osrm)
            if c.differsInPath {
                #expect(abs(ours.distance - theirs.distance) > 20, "\(c.name): \(ours) and \(theirs)")
            } else {
                #expect(abs(ours.distance - theirs.distance) < 0.5 && ours.weight != theirs.weight, "\(c.name): \(ours) and \(theirs)")
            }
        }
    }

    @Test(.enabled(if: OSRMOracle.available, Comment(rawValue: OSRMOracle.skipMessage)))
    func osrmRulesAsOSRM() throws {
        for c in Self.cases {
            let map = Self.map(c)
            _ = try map.build(compatibility: .osrm)
            let service = WayfinderService(engine: try Engine(directory: map.graphDirectory), compatibility: .osrm)
            let osrm = try OSRMOracle(map: map, profile: c.mode == .driving ? "car" : "foot")
            let profile = c.mode == .driving ? "driving" : "foot"
            let request = "/route/v1/\(profile)/\(OSRMCompatibilityTests.text(map.position(c.from)));"
                + "\(OSRMCompatibilityTests.text(map.position(c.to)))?overview=false"
            func figures(_ body: [String: Any]) -> (Double, Double)? {
                guard let route = (body["routes"] as? [[String: Any]])?.first,
                      let distance = route["distance"] as? Double, let weight = route["weight"] as? Double else { return nil }
                return (distance, weight)
            }
            let ours = try #require(figures(try service.json(request).object), "\(c.name)")
            let theirs = try #require(figures(try osrm.json(request).object), "\(c.name)")
            #expect(abs(ours.0 - theirs.0) <= 0.2 && abs(ours.1 - theirs.1) <= 0.2,
                    "\(c.name): Wayfinder (OSRM's rules) \(ours), OSRM \(theirs)")
        }
    }

    /// A destination-only street between two open ones, and no other way through.
    static func onlyThrough() -> TestMap {
        let map = TestMap("x    a    b    y")
        map.way("xa", ["highway": "residential", "name": "West"])
        map.way("ab", ["highway": "residential", "name": "Residents", "access": "destination"])
        map.way("by", ["highway": "residential", "name": "East"])
        return map
    }

    /// Wayfinder's rule: a restricted road starts or ends a route, never carries it. OSRM's: entering one costs
    /// 3,276.7 s of weight (not of time), so a route passes through when there is no other way.
    @Test func restrictedRoadsArePassedThroughWithOSRMsRules() throws {
        let ends = { (map: TestMap) in [map.position("x"), map.position("y")] }
        let ours = Self.onlyThrough()
        let wayfinder = try ours.build(compatibility: .wayfinder).driving
        #expect(throws: (any Error).self) { try checkedRoute(wayfinder, ends(ours)) }
        let theirs = Self.onlyThrough()
        let osrmRules = try theirs.build(compatibility: .osrm).driving
        let route = try checkedRoute(osrmRules, ends(theirs))
        #expect(abs(route.distance - 150) < 1)
        #expect(abs(Double(route.weight) / 1000 - route.duration - 3276.7) < 0.5, "the entry's weight, not its time")
    }

    /// A route's distance, duration and weight, as either engine answers them.
    static func figures(_ body: [String: Any]) -> [Double] {
        guard let route = (body["routes"] as? [[String: Any]])?.first else { return [] }
        return ["distance", "duration", "weight"].compactMap { route[$0] as? Double }
    }

    @Test(.enabled(if: OSRMOracle.available, Comment(rawValue: OSRMOracle.skipMessage)))
    func restrictedRoadsAsOSRM() throws {
        let map = Self.onlyThrough()
        _ = try map.build(compatibility: .osrm)
        let service = WayfinderService(engine: try Engine(directory: map.graphDirectory), compatibility: .osrm)
        let osrm = try OSRMOracle(map: map, profile: "car")
        let within = map.position(between: "a", "b", at: 0.5)
        for (from, to) in [(map.position("x"), map.position("y")), (map.position("x"), within), (within, map.position("y"))] {
            let request = "/route/v1/driving/\(OSRMCompatibilityTests.text(from));\(OSRMCompatibilityTests.text(to))?overview=false"
            let ours = Self.figures(try service.json(request).object), theirs = Self.figures(try osrm.json(request).object)
            #expect(ours.count == 3 && theirs.count == 3 && zip(ours, theirs).allSatisfy { abs($0 - $1) <= 0.2 },
                    "\(request): Wayfinder \(ours), OSRM \(theirs)")
        }
    }

    /// A destination-only street b–a turned onto at a junction of three roads with traffic signals: car.lua puts
    /// the largest turn weight in place of that turn's cost (its penalty and the signals' delay), which stays in the
    /// duration. Leaving it, and passing the junction on the open road, cost what any turn costs.
    @Test(.enabled(if: OSRMOracle.available, Comment(rawValue: OSRMOracle.skipMessage)))
    func restrictedEntryAtAJunctionAsOSRM() throws {
        let map = TestMap("""
                 b

            x    a    y
            """)
        map.way("xay", ["highway": "residential", "name": "Open"])
        map.way("ab", ["highway": "residential", "name": "Residents", "access": "destination"])
        map.tagNode("a", ["highway": "traffic_signals"])
        _ = try map.build(compatibility: .osrm)
        let service = WayfinderService(engine: try Engine(directory: map.graphDirectory), compatibility: .osrm)
        let osrm = try OSRMOracle(map: map, profile: "car")
        let within = map.position(between: "a", "b", at: 0.6)
        for (from, to) in [(map.position("x"), within), (map.position("y"), within), (within, map.position("x")),
                           (map.position("x"), map.position("y"))] {
            let request = "/route/v1/driving/\(OSRMCompatibilityTests.text(from));\(OSRMCompatibilityTests.text(to))?overview=false"
            let ours = Self.figures(try service.json(request).object), theirs = Self.figures(try osrm.json(request).object)
            #expect(ours.count == 3 && theirs.count == 3 && zip(ours, theirs).allSatisfy { abs($0 - $1) <= 0.1 },
                    "\(request): Wayfinder \(ours), OSRM \(theirs)")
        }
    }

    @Test func theGraphSaysWhoseRules() throws {
        let map = Self.map(Self.cases[0])
        _ = try map.build(compatibility: .osrm)
        let health = try Engine(directory: map.graphDirectory).health
        #expect(health.importRules == .osrm)
    }
}
