/// The week as historical speeds divide it: 672 quarter hours, slot 0 from Monday 00:00 to 00:15.
public enum WeekSlots {
    public static let count = 672
    public static let seconds: Int64 = 900

    /// Seconds since the Monday 00:00 before (or at) a local wall-clock time.
    public static func secondOfWeek(_ time: LocalTime) -> Int64 {
        let second = time.wallSeconds - (time.wallSeconds >= 0 ? time.wallSeconds / 60 : (time.wallSeconds - 59) / 60) * 60
        return Int64(time.weekday) * 86_400 + Int64(time.minute) * 60 + second
    }
}

/// One run of an arc's week of historical speeds (`wayfinder customize --historical-speeds`): from week slot `slot`
/// until the arc's next run (or the week's end), an arc entered then costs `weight` and `duration` milliseconds.
/// `weight` is `HistorySlot.current` in slots no row named: there the graph's own metric holds.
public struct HistorySlot: Equatable, Sendable {
    public var slot: UInt16
    /// Zero, so that every byte of a graph file is defined.
    var reserved: UInt16 = 0
    public var weight: UInt32
    public var duration: UInt32

    public init(slot: UInt16, weight: UInt32, duration: UInt32) {
        self.slot = slot
        self.weight = weight
        self.duration = duration
    }

    /// The weight of a run in which the graph's metric holds (no historical speed for any segment of the arc).
    public static let current = UInt32.max
}

extension RoadGraph {
    /// Whether the graph has historical speeds (a week of costs for some arcs).
    public var hasHistory: Bool { !historySlots.isEmpty }

    /// Whether the graph has a hierarchy of its least weights over the week (`GraphArrays.boundUpStart`).
    public var hasWeekBounds: Bool { !boundUpStart.isEmpty }

    /// Whether a departure time can change a route on this graph: it has timed rules or historical speeds.
    public var dependsOnTime: Bool { !timedRules.isEmpty || hasHistory }

    /// What arc `a` costs when entered in week slot `slot`: its historical costs where a run covers that slot,
    /// else the metric's. A copy of an arc (a via-way restriction's) costs its original's, plus what entering the
    /// copy costs beyond it.
    @inlinable public func costs(ofArc a: UInt32, inSlot slot: Int) -> (weight: UInt32, duration: UInt32) {
        let arc = Int(a), base = Int(arcBase[arc])
        guard base + 1 < historyStart.count else { return (arcWeight[arc], arcDuration[arc]) }
        let lo = Int(historyStart[base]), hi = Int(historyStart[base + 1])
        guard lo < hi else { return (arcWeight[arc], arcDuration[arc]) }
        // Runs start at slot 0 and ascend: the last one that starts at or before the slot, by bisection (a week of
        // weekday rush hours is 21 runs).
        var low = lo, high = hi
        while high - low > 1 {
            let mid = (low + high) / 2
            if Int(historySlots[mid].slot) <= slot { low = mid } else { high = mid }
        }
        let run = historySlots[low]
        guard run.weight != HistorySlot.current else { return (arcWeight[arc], arcDuration[arc]) }
        let entry = arcWeight[arc] > arcWeight[base] ? arcWeight[arc] - arcWeight[base] : 0
        return (run.weight + entry, run.duration)
    }
}

/// A part of an arc's metric cost (a route's end on it) at the arc's cost in some slot: in proportion, rounded to the
/// millisecond. The whole (`part == whole`) maps to `scaled` exactly, and larger parts never to less.
@inlinable public func proportion(_ part: UInt32, of whole: UInt32, scaledTo scaled: UInt32) -> UInt32 {
    guard whole > 0, scaled != whole else { return part }
    return UInt32((UInt64(part) * UInt64(scaled) + UInt64(whole) / 2) / UInt64(whole))
}
