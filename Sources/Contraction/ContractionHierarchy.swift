import RoadGraph

/// The upward graphs of a contraction hierarchy over the arc graph (states are arcs; an edge a→b costs b's weight,
/// as in `RoadGraph`'s transitions). Built by contracting arcs one by one in order of importance and adding a
/// shortcut wherever a shortest path ran through the contracted arc and no witness path avoids it.
///
/// For each arc `u`: `up` lists edges u→v with rank(v) > rank(u); `down` lists edges v→u with rank(v) > rank(u),
/// stored at u as v. `middle` is the contracted arc a shortcut skips (`noIndex` for an original transition). Each
/// edge carries the weight the search minimises, and the duration and length of that path.
///
/// Exclusion (avoid tolls, motorways, ferries): every edge also carries the `mask` of the excludable classes of
/// the arcs it skips. A witness proves a shortcut unnecessary only if its own arcs' classes are a subset of the
/// shortcut's, and edges between the same arcs are kept side by side when neither is both cheaper and of fewer
/// classes. So for any set of classes, the edges and arcs without them form a hierarchy of the graph without
/// them: one hierarchy answers every exclusion exactly (OSRM builds one per exclusion set instead).
public struct HierarchyArrays: Sendable {
    public var rank: [UInt32] = []
    public var upStart: [UInt32] = [0], upTarget: [UInt32] = [], upWeight: [UInt32] = [], upMiddle: [UInt32] = []
    public var upLength: [Float] = [], upDuration: [UInt32] = [], upMask: [UInt8] = []
    public var downStart: [UInt32] = [0], downSource: [UInt32] = [], downWeight: [UInt32] = [], downMiddle: [UInt32] = []
    public var downLength: [Float] = [], downDuration: [UInt32] = [], downMask: [UInt8] = []
    public init() {}
}

public struct ContractionStatistics: Sendable {
    public var nodes = 0, originalEdges = 0, shortcuts = 0
    public var seconds = 0.0
}

/// Builds a hierarchy. Single-threaded; an import contracts its two modes side by side.
public struct HierarchyBuilder {
    struct Edge {
        var node: UInt32
        var weight: UInt32
        var middle: UInt32
        var length: Float
        var duration: UInt32
        /// Excludable classes of the arcs the edge skips (not of its ends).
        var mask: UInt8 = 0
        /// Original transitions this edge stands for.
        var hops: UInt32 = 1
    }

    private var outEdges: [[Edge]]
    private var inEdges: [[Edge]]
    private var contracted: [Bool]
    private var deletedNeighbours: [UInt32]
    private var level: [UInt32]
    // Witness search scratch.
    private var witnessDistance: [UInt32]
    private var witnessStamp: [UInt32]
    private var stampValue: UInt32 = 0
    private var heap = WitnessHeap()
    /// Witness searches give up after settling this many arcs (a missed witness only costs an extra shortcut).
    let settleLimit: Int
    /// Per arc: its excludable classes (see `HierarchyArrays`).
    private let classes: [UInt8]

    /// The base graph: arcs, and for arc `a` the transitions `transitionStart[a]..<transitionStart[a+1]` to
    /// `transitionTargets[i]`, costing `transitionWeight[i] + arcWeight[target]`.
    public init(arcCount: Int, transitionStart: [UInt32], transitionTargets: [UInt32], transitionWeight: [UInt32],
                arcWeight: [UInt32], arcDuration: [UInt32], arcLength: [Float], arcClasses: [UInt8]? = nil,
                settleLimit: Int = 400)
    {
        outEdges = Array(repeating: [], count: arcCount)
        inEdges = Array(repeating: [], count: arcCount)
        for a in 0..<arcCount {
            for i in Int(transitionStart[a])..<Int(transitionStart[a + 1]) {
                let b = Int(transitionTargets[i])
                guard b != a else { continue }  // a loop never shortens a path
                let edge = Edge(node: UInt32(b), weight: transitionWeight[i] + arcWeight[b], middle: noIndex, length: arcLength[b],
                                duration: transitionWeight[i] + arcDuration[b])
                var reverse = edge
                reverse.node = UInt32(a)
                if let k = outEdges[a].firstIndex(where: { $0.node == UInt32(b) }) {
                    if edge.weight < outEdges[a][k].weight {
                        outEdges[a][k] = edge
                        let j = inEdges[b].firstIndex { $0.node == UInt32(a) }!
                        inEdges[b][j] = reverse
                    }
                    continue
                }
                outEdges[a].append(edge)
                inEdges[b].append(reverse)
            }
        }
        contracted = Array(repeating: false, count: arcCount)
        deletedNeighbours = Array(repeating: 0, count: arcCount)
        level = Array(repeating: 0, count: arcCount)
        witnessDistance = Array(repeating: 0, count: arcCount)
        witnessStamp = Array(repeating: 0, count: arcCount)
        self.settleLimit = settleLimit
        self.classes = arcClasses ?? Array(repeating: 0, count: arcCount)
    }

    public mutating func build(progress: ((Double) -> Void)? = nil) -> (HierarchyArrays, ContractionStatistics) {
        let n = outEdges.count
        var stats = ContractionStatistics()
        stats.nodes = n
        stats.originalEdges = outEdges.reduce(0) { $0 + $1.count }
        // Signed priorities as unsigned keys: flipping the sign bit keeps their order.
        func key(_ p: Int32) -> UInt32 { UInt32(bitPattern: p) ^ 0x8000_0000 }
        var queue = WitnessHeap()
        for v in 0..<n { queue.push(key: key(priority(of: UInt32(v))), value: UInt32(v)) }
        var result = HierarchyArrays()
        result.rank = Array(repeating: 0, count: n)
        var upLists: [[Edge]] = Array(repeating: [], count: n)
        var downLists: [[Edge]] = Array(repeating: [], count: n)
        var nextRank: UInt32 = 0
        var lastReport = 0
        while let (p, v) = queue.popMin() {
            // Lazy update: a stale priority goes back in once re-evaluated.
            let current = key(priority(of: v))
            if current > p, let top = queue.minKey, current > top {
                queue.push(key: current, value: v)
                continue
            }
            let shortcuts = contract(v)
            stats.shortcuts += shortcuts.count
            upLists[Int(v)] = outEdges[Int(v)].filter { !contracted[Int($0.node)] }
            downLists[Int(v)] = inEdges[Int(v)].filter { !contracted[Int($0.node)] }
            contracted[Int(v)] = true
            result.rank[Int(v)] = nextRank
            nextRank += 1
            for s in shortcuts { addEdge(from: s.from, s.edge) }
            // Neighbours lose their edge to v, gain a contracted neighbour and a level.
            for e in outEdges[Int(v)] where !contracted[Int(e.node)] {
                inEdges[Int(e.node)].removeAll { $0.node == v }
                deletedNeighbours[Int(e.node)] += 1
                level[Int(e.node)] = max(level[Int(e.node)], level[Int(v)] + 1)
            }
            for e in inEdges[Int(v)] where !contracted[Int(e.node)] {
                outEdges[Int(e.node)].removeAll { $0.node == v }
                deletedNeighbours[Int(e.node)] += 1
                level[Int(e.node)] = max(level[Int(e.node)], level[Int(v)] + 1)
            }
            outEdges[Int(v)] = []
            inEdges[Int(v)] = []
            if let progress, Int(nextRank) - lastReport >= max(1, n / 100) {
                lastReport = Int(nextRank)
                progress(Double(nextRank) / Double(n))
            }
        }
        outEdges = []
        inEdges = []
        for v in 0..<n {
            defer { upLists[v] = []; downLists[v] = [] }  // free as we go: the lists and the result never coexist whole
            for e in upLists[v] {
                result.upTarget.append(e.node); result.upWeight.append(e.weight)
                result.upMiddle.append(e.middle); result.upLength.append(e.length); result.upDuration.append(e.duration)
                result.upMask.append(e.mask)
            }
            result.upStart.append(UInt32(result.upTarget.count))
            for e in downLists[v] {
                result.downSource.append(e.node); result.downWeight.append(e.weight)
                result.downMiddle.append(e.middle); result.downLength.append(e.length)
                result.downDuration.append(e.duration)
                result.downMask.append(e.mask)
            }
            result.downStart.append(UInt32(result.downSource.count))
        }
        return (result, stats)
    }

    /// Arcs whose removal adds few shortcuts (relative to the edges it removes, counted as edges and as the
    /// original transitions they stand for), spread out by contracted neighbours and level.
    private mutating func priority(of v: UInt32) -> Int32 {
        let shortcuts = shortcutsNeeded(v)
        let removed = outEdges[Int(v)].count + inEdges[Int(v)].count
        let removedHops = outEdges[Int(v)].reduce(0) { $0 + Int($1.hops) } + inEdges[Int(v)].reduce(0) { $0 + Int($1.hops) }
        let addedHops = shortcuts.reduce(0) { $0 + Int($1.edge.hops) }
        let edgeQuotient = Double(shortcuts.count) / Double(max(1, removed))
        let hopQuotient = Double(addedHops) / Double(max(1, removedHops))
        let score = 200 * edgeQuotient + 400 * hopQuotient + 10 * Double(deletedNeighbours[Int(v)]) + 50 * Double(level[Int(v)])
        return Int32(min(score, Double(Int32.max / 2)))
    }

    private mutating func contract(_ v: UInt32) -> [(from: UInt32, edge: Edge)] { shortcutsNeeded(v) }

    /// The shortcuts contracting `v` needs: for each u→v→x, one unless a witness path u⇝x avoiding v is no longer
    /// and of no more classes (a witness through a toll road proves nothing to a query that avoids tolls).
    private mutating func shortcutsNeeded(_ v: UInt32) -> [(from: UInt32, edge: Edge)] {
        var result: [(from: UInt32, edge: Edge)] = []
        let outs = outEdges[Int(v)]
        guard !outs.isEmpty else { return result }
        let middleClasses = classes[Int(v)]
        for incoming in inEdges[Int(v)] {
            let u = incoming.node
            // One witness search per set of classes the paths through v have (nearly always just one, none).
            var masks: [UInt8] = []
            for out in outs where out.node != u {
                let mask = incoming.mask | middleClasses | out.mask
                if !masks.contains(mask) { masks.append(mask) }
            }
            for mask in masks {
                let maxOut = outs.reduce(0) { incoming.mask | middleClasses | $1.mask == mask ? max($0, $1.weight) : $0 }
                witnessSearch(from: u, avoiding: v, limit: incoming.weight &+ maxOut, allowed: mask)
                for out in outs where out.node != u && incoming.mask | middleClasses | out.mask == mask {
                    let via = incoming.weight &+ out.weight
                    if witnessStamp[Int(out.node)] == stampValue && witnessDistance[Int(out.node)] <= via { continue }
                    result.append((u, Edge(node: out.node, weight: via, middle: v, length: incoming.length + out.length,
                                           duration: incoming.duration &+ out.duration, mask: mask,
                                           hops: incoming.hops + out.hops)))
                }
            }
        }
        return result
    }

    /// Distances from `source` in the remaining graph without `skipped`, over edges and through arcs whose classes
    /// are within `allowed`.
    private mutating func witnessSearch(from source: UInt32, avoiding skipped: UInt32, limit: UInt32, allowed: UInt8) {
        stampValue &+= 1
        if stampValue == 0 {
            for i in witnessStamp.indices { witnessStamp[i] = 0 }
            stampValue = 1
        }
        heap.removeAll()
        witnessStamp[Int(source)] = stampValue
        witnessDistance[Int(source)] = 0
        heap.push(key: 0, value: source)
        var settled = 0
        while let (d, u) = heap.popMin() {
            if d > witnessDistance[Int(u)] { continue }
            if d > limit || settled >= settleLimit { break }
            settled += 1
            // A witness may end at an arc of any class, but may not pass through one outside `allowed`.
            if u != source && classes[Int(u)] & ~allowed != 0 { continue }
            for e in outEdges[Int(u)] where e.node != skipped && !contracted[Int(e.node)] && e.mask & ~allowed == 0 {
                let nd = d &+ e.weight
                let x = Int(e.node)
                if witnessStamp[x] != stampValue || nd < witnessDistance[x] {
                    witnessStamp[x] = stampValue
                    witnessDistance[x] = nd
                    heap.push(key: nd, value: e.node)
                }
            }
        }
    }

    /// Adds the edge u→e.node unless one as cheap with no more classes is there, and drops those it makes
    /// unnecessary: edges between two arcs are kept side by side only when they differ in classes.
    private mutating func addEdge(from u: UInt32, _ e: Edge) {
        let w = e.node
        if outEdges[Int(u)].contains(where: { $0.node == w && $0.weight <= e.weight && $0.mask & ~e.mask == 0 }) { return }
        func dominated(_ x: Edge) -> Bool { e.weight <= x.weight && e.mask & ~x.mask == 0 }
        outEdges[Int(u)].removeAll { $0.node == w && dominated($0) }
        inEdges[Int(w)].removeAll { $0.node == u && dominated($0) }
        outEdges[Int(u)].append(e)
        var reverse = e
        reverse.node = u
        inEdges[Int(w)].append(reverse)
    }
}

/// Min-heap of (key, value) packed in UInt64: the witness searches' queue and, with signed priorities mapped to
/// order-preserving unsigned keys, the contraction order.
struct WitnessHeap {
    private var items: [UInt64] = []
    mutating func removeAll() { items.removeAll(keepingCapacity: true) }
    var minKey: UInt32? { items.first.map { UInt32($0 >> 32) } }
    mutating func push(key: UInt32, value: UInt32) {
        items.append(UInt64(key) << 32 | UInt64(value))
        var i = items.count - 1
        while i > 0 {
            let p = (i - 1) >> 1
            if items[p] <= items[i] { break }
            items.swapAt(p, i)
            i = p
        }
    }
    mutating func popMin() -> (UInt32, UInt32)? {
        guard let first = items.first else { return nil }
        let last = items.removeLast()
        if !items.isEmpty {
            items[0] = last
            var i = 0
            while true {
                let l = 2 * i + 1, r = l + 1
                var m = i
                if l < items.count && items[l] < items[m] { m = l }
                if r < items.count && items[r] < items[m] { m = r }
                if m == i { break }
                items.swapAt(i, m)
                i = m
            }
        }
        return (UInt32(first >> 32), UInt32(truncatingIfNeeded: first))
    }
}
