import Foundation
import RoadGraph
import Routing

/// OSRM v5 maneuver types, as the API names them.
public enum ManeuverType: String, Sendable, CaseIterable {
    case depart, arrive, turn, newName = "new name", continueOn = "continue", merge, onRamp = "on ramp"
    case offRamp = "off ramp", fork, endOfRoad = "end of road", useLane = "use lane", roundabout, rotary
    case roundaboutTurn = "roundabout turn", exitRoundabout = "exit roundabout", exitRotary = "exit rotary"
    case notification
}

/// OSRM v5 maneuver modifiers.
public enum Modifier: String, Sendable, CaseIterable {
    case uturn, sharpRight = "sharp right", right, slightRight = "slight right", straight
    case slightLeft = "slight left", left, sharpLeft = "sharp left"

    /// From an OSRM turn angle (0 = back, 180 = straight on, below 180 to the right), OSRM's ranges: straight
    /// within 20° of ahead, slight to 40°, normal to 120° (right) or 120° (left), sharp beyond, U-turn at 0.
    public init(angle: Double) {
        switch angle {
        case let a where a > 0 && a < 60: self = .sharpRight
        case 60..<140: self = .right
        case 140..<160: self = .slightRight
        case 160...200: self = .straight
        case let a where a > 200 && a <= 220: self = .slightLeft
        case let a where a > 220 && a <= 300: self = .left
        case let a where a > 300 && a < 360: self = .sharpLeft
        default: self = .uturn
        }
    }

    public var isLeft: Bool { self == .slightLeft || self == .left || self == .sharpLeft }
    public var isRight: Bool { self == .slightRight || self == .right || self == .sharpRight }

    public var mirrored: Modifier {
        switch self {
        case .sharpRight: return .sharpLeft
        case .right: return .left
        case .slightRight: return .slightLeft
        case .slightLeft: return .slightRight
        case .left: return .right
        case .sharpLeft: return .sharpRight
        default: return self
        }
    }
}

public struct Maneuver: Sendable {
    public var type: ManeuverType
    public var modifier: Modifier?
    public var location: Coordinate
    public var bearingBefore: Int
    public var bearingAfter: Int
    /// Roundabout exit number (1-based) on the step entering and the step leaving one.
    public var exit: Int?
}

/// One lane of the road arriving at an intersection, left to right: its painted arrows and whether it serves the
/// route's maneuver there (OSRM's `intersections[].lanes`).
public struct Lane: Sendable, Equatable {
    public var indications: [String]
    public var valid: Bool
}

/// An intersection passed during a step, in OSRM's shape: the bearings of every road there, which may be entered
/// from the approach, which one the route came in on and goes out on, the lanes, and the classes of the road out.
public struct Intersection: Sendable {
    public var location: Coordinate
    /// The roads in order of bearing: one array, not a list of bearings and a list of entries (a route makes one
    /// for every junction it passes).
    public var roads: [IntersectionRoad]
    public var inIndex: Int?
    public var outIndex: Int?
    public var lanes: [Lane] = []
    public var classes: ArcClasses = []
    /// Where two pieces of one road meet: OSRM lists no intersection there, and neither do the steps.
    var joinsOneRoad = false

    /// OSRM's `bearings`: each road's bearing leaving the junction, degrees clockwise from north.
    public var bearings: [Int] { roads.map(\.bearing) }
    /// OSRM's `entry`: whether each road may be taken from the approach.
    public var entry: [Bool] { roads.map(\.entry) }
}

extension Intersection {
    /// A junction with one road: where a route departs or arrives, or a step that starts it over.
    init(location: Coordinate, onlyRoad bearing: Int, isApproach: Bool, classes: ArcClasses = []) {
        self.init(location: location, roads: [IntersectionRoad(bearing: bearing, entry: true)],
                  inIndex: isApproach ? 0 : nil, outIndex: isApproach ? nil : 0, classes: classes)
    }
}

/// One road at an intersection: its bearing leaving the junction and whether the route could turn into it.
public struct IntersectionRoad: Sendable, Equatable {
    public var bearing: Int
    public var entry: Bool

    public init(bearing: Int, entry: Bool) {
        self.bearing = bearing
        self.entry = entry
    }
}

/// A second maneuver said together with a step's own.
public struct FollowingManeuver: Sendable, Equatable {
    public var type: ManeuverType
    public var modifier: Modifier
}

/// One instruction of a leg, with everything an OSRM client or a maps app shows.
public struct GuidanceStep: Sendable {
    public var maneuver: Maneuver
    public var name: String
    public var ref: String
    public var pronunciation = ""
    /// The signs of the road after the maneuver ("A1: Porto, Lisboa"), and its exit number (`junction:ref`).
    public var destinations = ""
    public var exits = ""
    /// "driving", "walking", "ferry" or "train".
    public var mode: String
    public var distance: Double
    public var duration: Double
    /// What the route choice counted for the step (its duration with the profile's penalties), seconds.
    public var weight = 0.0
    public var coordinates: [Coordinate]
    public var intersections: [Intersection]
    /// For rotaries: the circle's own name.
    public var rotaryName: String?
    public var rotaryPronunciation: String?
    /// A maneuver that follows within a few metres and is said with this one ("Keep left, then turn right").
    public var following: FollowingManeuver?
    /// The road after the maneuver is the one the step before named: the text says to stay on it rather than
    /// announcing it again.
    public var staysOn = false
    /// The road after the maneuver is an unnamed cycleway, said to a cyclist as "the cycle path".
    public var onCyclePath = false
    /// Which waypoint an arrive step reaches (1 = first via point); nil for the destination.
    public var waypointNumber: Int?
    /// For depart and arrive: the side of the road the point is on ("left", "right") or "straight".
    public var arrivalSide: Modifier?
    public var instruction = ""
    /// Mapbox Directions' extensions, on request: what to say and show on the way to the next step's maneuver.
    public var voiceInstructions: [VoiceInstruction] = []
    public var bannerInstructions: [BannerInstruction] = []

    /// The lanes to be in for the maneuver, where the road has lanes and not all of them serve it.
    public var lanes: [Lane] { intersections.first?.lanes ?? [] }

    public init(maneuver: Maneuver, name: String, ref: String, mode: String, distance: Double, duration: Double,
                coordinates: [Coordinate], intersections: [Intersection]) {
        self.maneuver = maneuver
        self.name = name
        self.ref = ref
        self.mode = mode
        self.distance = distance
        self.duration = duration
        self.coordinates = coordinates
        self.intersections = intersections
    }
}
