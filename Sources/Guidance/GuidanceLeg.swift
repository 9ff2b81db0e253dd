import Foundation
import RoadGraph
import Routing

/// A route leg with every fact guidance and the output formats need, read from the graph once when the leg is
/// assembled: each road travelled (names in the requested language, class, classes, lanes, mode) and each
/// junction passed (every road there, its perceived bearing, whether the route could take it). Guidance and the
/// formats read only this, never the graph (Valhalla's trip leg is the model).
public struct GuidanceLeg: Sendable {
    public var coordinates: [Coordinate]
    public var stretches: [GuidanceStretch]
    /// `junctions[i]` lies between `stretches[i]` and `stretches[i + 1]`.
    public var junctions: [GuidanceJunction]
    public var source: Snap
    public var target: Snap
    public var distance: Double
    public var duration: Double
    public var weight: Double
    public var travelMode: TravelMode
    /// The names of the roads the leg starts and ends on, in the requested language (OSRM's waypoint names).
    public var sourceName: String
    public var targetName: String
    /// Every label the leg read, once: the junctions' roads name them by id.
    var labels: LegLabels
    /// The junctions ahead that roads at the leg's junctions point to (`JunctionRoad.ahead`).
    var aheads: [JunctionAhead]
}

/// One stretch of one road along a leg.
public struct GuidanceStretch: Sendable {
    var signs: RoadSigns
    public var name: String { signs.name }
    var label: RoadLabel { signs.label }
    public var ref: String { label.ref }
    public var pronunciation: String { label.pronunciation }
    public var exits: String { label.exits }
    public var destinations: String { signs.destinations }
    public var roadClass: RoadClass
    public var isLink: Bool
    public var classes: ArcClasses
    public var roundabout: Bool, circular: Bool
    public var isBridge: Bool
    public var mode: StepMode
    public var distance: Double, duration: Double, weight: Double
    /// Seconds of `duration` and `weight` that the turn onto the stretch costs (with its junction's delays), and
    /// the weight of entering it (a restricted road).
    public var turnDuration: Double, entryWeight: Double
    /// The stretch's points in the leg's coordinates.
    public var coordinates: ClosedRange<Int>
    /// Lanes of the road (both directions), and the turn lanes of this direction, left to right.
    public var laneCount: Int
    public var turnLanes: [[String]]
    /// Length of the whole road piece between junctions (the stretch may be part of it at the leg's ends).
    var edgeLength: Double
    var edge: Int
    /// A short connector inside a divided-road junction (OSRM's segregated edge): turns on and off it are one.
    var isSegregated = false

    var priority: Int { RoadPriority.of(roadClass, isLink: isLink) }
    var lowPriority: Bool { roadClass.isLowPriority }
}

/// How a step is travelled: the graph's mode, or a ferry or train on the way (OSRM's step `mode`). A one-byte
/// value, not a String: guidance compares and copies it with every road and step.
public enum StepMode: String, Sendable {
    case driving, walking, cycling, ferry, train
    case pushingBike = "pushing bike"

    init(_ mode: TravelMode) {
        switch mode {
        case .driving: self = .driving
        case .walking: self = .walking
        case .cycling: self = .cycling
        }
    }
}

/// One road at a junction.
public struct JunctionRoad: Sendable {
    /// Bearing leaving the junction along the road, as perceived some metres along it (degrees).
    public var bearing: Double
    /// Bearing towards the point 2 m along the road (OSRM's initial bearing; `EdgeEnd.initialBearing`).
    public var initialBearing: Double
    /// OSRM's turn angle from the approach: 0 back, 180 straight on, below 180 to the right.
    public var angle: Double
    /// Whether the route's approach may turn onto it.
    public var entryAllowed: Bool
    /// The road's label in the leg's `labels`: an id, so that a road is plain bytes (guidance copies roads by the
    /// thousand) and two roads under one label are known to share a name without a look at it.
    var label: LabelID
    public var roadClass: RoadClass
    var isLink: Bool
    public var classes: ArcClasses
    var roundabout: Bool, circular: Bool
    /// Oneway towards the junction: it cannot be left along.
    var incomingOnly: Bool
    var oneway: Bool
    var laneCount: Int
    var mode: StepMode
    var length: Double
    /// Straight-line distance to the road's far end.
    var reach: Double
    var edge: Int
    /// Whether the junction is at the edge's last shape point.
    var atEnd: Bool
    /// The vertex the road leads to (the junction itself for a road that cannot be taken from here).
    var farVertex: UInt32
    /// For a road that carries the approach on while the route turns off just before it: the next junction along
    /// it, which a slip road cutting the corner would join (OSRM's sliproad test): an index in the leg's `aheads`.
    var ahead: Int?

    var priority: Int { RoadPriority.of(roadClass, isLink: isLink) }
    var lowPriority: Bool { roadClass.isLowPriority }

    var isMotorway: Bool { (roadClass == .motorway || roadClass == .trunk) && !isLink }
    var isRamp: Bool { (roadClass == .motorway || roadClass == .trunk) && isLink }
    var onRing: Bool { roundabout || circular }
}

/// A junction along a leg: the roads there, `roads[0]` the one the route arrived on (going back), the others by
/// increasing turn angle (from sharp right round to sharp left).
public struct GuidanceJunction: Sendable {
    public var location: Coordinate
    var vertex: UInt32
    public var roads: [JunctionRoad]
    /// The road the route takes.
    public var taken: Int
    /// The direction of travel arriving (degrees).
    public var approachBearing: Double
    /// The turn lanes of the road arriving, left to right (empty where none are mapped).
    public var approachLanes: [[String]]
    /// How the circle at this junction is announced, if there is one.
    var ring: RingKind?
    /// Two pieces of one road meet here and nothing else: OSRM has no junction here (`RoadGraph.joinsOneRoad`).
    var joinsOneRoad = false
    /// What a maneuver relation says here, where the route follows its whole path (`RoadGraph.maneuverPath`).
    var override: ManeuverOverride?

    var takenRoad: JunctionRoad { roads[taken] }
    var enterable: [JunctionRoad] { roads.filter(\.entryAllowed) }
}

/// `0..<order.count` in the order `less` gives, ties in index order, written into `order` (on the caller's
/// stack): a stable insertion sort for the handful of roads at a junction, with no array per junction.
@inline(__always) func stableOrder(into order: UnsafeMutableBufferPointer<Int>, by less: (Int, Int) -> Bool) {
    for m in order.indices {
        order[m] = m
        var k = m
        while k > 0 && less(order[k], order[k - 1]) {
            order.swapAt(k, k - 1)
            k -= 1
        }
    }
}

/// OSRM's road priority classes (lower is more important); low-priority roads are `RoadClass.isLowPriority`.
enum RoadPriority {
    static func of(_ c: RoadClass, isLink: Bool) -> Int {
        switch c {
        case .motorway: return isLink ? 1 : 0
        case .trunk: return isLink ? 3 : 2
        case .primary: return isLink ? 5 : 4
        case .secondary: return isLink ? 7 : 6
        case .tertiary: return isLink ? 9 : 8
        case .residential: return 10
        case .livingStreet: return 11
        case .service: return 12
        case .unclassified: return 15
        case .track, .path, .cycleway: return 16
        case .footway, .pedestrian, .steps: return 18
        case .other, .ferry: return 31
        }
    }

    /// OSRM's road groups: motorway 0, trunk 1, primary to tertiary 2, residential and service 3, unclassified 4,
    /// bike 5, foot 6, else 7.
    static func group(_ p: Int) -> Int {
        switch p {
        case 0, 1: return 0
        case 2, 3: return 1
        case 4...9: return 2
        case 10...13: return 3
        case 14, 15: return 4
        case 16, 17: return 5
        case 18: return 6
        default: return 7
        }
    }
}

/// The next junction along a road from a junction of the leg.
struct JunctionAhead: Sendable {
    typealias Extreme = (far: UInt32, angle: Double, bearing: Double)
    let vertex: UInt32
    let location: Coordinate
    let distance: Double
    /// The labels of every road there, in the leg's `labels`.
    let labels: [LabelID]
    /// The sharpest right and left roads there, arriving along the road: where they lead, their turn angle and
    /// bearing.
    let rightmost: Extreme?
    let leftmost: Extreme?
}

extension Geo {
    /// OSRM's turn angle: 0 back, 180 straight on, 90 a right turn, 270 a left turn.
    static func turnAngle(arriving: Double, leaving: Double) -> Double {
        Geo.remainder360(arriving - leaving + 540)
    }

}
