import Foundation
import RoadGraph

/// A graph's arc and turn costs after traffic files: the import's own costs with the named segments and turns
/// changed, as `osrm-customize` changes them (checked against OSRM 26.10 on drawn maps: `CustomizationTests`).
public struct TrafficMetric {
    public var arcWeight: [UInt32], arcDuration: [UInt32]
    /// The import's turns (every customization starts from all of them) with their costs.
    public var transitionStart: [UInt32], transitionTargets: [UInt32], transitionWeight: [UInt32]
    /// Per arc (empty when none is): closed by a speed of 0, so no route enters it.
    public var closed: [Bool] = []
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

    /// The turns a route may take at this metric: all but those onto a closed arc.
    public func openTransitions() -> (start: [UInt32], targets: [UInt32], weight: [UInt32]) {
        guard closed.contains(true) else { return (transitionStart, transitionTargets, transitionWeight) }
        var start: [UInt32] = [0], targets: [UInt32] = [], weight: [UInt32] = []
        targets.reserveCapacity(transitionTargets.count)
        weight.reserveCapacity(transitionTargets.count)
        for a in 0..<(transitionStart.count - 1) {
            for i in Int(transitionStart[a])..<Int(transitionStart[a + 1]) where !closed[Int(transitionTargets[i])] {
                targets.append(transitionTargets[i])
                weight.append(transitionWeight[i])
            }
            start.append(UInt32(targets.count))
        }
        return (start, targets, weight)
    }

    /// A segment's time at `kmh`, milliseconds: rounded to a tenth of a second and at least one tenth, as the
    /// import stores a segment's time.
    static func segmentMilliseconds(metres: Double, kmh: Double) -> Double {
        100 * max(1, (metres / (kmh / 3.6) * 10).rounded())
    }

    /// Applies segment speeds. An arc's time is shared among its segments by length (a way's speed is the same
    /// along it), and each named segment's share is replaced by its time at the new speed; its weight as
    /// `SegmentSpeed.Weight` says. A segment at speed 0 (without a rate), or at a rate of 0 or less, is closed: its
    /// arc is left out of every route (`closed`), as OSRM leaves it out.
    public mutating func apply(_ rows: [SegmentSpeed], to graph: RoadGraph) {
        guard !rows.isEmpty else { return }
        struct Segment: Hashable { var from: Int64, to: Int64 }
        var speeds: [Segment: SegmentSpeed] = [:]
        speeds.reserveCapacity(rows.count)
        for row in rows { speeds[Segment(from: row.from, to: row.to)] = row }
        var used = Set<Segment>()
        let limit = Double(RoadGraph.maxArcWeight)
        if closed.isEmpty { closed = Array(repeating: false, count: graph.arcCount) }
        for a in 0..<graph.arcCount {
            let e = Int(graph.arcEdge[a] >> 1), reversed = graph.arcEdge[a] & 1 == 1
            let first = Int(graph.edgeShapeStart[e]), last = Int(graph.edgeShapeStart[e + 1]) - 1
            guard last > first, graph.hasNodeIDs else { continue }
            var lengths: [Double] = [], changes: [(index: Int, row: SegmentSpeed)] = []
            var total = 0.0
            for k in 0..<(last - first) {
                let (p, q) = reversed ? (last - k, last - k - 1) : (first + k, first + k + 1)
                let metres = Geo.osrmRulerDistance(graph.shapePoint(p), graph.shapePoint(q))  // as the import measures segments
                lengths.append(metres)
                total += metres
                let key = Segment(from: graph.shapeNodeIDs[p], to: graph.shapeNodeIDs[q])
                if let row = speeds[key] { changes.append((k, row)); used.insert(key) }
            }
            guard !changes.isEmpty else { continue }
            let duration = Double(arcDuration[a]), weight = Double(arcWeight[a])
            var newDuration = duration, newWeight = weight
            for (k, row) in changes {
                let share = total > 0 ? lengths[k] / total : 1 / Double(lengths.count)
                // OSRM's slowest segment (419,430.3 s) where the speed is 0 but a rate keeps it open.
                let time = row.speed > 0 ? Self.segmentMilliseconds(metres: lengths[k], kmh: row.speed) : 419_430_300
                newDuration += time - duration * share
                switch row.weight {
                case .time:
                    if row.speed <= 0 { closed[a] = true }
                    newWeight += time - weight * share
                case .unchanged:
                    if row.speed <= 0 { closed[a] = true }
                case .rate(let rate):
                    if rate <= 0 { closed[a] = true } else {
                        newWeight += Self.segmentMilliseconds(metres: lengths[k], kmh: rate * 3.6) - weight * share
                    }
                }
            }
            let d = UInt32(min(limit, max(0, newDuration.rounded()))), w = UInt32(min(limit, max(100, newWeight.rounded())))
            if d != arcDuration[a] || w != arcWeight[a] || closed[a] { changedArcs += 1 }
            arcDuration[a] = d
            arcWeight[a] = w
        }
        usedSpeedRows = used.count
        unusedSpeedRows = speeds.count - used.count
    }

    /// Applies turn penalties: a row replaces the turn's cost (its weight when given, else its penalty) on every
    /// transition from the arc that ends `from` → `via` onto the arc that starts `via` → `to`. A turn has one cost
    /// here for both time and weight, so a row whose weight differs from its penalty gives the weight to both.
    public mutating func apply(_ rows: [TurnPenalty], to graph: RoadGraph) {
        guard !rows.isEmpty else { return }
        struct Turn: Hashable { var from: Int64, via: Int64, to: Int64 }
        var penalties: [Turn: TurnPenalty] = [:]
        for row in rows { penalties[Turn(from: row.from, via: row.via, to: row.to)] = row }
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
        for a in 0..<graph.arcCount {
            let into = nodes(a)
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
}
