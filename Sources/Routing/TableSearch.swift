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
    private var stamp: [UInt32] = []
    private var settledStamp: [UInt32] = []
    private var generation: UInt32 = 0
    private var heap = MinHeap()

    public init() {}

    /// One Dijkstra per source (the baseline without a hierarchy), sources shared out over threads.
    public static func rows(in graph: RoadGraph, sources: [Snap], targets: [Snap], threads: Int,
                            excluding: ArcClasses = []) -> [[TableCell?]] {
        parallelMap(sources.count, threads: threads, pool: Pool { TableSearch() }) { search, i in
            search.table(in: graph, sources: [sources[i]], targets: targets, excluding: excluding)[0]
        }
    }

    /// `result[s][t]`: the fastest way from source `s` to target `t`, nil where there is none.
    /// With `excluding`, paths avoid arcs of those classes.
    public mutating func table(in graph: RoadGraph, sources: [Snap], targets: [Snap], excluding: ArcClasses = []) -> [[TableCell?]] {
        let excluded = excluding.rawValue
        let targetEndpoints = targets.map { graph.targetEndpoints($0) }
        // Arc → the targets that lie on it, so relaxing an arc checks only its own targets.
        var targetsOnArc: [UInt32: [(target: Int, endpoint: SearchEndpoint)]] = [:]
        for (t, endpoints) in targetEndpoints.enumerated() {
            for e in endpoints { targetsOnArc[e.arc, default: []].append((t, e)) }
        }
        return sources.map {
            WorkBudget.exceeded() ? [TableCell?](repeating: nil, count: targets.count)
                : row(in: graph, from: $0, targets: targets, targetsOnArc: targetsOnArc, excluded: excluded)
        }
    }

    private mutating func prepare(_ arcCount: Int) {
        if cost.count != arcCount {
            cost = Array(repeating: 0, count: arcCount)
            time = Array(repeating: 0, count: arcCount)
            length = Array(repeating: 0, count: arcCount)
            stamp = Array(repeating: 0, count: arcCount)
            settledStamp = Array(repeating: 0, count: arcCount)
            generation = 0
        }
        generation &+= 1
        if generation == 0 {
            for i in stamp.indices { stamp[i] = 0; settledStamp[i] = 0 }
            generation = 1
        }
        heap.removeAll()
    }

    private mutating func row(in graph: RoadGraph, from source: Snap, targets: [Snap],
                              targetsOnArc: [UInt32: [(target: Int, endpoint: SearchEndpoint)]], excluded: UInt8) -> [TableCell?]
    {
        prepare(graph.arcCount)
        var best = [TableCell?](repeating: nil, count: targets.count)
        var found = 0
        func offer(_ t: Int, _ weight: UInt32, _ duration: UInt32, _ distance: Double) {
            if best[t] == nil { found += 1 }
            if best[t].map({ weight < $0.weight }) ?? true {
                best[t] = TableCell(weight: weight, duration: duration, distance: distance)
            }
        }
        let gen = generation
        for s in graph.sourceEndpoints(source) {
            let arcLength = Double(graph.edgeLength[graph.edge(ofArc: s.arc).edge])
            let remaining = arcLength * (1 - s.fraction)
            let sourceTime = graph.sourceDuration(s)
            for (t, e) in targetsOnArc[s.arc] ?? [] where e.fraction >= s.fraction {
                offer(t, e.cost &- (graph.arcWeight[Int(s.arc)] &- s.cost),
                      graph.targetDuration(e) &- (graph.arcDuration[Int(s.arc)] &- sourceTime), arcLength * (e.fraction - s.fraction))
            }
            let a = Int(s.arc)
            if stamp[a] == gen && cost[a] <= s.cost { continue }
            stamp[a] = gen
            cost[a] = s.cost
            time[a] = sourceTime
            length[a] = remaining
            heap.push(key: s.cost, value: s.arc)
        }
        var largestBest: UInt32 = 0  // may be stale-high: bests only shrink, so stopping on it is still safe
        while let (key, arc) = heap.popMin() {
            let a = Int(arc)
            if settledStamp[a] == gen || key != cost[a] { continue }
            settledStamp[a] = gen
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
                let turned = d &+ graph.transitionWeight[i], turnedTime = tt &+ graph.transitionWeight[i]
                if let onArc = targetsOnArc[base] {
                    for (t, e) in onArc { offer(t, turned &+ e.cost, turnedTime &+ graph.targetDuration(e), l + arcLength * e.fraction) }
                }
                let nd = turned &+ graph.arcWeight[Int(b)]
                let bi = Int(b)
                if stamp[bi] == gen && nd >= cost[bi] { continue }
                stamp[bi] = gen
                cost[bi] = nd
                time[bi] = turnedTime &+ graph.arcDuration[Int(b)]
                length[bi] = l + arcLength
                heap.push(key: nd, value: b)
            }
        }
        return best
    }
}
