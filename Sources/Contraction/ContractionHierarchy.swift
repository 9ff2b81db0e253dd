import Dispatch
import Foundation
import RoadGraph

/// The upward graphs of a contraction hierarchy over the arc graph (states are arcs; an edge a→b costs b's weight,
/// as in `RoadGraph`'s transitions). Built by contracting arcs one by one in order of importance and adding a
/// shortcut wherever a shortest path ran through the contracted arc and no witness path avoids it.
///
/// The hierarchy's nodes have numbers of their own (`node[a]` is arc a's node, `original[k]` the arc of node k),
/// by level, then arc (see `build`). For each node `u`: `up` lists edges u→v with v > u; `down` lists edges
/// v→u with v > u, stored at u as v. `middle` is the contracted node a shortcut skips (`noIndex` for an original
/// transition). Each edge carries the weight the search minimises, and the duration and length of that path.
///
/// Exclusion (avoid tolls, motorways, ferries): every edge also carries the `mask` of the excludable classes of
/// the arcs it skips. A witness proves a shortcut unnecessary only if its own arcs' classes are a subset of the
/// shortcut's, and edges between the same arcs are kept side by side when neither is both cheaper and of fewer
/// classes. So for any set of classes, the edges and arcs without them form a hierarchy of the graph without
/// them: one hierarchy answers every exclusion exactly (OSRM builds one per exclusion set instead).
public struct HierarchyArrays: Sendable {
    public var node: [UInt32] = [], original: [UInt32] = []
    public var upStart: [UInt32] = [0], up: [HierarchyEdge] = [], upLength: [Float] = [], upDuration: [UInt32] = []
    public var downStart: [UInt32] = [0], down: [HierarchyEdge] = [], downLength: [Float] = [], downDuration: [UInt32] = []
    public var upShortcuts: [HierarchyShortcut] = [], downShortcuts: [HierarchyShortcut] = []
    public init() {}
}

public struct ContractionStatistics: Sendable {
    public var nodes = 0, originalEdges = 0, shortcuts = 0, rounds = 0
    public var seconds = 0.0
    /// Whether the nodes were vertices rather than arcs.
    public var overVertices = false
    /// Whether the hierarchy was ordered by nested dissection and customized rather than contracted (`shortcuts`
    /// then counts its edges, up and down, and `rounds` is zero).
    public var customizable = false

    public init() {}
}

/// Builds a hierarchy in rounds: each round takes the arcs whose priority is lower than every neighbour's (an
/// independent set), works out their shortcuts on every core at once, then removes them. Witness searches in a
/// round avoid all of the round's arcs, so removing them together keeps every distance (each passage through one
/// of them is either a shortcut or a witness that touches none of them); priorities are then recomputed, again
/// in parallel, for the neighbours only.
public struct HierarchyBuilder {
    struct Edge {
        var node: UInt32
        var weight: UInt32
        var middle: UInt32
        var length: Float
        var duration: UInt32
        /// Excludable classes of the arcs the edge skips (not of its ends).
        var mask: UInt8 = 0
        /// Original transitions this edge stands for (saturating: it only weighs priorities).
        var hops: UInt16 = 1
    }

    typealias Shortcut = (from: UInt32, edge: Edge)

    private var outEdges: EdgeLists
    private var inEdges: EdgeLists
    /// Per arc: 0 remaining, 1 in the round being contracted (witnesses may not pass through it), 2 contracted.
    private var state: [UInt8]
    private var deletedNeighbours: [UInt32]
    private var level: [UInt32]
    /// Per arc: its excludable classes (see `HierarchyArrays`).
    private let classes: [UInt8]
    /// Threads for the simulations.
    let threads: Int
    /// Witness search arrays, one per worker, kept between rounds.
    private let scratches: Pool<WitnessScratch>
    private(set) var rounds = 0

    /// Witness searches give up after settling this many arcs (a missed witness only costs an extra shortcut):
    /// when contracting, and when only estimating a priority (far more of those). Measured on a 2×2 stitched Porto
    /// (1.4M nodes): estimates limited to 20 gave a hierarchy whose 1000×1000 table took 182 ms against 135 ms for
    /// the sequential contraction; 60 gives 114 ms at the same import time; 200 gives 135 ms and a 40 % slower import.
    static let contractionSettleLimit = 400, prioritySettleLimit = 60

    /// The base graph: arcs, and for arc `a` the transitions `transitionStart[a]..<transitionStart[a+1]` to
    /// `transitionTargets[i]`, costing `transitionWeight[i] + arcWeight[target]`. `transitionMasks[i]`: classes of
    /// the turn itself (one forbidden at times), carried by its edge.
    public init(arcCount: Int, transitionStart: [UInt32], transitionTargets: [UInt32], transitionWeight: [UInt32],
                arcWeight: [UInt32], arcDuration: [UInt32], arcLength: [Float], arcClasses: [UInt8]? = nil,
                transitionMasks: [UInt8]? = nil, threads: Int = ProcessInfo.processInfo.activeProcessorCount)
    {
        // Out-edges straight from the transitions (the cheapest of parallel ones).
        var outs = EdgeLists(nodes: arcCount, reserve: transitionTargets.count)
        for a in 0..<arcCount {
            outs.reserve(UInt32(a), Int(transitionStart[a + 1] - transitionStart[a]))
            for i in Int(transitionStart[a])..<Int(transitionStart[a + 1]) {
                let b = Int(transitionTargets[i])
                guard b != a else { continue }  // a loop never shortens a path
                let edge = Edge(node: UInt32(b), weight: transitionWeight[i] + arcWeight[b], middle: noIndex, length: arcLength[b],
                                duration: transitionWeight[i] + arcDuration[b], mask: transitionMasks?[i] ?? 0)
                // Parallel turns: the cheapest, and beside it a dearer one only if it has fewer classes.
                if outs.firstIndex(UInt32(a), where: { $0.node == edge.node && $0.weight <= edge.weight && $0.mask & ~edge.mask == 0 }) != nil {
                    continue
                }
                outs.removeAll(UInt32(a)) { $0.node == edge.node && edge.weight <= $0.weight && edge.mask & ~$0.mask == 0 }
                outs.append(UInt32(a), edge)
            }
        }
        self.init(outs: outs, classes: arcClasses ?? Array(repeating: 0, count: arcCount), threads: threads)
    }

    /// One edge of a base graph given edge by edge.
    public struct BaseEdge {
        public var from: UInt32, to: UInt32, weight: UInt32, duration: UInt32
        public var length: Float
        /// The edge's own excludable classes.
        public var mask: UInt8
        public init(from: UInt32, to: UInt32, weight: UInt32, duration: UInt32, length: Float, mask: UInt8) {
            self.from = from; self.to = to; self.weight = weight; self.duration = duration; self.length = length; self.mask = mask
        }
    }

    /// A base graph given as `edgeCount` edges, read twice through `edge` (nil to leave one out) rather than
    /// gathered into arrays first, which on large graphs would set the import's peak. Nodes have no classes:
    /// each edge's mask carries its own. Parallel edges are kept side by side where neither is both cheaper and
    /// of fewer classes. For a hierarchy over vertices.
    public init(nodeCount: Int, edgeCount: Int, edge: (Int) -> BaseEdge?,
                threads: Int = ProcessInfo.processInfo.activeProcessorCount)
    {
        var degree = [UInt32](repeating: 0, count: nodeCount)
        var kept = 0
        for i in 0..<edgeCount {
            if let e = edge(i), e.from != e.to { degree[Int(e.from)] += 1; kept += 1 }
        }
        var outs = EdgeLists(nodes: nodeCount, reserve: kept)
        for u in 0..<nodeCount { outs.reserve(UInt32(u), Int(degree[u])) }
        degree = []
        for i in 0..<edgeCount {
            guard let base = edge(i), base.from != base.to else { continue }
            let u = base.from
            let e = Edge(node: base.to, weight: base.weight, middle: noIndex, length: base.length, duration: base.duration,
                         mask: base.mask)
            if outs.firstIndex(u, where: { $0.node == e.node && $0.weight <= e.weight && $0.mask & ~e.mask == 0 }) != nil {
                continue
            }
            outs.removeAll(u) { $0.node == e.node && e.weight <= $0.weight && e.mask & ~$0.mask == 0 }
            outs.append(u, e)
        }
        self.init(outs: outs, classes: Array(repeating: 0, count: nodeCount), threads: threads)
    }

    /// In-edges mirrored from the out-edges by counting sort; the rest of the state set up empty.
    private init(outs: EdgeLists, classes: [UInt8], threads: Int) {
        let count = outs.nodeCount
        var inDegree = [UInt32](repeating: 0, count: count)
        for a in 0..<count {
            for k in outs.range(UInt32(a)) { inDegree[Int(outs.pool[k].node)] += 1 }
        }
        var ins = EdgeLists(nodes: count, reserve: outs.liveCount)
        for b in 0..<count { ins.reserve(UInt32(b), Int(inDegree[b])) }
        inDegree = []
        for a in 0..<count {
            for k in outs.range(UInt32(a)) {
                var reverse = outs.pool[k]
                let b = reverse.node
                reverse.node = UInt32(a)
                ins.append(b, reverse)
            }
        }
        outEdges = outs
        inEdges = ins
        state = Array(repeating: 0, count: count)
        deletedNeighbours = Array(repeating: 0, count: count)
        level = Array(repeating: 0, count: count)
        self.classes = classes
        self.threads = max(1, threads)
        scratches = Pool { WitnessScratch(count: count) }
    }

    public mutating func build(progress: ((Double) -> Void)? = nil) -> (HierarchyArrays, ContractionStatistics) {
        let n = outEdges.nodeCount
        var stats = ContractionStatistics()
        stats.nodes = n
        stats.originalEdges = outEdges.liveCount
        var rank = [UInt32](repeating: 0, count: n)
        // Each arc's edges to higher arcs, appended as it is contracted.
        var up = HierarchyEdges(), down = HierarchyEdges()
        var priority = [Int32](repeating: 0, count: n)
        var remaining = (0..<UInt32(n)).map { $0 }
        updatePriorities(of: remaining, into: &priority)
        var nextRank: UInt32 = 0
        var lastReport = 0
        var stale = [Bool](repeating: false, count: n)
        while !remaining.isEmpty {
            rounds += 1
            // Lazy updates, as in a sequential contraction: a neighbour of a contracted arc is only marked stale;
            // a stale arc that would be taken is re-evaluated first, and taken only if still a minimum.
            var round = independentSet(remaining, priority)
            let staleOnes = round.filter { stale[Int($0)] }
            if !staleOnes.isEmpty {
                updatePriorities(of: staleOnes, into: &priority)
                for v in staleOnes { stale[Int(v)] = false }
                // Taken arcs are not neighbours of each other: only the re-evaluated ones need checking again.
                round = round.filter { isLocalMinimum($0, priority) }
            }
            for v in round { state[Int(v)] = 1 }
            let shortcuts = simulate(round, avoidingRound: true).map(\.shortcuts)
            for (k, v) in round.enumerated() {
                let vi = Int(v)
                stats.shortcuts += shortcuts[k].count
                // Neighbours are never in the round (it is independent), so all of them stay.
                up.add(outEdges.range(v).map { outEdges.pool[$0] })
                down.add(inEdges.range(v).map { inEdges.pool[$0] })
                state[vi] = 2
                rank[vi] = nextRank
                nextRank += 1
                for s in shortcuts[k] { addEdge(from: s.from, s.edge) }
                // Neighbours lose their edge to v, gain a contracted neighbour and a level.
                for i in outEdges.range(v) {
                    let w = outEdges.pool[i].node
                    inEdges.removeAll(w) { $0.node == v }
                    touch(w, from: v, &stale)
                }
                for i in inEdges.range(v) {
                    let w = inEdges.pool[i].node
                    outEdges.removeAll(w) { $0.node == v }
                    touch(w, from: v, &stale)
                }
                outEdges.release(v)
                inEdges.release(v)
            }
            remaining.removeAll { state[Int($0)] == 2 }
            if let progress, Int(nextRank) - lastReport >= max(1, n / 100) {
                lastReport = Int(nextRank)
                progress(Double(nextRank) / Double(n))
            }
        }
        stats.rounds = rounds
        outEdges = EdgeLists(nodes: 0, reserve: 0)
        inEdges = EdgeLists(nodes: 0, reserve: 0)
        // Nodes numbered by level, then arc. An edge's other end was still there when its node was contracted, so
        // it has a higher level: edges point to higher numbers, as in rank order, which the searches rely on. But
        // where rank order (RoutingKit's) spreads a road's consecutive arcs over the rounds they were taken in,
        // each level keeps its arcs in their order, and paths unpack with fewer cache misses (rank order lost
        // route time on the 8.7M extract; BENCHMARKS.md, "the hierarchy in memory").
        var result = HierarchyArrays()
        var original = [UInt32](repeating: 0, count: n)
        var levelStart = [Int](repeating: 0, count: Int(level.max() ?? 0) + 2)
        for a in 0..<n { levelStart[Int(level[a]) + 1] += 1 }
        for l in 1..<levelStart.count { levelStart[l] += levelStart[l - 1] }
        var number = [UInt32](repeating: 0, count: n)
        for a in 0..<n {
            let l = Int(level[a])
            number[a] = UInt32(levelStart[l]); original[levelStart[l]] = UInt32(a)
            levelStart[l] += 1
        }
        // Contraction order → number order.
        var byContraction = [UInt32](repeating: 0, count: n)
        for a in 0..<n { byContraction[Int(number[a])] = rank[a] }
        rank = []
        let upMiddle: [UInt32], downMiddle: [UInt32]
        (result.upStart, result.up, upMiddle, result.upLength, result.upDuration) = up.ordered(byContraction, number)
        up = HierarchyEdges()
        (result.downStart, result.down, downMiddle, result.downLength, result.downDuration) = down.ordered(byContraction, number)
        down = HierarchyEdges()
        byContraction = []
        result.upShortcuts = halves(of: upMiddle, up: true, result, original)
        result.downShortcuts = halves(of: downMiddle, up: false, result, original)
        result.node = number
        result.original = original
        return (result, stats)
    }

    /// Each shortcut's halves (see `HierarchyShortcut`): among its middle's edges, a pair a→middle, middle→b whose
    /// weights add up to the shortcut's and whose classes are within its own. The pair it was made of is one (the
    /// middle's edges are those it had when contracted), and any such pair unpacks to a path of the same cost that
    /// every query allowed the shortcut may take.
    private func halves(of middles: [UInt32], up isUp: Bool, _ h: HierarchyArrays, _ original: [UInt32]) -> [HierarchyShortcut] {
        let nodes = h.upStart.count - 1
        let chunks = min(nodes, 256)
        guard chunks > 0 else { return [] }
        let start = isUp ? h.upStart : h.downStart, edges = isUp ? h.up : h.down
        let parts = parallelMap(chunks, threads: threads, pool: Pool { () }) { _, c -> [HierarchyShortcut] in
            let nodeRange = (nodes * c / chunks)..<(nodes * (c + 1) / chunks)
            var result: [HierarchyShortcut] = []
            result.reserveCapacity(Int(start[nodeRange.upperBound] - start[nodeRange.lowerBound]))
            for owner in nodeRange {
                for k in Int(start[owner])..<Int(start[owner + 1]) {
                    let m = middles[k]
                    guard m != noIndex else { result.append(.original); continue }
                    let e = edges[k]
                    let (a, b) = isUp ? (UInt32(owner), e.node) : (e.node, UInt32(owner))
                    let allowed = e.mask, middleClasses = classes[Int(original[Int(m)])]
                    var found: HierarchyShortcut?
                    search: for f in Int(h.downStart[Int(m)])..<Int(h.downStart[Int(m) + 1]) where h.down[f].node == a {
                        for s in Int(h.upStart[Int(m)])..<Int(h.upStart[Int(m) + 1]) where h.up[s].node == b {
                            let first = h.down[f], second = h.up[s]
                            if first.weight &+ second.weight == e.weight && (first.mask | middleClasses | second.mask) & ~allowed == 0 {
                                found = HierarchyShortcut(middle: m, first: UInt32(f), second: UInt32(s))
                                break search
                            }
                        }
                    }
                    // The shortcut was made of two of these edges: not finding them is a bug in the contraction.
                    guard let found else { preconditionFailure("shortcut \(a)→\(b) via \(m) has no halves") }
                    result.append(found)
                }
            }
            return result
        }
        return Array(parts.joined())
    }

    private mutating func touch(_ w: UInt32, from v: UInt32, _ stale: inout [Bool]) {
        let wi = Int(w)
        deletedNeighbours[wi] += 1
        level[wi] = max(level[wi], level[Int(v)] + 1)
        stale[wi] = true
    }

    /// The arcs whose (priority, id) is below that of every remaining neighbour. (Taking only the lowest quarter
    /// or tenth of priorities each round changed neither shortcuts nor query settles by more than 2 % on Porto.)
    private func independentSet(_ remaining: [UInt32], _ priority: [Int32]) -> [UInt32] {
        parallelFilter(remaining) { isLocalMinimum($0, priority) }
    }

    private func isLocalMinimum(_ v: UInt32, _ priority: [Int32]) -> Bool {
        func before(_ a: UInt32, _ b: UInt32) -> Bool {
            priority[Int(a)] < priority[Int(b)] || (priority[Int(a)] == priority[Int(b)] && a < b)
        }
        for i in outEdges.range(v) where !before(v, outEdges.pool[i].node) { return false }
        for i in inEdges.range(v) where !before(v, inEdges.pool[i].node) { return false }
        return true
    }

    private mutating func updatePriorities(of nodes: [UInt32], into priority: inout [Int32]) {
        let simulations = simulate(nodes, avoidingRound: false)
        for (k, v) in nodes.enumerated() { priority[Int(v)] = simulations[k].priority }
    }

    /// For each node, the shortcuts its contraction needs now and its priority, computed on `threads` threads.
    /// `avoidingRound`: witnesses avoid all of the round's arcs (for contracting), not just the node (for priorities).
    private func simulate(_ nodes: [UInt32], avoidingRound: Bool) -> [(shortcuts: [Shortcut], priority: Int32)] {
        parallelMap(nodes.count, threads: threads, pool: scratches) { scratch, k in
            let shortcuts = shortcutsNeeded(nodes[k], avoidingRound: avoidingRound, &scratch)
            return (shortcuts, avoidingRound ? 0 : priority(of: nodes[k], shortcuts))
        }
    }

    /// Arcs whose removal adds few shortcuts (relative to the edges it removes, counted as edges and as the
    /// original transitions they stand for), spread out by contracted neighbours and level.
    private func priority(of v: UInt32, _ shortcuts: [Shortcut]) -> Int32 {
        let removed = outEdges.count(v) + inEdges.count(v)
        var removedHops = 0
        for i in outEdges.range(v) { removedHops += Int(outEdges.pool[i].hops) }
        for i in inEdges.range(v) { removedHops += Int(inEdges.pool[i].hops) }
        let addedHops = shortcuts.reduce(0) { $0 + Int($1.edge.hops) }
        let edgeQuotient = Double(shortcuts.count) / Double(max(1, removed))
        let hopQuotient = Double(addedHops) / Double(max(1, removedHops))
        let score = 200 * edgeQuotient + 400 * hopQuotient + 10 * Double(deletedNeighbours[Int(v)]) + 50 * Double(level[Int(v)])
        return Int32(min(score, Double(Int32.max / 2)))
    }

    /// A witness search's own arrays: one per thread.
    struct WitnessScratch {
        var distance: [UInt32]
        var reached = SearchStamps()
        /// The arcs a search must settle before it may stop early (the ends of the paths through the skipped arc).
        var targets = SearchStamps()
        var heap = SearchHeap()
        var masks: [UInt8] = []
        init(count: Int) {
            distance = Array(repeating: 0, count: count)
            reached.reset(count: count)
            targets.reset(count: count)
        }
    }

    /// The shortcuts contracting `v` needs: for each u→v→x, one unless a witness path u⇝x avoiding v is no longer
    /// and of no more classes (a witness through a toll road proves nothing to a query that avoids tolls).
    private func shortcutsNeeded(_ v: UInt32, avoidingRound: Bool, _ scratch: inout WitnessScratch) -> [Shortcut] {
        var result: [Shortcut] = []
        let outs = outEdges.range(v)
        guard !outs.isEmpty else { return result }
        let middleClasses = classes[Int(v)]
        for j in inEdges.range(v) {
            let incoming = inEdges.pool[j]
            let u = incoming.node
            // One witness search per set of classes the paths through v have (nearly always just one, none).
            scratch.masks.removeAll(keepingCapacity: true)
            for i in outs where outEdges.pool[i].node != u {
                let mask = incoming.mask | middleClasses | outEdges.pool[i].mask
                if !scratch.masks.contains(mask) { scratch.masks.append(mask) }
            }
            for m in scratch.masks.indices {
                let mask = scratch.masks[m]
                var maxOut: UInt32 = 0
                var targetCount = 0
                scratch.targets.reset(count: scratch.distance.count)
                for i in outs where outEdges.pool[i].node != u && incoming.mask | middleClasses | outEdges.pool[i].mask == mask {
                    maxOut = max(maxOut, outEdges.pool[i].weight)
                    if scratch.targets.insertIfAbsent(Int(outEdges.pool[i].node)) { targetCount += 1 }
                }
                witnessSearch(from: u, avoiding: v, avoidingRound: avoidingRound, limit: incoming.weight &+ maxOut,
                              targets: targetCount, allowed: mask, &scratch)
                for i in outs {
                    let out = outEdges.pool[i]
                    guard out.node != u && incoming.mask | middleClasses | out.mask == mask else { continue }
                    let via = incoming.weight &+ out.weight
                    let x = Int(out.node)
                    if scratch.reached.contains(x) && scratch.distance[x] <= via { continue }
                    result.append((u, Edge(node: out.node, weight: via, middle: v, length: incoming.length + out.length,
                                           duration: incoming.duration &+ out.duration, mask: mask,
                                           hops: incoming.hops &+ out.hops < incoming.hops ? .max : incoming.hops &+ out.hops)))
                }
            }
        }
        return result
    }

    /// Distances from `source` in the remaining graph without `skipped` (and the round's arcs), over edges and
    /// through arcs whose classes are within `allowed`.
    /// Stops once the `targets` marked in the scratch are all settled: their distances are then final.
    private func witnessSearch(from source: UInt32, avoiding skipped: UInt32, avoidingRound: Bool, limit: UInt32,
                               targets: Int, allowed: UInt8, _ scratch: inout WitnessScratch) {
        scratch.reached.reset(count: scratch.distance.count)
        scratch.heap.removeAll()
        scratch.reached.insert(Int(source))
        scratch.distance[Int(source)] = 0
        scratch.heap.push(0, source)
        let settleLimit = avoidingRound ? Self.contractionSettleLimit : Self.prioritySettleLimit
        // Edges to contracted arcs are removed as they go; the round's arcs are still there to be stepped over.
        let blocked: UInt8 = avoidingRound ? 1 : 2
        var settled = 0
        var targetsLeft = targets
        // Through raw buffers: bounds and uniqueness checks were a fifth of the contraction's time.
        outEdges.withUnsafeLists { pool, start, counts in
        state.withUnsafeBufferPointer { state in
        classes.withUnsafeBufferPointer { classes in
        scratch.distance.withUnsafeMutableBufferPointer { distance in
        scratch.reached.withUnsafeStamps { reachedStamps, reachedGeneration in
        scratch.targets.withUnsafeStamps { targetStamps, targetGeneration in
            while let (key, u) = scratch.heap.pop() {
                let d = UInt32(key)
                if d > distance[Int(u)] { continue }
                if d > limit || settled >= settleLimit { break }
                settled += 1
                // Each arc is settled once (a label is pushed again only when strictly cheaper).
                if targetStamps[Int(u)] == targetGeneration {
                    targetsLeft -= 1
                    if targetsLeft == 0 { break }
                }
                // A witness may end at an arc of any class, but may not pass through one outside `allowed`.
                if u != source && classes[Int(u)] & ~allowed != 0 { continue }
                let first = Int(start[Int(u)])
                for i in first..<first + Int(counts[Int(u)]) {
                    let e = pool[i]
                    let x = Int(e.node)
                    if e.node == skipped || e.mask & ~allowed != 0 || state[x] >= blocked { continue }
                    let nd = d &+ e.weight
                    if reachedStamps[x] != reachedGeneration || nd < distance[x] {
                        reachedStamps[x] = reachedGeneration
                        distance[x] = nd
                        scratch.heap.push(Int64(nd), e.node)
                    }
                }
            }
        }}}}}}
    }

    /// Adds the edge u→e.node unless one as cheap with no more classes is there, and drops those it makes
    /// unnecessary: edges between two arcs are kept side by side only when they differ in classes.
    private mutating func addEdge(from u: UInt32, _ e: Edge) {
        let w = e.node
        if outEdges.firstIndex(u, where: { $0.node == w && $0.weight <= e.weight && $0.mask & ~e.mask == 0 }) != nil { return }
        func dominated(_ x: Edge) -> Bool { e.weight <= x.weight && e.mask & ~x.mask == 0 }
        outEdges.removeAll(u) { $0.node == w && dominated($0) }
        inEdges.removeAll(w) { $0.node == u && dominated($0) }
        outEdges.append(u, e)
        var reverse = e
        reverse.node = u
        inEdges.append(w, reverse)
    }

    /// The elements that pass `test`, in order, tested on `threads` threads.
    private func parallelFilter(_ items: [UInt32], _ test: (UInt32) -> Bool) -> [UInt32] {
        let workers = items.count < 4096 ? 1 : threads
        let chunk = (items.count + workers - 1) / workers
        let parts = parallelMap(workers, threads: workers, pool: Pool { () }) { _, w in
            items[min(items.count, w * chunk)..<min(items.count, (w + 1) * chunk)].filter(test)
        }
        return Array(parts.joined())
    }
}

/// The finished edges of one direction in contraction order.
struct HierarchyEdges {
    /// Ends and middles as arcs (or vertices) until `ordered`.
    var edges: [HierarchyEdge] = [], middle: [UInt32] = [], length: [Float] = [], duration: [UInt32] = []
    /// Per node contracted so far, where its edges end.
    private var ends: [UInt32] = []

    /// Adds the edges of the next node to be contracted.
    mutating func add(_ list: [HierarchyBuilder.Edge]) {
        for e in list {
            edges.append(HierarchyEdge(node: e.node, weight: e.weight, mask: e.mask))
            middle.append(e.middle); length.append(e.length); duration.append(e.duration)
        }
        ends.append(UInt32(edges.count))
    }

    /// By node number (`contractedAs[k]` is the contraction index of node k): the CSR offsets, the edges, their
    /// middles, lengths and durations, with ends and middles as node numbers (`noIndex` kept). The arrays are
    /// handed over.
    mutating func ordered(_ contractedAs: [UInt32], _ number: [UInt32])
        -> ([UInt32], [HierarchyEdge], [UInt32], [Float], [UInt32])
    {
        var starts = [UInt32](repeating: 0, count: contractedAs.count + 1)
        var result: [HierarchyEdge] = []
        result.reserveCapacity(edges.count)
        func range(_ c: Int) -> Range<Int> { (c == 0 ? 0 : Int(ends[c - 1]))..<Int(ends[c]) }
        for (k, c) in contractedAs.enumerated() {
            for var e in edges[range(Int(c))] {
                e.node = number[Int(e.node)]
                result.append(e)
            }
            starts[k + 1] = UInt32(result.count)
        }
        edges = []
        var middles: [UInt32] = [], lengths: [Float] = [], durations: [UInt32] = []
        middles.reserveCapacity(result.count)
        for c in contractedAs {
            for m in middle[range(Int(c))] { middles.append(m == noIndex ? noIndex : number[Int(m)]) }
        }
        middle = []
        lengths.reserveCapacity(result.count); durations.reserveCapacity(result.count)
        for c in contractedAs { lengths.append(contentsOf: length[range(Int(c))]) }
        length = []
        for c in contractedAs { durations.append(contentsOf: duration[range(Int(c))]) }
        duration = []
        return (starts, result, middles, lengths, durations)
    }
}

/// Every node's edge list in one flat pool: a list lives in a block of the pool, and moves to the pool's end with
/// twice the room when it outgrows it; the pool is compacted once more of it is garbage than lists. One allocation
/// instead of two Swift arrays per arc (which were most of the contraction's memory, 3.5 GB on 8.7M nodes).
struct EdgeLists {
    typealias Edge = HierarchyBuilder.Edge
    private(set) var pool: [Edge]
    private var start: [UInt32]
    private var counts: [UInt32]
    private var capacity: [UInt32]
    private(set) var liveCount = 0
    private var garbage = 0

    init(nodes: Int, reserve: Int) {
        pool = []
        pool.reserveCapacity(reserve)
        start = Array(repeating: 0, count: nodes)
        counts = Array(repeating: 0, count: nodes)
        capacity = Array(repeating: 0, count: nodes)
    }

    var nodeCount: Int { start.count }

    @inline(__always) func range(_ v: UInt32) -> Range<Int> {
        let s = Int(start[Int(v)])
        return s..<s + Int(counts[Int(v)])
    }

    @inline(__always) func count(_ v: UInt32) -> Int { Int(counts[Int(v)]) }

    /// The pool and each list's start and length, as raw buffers for the witness searches.
    @inline(__always) func withUnsafeLists<R>(_ body: (UnsafeBufferPointer<Edge>, UnsafeBufferPointer<UInt32>, UnsafeBufferPointer<UInt32>) -> R) -> R {
        pool.withUnsafeBufferPointer { p in start.withUnsafeBufferPointer { s in counts.withUnsafeBufferPointer { c in body(p, s, c) } } }
    }

    func firstIndex(_ v: UInt32, where test: (Edge) -> Bool) -> Int? {
        for i in range(v) where test(pool[i]) { return i }
        return nil
    }

    /// Room for `extra` more edges of `v` without a move.
    mutating func reserve(_ v: UInt32, _ extra: Int) {
        let vi = Int(v)
        let needed = Int(counts[vi]) + extra
        guard needed > Int(capacity[vi]) else { return }
        // Before the pool would grow (and Swift doubles it), reclaim the garbage if it is a fair share.
        if pool.count + needed > pool.capacity && garbage > pool.count / 4 { compact() }
        let newStart = pool.count
        let old = range(v)
        garbage += Int(capacity[vi])
        // Through a copy: appending a slice of the pool to itself would copy the whole pool first.
        let moved = Array(pool[old])
        pool.append(contentsOf: moved)
        let room = needed - Int(counts[vi])
        if room > 0 { pool.append(contentsOf: repeatElement(pool.last ?? Edge(node: 0, weight: 0, middle: 0, length: 0, duration: 0), count: room)) }
        start[vi] = UInt32(newStart)
        capacity[vi] = UInt32(needed)
    }

    mutating func replace(_ i: Int, with e: Edge) { pool[i] = e }

    mutating func append(_ v: UInt32, _ e: Edge) {
        let vi = Int(v)
        if counts[vi] == capacity[vi] { reserve(v, max(2, Int(counts[vi]))) }
        pool[Int(start[vi]) + Int(counts[vi])] = e
        counts[vi] += 1
        liveCount += 1
    }

    mutating func removeAll(_ v: UInt32, where test: (Edge) -> Bool) {
        let r = range(v)
        var kept = r.lowerBound
        for i in r where !test(pool[i]) {
            pool[kept] = pool[i]
            kept += 1
        }
        let removed = r.upperBound - kept
        counts[Int(v)] -= UInt32(removed)
        liveCount -= removed
    }

    /// Drops `v`'s list and its block.
    mutating func release(_ v: UInt32) {
        let vi = Int(v)
        liveCount -= Int(counts[vi])
        garbage += Int(capacity[vi])
        counts[vi] = 0
        capacity[vi] = 0
    }

    /// Copies the live lists into a new pool, each with a little room to grow.
    private mutating func compact() {
        var fresh: [Edge] = []
        fresh.reserveCapacity(liveCount + liveCount / 4 + start.count)
        for v in 0..<start.count {
            let r = range(UInt32(v))
            start[v] = UInt32(fresh.count)
            fresh.append(contentsOf: pool[r])
            let room = r.count / 4
            if room > 0, let last = fresh.last { fresh.append(contentsOf: repeatElement(last, count: room)) }
            capacity[v] = UInt32(r.count + room)
        }
        pool = fresh
        garbage = 0
    }
}
