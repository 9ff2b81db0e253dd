import Foundation
import RoadGraph

/// Counts an import reports for one mode.
public struct ModeGraphStatistics: Sendable {
    public var mode: TravelMode
    public var usableWays = 0
    public var vertices = 0, edges = 0, arcs = 0, transitions = 0
    public var restrictionsViaNode = 0, restrictionsViaWay = 0, restrictionsIgnored = 0
    /// Maneuver relations read and found on this mode's roads, as from → via → to paths.
    public var maneuverRelations = 0, maneuverOverrides = 0
    public var droppedNodeReferences = 0
    public var mainNetworkArcs = 0
    /// Edges over the same nodes as another (a road mapped twice), whose directions the other kept.
    public var duplicateEdges = 0
    /// Pairs of carriageways read as one road at a junction (`mergeDividedRoadBearings`).
    public var mergedCarriageways = 0
    /// Conditional restrictions applied as timed rules, road directions closed at times, and conditional tags
    /// that could not be applied (listed in the graph: `wayfinder info`).
    public var timedRestrictions = 0, timedClosures = 0, conditionNotes = 0
}

/// Builds one mode's graph from the OSM data: usable ways → vertices (junctions, way ends, barriers, via nodes)
/// → edges (compressed chains with shape points) → arcs (usable directions) → transitions (allowed turns, with
/// turn restrictions applied) → connected components → snapping grid.
struct ModeGraphBuilder {
    let osm: OSMData
    let profile: TravelProfile
    var arrays = GraphArrays()
    var statistics: ModeGraphStatistics

    // Build-only state.
    private var rules: [WayRule?] = []
    private var blocked: [Bool] = []  // per OSM node: a barrier this mode cannot pass
    /// Per OSM node with any: the delays it costs this mode (signals, stop and give-way signs).
    private var obstacles: [UInt32: [Obstacle]] = [:]
    /// Per edge and direction: milliseconds of delays at the nodes inside the edge (the vertices' own come with turns).
    private var edgeDelays: [(forward: UInt32, backward: UInt32)] = []
    private var nodeVertex: [UInt32] = []
    private var edgeWay: [Int32] = []
    /// Per edge: its share of its way's `duration` tag (seconds), where the way has one.
    private var edgeDuration: [Double?] = []
    /// Per edge, the lengths of its segments (OSM node to node) at `edgeSegmentStart[e]..<[e + 1]`: travel times
    /// are rounded per segment, as OSRM rounds them.
    private var segmentLengths: [Double] = [], edgeSegmentStart: [Int] = [0]
    private var edgeTail: [UInt32] = [], edgeHead: [UInt32] = []
    private var wayEdges: [Int32: Range<Int>] = [:]  // only for ways named by restrictions
    private var restrictionWays: Set<Int32> = []
    private var arcTail: [UInt32] = []
    /// Edges that repeat another's nodes and lost both directions to it (see `duplicateArcs`): left out of the
    /// edges a junction sees.
    private var duplicateEdges = Set<Int>()
    private var outStart: [UInt32] = [], outArcs: [UInt32] = [], inStart: [UInt32] = [], inArcs: [UInt32] = []
    private var strings: [String: UInt32] = ["": 0]
    private var stringList: [String] = [""]
    private var labels: [[UInt32]: UInt32] = [:]
    /// How many kept ways use each node (capped at 2): 2 means a junction.
    private var usage: [UInt8] = []
    /// Conditional access and oneways read with the edges, applied to arcs once they exist.
    private var pendingClosures: [(edges: Range<Int>, forward: Bool, backward: Bool, condition: String)] = []
    private var notes: [String] = []

    init(osm: OSMData, profile: TravelProfile) {
        self.osm = osm
        self.profile = profile
        statistics = ModeGraphStatistics(mode: profile.mode)
    }

    mutating func build() -> (GraphArrays, maxSpeed: Double, mainMinimum: UInt32, grid: GridGeometry) {
        rules = (0..<osm.wayCount).map { profile.rule(for: osm.wayTags($0)) }
        statistics.usableWays = rules.lazy.filter { $0 != nil }.count
        blocked = Array(repeating: false, count: osm.nodeCount)
        osm.forEachTaggedNode { node, tags in
            let rule = profile.rule(forNode: tags)
            if rule.blocked { blocked[Int(node)] = true }
            if !rule.obstacles.isEmpty { obstacles[node] = rule.obstacles }
        }
        let restrictions = profile.obeysTurnRestrictions ? RestrictionParser.parse(osm, mode: profile.mode) : []
        let restrictionRelations = (0..<osm.relationCount).count { osm.relation($0).tags["type"] == "restriction" }
        statistics.restrictionsIgnored = profile.obeysTurnRestrictions ? restrictionRelations - restrictions.count : 0
        let (timedRestrictions, restrictionNotes) = profile.obeysTurnRestrictions
            ? RestrictionParser.parseTimed(osm, mode: profile.mode) : ([], [])
        notes = restrictionNotes
        let maneuvers = ManeuverRelationParser.parse(osm)
        statistics.maneuverRelations = maneuvers.count
        var viaNodes = Set<UInt32>()
        for m in maneuvers {
            if let index = osm.nodeIndex(ofID: m.viaNode) { viaNodes.insert(index) }
            for w in [m.from, m.to] + m.viaWays { if let i = wayIndex(w) { restrictionWays.insert(i) } }
        }
        for r in restrictions {
            if case .node(let id) = r.via, let index = osm.nodeIndex(ofID: id) { viaNodes.insert(index) }
            for w in r.from + r.to { if let i = wayIndex(w) { restrictionWays.insert(i) } }
            if case .ways(let ids) = r.via { for w in ids { if let i = wayIndex(w) { restrictionWays.insert(i) } } }
        }
        for timed in timedRestrictions {
            let r = timed.restriction
            if case .node(let id) = r.via, let index = osm.nodeIndex(ofID: id) { viaNodes.insert(index) }
            for w in r.from + r.to { if let i = wayIndex(w) { restrictionWays.insert(i) } }
            if case .ways(let ids) = r.via { for w in ids { if let i = wayIndex(w) { restrictionWays.insert(i) } } }
        }
        findVertices(forced: viaNodes)
        buildEdges()
        // OSRM walks platform areas along their outline only.
        if profile.mode == .walking && profile.compatibility == .wayfinder { addAreaCrossings() }
        buildArcs()
        buildVertexEdges()
        let breaks = readOSRMEdges()
        arrays.computeEdgeEnds(classesPart: profile.hasClasses, breaks: breaks)
        mergedAway = arrays.mergeDividedRoadBearings(joining: joinedThrough, strings: stringList, breaks: breaks)
        statistics.mergedCarriageways = mergedAway.count { $0 }
        addManeuverOverrides(maneuvers)
        addTimedClosures()
        var transitions = buildTransitions(viaNodeRules: restrictions.filter { $0.isViaNode })
        addTimedTurns(timedRestrictions.filter(\.restriction.isViaNode), transitions: transitions)
        statistics.restrictionsIgnored = max(0, statistics.restrictionsIgnored - statistics.timedRestrictions)
        statistics.conditionNotes = notes.count
        arrays.conditionNotes = notes.map { intern($0) }
        applyViaWayRestrictions(restrictions.filter { !$0.isViaNode }.map { ($0, nil) }
                                    + timedRestrictions.filter { !$0.restriction.isViaNode }.map { ($0.restriction, $0.condition) },
                                transitions: &transitions)
        arrays.transitionWeight = turnWeights(transitions)
        addRestrictedCopies(&transitions)
        arrays.transitionStart = transitions.start
        arrays.transitionTargets = transitions.targets
        statistics.transitions = transitions.targets.count
        statistics.arcs = arrays.arcHead.count
        let (component, sizes) = ConnectedComponents.compute(
            count: arrays.arcHead.count, start: transitions.start, targets: transitions.targets)
        arrays.arcComponent = component
        arrays.componentSize = sizes
        let (strong, strongSizes) = StronglyConnectedComponents.compute(
            count: arrays.arcHead.count, start: transitions.start, targets: transitions.targets)
        let core = strongSizes.indices.max { strongSizes[$0] < strongSizes[$1] }.map(UInt32.init)
        arrays.arcInCore = strong.map { $0 == core ? 1 : 0 }
        // Components under 1,000 arcs (OSRM's threshold) are islands: a private campus, a car park.
        let largest = sizes.max() ?? 1
        let mainMinimum = max(1, min(1000, largest))
        statistics.mainNetworkArcs = component.lazy.filter { sizes[Int($0)] >= mainMinimum }.count
        for string in stringList {
            arrays.stringBytes.append(contentsOf: Array(string.utf8))
            arrays.stringOffsets.append(UInt32(arrays.stringBytes.count))
        }
        let grid = SegmentGrid.build(into: &arrays)
        return (arrays, topSpeed(), UInt32(mainMinimum), grid)
    }

    /// The fastest any arc is travelled by the route choice's measure (metres per second of weight): what the
    /// A* heuristic divides distance by, so it must be the true maximum, ferries with a `duration` included.
    private func topSpeed() -> Double {
        var top = 0.0
        for a in 0..<arrays.arcHead.count where arrays.arcWeight[a] > 0 {
            let length = Double(arrays.edgeLength[Int(arrays.arcEdge[a] >> 1)])
            top = max(top, length / (Double(arrays.arcWeight[a]) / 1000))
        }
        return top
    }

    private func wayIndex(_ id: Int64) -> Int32? { osm.wayIndex(ofID: id) }

    /// The way's node indices without missing nodes and without immediate repeats.
    private func cleanedNodes(ofWay way: Int, into buffer: inout [UInt32]) -> Int {
        buffer.removeAll(keepingCapacity: true)
        var dropped = 0
        for node in osm.nodes(ofWay: way) {
            guard osm.hasCoordinate(node) else { dropped += 1; continue }
            if buffer.last != node { buffer.append(node) }
        }
        return dropped
    }

    private mutating func findVertices(forced: Set<UInt32>) {
        usage = [UInt8](repeating: 0, count: osm.nodeCount)
        var isVertex = [Bool](repeating: false, count: osm.nodeCount)
        var buffer: [UInt32] = []
        for way in 0..<osm.wayCount where rules[way] != nil {
            statistics.droppedNodeReferences += cleanedNodes(ofWay: way, into: &buffer)
            guard buffer.count >= 2 else { continue }
            for node in buffer { usage[Int(node)] = min(2, usage[Int(node)] + 1) }
            isVertex[Int(buffer[0])] = true
            isVertex[Int(buffer[buffer.count - 1])] = true
        }
        nodeVertex = Array(repeating: noIndex, count: osm.nodeCount)
        for node in 0..<osm.nodeCount where usage[node] > 0 {
            // Obstacles whose cost depends on the turn (stop signs) are priced at vertices.
            let turnDependent = obstacles[UInt32(node)]?.contains { $0.kind == .minorStop } ?? false
            if usage[node] >= 2 || blocked[node] || turnDependent || forced.contains(UInt32(node)) { isVertex[node] = true }
            if isVertex[node] { nodeVertex[node] = Self.unnumbered }  // numbered as edges reach them
        }
    }

    /// Marks a node that is a vertex but has no number yet.
    private static let unnumbered = UInt32.max - 1

    private mutating func vertex(ofNode node: UInt32) -> UInt32 {
        if nodeVertex[Int(node)] == Self.unnumbered {
            nodeVertex[Int(node)] = UInt32(arrays.vertexLatitudes.count)
            arrays.vertexLatitudes.append(osm.nodeLatitudes[Int(node)])
            arrays.vertexLongitudes.append(osm.nodeLongitudes[Int(node)])
        }
        return nodeVertex[Int(node)]
    }

    private mutating func buildEdges() {
        var buffer: [UInt32] = []
        for way in 0..<osm.wayCount {
            guard let rule = rules[way] else { continue }
            _ = cleanedNodes(ofWay: way, into: &buffer)
            guard buffer.count >= 2 else { continue }
            let tags = osm.wayTags(way)
            let info = EdgeInfo(label: label(for: tags), ref: intern(TravelProfile.ref(tags)), flags: flags(rule),
                                pronunciation: intern(rule.pronunciation), exits: intern(rule.exits))
            // A `duration` is spread over the way by length.
            var wayLength = 0.0
            if rule.duration != nil {
                for k in 1..<buffer.count { wayLength += Geo.osrmRulerDistance(coordinate(buffer[k - 1]), coordinate(buffer[k])) }
            }
            let firstEdge = arrays.edgeLength.count
            var start = 0
            for i in 1..<buffer.count where nodeVertex[Int(buffer[i])] != noIndex {
                addEdge(nodes: buffer[start...i], way: way, info: info, rule: rule, wayLength: wayLength)
                start = i
            }
            if restrictionWays.contains(Int32(way)) { wayEdges[Int32(way)] = firstEdge..<arrays.edgeLength.count }
            readTimedTags(tags, way: way, edges: firstEdge..<arrays.edgeLength.count)
        }
        statistics.vertices = arrays.vertexLatitudes.count
        statistics.edges = arrays.edgeLength.count
    }

    struct EdgeInfo {
        var label: UInt32, ref: UInt32
        var flags: EdgeFlags
        var pronunciation: UInt32, exits: UInt32
    }

    private func flags(_ rule: WayRule) -> EdgeFlags {
        var flags = rule.flags
        if !rule.isStartpoint { flags.insert(.notStartpoint) }
        return flags
    }

    private func coordinate(_ node: UInt32) -> Coordinate {
        Coordinate(fixedLatitude: osm.nodeLatitudes[Int(node)], fixedLongitude: osm.nodeLongitudes[Int(node)])
    }

    /// Platforms mapped as areas are crossed, not only walked round: straight edges join the places where other
    /// paths meet the outline, wherever the straight line stays inside the area.
    private mutating func addAreaCrossings() {
        var buffer: [UInt32] = []
        for way in 0..<osm.wayCount {
            guard let rule = rules[way], rule.flags.intersection([.ferry, .train]).isEmpty else { continue }
            let tags = osm.wayTags(way)
            // Platforms only: squares are walked round, as OSRM does; joining their many entries would multiply
            // the turns at those vertices (and the contraction's work) for a small gain.
            let isPlatform = tags["railway"] == "platform" || tags["public_transport"] == "platform"
            guard isPlatform else { continue }
            _ = cleanedNodes(ofWay: way, into: &buffer)
            guard buffer.count >= 4, buffer.first == buffer.last else { continue }
            let ring = buffer.map(coordinate)
            let entries = Array(Set(buffer.dropLast().filter { usage[Int($0)] >= 2 })).sorted()
            guard entries.count >= 2, entries.count <= 60 else { continue }
            let info = EdgeInfo(label: label(for: tags), ref: intern(TravelProfile.ref(tags)), flags: flags(rule),
                                pronunciation: intern(rule.pronunciation), exits: intern(rule.exits))
            // Each entry is joined to its nearest few visible entries, not to all: a crossing of a large square
            // stays nearly straight, and no vertex gets dozens of roads (which the contraction pays for).
            var joined = Set<[UInt32]>()
            for a in entries {
                let p = coordinate(a)
                let others = entries.filter { $0 != a }.sorted { Geo.distance(p, coordinate($0)) < Geo.distance(p, coordinate($1)) }
                var added = 0
                for b in others where added < Self.areaCrossingsPerEntry {
                    let key = a < b ? [a, b] : [b, a]
                    // Neighbours on the outline are joined by it already.
                    if let k = buffer.firstIndex(of: a), buffer[k + 1] == b || (k > 0 && buffer[k - 1] == b) { continue }
                    guard Self.segment(p, coordinate(b), staysInside: ring) else { continue }
                    added += 1
                    if joined.insert(key).inserted {
                        addEdge(nodes: [a, b][...], way: way, info: info, rule: rule, wayLength: 0)
                    }
                }
            }
        }
        statistics.edges = arrays.edgeLength.count
    }

    static let areaCrossingsPerEntry = 2

    /// Whether the straight line p–q lies inside a closed ring: it crosses no side of it, and its middle is inside.
    static func segment(_ p: Coordinate, _ q: Coordinate, staysInside ring: [Coordinate]) -> Bool {
        func cross(_ o: Coordinate, _ a: Coordinate, _ b: Coordinate) -> Double {
            (a.longitude - o.longitude) * (b.latitude - o.latitude) - (a.latitude - o.latitude) * (b.longitude - o.longitude)
        }
        for k in 0..<(ring.count - 1) {
            let a = ring[k], b = ring[k + 1]
            if a == p || a == q || b == p || b == q { continue }
            let d1 = cross(p, q, a), d2 = cross(p, q, b), d3 = cross(a, b, p), d4 = cross(a, b, q)
            if d1 * d2 < 0 && d3 * d4 < 0 { return false }
        }
        let middle = Coordinate(latitude: (p.latitude + q.latitude) / 2, longitude: (p.longitude + q.longitude) / 2)
        var inside = false
        for k in 0..<(ring.count - 1) {
            let a = ring[k], b = ring[k + 1]
            if (a.latitude > middle.latitude) != (b.latitude > middle.latitude) {
                let x = a.longitude + (middle.latitude - a.latitude) / (b.latitude - a.latitude) * (b.longitude - a.longitude)
                if middle.longitude < x { inside.toggle() }
            }
        }
        return inside
    }

    private mutating func intern(_ string: String) -> UInt32 {
        if let id = strings[string] { return id }
        let id = UInt32(stringList.count)
        strings[string] = id
        stringList.append(string)
        return id
    }

    /// The way's `name` and its `name:xx` translations, interned as one label.
    private mutating func label(for tags: Tags) -> UInt32 {
        var entries: [UInt32] = []
        if let name = tags["name"] { entries += [intern(""), intern(name)] }
        for (key, value) in tags.pairs where key.hasPrefix("name:") {
            let language = String(key.dropFirst(5))
            guard Self.isLanguageCode(language) else { continue }  // not name:etymology, name:prefix, …
            entries += [intern(language), intern(value)]
        }
        if let id = labels[entries] { return id }
        let id = UInt32(labels.count)
        labels[entries] = id
        arrays.labelEntries += entries
        arrays.labelStart.append(UInt32(arrays.labelEntries.count / 2))
        return id
    }

    /// `fi`, `zh`, `zh-Hans`, `zh_Hant`, `sr-Latn`: a language with an optional script or region.
    static func isLanguageCode(_ s: String) -> Bool {
        let parts = s.split(separator: "-", maxSplits: 1).flatMap { $0.split(separator: "_", maxSplits: 1) }
        guard let language = parts.first, (2...3).contains(language.count), language.allSatisfy({ $0.isASCII && $0.isLowercase })
        else { return false }
        return parts.count == 1 || (parts.count == 2 && (2...4).contains(parts[1].count) && parts[1].allSatisfy { $0.isASCII && $0.isLetter })
    }

    /// Every edge at each vertex, for intersection bearings.
    private mutating func buildVertexEdges() {
        let vertexCount = arrays.vertexLatitudes.count
        var start = [UInt32](repeating: 0, count: vertexCount + 1)
        for e in 0..<edgeTail.count where !duplicateEdges.contains(e) {
            start[Int(edgeTail[e]) + 1] += 1
            start[Int(edgeHead[e]) + 1] += 1
        }
        for i in 0..<vertexCount { start[i + 1] += start[i] }
        var fill = start
        var entries = [UInt32](repeating: 0, count: Int(start[vertexCount]))
        for e in 0..<edgeTail.count where !duplicateEdges.contains(e) {
            entries[Int(fill[Int(edgeTail[e])])] = UInt32(e) << 1
            fill[Int(edgeTail[e])] += 1
            entries[Int(fill[Int(edgeHead[e])])] = UInt32(e) << 1 | 1
            fill[Int(edgeHead[e])] += 1
        }
        arrays.vertexEdgeStart = start
        arrays.vertexEdges = entries
    }

    private mutating func addEdge(nodes: ArraySlice<UInt32>, way: Int, info: EdgeInfo, rule: WayRule, wayLength: Double) {
        var length = 0.0
        var segments: [Double] = []
        let points = nodes.map(coordinate)
        for k in 1..<points.count {
            let d = Geo.osrmRulerDistance(points[k - 1], points[k])
            segments.append(d)
            length += d
        }
        segmentLengths += segments
        edgeSegmentStart.append(segmentLengths.count)
        // Delays at the nodes inside the edge, for the directions that pass them (the ends are vertices, priced
        // with the turns there). A stop sign facing no direction on a two-road node belongs to the junction just
        // behind when the road before it is short and the one after long (OSRM's 20 m rule).
        var forward: UInt32 = 0, backward: UInt32 = 0
        let inner = Array(nodes)
        for k in 1..<(inner.count - 1) {
            guard let here = obstacles[inner[k]] else { continue }
            var nodeForward = 0.0, nodeBackward = 0.0
            for obstacle in here {
                if obstacle.direction != .backward && !Self.belongsBehind(obstacle, before: segments[k - 1], after: segments[k]) {
                    nodeForward += obstacle.seconds
                }
                if obstacle.direction != .forward && !Self.belongsBehind(obstacle, before: segments[k], after: segments[k - 1]) {
                    nodeBackward += obstacle.seconds
                }
            }
            // A bike passing signals where only two roads meet turns by 180° to OSRM (see `turnWeights`), both ways;
            // its turn cost (the angle's, then the signals') is kept in tenths of a second, cut down as OSRM cuts it.
            if profile.mode == .cycling && here.contains(where: { $0.kind == .signals }) {
                let turn = profile.turnPenalty(angle: 180, roads: 2, isUturn: false)
                nodeForward = ((turn + nodeForward) * 10).rounded(.down) / 10
                nodeBackward = ((turn + nodeBackward) * 10).rounded(.down) / 10
            }
            let (ms, msBack) = (UInt32((nodeForward * 1000).rounded()), UInt32((nodeBackward * 1000).rounded()))
            guard ms > 0 || msBack > 0 else { continue }
            arrays.interiorDelays.append(InteriorDelay(shapePoint: UInt32(arrays.shapeLatitudes.count + k), forward: ms, backward: msBack))
            forward += ms
            backward += msBack
        }
        edgeDelays.append((forward, backward))
        for node in nodes {
            arrays.shapeLatitudes.append(osm.nodeLatitudes[Int(node)])
            arrays.shapeLongitudes.append(osm.nodeLongitudes[Int(node)])
            arrays.shapeNodeIDs.append(osm.nodeIDs[Int(node)])
        }
        arrays.edgeShapeStart.append(UInt32(arrays.shapeLatitudes.count))
        arrays.edgeLength.append(Float(length))
        arrays.edgeLabel.append(info.label)
        arrays.edgeRef.append(info.ref)
        arrays.edgeFlags.append(info.flags.rawValue)
        arrays.edgePronunciation.append(info.pronunciation)
        arrays.edgeExits.append(info.exits)
        arrays.edgeLanes.append(UInt8(min(255, rule.lanes)))
        arrays.edgeClass.append(rule.roadClass.rawValue)
        let e = arrays.edgeClass.count - 1
        if e % 8 == 0 { arrays.edgeUnpaved.append(0) }
        if rule.unpaved { arrays.edgeUnpaved[e / 8] |= 1 << UInt8(e % 8) }
        edgeWay.append(Int32(way))
        edgeDuration.append(rule.duration.map { wayLength > 0 ? $0 * length / wayLength : $0 })
        edgeTail.append(vertex(ofNode: nodes.first!))
        edgeHead.append(vertex(ofNode: nodes.last!))
    }

    /// A stop sign without a direction, on a node between a short road (under 20 m) and a long one: it stands for
    /// the junction behind, not for this node.
    static func belongsBehind(_ obstacle: Obstacle, before: Double, after: Double) -> Bool {
        switch obstacle.kind {
        case .minorStop: return true  // counted only at junctions, entering from the slower road
        case .stop: return obstacle.direction == .any && before < 20 && after > 20
        default: return false
        }
    }

    private mutating func buildArcs() {
        let edgeCount = arrays.edgeLength.count
        arrays.edgeForwardArc = Array(repeating: noIndex, count: edgeCount)
        arrays.edgeBackwardArc = Array(repeating: noIndex, count: edgeCount)
        let limit = Double(RoadGraph.maxArcWeight)
        let skipped = duplicateArcs()
        // Per arc, its weight before rounding (milliseconds): the fastest any road really is, for the cap below.
        var exactWeight: [Double] = []
        // Each segment's own time and weight, for traffic files (see `GraphArrays.importSegmentWeight`).
        let segments = 2 * (arrays.shapeLatitudes.count - edgeCount)
        // Filled apart from `arrays` (which `cost` reads), then moved in.
        var segmentDuration = [UInt32](repeating: 0, count: segments), segmentWeight = segmentDuration
        defer { arrays.importSegmentDuration = segmentDuration; arrays.importSegmentWeight = segmentWeight }
        for e in 0..<edgeCount {
            let rule = rules[Int(edgeWay[e])]!
            let base = Int(arrays.edgeShapeStart[e]) - e
            let aligned = edgeSegmentStart[e + 1] - edgeSegmentStart[e] == Int(arrays.edgeShapeStart[e + 1] - arrays.edgeShapeStart[e]) - 1
            for reversed in [false, true] {
                guard let direction = reversed ? rule.backward : rule.forward, !skipped.contains(e << 1 | (reversed ? 1 : 0)),
                      let (duration, weight, exact) = cost(ofEdge: e, reversed: reversed, segment: { k, d, w in
                          guard aligned else { return }
                          let i = 2 * (base + k) + (reversed ? 1 : 0)
                          segmentDuration[i] = UInt32(min(Double(RoadGraph.maxArcWeight), d))
                          segmentWeight[i] = UInt32(min(Double(RoadGraph.maxArcWeight), w))
                      }) else { continue }
                exactWeight.append(exact)
                let arc = UInt32(arrays.arcHead.count)
                arrays.arcEdge.append(UInt32(e) << 1 | (reversed ? 1 : 0))
                arrays.arcHead.append(reversed ? edgeTail[e] : edgeHead[e])
                arcTail.append(reversed ? edgeHead[e] : edgeTail[e])
                arrays.arcWeight.append(UInt32(min(limit, weight)))
                arrays.arcDuration.append(UInt32(min(limit, duration)))
                arrays.arcClasses.append(direction.classes.rawValue)
                arrays.arcDestinations.append(intern(direction.destinations))
                arrays.arcTurnLanes.append(intern(direction.turnLanes))
                arrays.arcBase.append(arc)
                if reversed { arrays.edgeBackwardArc[e] = arc } else { arrays.edgeForwardArc[e] = arc }
            }
        }
        // Rounding down can make a short arc (one segment of 0.149 s becomes 0.1 s) up to half again as fast as
        // any road is, and the A* bound divides by the fastest arc. Those arcs keep at least the weight of 2 %
        // over the fastest true speed (a few hundredths of a second more than OSRM's weight on them; their
        // durations stay OSRM's). With OSRM's rules they keep OSRM's weight, and the bound is the fastest arc as
        // rounded (`topSpeed`): A* then looks further, and weights are OSRM's to the tenth (PROFILES.md, section 6).
        var fastest = 0.0
        for a in exactWeight.indices where exactWeight[a] > 0 && profile.compatibility != .osrm {
            fastest = max(fastest, Double(arrays.edgeLength[Int(arrays.arcEdge[a] >> 1)]) / exactWeight[a])
        }
        if fastest > 0 {
            let cap = fastest * 1.02
            for a in exactWeight.indices {
                let least = (Double(arrays.edgeLength[Int(arrays.arcEdge[a] >> 1)]) / cap).rounded(.up)
                if Double(arrays.arcWeight[a]) < least { arrays.arcWeight[a] = UInt32(min(limit, least)) }
            }
        }
        let vertexCount = arrays.vertexLatitudes.count
        (outStart, outArcs) = Self.groupArcs(by: arcTail, vertexCount: vertexCount)
        (inStart, inArcs) = Self.groupArcs(by: arrays.arcHead, vertexCount: vertexCount)
    }

    /// Travel time and weight of an edge's direction (milliseconds, and the weight before rounding), nil where the
    /// mode may not go that way. From the way's `duration` where it has one (shared out by length), else from its
    /// speed; the route choice divides it by the direction's penalty. Each segment's time and weight is rounded to
    /// a tenth of a second, at least one tenth, as OSRM stores them.
    private func cost(ofEdge e: Int, reversed: Bool, segment: (_ k: Int, _ duration: Double, _ weight: Double) -> Void = { _, _, _ in })
        -> (duration: Double, weight: Double, exact: Double)?
    {
        let rule = rules[Int(edgeWay[e])]!
        guard let direction = reversed ? rule.backward : rule.forward else { return nil }
        let length = Double(arrays.edgeLength[e])
        let delay = Double(reversed ? edgeDelays[e].backward : edgeDelays[e].forward)
        var duration = delay, weight = delay, exact = delay
        for k in edgeSegmentStart[e]..<edgeSegmentStart[e + 1] {
            let seconds = edgeDuration[e].map { length > 0 ? $0 * segmentLengths[k] / length : $0 }
                ?? segmentLengths[k] / (direction.speed / 3.6)
            let segmentDuration = 100 * max(1, (seconds * 10).rounded())
            let segmentWeight = 100 * max(1, (seconds / direction.penalty * 10).rounded())
            segment(k - edgeSegmentStart[e], segmentDuration, segmentWeight)
            duration += segmentDuration
            weight += segmentWeight
            exact += 1000 * seconds / direction.penalty
        }
        return (duration, weight, exact)
    }

    /// Two ways drawn over the same nodes (a road mapped twice, a common mistake) would make every shared node a
    /// junction of two identical roads: a fork that is not there. As OSRM does, one edge per node sequence and
    /// direction is kept, the one of least weight, then time; on a tie the one with a name (or a ref, exits, a
    /// pronunciation) before one without, and of two names the first in byte order, as OSRM sorts them (a platform
    /// with a ref over a footway without: the platform); else the first. The others' directions (`e << 1 |
    /// reversed`) are returned, and edges that keep neither direction go to `duplicateEdges`.
    private mutating func duplicateArcs() -> Set<Int> {
        let unlabelled = labels[[]], empty = strings[""]!
        // OSRM's sort key among equal costs: nil for an edge without a name of any kind, else its name.
        func name(_ e: Int) -> [UInt8]? {
            let label = arrays.edgeLabel[e]
            let named = label != unlabelled || [arrays.edgeRef[e], arrays.edgePronunciation[e], arrays.edgeExits[e]].contains { $0 != empty }
            guard named else { return nil }
            for k in Int(arrays.labelStart[Int(label)])..<Int(arrays.labelStart[Int(label) + 1]) where stringList[Int(arrays.labelEntries[2 * k])].isEmpty {
                return Array(stringList[Int(arrays.labelEntries[2 * k + 1])].utf8)
            }
            return []
        }
        func sortsBefore(_ a: Int, _ b: Int) -> Bool {
            switch (name(a), name(b)) {
            case let (x?, y?): return x.lexicographicallyPrecedes(y)
            case (.some, nil): return true
            default: return false
            }
        }
        // Candidates first by their ends (a plain pair per edge, no array), then by their whole node sequence.
        struct Ends: Hashable { var low: Int64, high: Int64 }
        var byEnds: [Ends: [Int]] = [:]
        for e in 0..<arrays.edgeLength.count {
            let a = arrays.shapeNodeIDs[Int(arrays.edgeShapeStart[e])], b = arrays.shapeNodeIDs[Int(arrays.edgeShapeStart[e + 1]) - 1]
            byEnds[Ends(low: min(a, b), high: max(a, b)), default: []].append(e)
        }
        var skipped = Set<Int>()
        for group in byEnds.values where group.count > 1 {
            // Each direction of travel as its node sequence: the best arc over it wins.
            var best: [[Int64]: (arc: Int, weight: Double, duration: Double)] = [:]
            for e in group {
                let shape = Int(arrays.edgeShapeStart[e])..<Int(arrays.edgeShapeStart[e + 1])
                let nodes = Array(arrays.shapeNodeIDs[shape])
                for reversed in [false, true] {
                    guard let (duration, weight, _) = cost(ofEdge: e, reversed: reversed) else { continue }
                    let key = reversed ? Array(nodes.reversed()) : nodes
                    let arc = e << 1 | (reversed ? 1 : 0)
                    if let held = best[key] {
                        let better = weight != held.weight ? weight < held.weight
                            : duration != held.duration ? duration < held.duration : sortsBefore(e, held.arc >> 1)
                        if better { skipped.insert(held.arc); best[key] = (arc, weight, duration) } else { skipped.insert(arc) }
                    } else {
                        best[key] = (arc, weight, duration)
                    }
                }
            }
        }
        for e in Set(skipped.map { $0 >> 1 }) {
            let rule = rules[Int(edgeWay[e])]!
            let forwardGone = rule.forward == nil || skipped.contains(e << 1)
            let backwardGone = rule.backward == nil || skipped.contains(e << 1 | 1)
            if forwardGone && backwardGone { duplicateEdges.insert(e) }
        }
        statistics.duplicateEdges = duplicateEdges.count
        return skipped
    }

    /// CSR of arcs grouped by a vertex key.
    private static func groupArcs(by key: [UInt32], vertexCount: Int) -> ([UInt32], [UInt32]) {
        var start = [UInt32](repeating: 0, count: vertexCount + 1)
        for v in key { start[Int(v) + 1] += 1 }
        for i in 0..<vertexCount { start[i + 1] += start[i] }
        var fill = start
        var arcs = [UInt32](repeating: 0, count: key.count)
        for (arc, v) in key.enumerated() {
            arcs[Int(fill[Int(v)])] = UInt32(arc)
            fill[Int(v)] += 1
        }
        return (start, arcs)
    }

    private func arcsLeaving(_ v: UInt32) -> ArraySlice<UInt32> { outArcs[Int(outStart[Int(v)])..<Int(outStart[Int(v) + 1])] }
    private func arcsEntering(_ v: UInt32) -> ArraySlice<UInt32> { inArcs[Int(inStart[Int(v)])..<Int(inStart[Int(v) + 1])] }

    private func twin(of arc: UInt32) -> UInt32 {
        let packed = arrays.arcEdge[Int(arc)]
        let e = Int(packed >> 1)
        return packed & 1 == 1 ? arrays.edgeForwardArc[e] : arrays.edgeBackwardArc[e]
    }

    /// The built graph as one of vertices (see `VertexReduction`), or nil where some vertex does not allow it.
    func vertexReduction() -> VertexReduction? {
        let arcs = arrays.arcHead.count
        // A turn forbidden at times is an edge of its own in a hierarchy over arcs (see `GraphImporter.contract`).
        guard arcs > 0, arcTail.count == arcs, arrays.arcBase.indices.allSatisfy({ arrays.arcBase[$0] == UInt32($0) }),
              !arrays.timedRules.contains(where: \.isTurn) else {
            return nil
        }
        // Per vertex: unknown (no arc has said), a cost, or blocked.
        let unknown = UInt32.max - 1
        var cost = [UInt32](repeating: unknown, count: arrays.vertexLatitudes.count)
        for a in 0..<UInt32(arcs) {
            let v = arrays.arcHead[Int(a)], back = twin(of: a)
            let others = arcsLeaving(v).count - (back != noIndex ? 1 : 0)
            let turns = Int(arrays.transitionStart[Int(a)])..<Int(arrays.transitionStart[Int(a) + 1])
            let says: UInt32
            if turns.allSatisfy({ arrays.transitionTargets[$0] == back }) {
                if others == 0 { continue }  // a dead end: U-turns only, which no shortest path takes
                says = noIndex
            } else {
                // Every arc leaving but the way back, once each, all at one cost.
                guard turns.count == others, let first = turns.first else { return nil }
                let weight = arrays.transitionWeight[first]
                for i in turns {
                    let b = arrays.transitionTargets[i]
                    guard b != back, arcTail[Int(b)] == v, arrays.transitionWeight[i] == weight,
                          !arrays.transitionTargets[turns.lowerBound..<i].contains(b) else { return nil }
                }
                says = weight
            }
            if cost[Int(v)] == unknown { cost[Int(v)] = says } else if cost[Int(v)] != says { return nil }
        }
        for v in cost.indices where cost[v] == unknown { cost[v] = 0 }
        return VertexReduction(cost: cost, tail: arcTail)
    }

    private func way(ofArc arc: UInt32) -> Int32 { edgeWay[Int(arrays.arcEdge[Int(arc)] >> 1)] }

    struct Transitions {
        var start: [UInt32] = [0]
        var targets: [UInt32] = []
    }

    /// Allowed turns: every arc leaving the head, except the U-turn back along the same edge (allowed only at dead
    /// ends and at barriers, where it is the only way on), minus via-node turn restrictions.
    private mutating func buildTransitions(viaNodeRules: [TurnRestriction]) -> Transitions {
        var forbidden: [UInt32: Set<UInt32>] = [:]
        var only: [UInt32: Set<UInt32>] = [:]
        for r in viaNodeRules {
            guard case .node(let id) = r.via, let node = osm.nodeIndex(ofID: id) else { continue }
            let v = nodeVertex[Int(node)]
            guard v != noIndex else { continue }
            let fromWays = Set(r.from.compactMap(wayIndex)), toWays = Set(r.to.compactMap(wayIndex))
            let fromArcs = arcsEntering(v).filter { fromWays.contains(way(ofArc: $0)) }
            let toArcs = arcsLeaving(v).filter { toWays.contains(way(ofArc: $0)) }
            guard !fromArcs.isEmpty, !toArcs.isEmpty else { continue }
            statistics.restrictionsViaNode += 1
            for a in fromArcs {
                if r.isOnly { only[a, default: []].formUnion(toArcs) } else { forbidden[a, default: []].formUnion(toArcs) }
            }
        }
        var t = Transitions()
        t.targets.reserveCapacity(arrays.arcHead.count * 3)
        for a in 0..<UInt32(arrays.arcHead.count) {
            let v = arrays.arcHead[Int(a)]
            let back = twin(of: a)
            let leaving = arcsLeaving(v)
            if let allowed = only[a] {
                t.targets.append(contentsOf: leaving.filter { allowed.contains($0) })
            } else if blocked[Int(osmNode(ofVertex: v))] {
                if back != noIndex { t.targets.append(back) }
            } else {
                let banned = forbidden[a]
                var added = false
                for b in leaving where b != back && !(banned?.contains(b) ?? false) {
                    t.targets.append(b)
                    added = true
                }
                let deadEnd = !leaving.contains { $0 != back }
                if !added && deadEnd && back != noIndex { t.targets.append(back) }
            }
            t.start.append(UInt32(t.targets.count))
        }
        return t
    }

    /// The mode's conditional access (`access:conditional=no @ (…)` and its mode forms, most specific key first)
    /// and `oneway:conditional`: what closes a direction of the road at times is kept for `addTimedClosures`; what
    /// would open a closed road, or asks for more than a time, is noted.
    private mutating func readTimedTags(_ tags: Tags, way: Int, edges: Range<Int>) {
        guard !edges.isEmpty else { return }
        let (accessKeys, onewayKeys) = Self.conditionalKeys[profile.mode]!
        let wayID = osm.wayIDs[way]
        func parts(_ key: String) -> [ConditionalValue]? {
            guard let text = tags[key] else { return nil }
            guard let parts = ConditionalValue.parse(text) else {
                notes.append("way \(wayID) \(key)=\(text): no `value @ condition`")
                return nil
            }
            return parts.filter { part in
                if OpeningHours(part.condition) != nil { return true }
                notes.append("way \(wayID) \(key)=\(text): `\(part.condition)` is not a time condition this engine reads")
                return false
            }
        }
        if let key = accessKeys.first(where: { tags[$0] != nil }), let parts = parts(key) {
            for part in parts {
                let values = part.value.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
                if values.contains(where: { Self.timedOpenValues.contains($0) || $0 == profile.mode.rawValue }) { continue }
                if values.contains("destination") {
                    notes.append("way \(wayID) \(key)=\(tags[key]!): destination-only at times is not applied")
                    continue
                }
                pendingClosures.append((edges, true, true, part.condition))
            }
        }
        if let key = onewayKeys.first(where: { tags[$0] != nil }), let parts = parts(key) {
            for part in parts {
                switch part.value {
                case "yes", "1", "true": pendingClosures.append((edges, false, true, part.condition))
                case "-1": pendingClosures.append((edges, true, false, part.condition))
                default: notes.append("way \(wayID) \(key)=\(tags[key]!): only `yes` and `-1` are applied")
                }
            }
        }
        if let text = tags["maxspeed:conditional"] {
            notes.append("way \(wayID) maxspeed:conditional=\(text): speeds that change with the time are not applied")
        }
    }

    /// Per mode, its conditional access keys and oneway keys, most specific first (worked out once, not per way).
    static let conditionalKeys: [TravelMode: (access: [String], oneway: [String])] = {
        let access: [TravelMode: [String]] = [.driving: TravelProfile.drivingAccessKeys, .walking: TravelProfile.walkingAccessKeys,
                                              .cycling: TravelProfile.cyclingAccessKeys]
        let oneway: [TravelMode: [String]] = [.driving: ["oneway:motorcar", "oneway:motor_vehicle", "oneway:vehicle", "oneway"],
                                              .walking: ["oneway:foot"], .cycling: ["oneway:bicycle", "oneway"]]
        return Dictionary(uniqueKeysWithValues: TravelMode.allCases.map { mode in
            (mode, (access[mode]!.map { $0 + ":conditional" }, oneway[mode]!.map { $0 + ":conditional" }))
        })
    }()

    /// Values of a conditional access tag that leave the road open (as the plain tag would).
    static let timedOpenValues: Set<String> = ["yes", "permissive", "designated", "vehicle", "motor_vehicle", "motorcar"]

    private mutating func addTimedClosures() {
        for closure in pendingClosures {
            let condition = intern(closure.condition)
            for e in closure.edges {
                for (closes, arc) in [(closure.forward, arrays.edgeForwardArc[e]), (closure.backward, arrays.edgeBackwardArc[e])]
                where closes && arc != noIndex {
                    arrays.timedRules.append(TimedRule(from: arc, condition: condition))
                    arrays.arcClasses[Int(arc)] |= ArcClasses.timed.rawValue
                    statistics.timedClosures += 1
                }
            }
        }
        pendingClosures = []
    }

    /// Conditional via-node restrictions as timed turn rules: for `no_*` the turns it names, for `only_*` every
    /// other turn from its from-arcs, each forbidden while the condition holds.
    private mutating func addTimedTurns(_ restrictions: [TimedTurnRestriction], transitions t: Transitions) {
        for timed in restrictions {
            let r = timed.restriction
            guard case .node(let id) = r.via, let node = osm.nodeIndex(ofID: id) else { continue }
            let v = nodeVertex[Int(node)]
            guard v != noIndex else { continue }
            let fromWays = Set(r.from.compactMap(wayIndex)), toWays = Set(r.to.compactMap(wayIndex))
            let fromArcs = arcsEntering(v).filter { fromWays.contains(way(ofArc: $0)) }
            let toArcs = Set(arcsLeaving(v).filter { toWays.contains(way(ofArc: $0)) })
            guard !fromArcs.isEmpty, !toArcs.isEmpty else { continue }
            let condition = intern(timed.condition)
            for a in fromArcs {
                for b in t.targets[Int(t.start[Int(a)])..<Int(t.start[Int(a) + 1])] where toArcs.contains(b) != r.isOnly {
                    arrays.timedRules.append(TimedRule(from: a, to: b, condition: condition))
                }
            }
            statistics.timedRestrictions += 1
        }
    }

    /// Per vertex: OSRM joins the two pieces of road there into one edge (see `readOSRMEdges`, which leaves out
    /// the vertices OSRM keeps), so that a bike turns nowhere.
    private var joinedThrough: [Bool] = []
    /// Per edge end: OSRM leaves it out of its junction's roads (`mergeDividedRoadBearings`).
    private var mergedAway: [Bool] = []

    /// An OSM node on a walk along the road (`osrmChains`): a vertex, or shape point `index` inside edge `edge`.
    private struct ChainPoint { var id: Int64; var vertex: UInt32; var edge: Int32; var index: Int32 }

    /// The road from one junction to the next: its OSM nodes end to end, and the segments between them
    /// (`segments[i]` joins `points[i]` and `points[i + 1]`: its edge, its index in the edge's shape, and whether
    /// the walk follows the shape's order).
    private struct OSRMChain {
        var points: [ChainPoint] = []
        var segments: [(edge: Int32, k: Int32, along: Bool)] = []
    }

    /// Every chain's points and segments end to end in two arrays: a large extract has millions of chains, too many
    /// for a pair of arrays each. A point is kept as its vertex (`vertexFlag` set) or its shape point, a sixth of
    /// a `ChainPoint`: its id and edge are read back from the graph and the segments (an inner shape point lies
    /// inside the edge of the segments on either side).
    private struct OSRMChains {
        var points: [UInt32] = [], pointStart = [0]
        var segments: [(edge: Int32, k: Int32, along: Bool)] = [], segmentStart = [0]
        static let vertexFlag: UInt32 = 1 << 31

        /// Room for every edge's segments once (a walk passes each edge once), without the copies of growing.
        init(edges: Int, segments segmentCount: Int) {
            points.reserveCapacity(segmentCount + edges); pointStart.reserveCapacity(edges + 1)
            segments.reserveCapacity(segmentCount); segmentStart.reserveCapacity(edges + 1)
        }

        var count: Int { pointStart.count - 1 }

        mutating func append(_ chain: OSRMChain) {
            points.append(contentsOf: chain.points.lazy.map { $0.vertex != noIndex ? $0.vertex | Self.vertexFlag : UInt32($0.index) })
            pointStart.append(points.count)
            segments += chain.segments
            segmentStart.append(segments.count)
        }

        func pointCount(_ c: Int) -> Int { pointStart[c + 1] - pointStart[c] }
        /// Chain `c`'s point `i`, with its OSM id read from `arrays` (`vertexNode`: each vertex's OSM node).
        func point(_ c: Int, _ i: Int, _ arrays: GraphArrays, _ osm: OSMData, _ vertexNode: [UInt32]) -> ChainPoint {
            let p = points[pointStart[c] + i]
            if p & Self.vertexFlag != 0 {
                let v = p & ~Self.vertexFlag
                return ChainPoint(id: osm.nodeIDs[Int(vertexNode[Int(v)])], vertex: v, edge: -1, index: -1)
            }
            return ChainPoint(id: arrays.shapeNodeIDs[Int(p)], vertex: noIndex, edge: segment(c, i - 1).edge, index: Int32(p))
        }
        func segment(_ c: Int, _ i: Int) -> (edge: Int32, k: Int32, along: Bool) { segments[segmentStart[c] + i] }
        /// Chain `c`'s segments `range` (0 is its first).
        func segments(_ c: Int, _ range: Range<Int>) -> ArraySlice<(edge: Int32, k: Int32, along: Bool)> {
            segments[(segmentStart[c] + range.lowerBound)..<(segmentStart[c] + range.upperBound)]
        }
    }

    /// The roads between junctions, as OSRM joins them into edges:
    /// - It joins the pieces of a road between two junctions into one edge, node by node in the order of their OSM
    ///   ids; barriers stay nodes. Signals do not part the joining (OSRM adds their delay to the edge): a road with
    ///   signals beside another between the same two junctions keeps a node as one without would.
    /// - It never joins them into an edge beside another between the same two nodes (a footway alongside a street,
    ///   from one junction to the next): the part whose last node would close it keeps that node (`kept`: the
    ///   chain and the point's place in it).
    private func osrmChains() -> (chains: OSRMChains, kept: [(chain: Int, point: Int)]) {
        let vertexCount = arrays.vertexLatitudes.count, edgeCount = arrays.edgeLength.count
        func nodeID(ofVertex v: UInt32) -> Int64 { osm.nodeIDs[Int(vertexNode[Int(v)])] }
        // A vertex OSRM joins through: two pieces of one road, no barrier.
        var joint = [Bool](repeating: false, count: vertexCount)
        for v in 0..<vertexCount { joint[v] = joinedThrough[v] && !blocked[Int(vertexNode[v])] }
        var chains = OSRMChains(edges: edgeCount, segments: arrays.shapeLatitudes.count - edgeCount)
        var walk = OSRMChain()
        /// A chain from junction to junction: its ends' ids (low first), its last point's place `to` in chain
        /// `chain`, and the point with the highest id inside (`last`, -1 for none).
        struct Part { var low, high, lastID: Int64; var chain, to, last: Int32 }
        var parts: [Part] = []
        var visited = [Bool](repeating: false, count: edgeCount)
        for v in 0..<vertexCount where !joint[v] {
            for entry in arrays.vertexEdges[Int(arrays.vertexEdgeStart[v])..<Int(arrays.vertexEdgeStart[v + 1])] {
                var e = Int(entry >> 1), fromLast = entry & 1 == 1
                guard !visited[e] else { continue }
                // The walk from this junction to the next, every OSM node on the way in order.
                walk.points.removeAll(keepingCapacity: true)
                walk.segments.removeAll(keepingCapacity: true)
                walk.points.append(ChainPoint(id: nodeID(ofVertex: UInt32(v)), vertex: UInt32(v), edge: -1, index: -1))
                while !visited[e] {
                    visited[e] = true
                    let shape = Int(arrays.edgeShapeStart[e])..<Int(arrays.edgeShapeStart[e + 1])
                    let inner = fromLast ? Array(shape.dropFirst().dropLast().reversed()) : Array(shape.dropFirst().dropLast())
                    for k in inner {
                        walk.points.append(ChainPoint(id: arrays.shapeNodeIDs[k], vertex: noIndex, edge: Int32(e), index: Int32(k)))
                    }
                    let count = shape.count - 1
                    for k in 0..<count { walk.segments.append((Int32(e), Int32(fromLast ? count - 1 - k : k), !fromLast)) }
                    let w = fromLast ? edgeTail[e] : edgeHead[e]
                    walk.points.append(ChainPoint(id: nodeID(ofVertex: w), vertex: w, edge: -1, index: -1))
                    guard joint[Int(w)] else { break }
                    let range = Int(arrays.vertexEdgeStart[Int(w)])..<Int(arrays.vertexEdgeStart[Int(w) + 1])
                    guard let next = arrays.vertexEdges[range].first(where: { Int($0 >> 1) != e }) else { break }
                    (e, fromLast) = (Int(next >> 1), next & 1 == 1)
                }
                guard let last = walk.points.last, last.vertex == noIndex || !joint[Int(last.vertex)] else { continue }
                let end = walk.points.count - 1
                let lastPoint = (1..<end).max { walk.points[$0].id < walk.points[$1].id }
                let (a, b) = (walk.points[0].id, walk.points[end].id)
                parts.append(Part(low: min(a, b), high: max(a, b), lastID: lastPoint.map { walk.points[$0].id } ?? Int64.min,
                                  chain: Int32(chains.count), to: Int32(end), last: Int32(lastPoint ?? -1)))
                chains.append(walk)
            }
        }
        /// A part's inner nodes, from its low end.
        func innerNodes(_ p: Part) -> [Int64] {
            let c = Int(p.chain)
            let ids = (1..<Int(p.to)).map { chains.point(c, $0, arrays, osm, vertexNode).id }
            return chains.point(c, 0, arrays, osm, vertexNode).id > chains.point(c, Int(p.to), arrays, osm, vertexNode).id
                ? ids.reversed() : ids
        }
        // Per pair of ends, the parts in the order their last nodes come: the first closes the edge between them
        // (unless a direct one is there already, or the ends are one node); each later one keeps its last node.
        // A road mapped twice over the same nodes is one edge to OSRM, not two side by side: the first part read
        // stands for both. Parts are grouped by sorting (a dictionary of lists took more memory than the roads).
        var order = Array(parts.indices)
        order.sort { (parts[$0].low, parts[$0].high, $0) < (parts[$1].low, parts[$1].high, $1) }
        var kept: [(chain: Int, point: Int)] = []
        var groupStart = 0
        while groupStart < order.count {
            let first = parts[order[groupStart]]
            var groupEnd = groupStart + 1
            while groupEnd < order.count, parts[order[groupEnd]].low == first.low, parts[order[groupEnd]].high == first.high { groupEnd += 1 }
            var list = [first]
            if groupEnd - groupStart > 1 {
                var seen = [innerNodes(first)]
                for j in (groupStart + 1)..<groupEnd {
                    let nodes = innerNodes(parts[order[j]])
                    if !seen.contains(nodes) { seen.append(nodes); list.append(parts[order[j]]) }
                }
            }
            groupStart = groupEnd
            let direct = list.contains { $0.last < 0 }
            let ordered = list.filter { $0.last >= 0 }.sorted { $0.lastID < $1.lastID }
            for (i, part) in ordered.enumerated() where i > 0 || direct || first.low == first.high {
                kept.append((Int(part.chain), Int(part.last)))
            }
        }
        return (chains, kept)
    }

    /// Reads OSRM's edges off the roads (`osrmChains`) for two things:
    /// - Each segment's end from which OSRM measures a point's share of it (`GraphArrays.segmentSplitFromLast`),
    ///   so that a route starting or ending inside it costs what OSRM says to the tenth: the end a oneway road
    ///   starts from, else the end of its road, from junction or kept node to the next, with the lower OSM id.
    ///   Signals do not part it (measured on drawn maps: a road a–b–c with signals at b is measured from a where
    ///   a < c, whatever b's id; a oneway from where it starts, whatever the ids).
    /// - By bike, the turns OSRM still sees inside a road: bicycle.lua charges every turn by its angle (measured on
    ///   drawn maps: the bend of a detour beside a street costs 8.3 s to the left). The bends of kept nodes inside
    ///   edges are added to their arcs; kept vertices are left out of `joinedThrough` for `turnWeights`.
    /// Returns the kept nodes, where OSRM reads a road's bearing up to (`OSRMEdgeBreaks`).
    private mutating func readOSRMEdges() -> OSRMEdgeBreaks {
        joinedThrough = arrays.verticesJoiningOneRoad(classesPart: profile.hasClasses)
        guard !arrays.vertexLatitudes.isEmpty else { return OSRMEdgeBreaks() }
        _ = osmNode(ofVertex: 0)
        let (chains, kept) = osrmChains()
        var cuts = [Int: [Int]]()
        for (chain, point) in kept { cuts[chain, default: []].append(point) }
        var splitFromLast = [UInt8](repeating: 0, count: (arrays.shapeLatitudes.count - arrays.edgeLength.count + 7) / 8)
        for c in 0..<chains.count {
            let bounds = [0] + (cuts[c] ?? []).sorted() + [chains.pointCount(c) - 1]
            for (a, b) in zip(bounds, bounds.dropFirst()) where a < b {
                // OSRM's edge runs the one way a oneway road goes, else from the lower id (a ring's two ends are one
                // node: any way will do).
                let (first, _, along) = chains.segment(c, a)
                let e = Int(first)
                let ahead = (along ? arrays.edgeForwardArc[e] : arrays.edgeBackwardArc[e]) != noIndex
                let behind = (along ? arrays.edgeBackwardArc[e] : arrays.edgeForwardArc[e]) != noIndex
                let forward = ahead != behind ? ahead
                    : chains.point(c, a, arrays, osm, vertexNode).id <= chains.point(c, b, arrays, osm, vertexNode).id
                for (e, k, along) in chains.segments(c, a..<b) where forward != along {
                    let s = Int(arrays.edgeShapeStart[Int(e)]) - Int(e) + Int(k)
                    splitFromLast[s >> 3] |= 1 << UInt8(s & 7)
                }
            }
        }
        arrays.segmentSplitFromLast = splitFromLast
        var breaks = OSRMEdgeBreaks(vertices: [Bool](repeating: false, count: arrays.vertexLatitudes.count))
        for (chain, index) in kept {
            let point = chains.point(chain, index, arrays, osm, vertexNode)
            if point.vertex != noIndex { breaks.vertices[Int(point.vertex)] = true } else { breaks.shapePoints.append(UInt32(point.index)) }
        }
        breaks.shapePoints.sort()
        guard profile.mode == .cycling else { return breaks }
        // A bend is paid where it is, as a delay at its node.
        var delays = Dictionary(arrays.interiorDelays.map { ($0.shapePoint, $0) }) { a, _ in a }
        for (chain, index) in kept {
            let point = chains.point(chain, index, arrays, osm, vertexNode)
            if point.vertex != noIndex { joinedThrough[Int(point.vertex)] = false; continue }
            let (forward, backward) = chargeBend(ofEdge: Int(point.edge), atShapePoint: Int(point.index))
            let k = UInt32(point.index)
            delays[k, default: InteriorDelay(shapePoint: k, forward: 0, backward: 0)].forward += forward
            delays[k, default: InteriorDelay(shapePoint: k, forward: 0, backward: 0)].backward += backward
        }
        arrays.interiorDelays = delays.values.sorted { $0.shapePoint < $1.shapePoint }
        return breaks
    }

    /// Adds a bike's turn at a shape point inside an edge to the edge's arcs, in each direction by its own angle;
    /// returns what each direction pays (milliseconds, zero for a direction without an arc).
    private mutating func chargeBend(ofEdge e: Int, atShapePoint k: Int) -> (forward: UInt32, backward: UInt32) {
        func point(_ i: Int) -> Coordinate {
            Coordinate(fixedLatitude: arrays.shapeLatitudes[i], fixedLongitude: arrays.shapeLongitudes[i])
        }
        func milliseconds(arriving a: Coordinate, at b: Coordinate, leaving c: Coordinate) -> UInt32 {
            let angle = TravelProfile.turnAngle(arriving: Geo.osrmRulerBearing(from: a, to: b), leaving: Geo.osrmRulerBearing(from: b, to: c))
            let seconds = profile.turnPenalty(angle: angle, roads: 2, isUturn: false)
            return UInt32(100 * (seconds * 10).rounded(.down))
        }
        let (before, here, after) = (point(k - 1), point(k), point(k + 1))
        var paid: [UInt32] = []
        for (arc, ms) in [(arrays.edgeForwardArc[e], milliseconds(arriving: before, at: here, leaving: after)),
                          (arrays.edgeBackwardArc[e], milliseconds(arriving: after, at: here, leaving: before))] {
            guard arc != noIndex else { paid.append(0); continue }
            arrays.arcDuration[Int(arc)] = min(RoadGraph.maxArcWeight, arrays.arcDuration[Int(arc)] + ms)
            arrays.arcWeight[Int(arc)] = min(RoadGraph.maxArcWeight, arrays.arcWeight[Int(arc)] + ms)
            paid.append(ms)
        }
        return (paid[0], paid[1])
    }

    private var vertexNode: [UInt32] = []
    /// The OSM node of a vertex (a table built on first use).
    private mutating func osmNode(ofVertex v: UInt32) -> UInt32 {
        if vertexNode.isEmpty {
            vertexNode = Array(repeating: 0, count: arrays.vertexLatitudes.count)
            for (node, vertex) in nodeVertex.enumerated() where vertex != noIndex { vertexNode[Int(vertex)] = UInt32(node) }
        }
        return vertexNode[Int(v)]
    }

    /// What each allowed turn costs (milliseconds): the profile's turn penalty from the angle between the road
    /// arriving and the road leaving, how many roads meet there and whether the mode changes (boarding a ferry),
    /// plus the delays at the junction that face the arriving road (signals, stop and give-way signs).
    private mutating func turnWeights(_ t: Transitions) -> [UInt32] {
        var weights: [UInt32] = []
        weights.reserveCapacity(t.targets.count)
        for a in 0..<arrays.arcHead.count {
            let arriving = bearing(ofArc: UInt32(a), atTail: false)
            let head = arrays.arcHead[a]
            let ends = arrays.vertexEdges[Int(arrays.vertexEdgeStart[Int(head)])..<Int(arrays.vertexEdgeStart[Int(head) + 1])]
            // OSRM's roads at the junction leave out a merged pair's arriving carriageway: arriving on it, the pair's
            // other carriageway is the way back.
            let roadsHere = ends.count { !mergedAway[Int($0)] }
            let baseA = arrays.arcEdge[Int(arrays.arcBase[a])]
            let edgeA = Int(baseA >> 1)
            let here = obstacles[osmNode(ofVertex: head)] ?? []
            let targets = t.targets[Int(t.start[a])..<Int(t.start[a + 1])]
            let viewAngles = osrmViewAngles(arriving: UInt32(a), ends: ends, allowed: targets.map { end(ofArc: $0, atTail: true) })
            for i in Int(t.start[a])..<Int(t.start[a + 1]) {
                let b = t.targets[i]
                let baseB = arrays.arcEdge[Int(arrays.arcBase[Int(b)])]
                let edgeB = Int(baseB >> 1)
                let leaving = end(ofArc: b, atTail: true)
                let angle = 180 - (viewAngles.first { $0.entry == leaving }?.angle
                    ?? Geo.osrmTurnAngle(arriving, bearing(ofArc: b, atTail: true)))
                // OSRM's U-turn is an angle of exactly 0 on its circle (180 here): back along the same road, or onto
                // the other carriageway of a merged pair, which has the same bearing. On foot, only with OSRM's
                // import rules: a walker's turns at a vertex must cost alike for the hierarchy over vertices
                // (PROFILES.md).
                let acrossMedian = abs(angle) == 180 && (profile.mode != .walking || profile.compatibility == .osrm)
                let isUturn = (baseA >> 1 == baseB >> 1 && baseA != baseB) || acrossMedian
                let modes: EdgeFlags = [.ferry, .train]
                let modeChanges = EdgeFlags(rawValue: arrays.edgeFlags[edgeA]).intersection(modes)
                    != EdgeFlags(rawValue: arrays.edgeFlags[edgeB]).intersection(modes)
                let onRoundabout = EdgeFlags(rawValue: arrays.edgeFlags[edgeA]).contains(.roundabout)
                    || EdgeFlags(rawValue: arrays.edgeFlags[edgeB]).contains(.roundabout)
                // The delays at the node that face the arriving road: car.lua counts them first and then the turn,
                // bicycle.lua the other way round, foot.lua instead of it.
                var delays = 0.0, walkingDelay: Double?
                for obstacle in here where faces(obstacle, arriving: UInt32(a)) {
                    if profile.mode == .walking { walkingDelay = obstacle.seconds; continue }
                    switch obstacle.kind {
                    case .minorStop where !entersFromSlowerRoad(UInt32(a), to: b, at: head): continue
                    case .stop where roadsHere == 2
                        && Self.belongsBehind(obstacle, before: Double(arrays.edgeLength[edgeA]), after: Double(arrays.edgeLength[edgeB])):
                        continue
                    default: delays += obstacle.seconds
                    }
                }
                var seconds = profile.turnPenalty(angle: isUturn ? 180 : angle, roads: roadsHere, isUturn: isUturn,
                                                  modeChanges: modeChanges, onRoundabout: onRoundabout,
                                                  after: profile.mode == .driving ? delays : 0)
                // Cyclists pay for every turn OSRM sees, and it sees none inside a road it joined into one edge. At
                // traffic signals inside such a road, OSRM 26.10's bicycle.lua is given a turn angle of 180° whatever
                // the bend, facing the signals or not (17.1 s, measured on drawn maps): so here too. Where the two
                // roads differ (a name, a class), the signals are an ordinary junction's.
                if profile.mode == .cycling && roadsHere == 2 && !isUturn && joinedThrough[Int(head)] {
                    let signals = here.contains { $0.kind == .signals }
                    seconds = signals ? profile.turnPenalty(angle: 180, roads: roadsHere, isUturn: false) : 0
                }
                if profile.mode == .cycling { seconds += delays }
                if let walkingDelay { seconds = walkingDelay }
                // OSRM keeps a turn's cost (with the delays at its node) in tenths of a second, cut down, as the
                // profile's number is: 8.399999999999999 s (a bike's right angle to the left) is 8.3 s.
                weights.append(UInt32(100 * (seconds * 10).rounded(.down)))
            }
        }
        return weights
    }

    /// Whether an obstacle at a vertex applies to a road arriving there: one facing any direction always, one
    /// facing forward (backward) when the road arrives in (against) its way's direction.
    private func faces(_ obstacle: Obstacle, arriving a: UInt32) -> Bool {
        switch obstacle.direction {
        case .any: return true
        case .forward: return arrays.arcEdge[Int(a)] & 1 == 0
        case .backward: return arrays.arcEdge[Int(a)] & 1 == 1
        }
    }

    /// A `stop=minor` sign counts only where some other road at the junction is faster than the one arriving.
    private func entersFromSlowerRoad(_ a: UInt32, to b: UInt32, at v: UInt32) -> Bool {
        func speed(_ arc: UInt32) -> Double {
            let e = Int(arrays.arcEdge[Int(arc)] >> 1)
            return Double(arrays.edgeLength[e]) / max(0.001, Double(arrays.arcDuration[Int(arc)]) / 1000)
        }
        // Speeds read back from rounded times: 2 % apart before one road counts as faster.
        let faster = speed(a) * 1.02
        return arcsLeaving(v).contains { speed($0) > faster } || speed(b) > faster
    }

    /// The arc's road as perceived at a junction (OSRM's representative bearing, `edgeEnds`): leaving it at the
    /// tail, or arriving along it at the head.
    /// The edge end a junction sees of an arc: the tail's end where the arc leaves it, the head's where it arrives.
    private func end(ofArc arc: UInt32, atTail: Bool) -> Int {
        let packed = arrays.arcEdge[Int(arc)]
        return 2 * Int(packed >> 1) + (atTail == (packed & 1 == 1) ? 1 : 0)
    }

    /// The angles OSRM gives the roads at the junction an arc arrives at (its circle: 180 straight on, 0 back), per
    /// edge end, for the roads `allowed` from it. OSRM orders the roads by their initial angles (2 m along) and,
    /// where a road's perceived angle breaks that order, moves it just past the road before it: by half a degree,
    /// or half the gap to 360° (measured: the exit of a small roundabout on Rua de Montezelo, Porto, 0.8 s by bike
    /// as osrm-routed charges, not 0.2 s).
    private func osrmViewAngles(arriving a: UInt32, ends: ArraySlice<UInt32>, allowed: [Int]) -> [(entry: Int, angle: Double)] {
        let arrivingEnd = end(ofArc: a, atTail: false)
        func reverse(_ b: Double) -> Double { b >= 180 ? b - 180 : b + 180 }
        let perceivedIn = bearing(ofArc: a, atTail: false), initialIn = reverse(arrays.edgeEnds[arrivingEnd].initialBearing)
        var view: [(entry: Int, angle: Double, key: Double)] = []
        var uturnAllowed = false, allowedUturns = 0
        for value in ends {
            let entry = Int(value)
            if entry == arrivingEnd { uturnAllowed = allowed.contains(entry); continue }
            let end = arrays.edgeEnds[entry], isAllowed = allowed.contains(entry)
            var angle = Geo.osrmTurnAngle(perceivedIn, end.bearing), initial = Geo.osrmAngleBetween(initialIn, end.initialBearing)
            // A turn within 15° of going back whose initial angle lies on the other side: OSRM's U-turn.
            if isAllowed && ((angle < 15 && initial > 180) || (angle > 345 && initial < 180)) { (angle, initial) = (0, 0) }
            guard isAllowed || (!mergedAway[entry] && abs(angle) >= Double.ulpOfOne) else { continue }
            if abs(angle) < Double.ulpOfOne { allowedUturns += 1 }
            let useAngle = (angle > 270 && initial < 90) || (angle < 90 && initial > 270)
            let key = abs(initial) < Double.ulpOfOne ? (angle > 180 ? 360 : 0) : useAngle ? angle : initial
            view.append((entry, angle, key))
        }
        if uturnAllowed || allowedUturns == 0 { view.insert((arrivingEnd, 0, 0), at: 0) }
        // A stable sort by initial angle, then angle.
        let order = view.indices.sorted { (view[$0].key, view[$0].angle, $0) < (view[$1].key, view[$1].angle, $1) }
        var angles: [(entry: Int, angle: Double)] = []
        angles.reserveCapacity(order.count)
        for index in order {
            var angle = view[index].angle
            if let previous = angles.last?.angle, angle < previous {
                angle = fmod(previous + min(0.5, Geo.remainder360(360 - previous) / 2), 360)
            }
            angles.append((view[index].entry, angle))
        }
        return angles
    }

    private func bearing(ofArc arc: UInt32, atTail: Bool) -> Double {
        // Arriving, the head's end read the other way.
        let away = arrays.edgeEnds[end(ofArc: arc, atTail: atTail)].bearing
        return atTail ? away : away >= 180 ? away - 180 : away + 180
    }

    /// Via-way restrictions: the path's arcs are duplicated; the from-arc enters the copy instead of the original,
    /// and the copy's last arc lacks the forbidden turn (or has only the mandated one). Leaving the path midway
    /// uses the copies' ordinary turns, so only the complete from → via → to sequence is affected. A restriction
    /// with a condition keeps the turns it forbids and makes them timed rules of the copy's last arc.
    private mutating func applyViaWayRestrictions(_ rules: [(TurnRestriction, condition: String?)], transitions t: inout Transitions) {
        struct Group { var from: UInt32; var path: [UInt32]; var rules: [(to: Set<UInt32>, only: Bool, condition: String?)] }
        var groups: [[UInt32]: Group] = [:]
        var order: [[UInt32]] = []
        for (r, condition) in rules {
            guard case .ways(let viaIDs) = r.via else { continue }
            let viaWays = viaIDs.compactMap(wayIndex)
            let fromWays = r.from.compactMap(wayIndex), toWays = r.to.compactMap(wayIndex)
            guard viaWays.count == viaIDs.count else { continue }
            var mapped = false
            for f in fromWays {
                for to in toWays {
                    guard let (entry, path, exit) = viaPath(from: f, via: viaWays, to: to) else { continue }
                    let fromArcs = arcsEntering(entry).filter { way(ofArc: $0) == f && !path.contains($0) }
                    let toArcs = Set(arcsLeaving(exit).filter { way(ofArc: $0) == to })
                    guard !toArcs.isEmpty else { continue }
                    for a in fromArcs {
                        let key = [a] + path
                        if groups[key] == nil { groups[key] = Group(from: a, path: path, rules: []); order.append(key) }
                        groups[key]!.rules.append((toArcs, r.isOnly, condition))
                        mapped = true
                    }
                }
            }
            if mapped {
                if condition == nil { statistics.restrictionsViaWay += 1 } else { statistics.timedRestrictions += 1 }
            }
        }
        var extraRows: [[UInt32]] = []
        let originalCount = UInt32(arrays.arcHead.count)
        func row(_ arc: UInt32) -> [UInt32] {
            arc < originalCount ? Array(t.targets[Int(t.start[Int(arc)])..<Int(t.start[Int(arc) + 1])])
                : extraRows[Int(arc - originalCount)]
        }
        for key in order {
            let group = groups[key]!
            // The whole path must be drivable in sequence, and the from-arc must turn into it.
            let entryRange = Int(t.start[Int(group.from)])..<Int(t.start[Int(group.from) + 1])
            guard let entrySlot = entryRange.first(where: { t.targets[$0] == group.path[0] }) else { continue }
            guard zip(group.path, group.path.dropFirst()).allSatisfy({ row($0.0).contains($0.1) }) else { continue }
            let firstCopy = originalCount + UInt32(extraRows.count)
            for (i, arc) in group.path.enumerated() {
                var next = row(arc)
                if i + 1 < group.path.count {
                    next = next.map { $0 == group.path[i + 1] ? firstCopy + UInt32(i + 1) : $0 }
                } else {
                    for rule in group.rules {
                        let kept = next.filter { rule.only ? rule.to.contains($0) : !rule.to.contains($0) }
                        if let condition = rule.condition {
                            let id = intern(condition)
                            for b in Set(next).subtracting(kept) {
                                arrays.timedRules.append(TimedRule(from: firstCopy + UInt32(i), to: arrays.arcBase[Int(b)], condition: id))
                            }
                        } else {
                            next = kept
                        }
                    }
                }
                extraRows.append(next)
                copyArc(arc)
            }
            t.targets[entrySlot] = firstCopy
        }
        for extra in extraRows {
            t.targets.append(contentsOf: extra)
            t.start.append(UInt32(t.targets.count))
        }
    }

    /// OSRM's weight for turning onto a restricted road from an open one (car.lua: the largest turn weight),
    /// milliseconds.
    static let osrmRestrictedEntry: UInt32 = 3_276_700

    /// Appends a copy of an arc (for a via-way restriction's path, or a restricted arc's entered layer).
    private mutating func copyArc(_ arc: UInt32) {
        let i = Int(arc)
        arrays.arcEdge.append(arrays.arcEdge[i])
        arrays.arcHead.append(arrays.arcHead[i])
        arrays.arcWeight.append(arrays.arcWeight[i])
        arrays.arcDuration.append(arrays.arcDuration[i])
        arrays.arcClasses.append(arrays.arcClasses[i])
        arrays.arcDestinations.append(arrays.arcDestinations[i])
        arrays.arcTurnLanes.append(arrays.arcTurnLanes[i])
        arrays.arcBase.append(arrays.arcBase[i])
    }

    /// Restricted roads (private, destination-only, HOV) may start or end a route, never carry it through. Each
    /// restricted arc gets a copy that is entered instead from unrestricted arcs and leads only on to copies of
    /// restricted arcs: a route that came in from outside can only end in there. The originals can be left but
    /// not entered from outside: a route that starts in there can only leave. So every route is restricted arcs,
    /// then unrestricted ones, then restricted ones: exactly "start or end there" (OSRM prices the entry instead,
    /// with about 55 minutes of weight; PROFILES.md says why this is better).
    /// With OSRM's rules (`import --compat osrm`) the copies are OSRM's priced entry (`addOSRMRestrictedEntries`).
    private mutating func addRestrictedCopies(_ t: inout Transitions) {
        let count = arrays.arcHead.count
        let restricted = (0..<count).map { ArcClasses(rawValue: arrays.arcClasses[$0]).contains(.restricted) }
        guard restricted.contains(true) else { return }
        if profile.asOSRM { return addOSRMRestrictedEntries(&t, restricted: restricted) }
        var copyOf = [UInt32](repeating: noIndex, count: count)
        for a in 0..<count where restricted[a] {
            copyOf[a] = UInt32(arrays.arcHead.count)
            copyArc(UInt32(a))
        }
        var start: [UInt32] = [0], targets: [UInt32] = [], weights: [UInt32] = []
        targets.reserveCapacity(t.targets.count)
        for a in 0..<count {
            for i in Int(t.start[a])..<Int(t.start[a + 1]) {
                let b = Int(t.targets[i])
                targets.append(restricted[b] && !restricted[a] ? copyOf[b] : UInt32(b))
                weights.append(arrays.transitionWeight[i])
            }
            start.append(UInt32(targets.count))
        }
        for a in 0..<count where restricted[a] {
            for i in Int(t.start[a])..<Int(t.start[a + 1]) where restricted[Int(t.targets[i])] {
                targets.append(copyOf[Int(t.targets[i])])
                weights.append(arrays.transitionWeight[i])
            }
            start.append(UInt32(targets.count))
        }
        t = Transitions(start: start, targets: targets)
        arrays.transitionWeight = weights
    }

    /// OSRM's entry onto a restricted road from an open one: car.lua sets that turn's weight to the largest turn
    /// weight in place of what the turn costs, and keeps its duration. A turn here has one cost for both, so each
    /// such turn leads onto a copy of its own, weighing `osrmRestrictedEntry` less the turn's cost more than the
    /// original; the copy leads on wherever the original does, so a route passes through when every other way costs
    /// more than that.
    private mutating func addOSRMRestrictedEntries(_ t: inout Transitions, restricted: [Bool]) {
        let count = arrays.arcHead.count
        var start: [UInt32] = [0], targets: [UInt32] = [], weights: [UInt32] = []
        targets.reserveCapacity(t.targets.count)
        var copied: [Int] = []
        for a in 0..<count {
            for i in Int(t.start[a])..<Int(t.start[a + 1]) {
                let b = Int(t.targets[i]), turn = arrays.transitionWeight[i]
                if restricted[b] && !restricted[a] {
                    let copy = arrays.arcHead.count
                    copyArc(UInt32(b))
                    arrays.arcWeight[copy] = min(RoadGraph.maxArcWeight,
                                                 arrays.arcWeight[copy] + Self.osrmRestrictedEntry - min(turn, Self.osrmRestrictedEntry))
                    copied.append(b)
                    targets.append(UInt32(copy))
                } else {
                    targets.append(UInt32(b))
                }
                weights.append(turn)
            }
            start.append(UInt32(targets.count))
        }
        for b in copied {
            for i in Int(t.start[b])..<Int(t.start[b + 1]) {
                targets.append(t.targets[i])
                weights.append(arrays.transitionWeight[i])
            }
            start.append(UInt32(targets.count))
        }
        t = Transitions(start: start, targets: targets)
        arrays.transitionWeight = weights
    }

    /// Vertices along a way's edges, in shape order.
    private func vertices(ofWay w: Int32) -> [UInt32] {
        guard let edges = wayEdges[w], !edges.isEmpty else { return [] }
        return [edgeTail[edges.lowerBound]] + edges.map { edgeHead[$0] }
    }

    private func sharedVertex(_ a: Int32, _ b: Int32, avoiding: UInt32?) -> UInt32? {
        let va = vertices(ofWay: a), vb = Set(vertices(ofWay: b))
        let candidates = va.filter { vb.contains($0) && $0 != avoiding }
        // Prefer where one way ends: that is how restriction members are meant to meet.
        return candidates.first { $0 == va.first || $0 == va.last } ?? candidates.first
    }

    /// Entry vertex, the arcs along the via ways, and the exit vertex of a from → via ways → to sequence.
    private func viaPath(from: Int32, via: [Int32], to: Int32) -> (UInt32, [UInt32], UInt32)? {
        var remaining = via
        var current = from
        var junctions: [UInt32] = []
        var ordered: [Int32] = []
        while !remaining.isEmpty {
            guard let k = remaining.indices.first(where: { sharedVertex(current, remaining[$0], avoiding: junctions.last) != nil }),
                  let j = sharedVertex(current, remaining[k], avoiding: junctions.last)
            else { return nil }
            junctions.append(j)
            current = remaining.remove(at: k)
            ordered.append(current)
        }
        guard let exit = sharedVertex(current, to, avoiding: junctions.last) else { return nil }
        junctions.append(exit)
        var path: [UInt32] = []
        for (i, w) in ordered.enumerated() {
            guard let arcs = arcsAlong(way: w, from: junctions[i], to: junctions[i + 1]) else { return nil }
            path += arcs
        }
        return path.isEmpty ? nil : (junctions[0], path, exit)
    }

    private func arcsAlong(way w: Int32, from a: UInt32, to b: UInt32) -> [UInt32]? {
        guard let edges = wayEdges[w] else { return nil }
        let vs = vertices(ofWay: w)
        guard let ia = vs.firstIndex(of: a), let ib = vs.firstIndex(of: b), ia != ib else { return nil }
        var arcs: [UInt32] = []
        if ia < ib {
            for k in ia..<ib { arcs.append(arrays.edgeForwardArc[edges.lowerBound + k]) }
        } else {
            for k in stride(from: ia - 1, through: ib, by: -1) { arcs.append(arrays.edgeBackwardArc[edges.lowerBound + k]) }
        }
        return arcs.contains(noIndex) ? nil : arcs
    }

    // MARK: Maneuver relations

    /// Each maneuver relation as the directed edges a route takes from its `from` way, along its via ways, onto its
    /// `to` way, with its via vertex. As in OSRM, the from and to ways must end where they meet the path, and the
    /// via node must be on it, and via ways are listed in order; relations that do not fit the roads are dropped.
    private mutating func addManeuverOverrides(_ relations: [ManeuverRelation]) {
        for relation in relations {
            guard let from = wayIndex(relation.from), let to = wayIndex(relation.to),
                  let node = osm.nodeIndex(ofID: relation.viaNode), nodeVertex[Int(node)] != noIndex else { continue }
            let via = nodeVertex[Int(node)]
            let viaWays = relation.viaWays.compactMap(wayIndex)
            // The via ways in the order given, each joined to the one before (OSRM drops them otherwise).
            guard viaWays.count == relation.viaWays.count,
                  zip([from] + viaWays, viaWays).allSatisfy({ sharedVertex($0, $1, avoiding: nil) != nil }) else { continue }
            let entry: UInt32, exit: UInt32, path: [UInt32]
            if viaWays.isEmpty {
                (entry, path, exit) = (via, [], via)
            } else {
                guard let found = viaPath(from: from, via: viaWays, to: to),
                      found.0 == via || found.1.contains(where: { arrays.arcHead[Int($0)] == via }) else { continue }
                (entry, path, exit) = found
            }
            func endsAt(_ w: Int32, _ v: UInt32) -> Bool { let vs = vertices(ofWay: w); return vs.first == v || vs.last == v }
            guard endsAt(from, entry), endsAt(to, exit) else { continue }
            let fromArcs = arcsEntering(entry).filter { way(ofArc: $0) == from && !path.contains($0) }
            let toArcs = arcsLeaving(exit).filter { way(ofArc: $0) == to && !path.contains($0) }
            var mapped = false
            for a in fromArcs {
                for b in toArcs where arrays.arcEdge[Int(a)] != arrays.arcEdge[Int(b)] {
                    arrays.maneuverPath += ([a] + path + [b]).map { arrays.arcEdge[Int($0)] }
                    arrays.maneuverStart.append(UInt32(arrays.maneuverPath.count))
                    arrays.maneuverVia.append(via)
                    arrays.maneuverKind.append(relation.override.packed)
                    mapped = true
                }
            }
            if mapped { statistics.maneuverOverrides += 1 }
        }
    }
}
