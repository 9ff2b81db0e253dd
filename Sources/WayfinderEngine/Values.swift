import Foundation
import Guidance
import RoadGraph
import Routing

/// A point on the Earth, in degrees of WGS 84, latitude first (as a maps app shows it).
public struct Location: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Degrees north of the equator, −90…90.
    public var latitude: Double
    /// Degrees east of Greenwich, −180…180.
    public var longitude: Double

    /// A location from its latitude and longitude in degrees.
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// `latitude,longitude`, as the command line takes it.
    public var description: String { "\(latitude),\(longitude)" }

    init(_ coordinate: Coordinate) { self.init(latitude: coordinate.latitude, longitude: coordinate.longitude) }

    /// The engine's coordinate, once the location is known to be on the Earth.
    func checked() throws(WayfinderError) -> Coordinate {
        guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180 else {
            throw WayfinderError(code: "InvalidValue", message: "\(self) is not a location: latitude must lie in −90…90 "
                + "and longitude in −180…180")
        }
        return Coordinate(latitude: latitude, longitude: longitude)
    }

    static func checked(_ locations: [Location]) throws(WayfinderError) -> [Coordinate] {
        var coordinates: [Coordinate] = []
        coordinates.reserveCapacity(locations.count)
        for location in locations { coordinates.append(try location.checked()) }
        return coordinates
    }
}

/// How the traveller moves: each mode has its own graph, built by `import --modes`.
public enum Mode: String, Sendable, CaseIterable, Codable {
    /// By car, with OSRM's `car.lua` rules.
    case driving
    /// On foot, with OSRM's `foot.lua` rules.
    case walking
    /// By bicycle, with OSRM's `bicycle.lua` rules (pushing where riding is not allowed).
    case cycling

    /// The mode an OSRM profile name stands for (`car`, `foot`, `bike`, …), or nil.
    public init?(profileName: String) {
        guard let mode = TravelMode(profileName: profileName) else { return nil }
        self.init(mode)
    }

    init(_ mode: TravelMode) {
        switch mode {
        case .driving: self = .driving
        case .walking: self = .walking
        case .cycling: self = .cycling
        }
    }

    var travelMode: TravelMode {
        switch self {
        case .driving: return .driving
        case .walking: return .walking
        case .cycling: return .cycling
        }
    }
}

/// Where a route starts, passes or ends: a location, or a name the graph's place index resolves.
public enum Waypoint: Sendable, Hashable, ExpressibleByStringLiteral {
    /// A location, snapped to the nearest road the mode may use.
    case location(Location)
    /// A place, street, address or POI, searched near the waypoint before it ("Kamppi", "Mannerheimintie 5").
    case name(String)

    /// A waypoint from a latitude and a longitude in degrees.
    public static func coordinate(_ latitude: Double, _ longitude: Double) -> Waypoint {
        .location(Location(latitude: latitude, longitude: longitude))
    }

    /// A name written as a string literal: `"Kamppi"`.
    public init(stringLiteral name: String) { self = .name(name) }
}

/// Whose answers to give: Wayfinder's (the documented deviations of GUIDANCE.md and PROFILES.md), or OSRM's.
public enum Compatibility: String, Sendable, CaseIterable {
    /// Wayfinder's own rules where they differ from OSRM's.
    case wayfinder
    /// OSRM's answer, with none of the deviations (`compat=osrm`).
    case osrm
}

/// Units of the distances in instructions.
public enum DistanceUnits: String, Sendable, CaseIterable {
    /// Metres and kilometres.
    case metric
    /// Feet and miles.
    case imperial

    var engineValue: Units { self == .imperial ? .imperial : .metric }
}

/// Classes of road a route may be asked to avoid.
public enum RoadClass: String, Sendable, CaseIterable, Hashable {
    /// Roads with a toll.
    case toll
    /// Motorways.
    case motorway
    /// Ferries (the only class a walker may avoid).
    case ferry
}

/// Kinds of road a route may weigh more in its choice (`RouteOptions.weights`), as the HTTP API's `avoid=` and
/// `prefer=` do.
public enum RoadKind: String, Sendable, CaseIterable, Hashable {
    /// Roads with a toll.
    case toll
    /// Motorways.
    case motorway
    /// Ferries.
    case ferry
    /// Tunnels.
    case tunnel
    /// Roads that are not paved (`surface`, `tracktype`).
    case unpaved
    /// Roads other than motorways, trunk, primary and secondary roads: weighing them prefers the major ones.
    case minorRoads = "minor_roads"
}

/// What a route request asks for besides its waypoints.
public struct RouteOptions: Sendable {
    /// The mode, whose graph the route runs on.
    public var mode: Mode
    /// Turn-by-turn steps (on by default); without them a route has its legs' totals and geometry only.
    public var steps: Bool
    /// Language of instructions and street names: `en`, `zh`, or another `name:xx` the data has.
    public var language: String
    /// Units of the distances spoken in instructions.
    public var units: DistanceUnits
    /// Wayfinder's answer or OSRM's.
    public var compatibility: Compatibility
    /// Up to this many other reasonable routes (0…3), between two waypoints.
    public var alternatives: Int
    /// Roads to avoid.
    public var avoiding: Set<RoadClass>
    /// How far, in metres, a location may lie from its road; nil for the engine's default (5 km).
    public var snapRadius: Double?
    /// When the route leaves or must arrive: the extract's conditional restrictions and closures then hold at the
    /// time each road is reached. Nil: they are ignored, as OSRM ignores them.
    public var time: RouteTime?
    /// How many times its time each kind of road weighs in the route choice, from 1 to 100: `[.unpaved: 10]` keeps
    /// off unpaved roads where another way comes near, `[.minorRoads: 1.5]` prefers major roads. Durations stay
    /// the roads' own; `avoiding` forbids roads instead.
    public var weights: [RoadKind: Double]

    /// Options with every choice at its default: driving, steps in English, metric, Wayfinder's rules.
    public init(mode: Mode = .driving, steps: Bool = true, language: String = "en", units: DistanceUnits = .metric,
                compatibility: Compatibility = .wayfinder, alternatives: Int = 0, avoiding: Set<RoadClass> = [],
                snapRadius: Double? = nil, time: RouteTime? = nil, weights: [RoadKind: Double] = [:]) {
        self.mode = mode
        self.steps = steps
        self.language = language
        self.units = units
        self.compatibility = compatibility
        self.alternatives = alternatives
        self.avoiding = avoiding
        self.snapRadius = snapRadius
        self.time = time
        self.weights = weights
    }
}

/// When a route travels, as the HTTP API's `depart_at` and `arrive_by` take it: ISO 8601 text, `2026-12-07T08:00`
/// in the extract's own time zone, or an instant with `Z` or an offset.
public enum RouteTime: Sendable, Hashable {
    /// Leave at this time.
    case departing(String)
    /// Arrive by this time; the route says when to leave (`Directions.departure`).
    case arriving(String)

    /// Leave at an instant.
    public static func departing(at date: Date) -> RouteTime { .departing(Self.text(date)) }
    /// Arrive by an instant.
    public static func arriving(by date: Date) -> RouteTime { .arriving(Self.text(date)) }

    static func text(_ date: Date) -> String {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        return LocalTime(wallSeconds: seconds).description + ":" + String(format: "%02d", Int(seconds % 60 + 60) % 60) + "Z"
    }
}

/// A waypoint as the route used it: where it was snapped to a road, and that road's name.
public struct SnappedWaypoint: Sendable, Hashable {
    /// The location asked for (a name's place, for a name).
    public var input: Location
    /// The point on the road.
    public var location: Location
    /// Metres between the two.
    public var distance: Double
    /// The road's name, empty where it has none.
    public var name: String
}

/// One maneuver: what to do where a step begins, in OSRM v5's terms.
public struct Maneuver: Sendable, Hashable {
    /// OSRM's maneuver type: `depart`, `turn`, `new name`, `roundabout`, `arrive`, …
    public var type: String
    /// OSRM's modifier (`left`, `slight right`, `uturn`, …), where the type has one.
    public var modifier: String?
    /// Where the maneuver happens.
    public var location: Location
    /// Compass bearing (degrees) of travel just before the maneuver.
    public var bearingBefore: Int
    /// Compass bearing (degrees) of travel just after it.
    public var bearingAfter: Int
    /// The exit taken, on roundabouts and rotaries.
    public var exit: Int?
}

/// One step of turn-by-turn directions: a maneuver, then travel along one road.
public struct Step: Sendable, Hashable {
    /// The maneuver that starts the step.
    public var maneuver: Maneuver
    /// The instruction in the request's language: "Turn left onto Mannerheimintie".
    public var instruction: String
    /// The road's name, empty where it has none.
    public var name: String
    /// The road's reference ("E12"), empty where it has none.
    public var ref: String
    /// OSRM's mode field: `driving`, `walking`, `cycling`, `pushing bike`, `ferry`, …
    public var mode: String
    /// Metres.
    public var distance: Double
    /// Seconds.
    public var duration: Double
    /// The step's line, from its maneuver to the next.
    public var geometry: [Location]
}

/// A route between two consecutive waypoints.
public struct Leg: Sendable, Hashable {
    /// Metres.
    public var distance: Double
    /// Seconds.
    public var duration: Double
    /// The names of the leg's two longest roads, as OSRM's `summary`.
    public var summary: String
    /// Turn-by-turn steps, depart first and arrive last (empty when steps were not asked for).
    public var steps: [Step]
}

/// A route through all the waypoints, in order.
public struct Route: Sendable {
    /// Metres.
    public var distance: Double
    /// Seconds.
    public var duration: Double
    /// The whole line, waypoint to waypoint.
    public var geometry: [Location]
    /// One leg between each two consecutive waypoints.
    public var legs: [Leg]
    /// The waypoints as snapped.
    public var waypoints: [SnappedWaypoint]

    /// The route as the engine found it, kept for the formats.
    let guided: GuidedRoute
    let graph: RoadGraph

    init(_ guided: GuidedRoute, graph: RoadGraph) {
        self.guided = guided
        self.graph = graph
        let route = guided.route
        distance = route.distance
        duration = route.duration
        geometry = route.coordinates.map(Location.init)
        waypoints = zip(route.waypoints, guided.directions.waypointNames + Array(repeating: "", count: route.waypoints.count))
            .map { SnappedWaypoint(input: Location($0.input), location: Location($0.location), distance: $0.distance, name: $1) }
        legs = zip(route.legs, guided.directions.legs).map { leg, steps in
            Leg(distance: leg.distance, duration: leg.duration, summary: leg.summary,
                steps: steps.map { step in
                    Step(maneuver: Maneuver(type: step.maneuver.type.rawValue, modifier: step.maneuver.modifier?.rawValue,
                                            location: Location(step.maneuver.location),
                                            bearingBefore: step.maneuver.bearingBefore,
                                            bearingAfter: step.maneuver.bearingAfter, exit: step.maneuver.exit),
                         instruction: step.instruction, name: step.name, ref: step.ref, mode: step.mode,
                         distance: step.distance, duration: step.duration, geometry: step.coordinates.map(Location.init))
                })
        }
    }

}

/// A route request's answer: the best route, and the alternatives asked for.
public struct Directions: Sendable {
    /// The fastest route.
    public var best: Route
    /// Other reasonable routes, best first (empty unless asked for).
    public var alternatives: [Route]
    /// When the route leaves, in the extract's local time (`2026-12-07T07:41`), where the options gave a time.
    public var departure: String?
}

/// A road near a location.
public struct NearestRoad: Sendable, Hashable {
    /// The nearest point on the road.
    public var location: Location
    /// Metres from the location asked about.
    public var distance: Double
    /// The road's name, empty where it has none.
    public var name: String
}

/// A place the graph's place index found for a name.
public struct Place: Sendable, Hashable {
    /// Its name, or its address for an address.
    public var name: String
    /// `place`, `street`, `address`, `poi` or `area`.
    public var kind: String
    /// Where it is.
    public var location: Location
}

/// A trip: the waypoints visited in the fastest order found (OSRM's `trip`).
public struct Trip: Sendable {
    /// The route through the waypoints in the order visited.
    public var route: Route
    /// For each leg's start and the end, the index of the waypoint as given.
    public var order: [Int]
}

/// A GPS trace matched to the roads (OSRM's `match`): one per part the trace could be followed through.
public struct MatchedRoute: Sendable {
    /// The route driven.
    public var route: Route
    /// How likely the match is right, 0…1.
    public var confidence: Double
}

/// The area reachable within each limit (OSRM-style `isochrone`).
public struct Isochrone: Sendable {
    /// One area per limit, smallest limit first.
    public var contours: [Contour]

    /// The area reachable within one limit.
    public struct Contour: Sendable {
        /// Seconds, or metres for a distance isochrone.
        public var limit: Double
        /// Polygons, each an outer ring and its holes, rings closed (first point repeated last).
        public var polygons: [[[Location]]]
    }
}

/// What an isochrone's limits measure.
public enum ReachLimit: String, Sendable {
    /// Seconds of travel.
    case duration
    /// Metres of travel.
    case distance
}
