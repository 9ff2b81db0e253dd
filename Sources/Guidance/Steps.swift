import Foundation
import RoadGraph
import Routing

/// OSRM v5 maneuver types.
public enum ManeuverType: String, Sendable {
    case depart, arrive, turn, newName = "new name", continueOn = "continue", merge, onRamp = "on ramp"
    case offRamp = "off ramp", fork, endOfRoad = "end of road", roundabout, rotary
    case exitRoundabout = "exit roundabout", exitRotary = "exit rotary", notification
}

/// OSRM v5 maneuver modifiers.
public enum Modifier: String, Sendable {
    case uturn, sharpRight = "sharp right", right, slightRight = "slight right", straight
    case slightLeft = "slight left", left, sharpLeft = "sharp left"

    /// From a deviation from straight ahead, degrees in (-180, 180], positive to the right. A true U-turn (back
    /// along the same road) is decided by the caller, not by the angle: a hairpin onto another road is "sharp".
    init(deviation: Double) {
        switch deviation {
        case -20...20: self = .straight
        case 20..<60: self = .slightRight
        case 60..<140: self = .right
        case 140...: self = .sharpRight
        case -60 ..< -20: self = .slightLeft
        case -140 ..< -60: self = .left
        default: self = .sharpLeft
        }
    }
}

public struct Maneuver: Sendable {
    public var type: ManeuverType
    public var modifier: Modifier?
    public var location: Coordinate
    public var bearingBefore: Int
    public var bearingAfter: Int
    /// Roundabout exit number (1-based), where the step leaves or enters one.
    public var exit: Int?
}

/// An intersection passed during a step, in OSRM's shape: the bearings of every road there, which may be entered
/// from the approach, and which one the route came in on and goes out on.
public struct Intersection: Sendable {
    public var location: Coordinate
    public var bearings: [Int]
    public var entry: [Bool]
    public var inIndex: Int?
    public var outIndex: Int?
}

/// One instruction of a leg, with everything an OSRM client or a maps app shows.
public struct GuidanceStep: Sendable {
    public var maneuver: Maneuver
    public var name: String
    public var ref: String
    /// "driving", "walking" or "ferry".
    public var mode: String
    public var distance: Double
    public var duration: Double
    /// What the route choice counted for the step (its duration with the profile's penalties), seconds.
    public var weight = 0.0
    public var coordinates: [Coordinate]
    public var intersections: [Intersection]
    /// For rotaries: the roundabout's own name.
    public var rotaryName: String?
    /// Which waypoint an arrive step reaches (1 = first via point); nil for the destination.
    public var waypointNumber: Int?
    /// For arrive: the side of the road the destination is on ("left", "right") or "straight".
    public var arrivalSide: Modifier?
    public var instruction = ""
}
