import Foundation
import RoadGraph

/// A graph's arc and turn costs after traffic files: the import's own costs with the named segments and turns
/// changed, as `osrm-customize` changes them (checked against OSRM 26.10 on drawn maps: `CustomizationTests`).
public struct TrafficMetric {
    public var arcWeight: [UInt32], arcDuration: [UInt32]
    /// The import's turns (every customization starts from all of them) with their costs.
    public var transitionStart: [UInt32], transitionTargets: [UInt32], transitionWeight: [UInt32]
    /// Per arc (empty when none is): closed by a speed of 0, so no route passes through it.
    public var closed: [Bool] = []
    /// Per segment of each changed road piece (see `GraphArrays.segmentWeight`; empty when none changed).
    public var segmentWeight: [UInt32] = [], segmentDuration: [UInt32] = []
    /// Rows that named a segment or turn the graph has, and those that did not (counted, as OSRM counts them,
    /// never an error: a city's graph gets a country's speed file).
    public var usedSpeedRows = 0, unusedSpeedRows = 0, usedTurnRows = 0, unusedTurnRows = 0
    /// Arcs and turns whose cost changed.
    public var changedArcs = 0, changedTurns = 0

    /// The import's costs: where every customization starts, whatever the graph's metric is now.
    public static func importMetric(of graph: RoadGraph) -> TrafficMetric {
        guard !graph.importArcWeight.isEmpty else {
            return TrafficMetric(arcWeight: Array(graph.arcWeight), arcDuration: Array(graph.arcDuration),
                                 transitionStart: Array(graph.transitionStart), transitionTargets: Array(graph.transitionTargets),
                                 transitionWeight: Array(graph.transitionWeight))
        }
        return TrafficMetric(arcWeight: Array(graph.importArcWeight), arcDuration: Array(graph.importArcDuration),
                             transitionStart: Array(graph.importTransitionStart),
                             transitionTargets: Array(graph.importTransitionTargets),
                             transitionWeight: Array(graph.importTransitionWeight))
    }

    public init(arcWeight: [UInt32], arcDuration: [UInt32], transitionStart: [UInt32], transitionTargets: [UInt32],
                transitionWeight: [UInt32]) {
        self.arcWeight = arcWeight; self.arcDuration = arcDuration
        self.transitionStart = transitionStart; self.transitionTargets = transitionTargets; self.transitionWeight = transitionWeight
    }

    /// The turns a route may take at this metric: all but those off a closed arc. A route may still enter one,
    /// to reach a point before its closed segment (as OSRM reaches it); beyond that segment the arc costs as much
    /// as an arc may (`segmentWeight` holds it), and nothing leads on from it.
    public func openTransitions() -> (start: [UInt32], targets: [UInt32], weight: [UInt32]) {
        guard closed.contains(true) else { return (transitionStart, transitionTargets, transitionWeight) }
        var start: [UInt32] = [0], targets: [UInt32] = [], weight: [UInt32] = []
        targets.reserveCapacity(transitionTargets.count)
        weight.reserveCapacity(transitionTargets.count)
        for a in 0..<(transitionStart.count - 1) {
            if !closed[a] {
                for i in Int(transitionStart[a])..<Int(transitionStart[a + 1]) {
                    targets.append(transitionTargets[i])
                    weight.append(transitionWeight[i])
                }
            }
            start.append(UInt32(targets.count))
        }
        return (start, targets, weight)
    }

    /// Milliseconds as an arc stores them (at most `RoadGraph.maxArcWeight`).
    static func milliseconds(_ value: Double) -> UInt32 {
        UInt32(min(Double(RoadGraph.maxArcWeight), max(0, value.rounded())))
    }

    /// A segment's time at `kmh`, milliseconds: rounded to a tenth of a second and at least one tenth, as the
    /// import stores a segment's time.
    static func segmentMilliseconds(metres: Double, kmh: Double) -> Double {
        100 * max(1, (metres / (kmh / 3.6) * 10).rounded())
    }

    /// One arc's segments as a metric prices them: what a speed row changes.
    struct ArcSegments {
        /// Each segment's length (metres, OSRM's ruler), time and weight (milliseconds), in the arc's direction.
        var lengths: [Double], times: [Double], weights: [Double]
        /// What the arc costs beyond its segments (delays at nodes inside it, a copy's entry).
        var delay: Double, weightDelay: Double
        /// Each segment's place in `segmentWeight`, and its OSM nodes in the arc's direction.
        var indices: [Int], nodes: [(from: Int64, to: Int64)]
    }

    /// Arc `a`'s segments at this metric: the segments' own costs where the metric changed them (with
    /// `ownSegments`) or the import's, else each a share of the arc's by length. Nil for an arc without segments.
    func segments(ofArc a: Int, in graph: RoadGraph, ownSegments: Bool = false) -> ArcSegments? {
        let e = Int(graph.arcEdge[a] >> 1), reversed = graph.arcEdge[a] & 1 == 1
        let first = Int(graph.edgeShapeStart[e]), last = Int(graph.edgeShapeStart[e + 1]) - 1
        guard last > first, graph.hasNodeIDs else { return nil }
        let count = last - first
        // In the arc's direction: shape points p → q.
        let points = (0..<count).map { k in reversed ? (last - k, last - k - 1) : (first + k, first + k + 1) }
        // Measured as the import measures segments.
        let lengths = points.map { Geo.osrmRulerDistance(graph.shapePoint($0.0), graph.shapePoint($0.1)) }
        let total = lengths.reduce(0, +)
        let duration = Double(arcDuration[a]), weight = Double(arcWeight[a])
        let base = first - e, direction = reversed ? 1 : 0
        let indices = (0..<count).map { k in 2 * (base + (reversed ? count - 1 - k : k)) + direction }
        var times = lengths.map { total > 0 ? duration * $0 / total : duration / Double(count) }
        var weights = lengths.map { total > 0 ? weight * $0 / total : weight / Double(count) }
        func fits(_ t: [Double], _ w: [Double]) -> Bool {
            t.allSatisfy { $0 > 0 } && t.reduce(0, +) <= duration && w.reduce(0, +) <= weight
        }
        let own = ownSegments && !segmentDuration.isEmpty ? (indices.map { Double(segmentDuration[$0]) }, indices.map { Double(segmentWeight[$0]) }) : nil
        if let own, fits(own.0, own.1) {
            (times, weights) = own
        } else if !graph.importSegmentDuration.isEmpty {
            let importTimes = indices.map { Double(graph.importSegmentDuration[$0]) }
            let importWeights = indices.map { Double(graph.importSegmentWeight[$0]) }
            if fits(importTimes, importWeights) { (times, weights) = (importTimes, importWeights) }
        }
        return ArcSegments(lengths: lengths, times: times, weights: weights,
                           delay: duration - times.reduce(0, +), weightDelay: weight - weights.reduce(0, +),
                           indices: indices, nodes: points.map { (graph.shapeNodeIDs[$0.0], graph.shapeNodeIDs[$0.1]) })
    }

    /// Sets the changed segments' time and weight from their rows (as `apply` describes), and returns the arc's
    /// costs: its segments' and the rest as it was.
    static func price(_ arc: inout ArcSegments, _ changes: [(index: Int, row: SegmentSpeed)])
        -> (duration: UInt32, weight: UInt32, closes: Bool) {
        var closesArc = false
        for (k, row) in changes {
            // OSRM's slowest segment (419,430.3 s) where the speed is 0 but a rate keeps it open.
            let time = row.speed > 0 ? Self.segmentMilliseconds(metres: arc.lengths[k], kmh: row.speed) : 419_430_300
            arc.times[k] = time
            let closes: Bool
            switch row.weight {
            case .time:
                closes = row.speed <= 0
                arc.weights[k] = time
            case .unchanged:
                closes = row.speed <= 0
            case .rate(let rate):
                closes = rate <= 0
                if rate > 0 { arc.weights[k] = Self.segmentMilliseconds(metres: arc.lengths[k], kmh: rate * 3.6) }
            }
            if closes {
                closesArc = true
                arc.weights[k] = 419_430_300  // at least `RoadGraph.closedSegmentWeight`: how routes tell it
            }
        }
        return (Self.milliseconds(arc.delay + arc.times.reduce(0, +)),
                max(100, Self.milliseconds(arc.weightDelay + arc.weights.reduce(0, +))), closesArc)
    }

    /// Applies segment speeds: each named segment's import time is replaced by its time at the new speed, and its
    /// weight as `SegmentSpeed.Weight` says. A segment at speed 0 (without a rate), or at a rate of 0 or less, is closed: no
    /// route passes it (`closed`), as none passes it in OSRM.
    public mutating func apply(_ rows: [SegmentSpeed], to graph: RoadGraph) {
        guard !rows.isEmpty else { return }
        struct Segment: Hashable { var from: Int64, to: Int64 }
        var speeds: [Segment: SegmentSpeed] = [:]
        speeds.reserveCapacity(rows.count)
        for row in rows { speeds[Segment(from: row.from, to: row.to)] = row }
        let named = NodeFilter(rows.lazy.map(\.from))
        var used = Set<Segment>()
        if closed.isEmpty { closed = Array(repeating: false, count: graph.arcCount) }
        for a in 0..<graph.arcCount {
            let e = Int(graph.arcEdge[a] >> 1), reversed = graph.arcEdge[a] & 1 == 1
            let first = Int(graph.edgeShapeStart[e]), last = Int(graph.edgeShapeStart[e + 1]) - 1
            guard last > first, graph.hasNodeIDs else { continue }
            var changes: [(index: Int, row: SegmentSpeed)] = []
            for k in 0..<(last - first) {
                let (p, q) = reversed ? (last - k, last - k - 1) : (first + k, first + k + 1)
                guard named.mayContain(graph.shapeNodeIDs[p]) else { continue }
                let key = Segment(from: graph.shapeNodeIDs[p], to: graph.shapeNodeIDs[q])
                if let row = speeds[key] { changes.append((k, row)); used.insert(key) }
            }
            // Each segment's time and weight as the import set it, then what its row says; the rest of the arc's
            // figures (delays at nodes inside it) stays.
            guard !changes.isEmpty, var arc = segments(ofArc: a, in: graph) else { continue }
            let (d, w, closes) = Self.price(&arc, changes)
            if closes { closed[a] = true }
            if d != arcDuration[a] || w != arcWeight[a] || closed[a] { changedArcs += 1 }
            arcDuration[a] = d
            arcWeight[a] = w
            if graph.arcBase[a] == UInt32(a) {
                if segmentWeight.isEmpty {
                    segmentWeight = Array(repeating: 0, count: 2 * (graph.shapeLatitudes.count - graph.edgeCount))
                    segmentDuration = segmentWeight
                }
                // The segments alone (the delays stay in the arc's figures only), never more than the arc.
                for (values, target, into) in [(arc.times, d, \TrafficMetric.segmentDuration), (arc.weights, w, \TrafficMetric.segmentWeight)] {
                    var sum: UInt32 = 0
                    for k in values.indices {
                        let value = min(Self.milliseconds(values[k]), target - sum)
                        self[keyPath: into][arc.indices[k]] = value
                        sum += value
                    }
                }
            }
        }
        usedSpeedRows = used.count
        unusedSpeedRows = speeds.count - used.count
    }

    /// Applies turn penalties: a row replaces the turn's cost (its weight when given, else its penalty) on every
    /// transition from the arc that ends `from` → `via` onto the arc that starts `via` → `to`. Not where two pieces
    /// of one road meet with nothing else there: OSRM joins them into one edge, so has no turn there to change, and
    /// leaves such a row unused (measured). A turn has one cost
    /// here for both time and weight, so a row whose weight differs from its penalty gives the weight to both.
    public mutating func apply(_ rows: [TurnPenalty], to graph: RoadGraph) {
        guard !rows.isEmpty else { return }
        struct Turn: Hashable { var from: Int64, via: Int64, to: Int64 }
        var penalties: [Turn: TurnPenalty] = [:]
        for row in rows { penalties[Turn(from: row.from, via: row.via, to: row.to)] = row }
        let named = NodeFilter(rows.lazy.map(\.via))
        var used = Set<Turn>()
        guard graph.hasNodeIDs else { unusedTurnRows = penalties.count; return }
        // The OSM nodes at an arc's ends: the last two it passes, and the first two.
        func nodes(_ a: Int) -> (beforeLast: Int64, last: Int64, first: Int64, second: Int64) {
            let e = Int(graph.arcEdge[a] >> 1), reversed = graph.arcEdge[a] & 1 == 1
            let first = Int(graph.edgeShapeStart[e]), last = Int(graph.edgeShapeStart[e + 1]) - 1
            let ids = graph.shapeNodeIDs
            return reversed ? (ids[first + 1], ids[first], ids[last], ids[last - 1])
                            : (ids[last - 1], ids[last], ids[first], ids[first + 1])
        }
        let joined = Self.verticesJoiningOneRoad(graph)
        for a in 0..<graph.arcCount where !joined[Int(graph.arcHead[a])] {
            let into = nodes(a)
            guard named.mayContain(into.last) else { continue }
            for i in Int(transitionStart[a])..<Int(transitionStart[a + 1]) {
                let onto = nodes(Int(transitionTargets[i]))
                let key = Turn(from: into.beforeLast, via: into.last, to: onto.second)
                guard let row = penalties[key] else { continue }
                used.insert(key)
                // Rounded to tenths as OSRM stores them; a turn costs nothing less than nothing here (OSRM takes a
                // negative one off the road before it, down to 0.4 s).
                let seconds = ((row.weight ?? row.penalty) * 10).rounded() / 10
                let cost = UInt32(max(0, min(Double(RoadGraph.maxTurnWeight), seconds * 1000)))
                if cost != transitionWeight[i] { changedTurns += 1 }
                transitionWeight[i] = cost
            }
        }
        usedTurnRows = used.count
        unusedTurnRows = penalties.count - used.count
    }

    /// Per vertex, whether OSRM joins its two road pieces into one (`GraphArrays.verticesJoiningOneRoad`, as the
    /// import decides it), from the arrays that decision reads.
    static func verticesJoiningOneRoad(_ graph: RoadGraph) -> [Bool] {
        var arrays = GraphArrays()
        arrays.vertexLatitudes = Array(graph.vertexLatitudes)
        arrays.vertexEdgeStart = Array(graph.vertexEdgeStart); arrays.vertexEdges = Array(graph.vertexEdges)
        arrays.edgeLabel = Array(graph.edgeLabel); arrays.edgeRef = Array(graph.edgeRef); arrays.edgeClass = Array(graph.edgeClass)
        arrays.edgeFlags = Array(graph.edgeFlags); arrays.edgeLanes = Array(graph.edgeLanes)
        arrays.edgeForwardArc = Array(graph.edgeForwardArc); arrays.edgeBackwardArc = Array(graph.edgeBackwardArc)
        arrays.arcClasses = Array(graph.arcClasses)
        // What OSRM keeps with a name: the plain name among the labels, a oneway's signs, pronunciation, exits.
        arrays.labelStart = Array(graph.labelStart); arrays.labelEntries = Array(graph.labelEntries)
        arrays.arcDestinations = Array(graph.arcDestinations)
        arrays.edgePronunciation = Array(graph.edgePronunciation); arrays.edgeExits = Array(graph.edgeExits)
        return arrays.verticesJoiningOneRoad(classesPart: graph.mode != .walking)
    }
}

/// A set of OSM node ids that answers "surely not" in one bit test: most of a graph's segments and turns are in no
/// traffic file, and the test spares them a hashed lookup of two or three ids each.
struct NodeFilter {
    private var bits: [UInt64]
    private let mask: Int

    init<S: Sequence>(_ ids: S) where S.Element == Int64 {
        let count = ids.underestimatedCount
        var size = 1 << 16
        while size < 16 * count { size <<= 1 }
        bits = [UInt64](repeating: 0, count: size / 64)
        mask = size - 1
        for id in ids { let b = Self.slot(id, mask); bits[b >> 6] |= 1 << UInt64(b & 63) }
    }

    func mayContain(_ id: Int64) -> Bool {
        let b = Self.slot(id, mask)
        return bits[b >> 6] & (1 << UInt64(b & 63)) != 0
    }

    private static func slot(_ id: Int64, _ mask: Int) -> Int {
        Int(truncatingIfNeeded: (UInt64(bitPattern: id) &* 0x9E37_79B9_7F4A_7C15) >> 20) & mask
    }
}
