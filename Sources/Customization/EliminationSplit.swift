/// Two neighbouring ranges of node numbers whose edges depend on nothing in the other, so that one core can work
/// through each: `left` = `start..<middle`, `right` = `middle..<end`. An edge's value (through lower triangles, or
/// its shortcut halves) depends only on edges whose low ends are its low end's descendants in the elimination tree
/// (every upper neighbour of a node is its ancestor there). A nested-dissection order numbers each subtree as one
/// range, its root last, so the subtrees under one node split into two ranges. Nodes below `start` are no
/// descendants of either range, and nodes from `end` on may depend on both: they are done before and after.
struct EliminationSplit: Equatable {
    var start: Int, middle: Int, end: Int

    var left: Range<Int> { start..<middle }
    var right: Range<Int> { middle..<end }

    /// The most even split of the topology's work (edges per range) found by walking down from the root, or nil
    /// when no split holds a fifth of the edges on each side (a small or chain-like graph gains nothing).
    init?(_ t: HierarchyTopology) {
        let n = t.nodeCount
        guard n > 1 else { return nil }
        // Parents, each subtree's lowest node and work (edges), children lowest first.
        var parent = [Int](repeating: -1, count: n)
        var lowest = Array(0..<n), work = [Int](repeating: 0, count: n)
        for u in 0..<n {
            work[u] += Int(t.upStart[u + 1] - t.upStart[u])
            guard t.upStart[u + 1] > t.upStart[u] else { continue }
            let p = Int(t.upHead[Int(t.upStart[u])])
            parent[u] = p
            lowest[p] = min(lowest[p], lowest[u])
            work[p] += work[u]
        }
        var childStart = [Int](repeating: 0, count: n + 2)
        for u in 0..<n { childStart[parent[u] + 2] += 1 }  // roots are the children of a virtual node -1
        for i in 1..<childStart.count { childStart[i] += childStart[i - 1] }
        var children = [Int](repeating: 0, count: n)
        var fill = childStart
        for u in 0..<n { children[fill[parent[u] + 1]] = u; fill[parent[u] + 1] += 1 }
        let total = t.edgeCount
        var node = -1  // the virtual root over every tree
        while true {
            let kids = children[childStart[node + 1]..<childStart[node + 2]]
            let whole = kids.reduce(0) { $0 + work[$1] }
            guard let largest = kids.max(by: { work[$0] < work[$1] }) else { return nil }
            if work[largest] * 10 > whole * 7 {
                // One subtree holds most of the work: look for the split inside it.
                node = largest
                continue
            }
            // Children in number order, cut where the work before is nearest half.
            var before = 0, cut = kids.startIndex
            for c in kids {
                guard abs(2 * (before + work[c]) - whole) < abs(2 * before - whole) else { break }
                before += work[c]
                cut += 1
            }
            guard cut > kids.startIndex, cut < kids.endIndex else { return nil }
            // A subtree's numbers need not be one range (the order's smallest parts are numbered by degree), so
            // the split is checked as a whole.
            let split = EliminationSplit(start: kids[..<cut].map { lowest[$0] }.min()!, middle: kids[cut - 1] + 1,
                                         end: kids[kids.endIndex - 1] + 1)
            guard min(before, whole - before) * 5 >= total, split.holds(t) else { return nil }
            self = split
            return
        }
    }

    init(start: Int, middle: Int, end: Int) {
        self.start = start; self.middle = middle; self.end = end
    }

    /// Whether no node outside a range has an upper neighbour in it (below it, none: nodes above a range can have
    /// none there), so that each range holds every descendant of its nodes.
    func holds(_ t: HierarchyTopology) -> Bool {
        guard 0 <= start, start < middle, middle < end, end <= t.nodeCount else { return false }
        for c in 0..<middle {
            let within = c < start ? start..<end : middle..<end
            for k in Int(t.upStart[c])..<Int(t.upStart[c + 1]) where within.contains(Int(t.upHead[k])) { return false }
        }
        return true
    }
}
