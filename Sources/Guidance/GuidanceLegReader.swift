import Foundation
import RoadGraph
import Routing

extension GuidanceLeg {
    /// Reads a leg's roads and junctions from the graph. `language` picks the names shown (`name:xx`).
    public init(leg: RouteLeg, graph: RoadGraph, language: String?, labels: RoadLabelStore? = nil) {
        var reader = GuidanceLegReader(graph: graph, leg: leg, store: labels)
        coordinates = leg.coordinates
        source = leg.source
        target = leg.target
        distance = leg.distance
        duration = leg.duration
        weight = Double(leg.weight) / 1000
        travelMode = graph.mode
        sourceName = graph.waypointName(of: leg.source, language: language)
        targetName = graph.waypointName(of: leg.target, language: language)
        var stretches: [GuidanceStretch] = [], junctions: [GuidanceJunction] = []
        stretches.reserveCapacity(leg.stretches.count)
        junctions.reserveCapacity(max(0, leg.stretches.count - 1))
        for k in leg.stretches.indices { stretches.append(reader.stretch(k, language: language)) }
        for k in 1..<max(1, leg.stretches.count) {
            junctions.append(reader.junction(before: k, approachLanes: stretches[k - 1].turnLanes))
        }
        // Connectors inside divided-road junctions, from the junctions at both of their ends. Only short pieces off
        // circles can be one.
        let candidates = stretches.indices.filter { k in
            k > 0 && k < stretches.count - 1 && stretches[k].edgeLength <= 32 && !stretches[k].roundabout && !stretches[k].circular
        }
        for k in candidates {
            stretches[k].isSegregated = GuidanceLeg.isSegregated(stretches[k], start: junctions[k - 1], end: junctions[k])
        }
        self.stretches = stretches
        self.junctions = junctions
        self.labels = reader.cache.labels
        aheads = reader.cache.aheads
        if !graph.maneuversAtVertex.isEmpty {
            applyManeuverRelations(graph, directedEdges: leg.stretches.map { graph.arcEdge[Int($0.arc)] })
        }
    }
}

extension GuidanceLeg {
    /// Marks the junctions where the leg follows a maneuver relation's whole path, from its `from` way to its `to`
    /// way, and the junction is the relation's via node (OSRM's maneuver overrides). `directedEdges`: the
    /// stretches' edges with their direction (`RoadGraph.arcEdge`), so that copies of an arc count as the arc.
    mutating func applyManeuverRelations(_ graph: RoadGraph, directedEdges: [UInt32]) {
        for k in junctions.indices {
            guard let candidates = graph.maneuversAtVertex[junctions[k].vertex] else { continue }
            for m in candidates {
                let path = graph.maneuverPath(m)
                // Junction k lies between stretches k and k + 1: the path's window starts at most `path.count - 2`
                // stretches before k, and takes k and k + 1.
                let followed = stride(from: k, through: max(0, k - path.count + 2), by: -1).contains { start in
                    start + path.count <= directedEdges.count && directedEdges[start..<start + path.count].elementsEqual(path)
                }
                if followed, let override = ManeuverOverride(packed: graph.maneuverKind[m]) {
                    junctions[k].override = override
                    break
                }
            }
        }
    }
}

/// Reads the facts of one leg from the graph: the only place guidance touches it.
struct GuidanceLegReader {
    let graph: RoadGraph
    let leg: RouteLeg
    /// Circles met along the leg, by each of their vertices.
    var rings: [UInt32: RingKind?] = [:]
    /// Labels by the ids of their strings: a leg meets few streets many times, and decodes and keys each once.
    let cache = LabelCache()

    /// A leg's labels by their ids, open addressing with a multiplicative hash rather than `Hasher`: looked up for
    /// every road at every junction. One leg's, on one thread: its properties skip the runtime's exclusivity
    /// checks.
    final class LabelCache {
        @exclusivity(unchecked) private var keys: [LabelIDs] =
            Array(repeating: LabelIDs(name: .max, ref: .max, pronunciation: .max, exits: .max), count: 64)
        @exclusivity(unchecked) private var values: [LabelID?] = Array(repeating: nil, count: 64)
        @exclusivity(unchecked) private var count = 0
        /// Names in the requested language by label id: a leg's stretches run along few streets.
        @exclusivity(unchecked) var localized: [UInt32: String] = [:]
        /// The junctions ahead the leg's roads point to.
        @exclusivity(unchecked) var aheads: [JunctionAhead] = []
        /// Every label looked up, by the ids the leg's roads carry.
        @exclusivity(unchecked) var labels = LegLabels()

        subscript(ids: LabelIDs) -> LabelID? {
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
    let store: RoadLabelStore?

    init(graph: RoadGraph, leg: RouteLeg, store: RoadLabelStore? = nil) {
        self.graph = graph
        self.leg = leg
        self.store = store
    }

    /// The id of an edge's label, reading the label where the leg has not met it yet.
    func label(_ edge: Int) -> LabelID {
        let ids = LabelIDs(name: graph.edgeLabel[edge], ref: graph.edgeRef[edge], pronunciation: graph.edgePronunciation[edge],
                           exits: graph.edgeExits[edge])
        if let known = cache[ids] { return known }
        return newLabel(ids, edge)
    }

    /// An edge's label itself.
    func roadLabel(_ edge: Int) -> RoadLabel {
        let id = label(edge)  // first: reading it may add the label
        return cache.labels[id]
    }

    /// A label the leg has not met yet: from the graph's store, or made (kept out of `label`, whose closure
    /// would copy the graph value on every call).
    private func newLabel(_ ids: LabelIDs, _ edge: Int) -> LabelID {
        let make = { [graph] in
            RoadLabel(name: graph.name(ofEdge: edge), ref: graph.ref(ofEdge: edge),
                      pronunciation: graph.pronunciation(ofEdge: edge), exits: graph.exits(ofEdge: edge))
        }
        let id = cache.labels.add(store?.label(ids, make) ?? make())
        cache[ids] = id
        return id
    }

    /// How the road is travelled along `arc` (either of its arcs where it has only one, or for a road only arrived on).
    func mode(_ edge: Int, arc: UInt32) -> StepMode {
        let flags = graph.flags(ofEdge: edge)
        if flags.contains(.ferry) { return .ferry }
        if flags.contains(.train) { return .train }
        if arc != noIndex && graph.classes(ofArc: arc).contains(.pushing) { return .pushingBike }
        return StepMode(graph.mode)
    }

    /// The signs and turn lanes of the stretch before, by the ids they were read from: consecutive stretches mostly
    /// run along one street under one sign, and share them.
    private var lastSigns: (ids: LabelIDs, destinations: UInt32, cycleway: Bool, signs: RoadSigns)?
    private var lastTurnLanes: (id: UInt32, lanes: [[String]])?

    /// The facts of the leg's stretch `k`.
    mutating func stretch(_ k: Int, language: String?) -> GuidanceStretch {
        // Its fields read in place: a copy of the stretch would retain and release its name and ref.
        let arc = leg.stretches[k].arc
        let edge = graph.edge(ofArc: arc).edge
        let flags = graph.flags(ofEdge: edge)
        let ids = LabelIDs(name: graph.edgeLabel[edge], ref: graph.edgeRef[edge], pronunciation: graph.edgePronunciation[edge],
                           exits: graph.edgeExits[edge])
        let destinations = graph.arcDestinations[Int(arc)]
        let cycleway = graph.mode == .cycling && graph.roadClass(ofEdge: edge) == .cycleway
        let signs: RoadSigns
        if let last = lastSigns, last.ids == ids, last.destinations == destinations, last.cycleway == cycleway {
            signs = last.signs
        } else {
            let name: String
            if let known = cache.localized[ids.name] {
                name = known
            } else {
                name = graph.name(ofEdge: edge, language: language)
                cache.localized[ids.name] = name
            }
            let label = roadLabel(edge)
            signs = RoadSigns(label: label, name: name, destinations: graph.destinations(ofArc: arc),
                              isCyclePath: cycleway && name.isEmpty && label.ref.isEmpty)
            lastSigns = (ids, destinations, cycleway, signs)
        }
        let turnLanesID = graph.arcTurnLanes[Int(arc)]
        let turnLanes: [[String]]
        if let last = lastTurnLanes, last.id == turnLanesID {
            turnLanes = last.lanes
        } else {
            turnLanes = Lanes.parse(graph.turnLanes(ofArc: arc))
            lastTurnLanes = (turnLanesID, turnLanes)
        }
        return GuidanceStretch(
            signs: signs, roadClass: graph.roadClass(ofEdge: edge),
            isLink: flags.contains(.link), classes: leg.stretches[k].classes, roundabout: flags.contains(.roundabout),
            circular: flags.contains(.circular), isBridge: flags.contains(.bridge), mode: mode(edge, arc: arc),
            distance: leg.stretches[k].distance, duration: leg.stretches[k].duration, weight: leg.stretches[k].weight,
            turnDuration: leg.stretches[k].turnDuration, entryWeight: leg.stretches[k].entryWeight, coordinates: leg.stretches[k].coordinates,
            laneCount: Int(graph.edgeLanes[edge]), turnLanes: turnLanes,
            edgeLength: Double(graph.edgeLength[edge]), edge: edge)
    }

    /// Every road at vertex `v`, seen from there. `allowed`: the arcs the approach may turn onto, as a range of
    /// the transition table (nil: every road that can be left along).
    func roads(at v: UInt32, allowed: Range<Int>?) -> [JunctionRoad] {
        let here = graph.edges(atVertex: v)
        var roads: [JunctionRoad] = []
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
            roads.append(JunctionRoad(
                bearing: end.bearing, initialBearing: end.initialBearing, angle: 0, entryAllowed: entryAllowed,
                label: label(edge), roadClass: roadClass, isLink: isLink,
                classes: leaving != noIndex ? graph.classes(ofArc: leaving) : (arriving != noIndex ? graph.classes(ofArc: arriving) : []),
                roundabout: flags.contains(.roundabout), circular: flags.contains(.circular), incomingOnly: leaving == noIndex,
                oneway: flags.contains(.oneway), laneCount: Int(graph.edgeLanes[edge]), mode: mode(edge, arc: leaving != noIndex ? leaving : arriving),
                length: Double(graph.edgeLength[edge]), reach: end.reach, edge: edge, atEnd: atEnd,
                farVertex: leaving != noIndex ? graph.arcHead[Int(leaving)] : v))
        }
        return roads
    }

    /// The junction before the leg's stretch `k`; `approachLanes`: the turn lanes of the stretch before it, as read.
    mutating func junction(before k: Int, approachLanes: [[String]]) -> GuidanceJunction {
        let inArc = leg.stretches[k - 1].arc, outArc = leg.stretches[k].arc
        let v = graph.arcHead[Int(inArc)]
        let location = leg.coordinates[leg.stretches[k - 1].coordinates.upperBound]
        let allowed = Int(graph.transitionStart[Int(inArc)])..<Int(graph.transitionStart[Int(inArc) + 1])
        let (inEdge, inReversed) = graph.edge(ofArc: inArc)
        let (outEdge, outReversed) = graph.edge(ofArc: outArc)
        var roads = roads(at: v, allowed: allowed)
        var approach = 0, taken = 0
        for i in roads.indices {
            if roads[i].edge == inEdge && roads[i].atEnd != inReversed { approach = i }
            if roads[i].edge == outEdge && roads[i].atEnd == outReversed { taken = i }
        }
        // The road the route takes is open to it whatever the transition table's copies say.
        roads[taken].entryAllowed = true
        // Handed over, not shared: the junction's passes below would otherwise copy the array on first write.
        var junction = GuidanceJunction(location: location, vertex: v, roads: consume roads, taken: taken, approachBearing: 0,
                                    approachLanes: approachLanes)
        junction.ring = ringKind(at: v)
        junction.joinsOneRoad = graph.joinsOneRoad(atVertex: v)
        junction.mergeDividedRoads(approach: &approach, labels: cache.labels)
        junction.order(approach: approach)
        addAhead(&junction)
        return junction
    }

    // MARK: Slip roads

    /// Where the route turns off a road that goes on under the approach's name, the next junction along that
    /// road: a slip road that cuts the corner to it is one turn (OSRM's sliproad handler needs these facts).
    func addAhead(_ junction: inout GuidanceJunction) {
        guard junction.roads.count > 2, junction.taken != 0 else { return }
        let approach = junction.roads[0], taken = junction.takenRoad
        guard Geo.deviation(taken.angle, 180) <= 80, !taken.onRing, !taken.lowPriority, !cache.labels.isEmpty(approach.label) else { return }
        for i in junction.roads.indices where i != 0 && i != junction.taken {
            let r = junction.roads[i]
            guard !r.incomingOnly, r.priority == approach.priority, r.mode == approach.mode,
                  cache.labels.identical(r.label, approach.label), !r.onRing else { continue }
            guard let next = ahead(from: junction.vertex, along: r) else { continue }
            junction.roads[i].ahead = cache.aheads.count
            cache.aheads.append(next)
        }
    }

    /// Follows a road across vertices that join only two edges (at most ten) to the next real junction.
    func ahead(from start: UInt32, along road: JunctionRoad) -> JunctionAhead? {
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

extension GuidanceJunction {
    /// Angles from the approach, and the roads in OSRM's order: back first, then from sharp right to sharp left.
    mutating func order(approach: Int) {
        approachBearing = Geo.remainder360(roads[approach].bearing + 180)
        for i in roads.indices {
            roads[i].angle = i == approach ? 0 : Geo.turnAngle(arriving: approachBearing, leaving: roads[i].bearing)
            // A road along the approach's own bearing is not "back": it sits at the end of the order.
            if i != approach && roads[i].angle < 0.5 { roads[i].angle = 359.5 }
        }
        // A stable sort in place by swaps (a handful of roads): the approach to the front, the others after it by
        // angle, ties in their order at the vertex.
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
}
