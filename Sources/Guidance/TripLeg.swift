import Foundation
import RoadGraph
import Routing

/// A route leg with every fact guidance and the output formats need, read from the graph once when the leg is
/// assembled: each road travelled (names in the requested language, class, classes, lanes, mode) and each
/// junction passed (every road there, its perceived bearing, whether the route could take it). Guidance and the
/// formats read only this, never the graph (Valhalla's trip leg is the model).
public struct TripLeg: Sendable {
    public var coordinates: [Coordinate]
    public var segments: [TripSegment]
    /// `junctions[i]` lies between `segments[i]` and `segments[i + 1]`.
    public var junctions: [TripJunction]
    public var source: Snap
    public var target: Snap
    public var distance: Double
    public var duration: Double
    public var weight: Double
    public var travelMode: TravelMode
    /// The names of the roads the leg starts and ends on, in the requested language (OSRM's waypoint names).
    public var sourceName: String
    public var targetName: String
    /// What the junctions' roads refer to without holding it: every label the leg read and every junction ahead.
    let keptLabels: [RoadLabel]
    let keptAheads: [JunctionAhead]
}

/// One stretch of one road along a leg.
public struct TripSegment: Sendable {
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
    /// The segment's points in the leg's coordinates.
    public var coordinates: ClosedRange<Int>
    /// Lanes of the road (both directions), and the turn lanes of this direction, left to right.
    public var laneCount: Int
    public var turnLanes: [[String]]
    /// Length of the whole road piece between junctions (the segment may be part of it at the leg's ends).
    var edgeLength: Double
    var edge: Int
    /// A short connector inside a divided-road junction (OSRM's segregated edge): turns on and off it are one.
    var isSegregated = false

    var priority: Int { RoadPriority.of(roadClass, isLink: isLink) }
    var lowPriority: Bool { roadClass.isLowPriority }
}

/// What a driver reads of a road along the leg: its label, its name in the requested language and the
/// destinations signed in this direction. One shared object: steps take it on from one another many times over.
final class RoadSigns: Sendable {
    let label: RoadLabel
    let name: String
    let destinations: String

    init(label: RoadLabel, name: String, destinations: String) {
        self.label = label
        self.name = name
        self.destinations = destinations
    }
}

/// How a step is travelled: the graph's mode, or a ferry or train on the way (OSRM's step `mode`). A one-byte
/// value, not a String: guidance compares and copies it with every road and step.
public enum StepMode: String, Sendable {
    case driving, walking, ferry, train

    init(_ mode: TravelMode) { self = mode == .driving ? .driving : .walking }
}

/// One road at a junction.
public struct TripRoad: Sendable {
    /// Bearing leaving the junction along the road, as perceived some metres along it (degrees).
    public var bearing: Double
    /// OSRM's turn angle from the approach: 0 back, 180 straight on, below 180 to the right.
    public var angle: Double
    /// Whether the route's approach may turn onto it.
    public var entryAllowed: Bool
    /// Held by the leg (`keptLabels`), not by each road: with no reference counted, a road copies as plain bytes,
    /// and guidance copies roads by the thousand.
    unowned(unsafe) var label: RoadLabel
    /// The label's identity: roads under one label object need no look at it to know they share a name (loading
    /// an unowned reference retains it).
    var labelKey: ObjectIdentifier
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
    /// it, which a slip road cutting the corner would join (OSRM's sliproad test). Held by the leg (`keptAheads`).
    unowned(unsafe) var ahead: JunctionAhead?

    var priority: Int { RoadPriority.of(roadClass, isLink: isLink) }
    var lowPriority: Bool { roadClass.isLowPriority }

    /// `RoadNames.requiresAnnouncement` between two roads' labels; one label object says no without a look.
    /// Inlined, as the other small tests of roads are: a road read from a buffer and passed to a call was copied
    /// to the stack first, a memcpy per argument.
    @inline(__always) static func announce(from a: TripRoad, to b: TripRoad) -> Bool {
        a.labelKey != b.labelKey && RoadNames.requiresAnnouncement(from: a.label, to: b.label)
    }

    /// `RoadNames.identical` between two roads' labels.
    @inline(__always) static func identical(_ a: TripRoad, _ b: TripRoad) -> Bool {
        a.labelKey == b.labelKey ? !a.label.isEmpty : RoadNames.identical(a.label, b.label)
    }
    var isMotorway: Bool { (roadClass == .motorway || roadClass == .trunk) && !isLink }
    var isRamp: Bool { (roadClass == .motorway || roadClass == .trunk) && isLink }
    var onRing: Bool { roundabout || circular }
}

/// A junction along a leg: the roads there, `roads[0]` the one the route arrived on (going back), the others by
/// increasing turn angle (from sharp right round to sharp left).
public struct TripJunction: Sendable {
    public var location: Coordinate
    var vertex: UInt32
    public var roads: [TripRoad]
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

    var takenRoad: TripRoad { roads[taken] }
    var enterable: [TripRoad] { roads.filter(\.entryAllowed) }
}

/// `0..<order.count` in the order `less` gives, ties in index order, written into `order` (on the caller's
/// stack): a stable insertion sort for the handful of roads at a junction (`sorted` allocated and went through
/// its generic path for each junction).
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

extension TripLeg {
    /// Reads a leg's roads and junctions from the graph. `language` picks the names shown (`name:xx`).
    public init(leg: RouteLeg, graph: RoadGraph, language: String?, labels: RoadLabelStore? = nil) {
        var reader = TripLegReader(graph: graph, leg: leg, store: labels)
        coordinates = leg.coordinates
        source = leg.source
        target = leg.target
        distance = leg.distance
        duration = leg.duration
        weight = Double(leg.weight) / 1000
        travelMode = graph.mode
        sourceName = graph.name(ofEdge: leg.source.edge, language: language)
        targetName = graph.name(ofEdge: leg.target.edge, language: language)
        // The stretches read in place: a stretch passed by value was copied with its name and ref.
        var segments: [TripSegment] = [], junctions: [TripJunction] = []
        segments.reserveCapacity(leg.stretches.count)
        junctions.reserveCapacity(max(0, leg.stretches.count - 1))
        leg.stretches.withUnsafeBufferPointer { stretches in
            guard let first = stretches.baseAddress else { return }
            for k in stretches.indices { segments.append(reader.segment(first + k, language: language)) }
            for k in 1..<max(1, stretches.count) {
                junctions.append(reader.junction(from: first + k - 1, to: first + k, approachLanes: segments[k - 1].turnLanes))
            }
        }
        // Connectors inside divided-road junctions, from the junctions at both of their ends. Only short pieces off
        // circles can be one: those are picked reading the segments in place, and only their junctions are copied
        // to ask.
        let candidates = segments.withUnsafeBufferPointer { s in
            s.indices.filter { k in k > 0 && k < s.count - 1 && s[k].edgeLength <= 32 && !s[k].roundabout && !s[k].circular }
        }
        for k in candidates {
            segments[k].isSegregated = TripLeg.isSegregated(segments[k], start: junctions[k - 1], end: junctions[k])
        }
        self.segments = segments
        self.junctions = junctions
        (keptLabels, keptAheads) = reader.keptObjects
    }
}

/// Reads the facts of one leg from the graph: the only place guidance touches it.
struct TripLegReader {
    let graph: RoadGraph
    let leg: RouteLeg
    /// Circles met along the leg, by each of their vertices.
    var rings: [UInt32: RingKind?] = [:]
    /// Labels by the ids of their strings: a leg meets few streets many times, and decoding and keying a label
    /// was most of guidance's time.
    private let labels = LabelCache()

    /// A leg's labels by their ids, open addressing with a multiplicative hash: looked up for every road at every
    /// junction, where hashing four ids through `Hasher` cost more than the rest of the lookup.
    /// One leg's, on one thread: its properties skip the runtime's exclusivity checks, which cost as much as the
    /// lookups themselves.
    final class LabelCache {
        @exclusivity(unchecked) private var keys: [LabelIDs] =
            Array(repeating: LabelIDs(name: .max, ref: .max, pronunciation: .max, exits: .max), count: 64)
        @exclusivity(unchecked) private var values: [RoadLabel?] = Array(repeating: nil, count: 64)
        @exclusivity(unchecked) private var count = 0
        /// Names in the requested language by label id: a leg's segments run along few streets.
        @exclusivity(unchecked) var localized: [UInt32: String] = [:]
        /// The junctions ahead the leg's roads point to.
        @exclusivity(unchecked) var aheads: [JunctionAhead] = []

        /// Every label looked up.
        var all: [RoadLabel] { values.compactMap { $0 } }

        subscript(ids: LabelIDs) -> RoadLabel? {
            get {
                var i = ids.slot(keys.count)
                while let value = values[i] {
                    if keys[i] == ids { return value }
                    i = (i + 1) & (keys.count - 1)
                }
                return nil
            }
            set {
                guard let newValue else { return }
                if 2 * (count + 1) > keys.count { grow() }
                var i = ids.slot(keys.count)
                while values[i] != nil && keys[i] != ids { i = (i + 1) & (keys.count - 1) }
                if values[i] == nil { count += 1 }
                keys[i] = ids
                values[i] = newValue
            }
        }

        private func grow() {
            let old = zip(keys, values).compactMap { k, v in v.map { (k, $0) } }
            keys = Array(repeating: keys[0], count: keys.count * 2)
            values = Array(repeating: nil, count: keys.count)
            count = 0
            for (k, v) in old { self[k] = v }
        }
    }

    struct LabelIDs: Hashable {
        var name: UInt32, ref: UInt32, pronunciation: UInt32, exits: UInt32

        /// A slot in a table of `size` (a power of two).
        func slot(_ size: Int) -> Int {
            let mixed = (UInt64(name) &* 0x9E37_79B9_7F4A_7C15) ^ (UInt64(ref) &* 0xC2B2_AE3D_27D4_EB4F)
                ^ (UInt64(pronunciation) &* 0x1656_67B1_9E37_79F9) ^ (UInt64(exits) &* 0x27D4_EB2F_1656_67C5)
            return Int(truncatingIfNeeded: (mixed ^ (mixed >> 29)) & UInt64(size - 1))
        }
    }

    /// Labels kept across legs and requests, where the caller has a store for this graph.
    private let store: RoadLabelStore?

    init(graph: RoadGraph, leg: RouteLeg, store: RoadLabelStore? = nil) {
        self.graph = graph
        self.leg = leg
        self.store = store
    }

    /// What the roads read so far refer to without holding it, for the leg to hold.
    var keptObjects: ([RoadLabel], [JunctionAhead]) { (labels.all, labels.aheads) }

    func label(_ edge: Int) -> RoadLabel {
        let ids = LabelIDs(name: graph.edgeLabel[edge], ref: graph.edgeRef[edge], pronunciation: graph.edgePronunciation[edge],
                           exits: graph.edgeExits[edge])
        if let known = labels[ids] { return known }
        return newLabel(ids, edge)
    }

    /// A label the leg has not met yet: from the graph's store, or made (kept out of `label`, whose closure
    /// copied the graph value on every call).
    private func newLabel(_ ids: LabelIDs, _ edge: Int) -> RoadLabel {
        let make = { [graph] in
            RoadLabel(name: graph.name(ofEdge: edge), ref: graph.ref(ofEdge: edge),
                      pronunciation: graph.pronunciation(ofEdge: edge), exits: graph.exits(ofEdge: edge))
        }
        let label = store?.label(ids, make) ?? make()
        labels[ids] = label
        return label
    }

    func mode(_ edge: Int) -> StepMode {
        let flags = graph.flags(ofEdge: edge)
        return flags.contains(.ferry) ? .ferry : flags.contains(.train) ? .train : StepMode(graph.mode)
    }

    /// The signs and turn lanes of the segment before, by the ids they were read from: consecutive segments mostly
    /// run along one street under one sign, and share them.
    private var lastSigns: (ids: LabelIDs, destinations: UInt32, signs: RoadSigns)?
    private var lastTurnLanes: (id: UInt32, lanes: [[String]])?

    mutating func segment(_ stretch: UnsafePointer<Stretch>, language: String?) -> TripSegment {
        let edge = graph.edge(ofArc: stretch.pointee.arc).edge
        let flags = graph.flags(ofEdge: edge)
        let ids = LabelIDs(name: graph.edgeLabel[edge], ref: graph.edgeRef[edge], pronunciation: graph.edgePronunciation[edge],
                           exits: graph.edgeExits[edge])
        let destinations = graph.arcDestinations[Int(stretch.pointee.arc)]
        let signs: RoadSigns
        if let last = lastSigns, last.ids == ids, last.destinations == destinations {
            signs = last.signs
        } else {
            let name: String
            if let known = labels.localized[ids.name] {
                name = known
            } else {
                name = graph.name(ofEdge: edge, language: language)
                labels.localized[ids.name] = name
            }
            signs = RoadSigns(label: label(edge), name: name, destinations: graph.destinations(ofArc: stretch.pointee.arc))
            lastSigns = (ids, destinations, signs)
        }
        let turnLanesID = graph.arcTurnLanes[Int(stretch.pointee.arc)]
        let turnLanes: [[String]]
        if let last = lastTurnLanes, last.id == turnLanesID {
            turnLanes = last.lanes
        } else {
            turnLanes = Lanes.parse(graph.turnLanes(ofArc: stretch.pointee.arc))
            lastTurnLanes = (turnLanesID, turnLanes)
        }
        return TripSegment(
            signs: signs, roadClass: graph.roadClass(ofEdge: edge),
            isLink: flags.contains(.link), classes: stretch.pointee.classes, roundabout: flags.contains(.roundabout),
            circular: flags.contains(.circular), isBridge: flags.contains(.bridge), mode: mode(edge),
            distance: stretch.pointee.distance, duration: stretch.pointee.duration, weight: stretch.pointee.weight, coordinates: stretch.pointee.coordinates,
            laneCount: Int(graph.edgeLanes[edge]), turnLanes: turnLanes,
            edgeLength: Double(graph.edgeLength[edge]), edge: edge)
    }

    /// Every road at vertex `v`, seen from there. `allowed`: the arcs the approach may turn onto, as a range of
    /// the transition table (nil: every road that can be left along).
    func roads(at v: UInt32, allowed: Range<Int>?) -> [TripRoad] {
        let here = graph.edges(atVertex: v)
        var roads: [TripRoad] = []
        roads.reserveCapacity(here.count)
        for (edge, atEnd) in here {
            let leaving = atEnd ? graph.edgeBackwardArc[edge] : graph.edgeForwardArc[edge]
            let arriving = atEnd ? graph.edgeForwardArc[edge] : graph.edgeBackwardArc[edge]
            let flags = graph.flags(ofEdge: edge)
            let roadClass = graph.roadClass(ofEdge: edge)
            let isLink = flags.contains(.link)
            let end = graph.edgeEnds[2 * edge + (atEnd ? 1 : 0)]
            var entryAllowed = leaving != noIndex
            if entryAllowed, let allowed {
                // A handful of arcs: a scan finds them faster than a set hashes them.
                entryAllowed = allowed.contains { graph.arcBase[Int(graph.transitionTargets[$0])] == leaving }
            }
            let label = label(edge)
            roads.append(TripRoad(
                bearing: end.bearing, angle: 0, entryAllowed: entryAllowed,
                label: label, labelKey: ObjectIdentifier(label), roadClass: roadClass, isLink: isLink,
                classes: leaving != noIndex ? graph.classes(ofArc: leaving) : (arriving != noIndex ? graph.classes(ofArc: arriving) : []),
                roundabout: flags.contains(.roundabout), circular: flags.contains(.circular), incomingOnly: leaving == noIndex,
                oneway: flags.contains(.oneway), laneCount: Int(graph.edgeLanes[edge]), mode: mode(edge),
                length: Double(graph.edgeLength[edge]), reach: end.reach, edge: edge, atEnd: atEnd,
                farVertex: leaving != noIndex ? graph.arcHead[Int(leaving)] : v))
        }
        return roads
    }

    /// The junction between two stretches; `approachLanes`: the turn lanes of the first, as its segment read them.
    mutating func junction(from a: UnsafePointer<Stretch>, to b: UnsafePointer<Stretch>, approachLanes: [[String]])
        -> TripJunction
    {
        let v = graph.arcHead[Int(a.pointee.arc)]
        let location = leg.coordinates[a.pointee.coordinates.upperBound]
        let allowed = Int(graph.transitionStart[Int(a.pointee.arc)])..<Int(graph.transitionStart[Int(a.pointee.arc) + 1])
        let (inEdge, inReversed) = graph.edge(ofArc: a.pointee.arc)
        let (outEdge, outReversed) = graph.edge(ofArc: b.pointee.arc)
        var roads = roads(at: v, allowed: allowed)
        var approach = 0, taken = 0
        // Fields read in place: a road taken out by value is a copy of some hundred bytes.
        roads.withUnsafeBufferPointer { roads in
            for i in roads.indices {
                if roads[i].edge == inEdge && roads[i].atEnd != inReversed { approach = i }
                if roads[i].edge == outEdge && roads[i].atEnd == outReversed { taken = i }
            }
        }
        // The road the route takes is open to it whatever the transition table's copies say.
        roads[taken].entryAllowed = true
        // Handed over, not shared: the junction's passes below would otherwise copy the array on first write.
        var junction = TripJunction(location: location, vertex: v, roads: consume roads, taken: taken, approachBearing: 0,
                                    approachLanes: approachLanes)
        junction.ring = ringKind(at: v)
        junction.joinsOneRoad = graph.joinsOneRoad(atVertex: v)
        junction.mergeDividedRoads(approach: &approach)
        junction.order(approach: approach)
        addAhead(&junction)
        return junction
    }

    // MARK: Circles

    /// OSRM's roundabout classification of the circle through `v`: walks the ring once (cached for all its
    /// vertices). Nil where there is no circle, a mix of tags, a fork in the ring, or a circle open both ways
    /// (as for walkers).
    mutating func ringKind(at v: UInt32) -> RingKind? {
        var roundabout = false, circular = false
        for (edge, _) in graph.edges(atVertex: v) {
            let flags = graph.flags(ofEdge: edge)
            roundabout = roundabout || flags.contains(.roundabout)
            circular = circular || flags.contains(.circular)
        }
        guard roundabout != circular else { return nil }
        if let cached = rings[v] { return cached }
        if let walk = store?.ringWalk(from: v) {
            for vertex in walk.visited { rings[vertex] = .some(walk.kind) }
            rings[v] = .some(walk.kind)
            return walk.kind
        }
        let ringFlag: EdgeFlags = roundabout ? .roundabout : .circular
        var visited: [UInt32] = []
        var exitNodes: [UInt32] = []
        var length = 0.0
        var names: [RoadLabel] = []
        var connected: [String] = []
        var n = v
        var result: RingKind?
        walk: do {
            for _ in 0..<10_000 {
                visited.append(n)
                let here = graph.edges(atVertex: n)
                if here.count > 2 { exitNodes.append(n) }
                let ringEdges = here.filter { graph.flags(ofEdge: $0.edge).contains(ringFlag) }
                guard ringEdges.count == 2 else { break walk }
                for (edge, _) in here {
                    let label = label(edge)
                    if graph.flags(ofEdge: edge).contains(ringFlag) {
                        if !label.name.isEmpty && names.allSatisfy({ RoadNames.requiresAnnouncement(from: $0, to: label) }) {
                            names.append(label)
                        }
                    } else {
                        connected.append(label.name)
                    }
                }
                let onward = ringEdges.compactMap { edge, atEnd -> UInt32? in
                    let arc = atEnd ? graph.edgeBackwardArc[edge] : graph.edgeForwardArc[edge]
                    return arc == noIndex ? nil : arc
                }
                guard onward.count == 1 else { break walk }
                length += Double(graph.edgeLength[graph.edge(ofArc: onward[0]).edge])
                n = graph.arcHead[Int(onward[0])]
                if n == v { break }
                guard !visited.contains(n) else { break walk }
            }
            guard n == v, !exitNodes.isEmpty else { break walk }
            if exitNodes.count == 1 && roundabout { result = .intersection; break walk }
            let radius = length / (2 * Double.pi)
            if names.count == 1 && (circular || (!connected.contains(names[0].name) && radius > 15)) {
                result = .rotary
            } else if circular {
                result = nil
            } else if radius < 15 && qualifiesAsRoundaboutIntersection(exitNodes, ringFlag) {
                result = .intersection
            } else {
                result = .roundabout
            }
        }
        for vertex in visited { rings[vertex] = .some(result) }
        rings[v] = .some(result)
        store?.keepRingWalk(from: v, kind: result, visited: visited)
        return result
    }

    /// A small circle with at most four simple exits, each more than 40° from the next (OSRM compares the sorted
    /// bearings without wrapping round, and so do we).
    func qualifiesAsRoundaboutIntersection(_ nodes: [UInt32], _ ringFlag: EdgeFlags) -> Bool {
        guard nodes.count <= 4 else { return false }
        var bearings: [Double] = []
        for n in nodes {
            let here = graph.edges(atVertex: n)
            guard here.count <= 3, let exit = here.first(where: { !graph.flags(ofEdge: $0.edge).contains(ringFlag) }) else {
                return false
            }
            let roadClass = graph.roadClass(ofEdge: exit.edge)
            bearings.append(graph.bearing(ofEdge: exit.edge, leavingFromEnd: exit.atEnd,
                                          lookahead: EdgeEnd.perceivedLookahead(roadClass, isLink: false, onRing: false, roadsHere: 3)))
        }
        bearings.sort()
        for i in bearings.indices where abs(bearings[(i + 1) % bearings.count] - bearings[i]) <= 40 { return false }
        return true
    }

    // MARK: Slip roads

    /// Where the route turns off a road that goes on under the approach's name, the next junction along that
    /// road: a slip road that cuts the corner to it is one turn (OSRM's sliproad handler needs these facts).
    func addAhead(_ junction: inout TripJunction) {
        guard junction.roads.count > 2, junction.taken != 0 else { return }
        let approach = junction.roads[0], taken = junction.takenRoad
        guard Geo.deviation(taken.angle, 180) <= 80, !taken.onRing, !taken.lowPriority, !approach.label.isEmpty else { return }
        for i in junction.roads.indices where i != 0 && i != junction.taken {
            let r = junction.roads[i]
            guard !r.incomingOnly, r.priority == approach.priority, r.mode == approach.mode,
                  TripRoad.identical(r, approach), !r.onRing else { continue }
            guard let next = ahead(from: junction.vertex, along: r) else { continue }
            labels.aheads.append(next)  // before the road refers to it
            junction.roads[i].ahead = next
        }
    }

    /// Follows a road across vertices that join only two edges (at most ten) to the next real junction.
    func ahead(from start: UInt32, along road: TripRoad) -> JunctionAhead? {
        var edge = road.edge, atEnd = road.atEnd
        var distance = road.length
        var v = road.farVertex
        for _ in 0..<10 {
            let here = graph.edges(atVertex: v)
            guard here.count == 2 else { break }
            guard let next = here.first(where: { $0.edge != edge || $0.atEnd == atEnd }) else { return nil }
            let arc = next.atEnd ? graph.edgeBackwardArc[next.edge] : graph.edgeForwardArc[next.edge]
            guard arc != noIndex else { return nil }
            edge = next.edge
            atEnd = next.atEnd
            distance += Double(graph.edgeLength[edge])
            v = graph.arcHead[Int(arc)]
        }
        guard v != start else { return nil }
        var roads = roads(at: v, allowed: nil)
        guard roads.count > 2, let back = roads.firstIndex(where: { $0.edge == edge && $0.atEnd != atEnd }) else { return nil }
        let arrivalBearing = Geo.remainder360(roads[back].bearing + 180)
        for i in roads.indices { roads[i].angle = Geo.turnAngle(arriving: arrivalBearing, leaving: roads[i].bearing) }
        let others = roads.indices.filter { $0 != back && !roads[$0].incomingOnly }
        let rightmost = others.min { roads[$0].angle < roads[$1].angle }
        let leftmost = others.max { roads[$0].angle < roads[$1].angle }
        return JunctionAhead(
            vertex: v, location: graph.vertexCoordinate(v), distance: distance, labels: roads.map(\.label),
            rightmost: rightmost.map { (roads[$0].farVertex, roads[$0].angle, roads[$0].bearing) },
            leftmost: leftmost.map { (roads[$0].farVertex, roads[$0].angle, roads[$0].bearing) })
    }
}

/// One graph's road labels, decoded and keyed once for all the legs of all requests (a server's routes meet the
/// same streets again and again, and keying a name with accents folds it through Foundation), and the walks round
/// its circles (each reads every road at every vertex of a roundabout). Both are facts of the graph alone.
/// Thread-safe; the engine keeps one per graph it serves.
public final class RoadLabelStore: @unchecked Sendable {
    private let lock = NSLock()
    private var byIDs: [TripLegReader.LabelIDs: RoadLabel] = [:]
    /// By the vertex a walk started from: what it found and every vertex it passed.
    private var rings: [UInt32: (kind: RingKind?, visited: [UInt32])] = [:]
    /// Beyond this many labels (or walks) new ones are made per leg instead (a bound on memory, far above a
    /// country's).
    static let capacity = 2_000_000

    public init() {}

    func label(_ ids: TripLegReader.LabelIDs, _ make: () -> RoadLabel) -> RoadLabel {
        if let known = lock.withLock({ byIDs[ids] }) { return known }
        let label = make()
        lock.withLock { if byIDs.count < Self.capacity { byIDs[ids] = label } }
        return label
    }

    /// What a walk round the circle from `v` found and passed, if a leg has made it. Kept by the vertex the walk
    /// started from only, so that a leg reads from here exactly what its own walk would have told it.
    func ringWalk(from v: UInt32) -> (kind: RingKind?, visited: [UInt32])? { lock.withLock { rings[v] } }

    func keepRingWalk(from v: UInt32, kind: RingKind?, visited: [UInt32]) {
        lock.withLock { if rings.count < Self.capacity { rings[v] = (kind, visited) } }
    }
}

/// The next junction along a road from a junction of the leg. A class: roads at a junction are copied many times
/// over, and this is the largest thing they would carry.
final class JunctionAhead: Sendable {
    typealias Extreme = (far: UInt32, angle: Double, bearing: Double)
    let vertex: UInt32
    let location: Coordinate
    let distance: Double
    /// The names of every road there.
    let labels: [RoadLabel]
    /// The sharpest right and left roads there, arriving along the road: where they lead, their turn angle and
    /// bearing.
    let rightmost: Extreme?
    let leftmost: Extreme?

    init(vertex: UInt32, location: Coordinate, distance: Double, labels: [RoadLabel], rightmost: Extreme?, leftmost: Extreme?) {
        self.vertex = vertex
        self.location = location
        self.distance = distance
        self.labels = labels
        self.rightmost = rightmost
        self.leftmost = leftmost
    }
}

extension TripLeg {
    /// OSRM's internal intersection edge: a short piece (≤ 32 m) joining the carriageways of divided roads, with a
    /// oneway road turning onto it at one end and off it at the other, not a zig-zag.
    static func isSegregated(_ s: TripSegment, start: TripJunction, end: TripJunction) -> Bool {
        guard s.edgeLength <= 32, !s.roundabout, !s.circular else { return false }
        func qualifies(_ r: TripRoad) -> Bool { r.oneway && !r.isLink && r.priority <= 11 }
        // Arriving at the start along a oneway road other than this one, turning onto the connector.
        let leavingStart = start.takenRoad.bearing
        let inTurns = start.roads.enumerated().compactMap { i, r -> Modifier? in
            guard i != start.taken, r.incomingOnly, qualifies(r) else { return nil }
            let angle = Geo.turnAngle(arriving: Geo.remainder360(r.bearing + 180), leaving: leavingStart)
            return angle > 150 && angle < 210 ? nil : Modifier(angle: angle)
        }
        let arrivingEnd = end.approachBearing
        let outTurns = end.roads.enumerated().compactMap { i, r -> Modifier? in
            guard i != 0, !r.incomingOnly, r.oneway, qualifies(r) else { return nil }
            let angle = Geo.turnAngle(arriving: arrivingEnd, leaving: r.bearing)
            return angle > 150 && angle < 210 ? nil : Modifier(angle: angle)
        }
        guard !inTurns.isEmpty, !outTurns.isEmpty else { return false }
        let inLeft = inTurns.contains { $0 == .left || $0 == .sharpLeft }, inRight = inTurns.contains { $0 == .right || $0 == .sharpRight }
        let outLeft = outTurns.contains { $0 == .left || $0 == .sharpLeft }, outRight = outTurns.contains { $0 == .right || $0 == .sharpRight }
        return !(inLeft && outRight) && !(inRight && outLeft) && !(outLeft && outRight)
    }
}

extension Geo {
    /// OSRM's turn angle: 0 back, 180 straight on, 90 a right turn, 270 a left turn.
    static func turnAngle(arriving: Double, leaving: Double) -> Double {
        Geo.remainder360(arriving - leaving + 540)
    }

}

extension TripJunction {
    /// A dual carriageway seen as one road (OSRM's mergeable roads): two oneway roads side by side, one coming in
    /// and one going out, of one name and class and less than 95° apart, become one road at their mean bearing.
    mutating func mergeDividedRoads(approach: inout Int) {
        guard roads.count >= 3 else { return }
        var merged = true
        // Most junctions have no oneway pair: nothing to merge, nothing to sort.
        guard roads.count(where: { $0.oneway && !$0.onRing }) >= 2 else { return }
        while merged {
            merged = false
            // The order on the stack: an array of it was an allocation at every junction with a oneway pair.
            withUnsafeTemporaryAllocation(of: Int.self, capacity: roads.count) { order in
                stableOrder(into: order) { roads[$0].bearing < roads[$1].bearing }
                for k in order.indices {
                    let i = order[k], j = order[(k + 1) % order.count]
                    // Read in place: copies of the two roads would retain their labels for every pair looked at.
                    guard roads[i].oneway && roads[j].oneway, roads[i].incomingOnly != roads[j].incomingOnly,
                          !roads[i].onRing, !roads[j].onRing, roads[i].roadClass == roads[j].roadClass,
                          roads[i].isLink == roads[j].isLink, roads[i].mode == roads[j].mode,
                          TripRoad.identical(roads[i], roads[j]),
                          Geo.deviation(roads[i].bearing, roads[j].bearing) < 95 else { continue }
                    let a = roads[i], b = roads[j]
                    let (outgoing, incoming) = a.incomingOnly ? (j, i) : (i, j)
                    // The route's own roads stay: only a road it neither arrived nor left on is dropped (arriving on
                    // one carriageway and leaving on the other is a U-turn, and keeps both).
                    guard incoming != taken, !(incoming == approach && outgoing == taken) else { continue }
                    let mean = Self.meanBearing(a.bearing, b.bearing)
                    roads[outgoing].bearing = mean
                    if incoming == approach {
                        // Arriving on one carriageway: the road behind is the pair, at their mean bearing.
                        roads[incoming].bearing = mean
                        roads[incoming].entryAllowed = roads[outgoing].entryAllowed || roads[incoming].entryAllowed
                        roads.remove(at: outgoing)
                        if taken > outgoing { taken -= 1 }
                        if approach > outgoing { approach -= 1 }
                    } else {
                        roads.remove(at: incoming)
                        if taken > incoming { taken -= 1 }
                        if approach > incoming { approach -= 1 }
                    }
                    merged = true
                    break
                }
            }
        }
    }

    static func meanBearing(_ a: Double, _ b: Double) -> Double {
        let x = sin(a * Double.pi / 180) + sin(b * Double.pi / 180), y = cos(a * Double.pi / 180) + cos(b * Double.pi / 180)
        return Geo.remainder360(atan2(x, y) * 180 / Double.pi + 360)
    }

    /// Angles from the approach, and the roads in OSRM's order: back first, then from sharp right to sharp left.
    mutating func order(approach: Int) {
        approachBearing = Geo.remainder360(roads[approach].bearing + 180)
        for i in roads.indices {
            roads[i].angle = i == approach ? 0 : Geo.turnAngle(arriving: approachBearing, leaving: roads[i].bearing)
            // A road along the approach's own bearing is not "back": it sits at the end of the order.
            if i != approach && roads[i].angle < 0.5 { roads[i].angle = 359.5 }
        }
        // A stable sort in place by swaps (a handful of roads): the approach to the front, the others after it by
        // angle, ties in their order at the vertex. Through a buffer: reading a field of a road in the array copied
        // the whole road (its references retained and released).
        var taken = taken
        roads.withUnsafeMutableBufferPointer { roads in
            func swap(_ a: Int, _ b: Int) {
                roads.swapAt(a, b)
                if taken == a { taken = b } else if taken == b { taken = a }
            }
            for k in stride(from: approach, to: 0, by: -1) { swap(k, k - 1) }
            for i in roads.indices.dropFirst(2) {
                var j = i
                while j > 1 && roads[j].angle < roads[j - 1].angle {
                    swap(j, j - 1)
                    j -= 1
                }
            }
        }
        self.taken = taken
    }
}
