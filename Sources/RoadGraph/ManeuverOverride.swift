/// What a maneuver relation (`type=maneuver`) tells guidance to say where the route passes its via node: another
/// maneuver type, another direction, both, or nothing at all. The values are OSRM's.
public struct ManeuverOverride: Equatable, Sendable {
    public enum Kind: UInt8, Sendable {
        /// The computed type stays (the relation only gives a direction).
        case unchanged = 0
        case turn, continueOn, fork
        /// A turn whose direction is `uturn` unless the relation gives one.
        case uturn
        /// No instruction: the step joins the one before it.
        case suppress
    }

    public enum Direction: UInt8, Sendable {
        case none = 0, left, slightLeft, sharpLeft, right, slightRight, sharpRight, straight
    }

    public var kind: Kind
    public var direction: Direction

    public init(kind: Kind, direction: Direction) {
        self.kind = kind
        self.direction = direction
    }

    /// From the relation's tags, read as OSRM reads them: other values of `maneuver` leave the type alone, and
    /// other values of `direction` (`uturn` among them) leave the direction alone.
    public init(maneuver: String, direction: String) {
        switch maneuver {
        case "turn": kind = .turn
        case "continue": kind = .continueOn
        case "fork": kind = .fork
        case "uturn": kind = .uturn
        case "suppress": kind = .suppress
        default: kind = .unchanged
        }
        switch direction {
        case "left": self.direction = .left
        case "slight_left": self.direction = .slightLeft
        case "sharp_left": self.direction = .sharpLeft
        case "right": self.direction = .right
        case "slight_right": self.direction = .slightRight
        case "sharp_right": self.direction = .sharpRight
        case "straight": self.direction = .straight
        default: self.direction = .none
        }
    }

    /// Whether it changes anything a route says.
    public var changesAnything: Bool { kind != .unchanged || direction != .none }

    /// One byte in the graph file: the kind in the high half, the direction in the low.
    public var packed: UInt8 { kind.rawValue << 4 | direction.rawValue }

    public init?(packed: UInt8) {
        guard let kind = Kind(rawValue: packed >> 4), let direction = Direction(rawValue: packed & 0xF) else { return nil }
        self.init(kind: kind, direction: direction)
    }
}
