import RoadGraph

/// Lower bounds on the cost from an arc's head to the targets, read off the contraction hierarchy (CH-Potentials,
/// Strasser and Zeitz): the targets' upward search space is searched backwards once per query; an arc's bound is
/// then the cheapest way up from its node into that space, remembered per node. The bound is the exact cost on the
/// graph as contracted, so an A* whose rules only take roads and turns away (a departure time's closures, an
/// exclusion) settles little more than its path. Hierarchies over arcs only. One per thread: it keeps its arrays.
public final class HierarchyPotential: SearchHeuristic, @unchecked Sendable {
    private let graph: RoadGraph
    private let copies: [UInt32: [UInt32]]
    /// The hierarchy's edges it reads: the graph's own, or those of its least weights over the week.
    private let upStart: UnsafeBufferPointer<UInt32>, up: UnsafeBufferPointer<HierarchyEdge>
    private let downStart: UnsafeBufferPointer<UInt32>, down: UnsafeBufferPointer<HierarchyEdge>
    private var back: [Int64] = [], backSeen = SearchStamps()
    private var memo: [Int64] = [], memoSeen = SearchStamps()
    private var heap = SearchHeap()
    private var stack: [UInt32] = []

    /// `weekBounds`: bounds at every time of the week of historical speeds (`RoadGraph.hasWeekBounds`), where
    /// the graph has them.
    public init?(graph: RoadGraph, weekBounds: Bool = false) {
        guard graph.hasHierarchy, !graph.hierarchyOverVertices, !weekBounds || graph.hasWeekBounds else { return nil }
        self.graph = graph
        copies = graph.arcCopies()
        (upStart, up) = weekBounds ? (graph.boundUpStart, graph.boundUpEdges) : (graph.chUpStart, graph.chUpEdges)
        (downStart, down) = weekBounds ? (graph.boundDownStart, graph.boundDownEdges) : (graph.chDownStart, graph.chDownEdges)
    }

    /// Searches the targets' space; call before each search with these targets.
    public func prepare(targets: [SearchEndpoint]) {
        let n = graph.hierarchyNodeCount
        if backSeen.reset(count: n) { back = Array(repeating: 0, count: n) }
        if memoSeen.reset(count: n) { memo = Array(repeating: 0, count: n) }
        heap.removeAll()
        func offer(_ node: UInt32, _ d: Int64) {
            let i = Int(node)
            if backSeen.contains(i) && back[i] <= d { return }
            backSeen.insert(i)
            back[i] = d
            heap.push(d, node)
        }
        for t in targets {
            // From an arc's head, as the search counts: entering the target arc costs only the part up to the point.
            let start = Int64(t.cost) - Int64(graph.arcWeight[Int(t.arc)])
            offer(graph.hierarchyNode(of: t.arc), start)
            for copy in copies[t.arc] ?? [] { offer(graph.hierarchyNode(of: copy), start) }
        }
        let downStart = self.downStart, down = self.down
        while let (d, u) = heap.pop() {
            let i = Int(u)
            if d != back[i] { continue }
            // `down` at u lists the edges v→u from higher nodes v: backwards, upwards.
            for k in Int(downStart[i])..<Int(downStart[i + 1]) { offer(down[k].node, d + Int64(down[k].weight)) }
        }
    }

    public func estimate(fromVertex v: UInt32) -> UInt32 { 0 }

    public func estimate(fromArc a: UInt32, head: UInt32) -> UInt32 {
        let p = potential(graph.hierarchyNode(of: a))
        return p <= 0 ? 0 : UInt32(min(p, Int64(UInt32.max - 1)))
    }

    /// The cheapest way up from node `u` and back down to a target (`Int64.max` where there is none): the upward
    /// graph has no cycles, so each node is worked out once, after the nodes above it.
    private func potential(_ u: UInt32) -> Int64 {
        if memoSeen.contains(Int(u)) { return memo[Int(u)] }
        let upStart = self.upStart, up = self.up
        stack.removeAll(keepingCapacity: true)
        stack.append(u)
        while let x = stack.last {
            let i = Int(x)
            if memoSeen.contains(i) { stack.removeLast(); continue }
            let edges = Int(upStart[i])..<Int(upStart[i + 1])
            var pending = false
            for k in edges where !memoSeen.contains(Int(up[k].node)) {
                stack.append(up[k].node)
                pending = true
            }
            if pending { continue }
            var best = backSeen.contains(i) ? back[i] : Int64.max
            for k in edges {
                let above = memo[Int(up[k].node)]
                if above != Int64.max { best = min(best, above + Int64(up[k].weight)) }
            }
            memoSeen.insert(i)
            memo[i] = best
            stack.removeLast()
        }
        return memo[Int(u)]
    }
}
