import RoadGraph

/// One cell of a distance table: the best path's weight (what routes minimise), its duration (milliseconds of
/// travel) and its length (metres).
public struct TableCell: Sendable, Equatable {
    public var weight: UInt32
    public var duration: UInt32
    public var distance: Double

    public init(weight: UInt32, duration: UInt32, distance: Double) {
        self.weight = weight
        self.duration = duration
        self.distance = distance
    }
}

/// Many-to-many tables by one Dijkstra per source that settles until every target is final.
/// Holds scratch arrays between calls: one per thread.
public struct TableSearch {
    private var cost: [UInt32] = []
    private var time: [UInt32] = []
    private var length: [Double] = []
    private var reached = SearchStamps()
    private var settled = SearchStamps()
    private var heap = SearchHeap()

    public init() {}

    /// One Dijkstra per source (the baseline without a hierarchy), sources shared out over threads.
    /// With `departure`, the graph's timed rules hold at the time each arc is entered (see `PathSearch`): how a
    /// table leaves at a time, since a hierarchy's rows know nothing of the times along their paths.
    /// With `factors`, arcs weigh as they say (`WeightFactors`).
    public static func rows(in graph: RoadGraph, sources: [Snap], targets: [Snap], threads: Int,
                            excluding: ArcClasses = [], departure: Departure? = nil, factors: WeightFactors? = nil) -> [[TableCell?]] {
        parallelMap(sources.count, threads: threads, pool: Pool { TableSearch() }) { search, i in
            search.table(in: graph, sources: [sources[i]], targets: targets, excluding: excluding, departure: departure,
                         factors: factors)[0]
        }
    }

    /// `result[s][t]`: the fastest way from source `s` to target `t`, nil where there is none.
    /// With `excluding`, paths avoid arcs of those classes.
    public mutating func table(in graph: RoadGraph, sources: [Snap], targets: [Snap], excluding: ArcClasses = [],
                               departure: Departure? = nil, factors: WeightFactors? = nil) -> [[TableCell?]] {
        let excluded = excluding.rawValue
        // Arc → the targets that lie on it, so relaxing an arc checks only its own targets.
        let targetsOnArc = graph.targetsByArc(targets.map { graph.targetEndpoints($0) })
        return sources.map {
            WorkBudget.exceeded() ? [TableCell?](repeating: nil, count: targets.count)
                : row(in: graph, from: $0, targets: targets, targetsOnArc: targetsOnArc, excluded: excluded,
                      departure: graph.dependsOnTime ? departure : nil, factors: factors)
        }
    }

    private mutating func prepare(_ arcCount: Int) {
        if reached.reset(count: arcCount) {
            cost = Array(repeating: 0, count: arcCount)
            time = Array(repeating: 0, count: arcCount)
            length = Array(repeating: 0, count: arcCount)
        }
        settled.reset(count: arcCount)
        heap.removeAll()
    }

    private mutating func row(in graph: RoadGraph, from source: Snap, targets: [Snap],
                              targetsOnArc: [UInt32: [(target: Int, endpoint: SearchEndpoint)]], excluded: UInt8,
                              departure: Departure?, factors: WeightFactors?) -> [TableCell?]
    {
        func barred(_ a: UInt32?, _ b: UInt32, _ ms: UInt32) -> Bool {
            guard let departure, !graph.timedRules.isEmpty else { return false }
            return graph.isBarred(entering: b, from: a, departure, after: UInt64(ms))
        }
        let pricing = ArcPricing(graph: graph, departure: departure, factors: factors)
        let priced = pricing != nil
        prepare(graph.arcCount)
        var best = [TableCell?](repeating: nil, count: targets.count)
        var found = 0
        func offer(_ t: Int, _ weight: UInt32, _ duration: UInt32, _ distance: Double) {
            if best[t] == nil { found += 1 }
            if best[t].map({ weight < $0.weight }) ?? true {
                best[t] = TableCell(weight: weight, duration: duration, distance: distance)
            }
        }
        for s in graph.sourceEndpoints(source) where !barred(nil, s.arc, 0) {
            for (t, e) in targetsOnArc[s.arc] ?? [] {
                let within = pricing.map { $0.cellWithinArc(from: s, to: e) } ?? graph.cellWithinArc(from: s, to: e)
                if let cell = within { offer(t, cell.weight, cell.duration, cell.distance) }
            }
            let a = Int(s.arc)
            let (sourceCost, sourceTime) = pricing?.source(s) ?? (s.cost, graph.sourceDuration(s))
            if reached.contains(a) && cost[a] <= sourceCost { continue }
            reached.insert(a)
            cost[a] = sourceCost
            time[a] = sourceTime
            length[a] = Double(graph.edgeLength[graph.edge(ofArc: s.arc).edge]) * (1 - s.fraction)
            heap.push(Int64(sourceCost), s.arc)
        }
        var largestBest: UInt32 = 0  // may be stale-high: bests only shrink, so stopping on it is still safe
        while let (signedKey, arc) = heap.pop() {
            let a = Int(arc), key = UInt32(signedKey)
            if key != cost[a] || !settled.insertIfAbsent(a) { continue }
            // Once every target has a candidate no larger than the smallest open key, all are final.
            if found == targets.count && key >= largestBest {
                largestBest = best.reduce(0) { max($0, $1!.weight) }
                if key >= largestBest { break }
            }
            let d = cost[a], l = length[a], tt = time[a]
            for i in Int(graph.transitionStart[a])..<Int(graph.transitionStart[a + 1]) {
                let b = graph.transitionTargets[i]
                if graph.arcClasses[Int(b)] & excluded != 0 { continue }
                let base = graph.arcBase[Int(b)]
                let arcLength = Double(graph.edgeLength[graph.edge(ofArc: base).edge])
                // A path past 2³² − 1 ms is no cell (see `SearchResult.cost`): dropped, never wrapped round.
                let (turned, overflow) = d.addingReportingOverflow(graph.transitionWeight[i])
                if overflow { continue }
                let turnedTime = UInt32(clamping: UInt64(tt) + UInt64(graph.transitionWeight[i]))
                if departure != nil && barred(arc, b, turnedTime) { continue }
                if let onArc = targetsOnArc[base] {
                    for (t, e) in onArc {
                        let part = priced ? pricing!.target(e, after: turnedTime) : (weight: e.cost, duration: graph.targetDuration(e))
                        let (weight, overflow) = turned.addingReportingOverflow(part.weight &+ graph.entryWeight(ofArc: b))
                        if overflow || weight == .max { continue }
                        offer(t, weight, UInt32(clamping: UInt64(turnedTime) + UInt64(part.duration)), l + arcLength * e.fraction)
                    }
                }
                let (weightB, durationB) = priced ? pricing!.costs(ofArc: b, after: turnedTime) : (graph.arcWeight[Int(b)], graph.arcDuration[Int(b)])
                let (nd, arcOverflow) = turned.addingReportingOverflow(weightB)
                if arcOverflow || nd == .max { continue }
                let bi = Int(b)
                if reached.contains(bi) && nd >= cost[bi] { continue }
                reached.insert(bi)
                cost[bi] = nd
                time[bi] = UInt32(clamping: UInt64(turnedTime) + UInt64(durationB))
                length[bi] = l + arcLength
                heap.push(Int64(nd), b)
            }
        }
        return best
    }
}
