import RoadGraph

/// What a one-to-all search counts: travel time (milliseconds, turns and signals included, no routing penalties)
/// or length (centimetres, turns free).
public enum ReachMetric: String, Sendable {
    case duration, distance

    /// The cost of travelling arc `a` whole.
    @inlinable func cost(ofArc a: Int, in graph: RoadGraph) -> UInt32 {
        switch self {
        case .duration: return graph.arcDuration[a]
        case .distance: return graph.arcCentimetres(a)
        }
    }

    /// The cost of a turn whose weight is `weight`: time counts it, length does not.
    @inlinable func cost(ofTurn weight: UInt32) -> UInt32 { self == .duration ? weight : 0 }
}

/// Where a one-to-all search starts: a snapped point, as the arcs it may leave along and how far along them it is.
public struct ReachStart: Sendable {
    public var arc: UInt32
    /// Position along the arc (0 at its tail).
    public var fraction: Double

    public init(arc: UInt32, fraction: Double) {
        self.arc = arc
        self.fraction = fraction
    }
}

/// Bounded one-to-all Dijkstra over arcs and turns (the exact model every route uses), by time or by length: the
/// cheapest cost of reaching every arc's tail (after the turn onto it) and head, up to a limit. Isochrones read
/// it whole; map matching reads it at a few candidate points. One per thread; scratch kept between searches.
public struct ReachSearch {
    /// Cost at the arc's head, and at its tail once the turn onto it is made (UInt32.max where not reached that way).
    private var atHead: [UInt32] = []
    private var atTail: [UInt32] = []
    private var reached = SearchStamps()
    private var heap = SearchHeap()
    /// The arcs with a label, in the order they were reached.
    public private(set) var touched: [UInt32] = []
    public private(set) var starts: [ReachStart] = []
    public private(set) var metric = ReachMetric.duration
    public private(set) var limit: UInt32 = 0
    public private(set) var settled = 0

    public init() {}

    /// Searches from `starts` until every cost up to `limit` (at most 2^31 - 1, so sums cannot wrap) is known.
    /// Arcs of `excluding` classes are not used.
    public mutating func run(in graph: RoadGraph, from starts: [ReachStart], metric: ReachMetric, limit: UInt32,
                             excluding: ArcClasses = []) {
        let limit = min(limit, UInt32(Int32.max))
        let count = graph.arcCount
        if reached.reset(count: count) {
            atHead = Array(repeating: .max, count: count)
            atTail = Array(repeating: .max, count: count)
        }
        heap.removeAll()
        touched.removeAll(keepingCapacity: true)
        self.starts = starts
        self.metric = metric
        self.limit = limit
        settled = 0
        let excluded = excluding.rawValue
        let classes = graph.arcClasses
        for s in starts {
            let a = Int(s.arc)
            let whole = metric.cost(ofArc: a, in: graph)
            let rest = whole - partialWeight(whole, s.fraction)
            label(a)
            if rest < atHead[a] {
                atHead[a] = rest
                heap.push(Int64(rest), s.arc)
            }
        }
        let start = graph.transitionStart, next = graph.transitionTargets, turn = graph.transitionWeight
        while let (key, arc) = heap.pop() {
            if key > Int64(limit) { break }
            let a = Int(arc)
            let d = atHead[a]
            if Int64(d) != key { continue }
            settled += 1
            if settled & 0x3FFF == 0 && WorkBudget.exceeded() { break }
            for i in Int(start[a])..<Int(start[a + 1]) {
                let b = Int(next[i])
                if classes[b] & excluded != 0 { continue }
                // Past 2³² − 1 the arc is out of reach (every limit is far below): dropped, never wrapped round.
                let (entry, overflow) = d.addingReportingOverflow(metric.cost(ofTurn: turn[i]))
                if overflow { continue }
                label(b)
                if entry < atTail[b] { atTail[b] = entry }
                let (arrival, arcOverflow) = entry.addingReportingOverflow(metric.cost(ofArc: b, in: graph))
                if !arcOverflow && arrival < atHead[b] {
                    atHead[b] = arrival
                    heap.push(Int64(arrival), UInt32(b))
                }
            }
        }
    }

    private mutating func label(_ a: Int) {
        if reached.insertIfAbsent(a) {
            atHead[a] = .max
            atTail[a] = .max
            touched.append(UInt32(a))
        }
    }

    /// The cost of reaching the point at `fraction` along arc `a` (0 at its tail), nil beyond the limit or not
    /// reached: entered at its tail, or from a start on this arc behind the point.
    public func cost(arc a: UInt32, fraction: Double, in graph: RoadGraph) -> UInt32? {
        let i = Int(a)
        guard reached.contains(i) else { return nil }
        let whole = metric.cost(ofArc: i, in: graph)
        var best = UInt64.max
        if atTail[i] != .max { best = UInt64(atTail[i]) + UInt64(partialWeight(whole, fraction)) }
        for s in starts where s.arc == a && s.fraction <= fraction {
            best = min(best, UInt64(partialWeight(whole, fraction) - partialWeight(whole, s.fraction)))
        }
        return best <= UInt64(limit) ? UInt32(best) : nil
    }

    /// The cost at the arc's head (nil beyond the limit or not reached).
    public func costAtHead(_ a: UInt32) -> UInt32? {
        let i = Int(a)
        guard reached.contains(i), atHead[i] <= limit else { return nil }
        return atHead[i]
    }

    /// The cost at the arc's tail once turned onto it (nil beyond the limit, not reached, or a start arc only).
    public func costAtTail(_ a: UInt32) -> UInt32? {
        let i = Int(a)
        guard reached.contains(i), atTail[i] <= limit else { return nil }
        return atTail[i]
    }
}

extension RoadGraph {
    /// Where a one-to-all search leaves a snapped point: each usable direction of its edge and its alternatives'.
    public func reachStarts(_ snap: Snap) -> [ReachStart] {
        candidateArcs(at: snap).map { arc, f in ReachStart(arc: arc, fraction: f) }
    }
}
