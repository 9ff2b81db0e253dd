import Foundation
import RoadGraph

/// Counts an import reports for one mode.
public struct ModeGraphStatistics: Sendable {
    public var mode: TravelMode
    public var usableWays = 0
    public var vertices = 0, edges = 0, arcs = 0, transitions = 0
    public var restrictionsViaNode = 0, restrictionsViaWay = 0, restrictionsIgnored = 0
    public var droppedNodeReferences = 0
    public var mainNetworkArcs = 0
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
    /// Per OSM node: traffic signals that cost this mode time, and for which direction of the way.
    private var signals: [SignalDirection] = []
    enum SignalDirection: UInt8 { case none, both, forward, backward }
    private var edgeSignals: [(forward: UInt16, backward: UInt16)] = []  // signals passed along each direction
    private var nodeVertex: [UInt32] = []
    private var edgeWay: [Int32] = []
    private var edgeTail: [UInt32] = [], edgeHead: [UInt32] = []
    private var wayEdges: [Int32: Range<Int>] = [:]  // only for ways named by restrictions
    private var restrictionWays: Set<Int32> = []
    private var arcTail: [UInt32] = []
    private var outStart: [UInt32] = [], outArcs: [UInt32] = [], inStart: [UInt32] = [], inArcs: [UInt32] = []
    private var strings: [String: UInt32] = ["": 0]
    private var stringList: [String] = [""]
    private var labels: [[UInt32]: UInt32] = [:]
    private var maxSpeed = 0.0

    init(osm: OSMData, profile: TravelProfile) {
        self.osm = osm
        self.profile = profile
        statistics = ModeGraphStatistics(mode: profile.mode)
    }

    mutating func build() -> (GraphArrays, maxSpeed: Double, mainMinimum: UInt32, grid: GridGeometry) {
        rules = (0..<osm.wayCount).map { profile.rule(for: osm.wayTags($0)) }
        statistics.usableWays = rules.lazy.filter { $0 != nil }.count
        blocked = Array(repeating: false, count: osm.nodeCount)
        signals = Array(repeating: .none, count: profile.trafficSignalPenalty > 0 ? osm.nodeCount : 0)
        osm.forEachTaggedNode { node, tags in
            if profile.isBlocked(byNode: tags) { blocked[Int(node)] = true }
            if !signals.isEmpty && tags["highway"] == "traffic_signals" {
                switch tags["traffic_signals:direction"] ?? tags["direction"] {
                case "forward": signals[Int(node)] = .forward
                case "backward": signals[Int(node)] = .backward
                default: signals[Int(node)] = .both
                }
            }
        }
        let restrictions = profile.obeysTurnRestrictions ? RestrictionParser.parse(osm) : []
        statistics.restrictionsIgnored = profile.obeysTurnRestrictions ? osm.relationCount - restrictions.count : 0
        var viaNodes = Set<UInt32>()
        for r in restrictions {
            if case .node(let id) = r.via, let index = osm.nodeIndex(ofID: id) { viaNodes.insert(index) }
            for w in r.from + r.to { if let i = wayIndex(w) { restrictionWays.insert(i) } }
            if case .ways(let ids) = r.via { for w in ids { if let i = wayIndex(w) { restrictionWays.insert(i) } } }
        }
        findVertices(forced: viaNodes)
        buildEdges()
        buildArcs()
        buildVertexEdges()
        var transitions = buildTransitions(viaNodeRules: restrictions.filter { $0.isViaNode })
        applyViaWayRestrictions(restrictions.filter { !$0.isViaNode }, transitions: &transitions)
        arrays.transitionStart = transitions.start
        arrays.transitionTargets = transitions.targets
        arrays.transitionWeight = turnWeights(transitions)
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
        return (arrays, maxSpeed, UInt32(mainMinimum), grid)
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
        var usage = [UInt8](repeating: 0, count: osm.nodeCount)
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
            if usage[node] >= 2 || blocked[node] || forced.contains(UInt32(node)) { isVertex[node] = true }
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
            let labelID = label(for: tags)
            let refID = intern(tags["ref"] ?? "")
            let flags = profile.flags(for: tags)
            maxSpeed = max(maxSpeed, rule.speed / 3.6)
            let firstEdge = arrays.edgeLength.count
            var start = 0
            for i in 1..<buffer.count where nodeVertex[Int(buffer[i])] != noIndex {
                addEdge(nodes: buffer[start...i], way: way, rule: rule, label: labelID, ref: refID, flags: flags)
                start = i
            }
            if restrictionWays.contains(Int32(way)) { wayEdges[Int32(way)] = firstEdge..<arrays.edgeLength.count }
        }
        statistics.vertices = arrays.vertexLatitudes.count
        statistics.edges = arrays.edgeLength.count
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
        for e in 0..<edgeTail.count {
            start[Int(edgeTail[e]) + 1] += 1
            start[Int(edgeHead[e]) + 1] += 1
        }
        for i in 0..<vertexCount { start[i + 1] += start[i] }
        var fill = start
        var entries = [UInt32](repeating: 0, count: Int(start[vertexCount]))
        for e in 0..<edgeTail.count {
            entries[Int(fill[Int(edgeTail[e])])] = UInt32(e) << 1
            fill[Int(edgeTail[e])] += 1
            entries[Int(fill[Int(edgeHead[e])])] = UInt32(e) << 1 | 1
            fill[Int(edgeHead[e])] += 1
        }
        arrays.vertexEdgeStart = start
        arrays.vertexEdges = entries
    }

    private mutating func addEdge(nodes: ArraySlice<UInt32>, way: Int, rule: WayRule, label: UInt32, ref: UInt32,
                                  flags: EdgeFlags) {
        var length = 0.0
        var previous: Coordinate?
        if !signals.isEmpty {
            // A signal counts for the directions that pass through or arrive at it, not those leaving it, and only
            // for the direction of the way it faces when it is tagged with one.
            var forward = 0, backward = 0
            for (k, node) in nodes.enumerated() where signals[Int(node)] != .none {
                let facing = signals[Int(node)]
                if k > 0 && facing != .backward { forward += 1 }
                if k < nodes.count - 1 && facing != .forward { backward += 1 }
            }
            edgeSignals.append((UInt16(min(forward, 1000)), UInt16(min(backward, 1000))))
        }
        for node in nodes {
            let lat = osm.nodeLatitudes[Int(node)], lon = osm.nodeLongitudes[Int(node)]
            arrays.shapeLatitudes.append(lat)
            arrays.shapeLongitudes.append(lon)
            let point = Coordinate(fixedLatitude: lat, fixedLongitude: lon)
            if let previous { length += Geo.distance(previous, point) }
            previous = point
        }
        arrays.edgeShapeStart.append(UInt32(arrays.shapeLatitudes.count))
        arrays.edgeLength.append(Float(length))
        arrays.edgeLabel.append(label)
        arrays.edgeRef.append(ref)
        arrays.edgeFlags.append(flags.rawValue)
        arrays.edgeClass.append(rule.roadClass.rawValue)
        edgeWay.append(Int32(way))
        edgeTail.append(vertex(ofNode: nodes.first!))
        edgeHead.append(vertex(ofNode: nodes.last!))
    }

    private mutating func buildArcs() {
        let edgeCount = arrays.edgeLength.count
        arrays.edgeForwardArc = Array(repeating: noIndex, count: edgeCount)
        arrays.edgeBackwardArc = Array(repeating: noIndex, count: edgeCount)
        for e in 0..<edgeCount {
            let rule = rules[Int(edgeWay[e])]!
            // Ceiling keeps every weight at or above length / maxSpeed, so the A* heuristic stays consistent.
            let driveTime = (Double(arrays.edgeLength[e]) / (rule.speed / 3.6) * 1000).rounded(.up)
            for reversed in [false, true] where reversed ? rule.backward : rule.forward {
                let signalCount = edgeSignals.isEmpty ? 0 : Double(reversed ? edgeSignals[e].backward : edgeSignals[e].forward)
                let weight = UInt32(min(Double(UInt32.max / 4), driveTime + signalCount * profile.trafficSignalPenalty * 1000))
                let arc = UInt32(arrays.arcHead.count)
                arrays.arcEdge.append(UInt32(e) << 1 | (reversed ? 1 : 0))
                arrays.arcHead.append(reversed ? edgeTail[e] : edgeHead[e])
                arcTail.append(reversed ? edgeHead[e] : edgeTail[e])
                arrays.arcWeight.append(weight)
                arrays.arcBase.append(arc)
                if reversed { arrays.edgeBackwardArc[e] = arc } else { arrays.edgeForwardArc[e] = arc }
            }
        }
        let vertexCount = arrays.vertexLatitudes.count
        (outStart, outArcs) = Self.groupArcs(by: arcTail, vertexCount: vertexCount)
        (inStart, inArcs) = Self.groupArcs(by: arrays.arcHead, vertexCount: vertexCount)
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

    private var vertexNode: [UInt32] = []
    private mutating func osmNode(ofVertex v: UInt32) -> UInt32 {
        if vertexNode.isEmpty {
            vertexNode = Array(repeating: 0, count: arrays.vertexLatitudes.count)
            for (node, vertex) in nodeVertex.enumerated() where vertex != noIndex { vertexNode[Int(vertex)] = UInt32(node) }
        }
        return vertexNode[Int(v)]
    }

    /// What each allowed turn costs (milliseconds), from the angle between the road arriving and the road leaving
    /// and how many roads meet there (`TravelProfile.turnPenalty`).
    private func turnWeights(_ t: Transitions) -> [UInt32] {
        guard profile.mode == .driving else { return [UInt32](repeating: 0, count: t.targets.count) }
        var weights: [UInt32] = []
        weights.reserveCapacity(t.targets.count)
        for a in 0..<arrays.arcHead.count {
            let arriving = bearing(ofArc: UInt32(a), atTail: false)
            let head = Int(arrays.arcHead[a])
            let roadsHere = Int(arrays.vertexEdgeStart[head + 1] - arrays.vertexEdgeStart[head])
            let baseA = arrays.arcEdge[Int(arrays.arcBase[a])]
            for i in Int(t.start[a])..<Int(t.start[a + 1]) {
                let b = t.targets[i]
                let baseB = arrays.arcEdge[Int(arrays.arcBase[Int(b)])]
                let isUturn = baseA >> 1 == baseB >> 1 && baseA != baseB
                var angle = (bearing(ofArc: b, atTail: true) - arriving).truncatingRemainder(dividingBy: 360)
                if angle > 180 { angle -= 360 }
                if angle <= -180 { angle += 360 }
                let seconds = profile.turnPenalty(angle: isUturn ? 180 : angle, roads: roadsHere, isUturn: isUturn)
                weights.append(UInt32((seconds * 1000).rounded()))
            }
        }
        return weights
    }

    /// The direction of travel on an arc as it leaves its tail, or as it arrives at its head (degrees from north).
    private func bearing(ofArc arc: UInt32, atTail: Bool) -> Double {
        let packed = arrays.arcEdge[Int(arc)]
        let e = Int(packed >> 1), reversed = packed & 1 == 1
        // From the junction end into the edge: the tail's end for leaving, the head's end (reversed) for arriving.
        let away = Geo.bearing(intoLine: Int(arrays.edgeShapeStart[e])..<Int(arrays.edgeShapeStart[e + 1]),
                               fromLast: atTail == reversed) {
            Coordinate(fixedLatitude: arrays.shapeLatitudes[$0], fixedLongitude: arrays.shapeLongitudes[$0])
        }
        return atTail ? away : (away + 180).truncatingRemainder(dividingBy: 360)
    }

    /// Via-way restrictions: the path's arcs are duplicated; the from-arc enters the copy instead of the original,
    /// and the copy's last arc lacks the forbidden turn (or has only the mandated one). Leaving the path midway
    /// uses the copies' ordinary turns, so only the complete from → via → to sequence is affected.
    private mutating func applyViaWayRestrictions(_ rules: [TurnRestriction], transitions t: inout Transitions) {
        struct Group { var from: UInt32; var path: [UInt32]; var rules: [(to: Set<UInt32>, only: Bool)] }
        var groups: [[UInt32]: Group] = [:]
        var order: [[UInt32]] = []
        for r in rules {
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
                        groups[key]!.rules.append((toArcs, r.isOnly))
                        mapped = true
                    }
                }
            }
            if mapped { statistics.restrictionsViaWay += 1 }
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
                        next = next.filter { rule.only ? rule.to.contains($0) : !rule.to.contains($0) }
                    }
                }
                extraRows.append(next)
                arrays.arcEdge.append(arrays.arcEdge[Int(arc)])
                arrays.arcHead.append(arrays.arcHead[Int(arc)])
                arrays.arcWeight.append(arrays.arcWeight[Int(arc)])
                arrays.arcBase.append(arrays.arcBase[Int(arc)])
            }
            t.targets[entrySlot] = firstCopy
        }
        for extra in extraRows {
            t.targets.append(contentsOf: extra)
            t.start.append(UInt32(t.targets.count))
        }
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
}
