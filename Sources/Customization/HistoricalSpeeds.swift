import Foundation
import RoadGraph

/// One row of a historical speed file: the segment from one OSM node to the next, in that direction, at `speed`
/// km/h in the quarter hours of the week `slots` names (see `TrafficFiles.historicalSpeeds`).
public struct HistoricalSpeed: Equatable, Sendable {
    public var from: Int64, to: Int64
    public var speed: Double
    /// Week slots (`WeekSlots`), ascending.
    public var slots: [UInt16]
}

extension TrafficFiles {
    /// Reads a historical speed file: `from_osm_node,to_osm_node,speed_kmh,when` per line, the first three as in a
    /// segment speed file. `when` is a week slot (0 to 671, 0 being Monday 00:00–00:15) or the rest of the line as
    /// opening_hours of a week (`Mo-Fr 07:00-09:30`, `Sa,Su 10:00-18:00`): the slots whose start it covers. Later
    /// rows for the same segment and slot replace earlier ones.
    public static func historicalSpeeds(path: String) throws -> [HistoricalSpeed] {
        try historicalSpeeds(contents(path), name: path)
    }

    /// A historical speed file's bytes; `name` names it in errors.
    public static func historicalSpeeds(_ data: Data, name: String) throws -> [HistoricalSpeed] {
        var known: [String: Row<[UInt16]>] = [:]
        return try rows(data, name: name, minimumFields: 4) { fields in
            guard let from = fields[0].int64, let to = fields[1].int64 else { return .failure("node ids must be whole numbers") }
            // A road closed at some hours is a conditional tag's to say (`access:conditional`), not a speed's.
            guard let speed = fields[2].double, speed.isFinite, speed > 0, speed <= 1000 else {
                return .failure("speed '\(fields[2])' is not a number of km/h above 0 and up to 1000")
            }
            let when = fields[3...].map { String(decoding: $0.bytes, as: UTF8.self) }.joined(separator: ",")
            let slots: Row<[UInt16]>
            if let cached = known[when] { slots = cached } else {
                slots = weekSlots(when)
                known[when] = slots
            }
            switch slots {
            case .success(let slots): return .success(HistoricalSpeed(from: from, to: to, speed: speed, slots: slots))
            case .failure(let message): return .failure(message)
            }
        }
    }

    /// The week slots a `when` field names.
    static func weekSlots(_ when: String) -> Row<[UInt16]> {
        if let slot = Int(when) {
            guard (0..<WeekSlots.count).contains(slot) else {
                return .failure("week slot \(slot) is not from 0 (Monday 00:00) to \(WeekSlots.count - 1) (Sunday 23:45)")
            }
            return .success([UInt16(slot)])
        }
        guard let hours = OpeningHours(when) else {
            return .failure("'\(when.prefix(60))' is neither a week slot (0 to \(WeekSlots.count - 1)) nor opening_hours")
        }
        // Read on a week of winter and one of summer: a speed of the week may not name dates.
        let mondays = [LocalTime.days(year: 2024, month: 1, day: 1), LocalTime.days(year: 2024, month: 7, day: 1)]
        let weeks = mondays.map { monday in
            (0..<WeekSlots.count).filter { hours.isActive(at: LocalTime(wallSeconds: monday * 86_400 + Int64($0) * WeekSlots.seconds)) }
        }
        guard weeks[0] == weeks[1] else {
            return .failure("'\(when.prefix(60))' depends on the date: a historical speed holds for a time of the week")
        }
        guard !weeks[0].isEmpty else { return .failure("'\(when.prefix(60))' names no quarter hour of the week") }
        return .success(weeks[0].map { UInt16($0) })
    }
}

/// The week of costs historical speeds give a graph's arcs, on top of a metric: for each arc with a segment named by
/// some row, runs of slots (`HistorySlot`) in which it costs what the metric's segments cost with that slot's rows
/// applied (as a segment speed file's rows, without a rate: the weight is the new time). Slots no row names keep the
/// metric. Indexed as `GraphArrays.historyStart` and `historySlots` say.
public struct HistoricalMetric {
    public var start: [UInt32] = [], runs: [HistorySlot] = []
    /// Segments the rows named that the graph has, and those it does not (counted, not refused, as speed files).
    public var usedSegments = 0, unusedSegments = 0
    /// Arcs that got a week of their own.
    public var arcs = 0

    public init() {}

    /// `leastWeight(a)`: the floor every weight of arc `a` keeps (the A* bound's, as the customizer floors the
    /// metric's).
    public init(_ rows: [HistoricalSpeed], graph: RoadGraph, metric: TrafficMetric, leastWeight: (Int) -> UInt32) {
        guard !rows.isEmpty, graph.hasNodeIDs else { unusedSegments = Set(rows.map { [$0.from, $0.to] }).count; return }
        struct Segment: Hashable { var from: Int64, to: Int64 }
        var bySegment: [Segment: [Int]] = [:]
        for (i, row) in rows.enumerated() { bySegment[Segment(from: row.from, to: row.to), default: []].append(i) }
        var used = Set<Segment>()
        start.reserveCapacity(graph.arcCount + 1)
        start.append(0)
        for a in 0..<graph.arcCount {
            defer { start.append(UInt32(runs.count)) }
            guard graph.arcBase[a] == UInt32(a) else { continue }
            let e = Int(graph.arcEdge[a] >> 1), reversed = graph.arcEdge[a] & 1 == 1
            let first = Int(graph.edgeShapeStart[e]), last = Int(graph.edgeShapeStart[e + 1]) - 1
            // Each named segment's speed in every slot of the week (NaN: none).
            var named: [(index: Int, from: Int64, to: Int64, speeds: [Double])] = []
            for k in 0..<max(0, last - first) {
                let (p, q) = reversed ? (last - k, last - k - 1) : (first + k, first + k + 1)
                let key = Segment(from: graph.shapeNodeIDs[p], to: graph.shapeNodeIDs[q])
                guard let indices = bySegment[key] else { continue }
                used.insert(key)
                var speeds = [Double](repeating: .nan, count: WeekSlots.count)
                for i in indices { for slot in rows[i].slots { speeds[Int(slot)] = rows[i].speed } }
                named.append((k, key.from, key.to, speeds))
            }
            guard !named.isEmpty, let segments = metric.segments(ofArc: a, in: graph, ownSegments: true) else { continue }
            let least = leastWeight(a)
            var week: [HistorySlot] = []
            for slot in 0..<WeekSlots.count {
                // A slot whose speeds are those of the slot before costs what it did (compared in place: a week
                // has 672 slots per arc, too many for an array each).
                if slot > 0, named.allSatisfy({ $0.speeds[slot] == $0.speeds[slot - 1]
                                                || ($0.speeds[slot].isNaN && $0.speeds[slot - 1].isNaN) }) { continue }
                let changes = named.indices.compactMap { j -> (index: Int, row: SegmentSpeed)? in
                    named[j].speeds[slot].isNaN ? nil
                        : (named[j].index, SegmentSpeed(from: named[j].from, to: named[j].to, speed: named[j].speeds[slot],
                                                        weight: .time))
                }
                var run = HistorySlot(slot: UInt16(slot), weight: HistorySlot.current, duration: 0)
                if !changes.isEmpty {
                    var priced = segments
                    let (d, w, _) = TrafficMetric.price(&priced, changes)
                    if d != metric.arcDuration[a] || max(w, least) != metric.arcWeight[a] {
                        run = HistorySlot(slot: UInt16(slot), weight: max(w, least), duration: d)
                    }
                }
                if let last = week.last, last.weight == run.weight && last.duration == run.duration { continue }
                week.append(run)
            }
            guard week.contains(where: { $0.weight != HistorySlot.current }) else { continue }
            runs += week
            arcs += 1
        }
        usedSegments = used.count
        unusedSegments = bySegment.count - used.count
        if runs.isEmpty { start = [] }
    }
}
