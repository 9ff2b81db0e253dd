import RoadGraph

/// Bidirectional Dijkstra on a contraction hierarchy: a forward search upwards from the source arcs, a backward
/// search upwards from the target arcs, meeting at the highest arc of the shortest path; shortcuts are then unpacked
/// into the arcs they skip. Exact: the same cost as Dijkstra on the arc graph.
public struct HierarchySearch {
    private var forward = Side()
    private var backward = Side()
    private var duplicates: [UInt32: [UInt32]]?
    private var duplicatesOf: MappedFile?
    /// For the rare legs the upward searches cannot answer; its arrays are allocated on first use, then kept.
    private var plain = PathSearch()
    /// A customized hierarchy's search: the nodes on the starts' paths up the elimination tree.
    private var tree = EliminationTreePath()

    struct Side {
        var distance: [Int64] = []
        var parent: [UInt32] = []  // predecessor node in the upward search (noIndex at a start)
        var labelled = SearchStamps()
        var heap = SearchHeap()

        mutating func prepare(_ count: Int) {
            if labelled.reset(count: count) {
                distance = Array(repeating: 0, count: count)
                parent = Array(repeating: noIndex, count: count)
            }
            heap.removeAll()
        }

        func reached(_ a: Int) -> Bool { labelled.contains(a) }

        mutating func offer(_ a: UInt32, _ d: Int64, parent p: UInt32, queued: Bool = true) {
            let i = Int(a)
            if labelled.contains(i) && distance[i] <= d { return }
            labelled.insert(i)
            distance[i] = d
            parent[i] = p
            if queued { heap.push(d, a) }
        }
    }

    public init() {}

    private mutating func copies(in graph: RoadGraph) -> [UInt32: [UInt32]] {
        if let duplicates, duplicatesOf === graph.file { return duplicates }
        let map = graph.arcCopies()
        duplicates = map
        duplicatesOf = graph.file
        return map
    }

    /// The shortest path; with `excluding`, over arcs and hierarchy edges without those classes only (the
    /// hierarchy keeps every such path: see `Contraction`).
    public mutating func shortestPath(in graph: RoadGraph, from sources: [SearchEndpoint], to targets: [SearchEndpoint],
                                      excluding: ArcClasses = []) -> SearchResult?
    {
        precondition(graph.hasHierarchy, "the graph has no contraction hierarchy")
        // A target behind the source on the same arc needs a path that comes back to that arc, which the upward
        // searches cannot see (each arc keeps only its best label): such rare legs go to plain search.
        // Over vertices, endpoints pinned to one direction need the arc graph too (the router gives them A*).
        let pinned = graph.hierarchyOverVertices && !(graph.endpointsFree(sources, excluded: excluding.rawValue)
                                                       && graph.endpointsFree(targets, excluded: excluding.rawValue))
        if pinned || sources.contains(where: { s in targets.contains { graph.liesBehind($0, s) } }) {
            return plain.shortestPath(in: graph, from: sources, to: targets, heuristic: NoHeuristic(), excluding: excluding)
        }
        let excluded = excluding.rawValue
        let overVertices = graph.hierarchyOverVertices
        // Over vertices, nodes have no classes: the edges' masks carry them all.
        func allowed(_ node: UInt32) -> Bool {
            overVertices || excluded == 0 || graph.arcClasses[Int(graph.chOriginal[Int(node)])] & excluded == 0
        }
        let n = graph.hierarchyNodeCount
        forward.prepare(n)
        backward.prepare(n)
        var best = Int64.max
        var meeting = noIndex
        var direct: (cost: UInt32, arc: UInt32)?
        for s in sources {
            for t in targets {
                if let cost = graph.weightWithinArc(from: s, to: t), cost < (direct?.cost ?? UInt32.max) { direct = (cost, s.arc) }
            }
        }
        if let direct { best = Int64(direct.cost) }
        var lowestBackwardStart = Int64(0)
        if overVertices {
            // From the source arc's head once past it, to the target arc's tail; a vertex nothing passes is no start.
            for s in sources {
                if let (v, pass) = graph.vertexStart(ofSource: s) {
                    forward.offer(graph.hierarchyNode(of: v), Int64(s.cost) + Int64(pass), parent: noIndex)
                }
            }
            for t in targets {
                if let v = graph.vertexStart(ofTarget: t) { backward.offer(graph.hierarchyNode(of: v), Int64(t.cost), parent: noIndex) }
            }
        } else {
            for s in sources { forward.offer(graph.hierarchyNode(of: s.arc), Int64(s.cost), parent: noIndex) }
            let copies = copies(in: graph)
            for t in targets {
                // Entering the target arc costs its full weight; only the part up to the point counts.
                let start = Int64(t.cost) - Int64(graph.arcWeight[Int(t.arc)])
                lowestBackwardStart = min(lowestBackwardStart, start)
                backward.offer(graph.hierarchyNode(of: t.arc), start, parent: noIndex)
                for copy in copies[t.arc] ?? [] { backward.offer(graph.hierarchyNode(of: copy), start, parent: noIndex) }
            }
        }
        // Over arcs, meeting where both labels are starting labels would be travel within one arc, which only
        // counts when the target lies ahead of the source: the `direct` case above. Over vertices it is a path
        // from the source arc straight onto the target arc.
        func valid(_ i: Int) -> Bool { overVertices || forward.parent[i] != noIndex || backward.parent[i] != noIndex }
        var settled = 0
        let customized = !overVertices && EliminationTreePath.applies(to: graph, nodeCount: n)
        if customized {
            settled = treeSearch(graph, excluded: excluded, lowestBackwardStart: lowestBackwardStart, best: &best,
                                 meeting: &meeting, allowed: allowed)
        }
        while !customized {
            // Backward labels start below zero (by at most the target arc's weight), so the forward search may stop
            // only once even the lowest backward label could not complete a better path.
            let f = forward.heap.minKey, b = backward.heap.minKey
            let fDone = f.map { $0 + lowestBackwardStart >= best } ?? true, bDone = b.map { $0 >= best } ?? true
            if fDone && bDone { break }
            let useForward = !fDone && (bDone || f! <= b!)
            if useForward {
                guard let (d, a) = forward.heap.pop() else { break }
                let i = Int(a)
                if d != forward.distance[i] { continue }
                settled += 1
                if backward.reached(i), d + backward.distance[i] < best, valid(i) { best = d + backward.distance[i]; meeting = a }
                if stalled(i, side: forward, start: graph.chDownStart, edges: graph.chDownEdges, excluded: excluded, d) { continue }
                for k in Int(graph.chUpStart[i])..<Int(graph.chUpStart[i + 1]) {
                    let e = graph.chUpEdges[k]
                    guard e.mask & excluded == 0, allowed(e.node) else { continue }
                    forward.offer(e.node, d + Int64(e.weight), parent: a)
                }
            } else {
                guard let (d, a) = backward.heap.pop() else { break }
                let i = Int(a)
                if d != backward.distance[i] { continue }
                settled += 1
                if forward.reached(i), d + forward.distance[i] < best, valid(i) { best = d + forward.distance[i]; meeting = a }
                if stalled(i, side: backward, start: graph.chUpStart, edges: graph.chUpEdges, excluded: excluded, d) { continue }
                for k in Int(graph.chDownStart[i])..<Int(graph.chDownStart[i + 1]) {
                    let e = graph.chDownEdges[k]
                    guard e.mask & excluded == 0, allowed(e.node) else { continue }
                    backward.offer(e.node, d + Int64(e.weight), parent: a)
                }
            }
        }
        // A leg past 2³² − 1 ms is not found, as in every search (see `SearchResult.cost`).
        guard best < Int64(UInt32.max) else { return nil }
        // Below zero only where a damaged file's hierarchy costs less than its arcs (a checksum-valid file made by
        // hand): the arcs decide.
        guard best >= 0 else {
            return plain.shortestPath(in: graph, from: sources, to: targets, heuristic: NoHeuristic(), excluding: excluding)
        }
        if meeting == noIndex, let direct {
            return SearchResult(cost: direct.cost, path: [direct.arc], in: graph, settled: settled)
        }
        // Up-path from the source to the meeting node, then down from it to the target, shortcuts unpacked.
        var upPath: [UInt32] = [meeting]
        var a = meeting
        while forward.parent[Int(a)] != noIndex { a = forward.parent[Int(a)]; upPath.append(a) }
        upPath.reverse()
        var nodes: [UInt32] = [upPath[0]]
        // One stack for every edge of the path (one each was an allocation per hierarchy edge).
        var stack: [(up: Bool, index: UInt32, head: UInt32)] = []
        stack.reserveCapacity(64)
        for k in 1..<upPath.count {
            unpack(graph, from: upPath[k - 1], to: upPath[k], excluded: excluded, into: &nodes, stack: &stack)
        }
        a = meeting
        while backward.parent[Int(a)] != noIndex {
            let next = backward.parent[Int(a)]
            unpack(graph, from: a, to: next, excluded: excluded, into: &nodes, stack: &stack)
            a = next
        }
        for k in nodes.indices { nodes[k] = graph.chOriginal[Int(nodes[k])] }
        if overVertices {
            // The vertices become arcs: the source arc, the cheapest usable arc between each two vertices, the
            // target arc. A damaged file whose hierarchy names an arc that is not there gets the plain search.
            guard let arcs = arcs(through: nodes, graph, sources: sources, targets: targets, excluded: excluded) else {
                return plain.shortestPath(in: graph, from: sources, to: targets, heuristic: NoHeuristic(), excluding: excluding)
            }
            return SearchResult(cost: UInt32(best), path: arcs, in: graph, settled: settled)
        }
        return SearchResult(cost: UInt32(best), path: nodes, in: graph, settled: settled)
    }

    /// The search on a customized hierarchy (see `EliminationTreePath`), over arcs only. Returns the nodes settled
    /// (at least one).
    private mutating func treeSearch(_ graph: RoadGraph, excluded: UInt8, lowestBackwardStart: Int64, best: inout Int64,
                                     meeting: inout UInt32, allowed: (UInt32) -> Bool) -> Int {
        // The starts are the queued labels.
        tree.collect(graph, from: forward.heap.items + backward.heap.items, nodeCount: graph.hierarchyNodeCount)
        forward.heap.removeAll()
        backward.heap.removeAll()
        for v in tree.nodes {
            let i = Int(v)
            let f = forward.reached(i) ? forward.distance[i] : nil, b = backward.reached(i) ? backward.distance[i] : nil
            // Meeting where both labels are starting ones is travel within one arc (see `shortestPath`).
            if let f, let b, f + b < best, forward.parent[i] != noIndex || backward.parent[i] != noIndex {
                best = f + b
                meeting = v
            }
            // Labels that cannot complete a better path are not taken on (backward ones start below zero).
            if let f, f + lowestBackwardStart < best {
                for k in Int(graph.chUpStart[i])..<Int(graph.chUpStart[i + 1]) {
                    let e = graph.chUpEdges[k]
                    guard e.mask & excluded == 0, allowed(e.node) else { continue }
                    forward.offer(e.node, f + Int64(e.weight), parent: v, queued: false)
                }
            }
            if let b, b < best {
                for k in Int(graph.chDownStart[i])..<Int(graph.chDownStart[i + 1]) {
                    let e = graph.chDownEdges[k]
                    guard e.mask & excluded == 0, allowed(e.node) else { continue }
                    backward.offer(e.node, b + Int64(e.weight), parent: v, queued: false)
                }
            }
        }
        return max(1, tree.nodes.count)
    }

    /// A path of vertices as arcs, from the source arc whose start label the path began with to the target arc
    /// whose start label it ended with.
    private func arcs(through vertices: [UInt32], _ graph: RoadGraph, sources: [SearchEndpoint], targets: [SearchEndpoint],
                      excluded: UInt8) -> [UInt32]? {
        let first = vertices[0], last = vertices[vertices.count - 1]
        let firstLabel = forward.distance[Int(graph.hierarchyNode(of: first))]
        let lastLabel = backward.distance[Int(graph.hierarchyNode(of: last))]
        guard let source = sources.first(where: { s in
                  graph.vertexStart(ofSource: s).map { $0.vertex == first && Int64(s.cost) + Int64($0.pass) == firstLabel } ?? false
              }),
              let target = targets.first(where: { t in
                  graph.vertexStart(ofTarget: t) == last && Int64(t.cost) == lastLabel
              }) else { return nil }
        var arcs: [UInt32] = [source.arc]
        arcs.reserveCapacity(vertices.count + 1)
        for k in 1..<vertices.count {
            guard let arc = graph.cheapestArc(from: vertices[k - 1], to: vertices[k], excluded: excluded) else { return nil }
            arcs.append(arc)
        }
        arcs.append(target.arc)
        return arcs
    }

    /// Stall-on-demand: a node reached more cheaply from a higher node than by its own label is not on a shortest
    /// path from this side's start, so its edges need not be relaxed (its label still counts for meeting).
    private func stalled(_ i: Int, side: Side, start: UnsafeBufferPointer<UInt32>, edges: UnsafeBufferPointer<HierarchyEdge>,
                         excluded: UInt8, _ d: Int64) -> Bool
    {
        for k in Int(start[i])..<Int(start[i + 1]) {
            let e = edges[k]
            guard e.mask & excluded == 0 else { continue }
            let x = Int(e.node)
            if side.reached(x) && side.distance[x] + Int64(e.weight) < d { return true }
        }
        return false
    }

    /// Appends the nodes after `from` up to and including `to` along the hierarchy edge from→to.
    /// `stack` is scratch space, empty on return.
    func unpack(_ graph: RoadGraph, from: UInt32, to: UInt32, excluded: UInt8, into nodes: inout [UInt32],
                stack: inout [(up: Bool, index: UInt32, head: UInt32)]) {
        // The edge the search used; then each shortcut's halves, straight from edge to edge (second half pushed
        // first, so the first is unpacked first). `head` is where the edge ends.
        guard let top = edge(graph, from, to, excluded: excluded) else { nodes.append(to); return }
        stack.append((top.up, top.index, to))
        while let (up, k, head) = stack.popLast() {
            let s = up ? graph.chUpShortcuts[Int(k)] : graph.chDownShortcuts[Int(k)]
            if s.middle == noIndex { nodes.append(head); continue }
            stack.append((true, s.second, head))
            stack.append((false, s.first, s.middle))
        }
    }

    /// The hierarchy edge u→v the search used: stored at whichever end has the lower number (up edges at u, down
    /// edges at v), the cheapest such edge without excluded classes. Nil only in a damaged file.
    func edge(_ graph: RoadGraph, _ u: UInt32, _ v: UInt32, excluded: UInt8) -> (up: Bool, index: UInt32)? {
        let up = u < v
        let (lower, higher) = up ? (u, v) : (v, u)
        let start = up ? graph.chUpStart : graph.chDownStart, edges = up ? graph.chUpEdges : graph.chDownEdges
        var bestWeight = UInt32.max
        var result: UInt32?
        for k in Int(start[Int(lower)])..<Int(start[Int(lower) + 1]) {
            let e = edges[k]
            if e.node == higher && e.mask & excluded == 0 && e.weight < bestWeight { bestWeight = e.weight; result = UInt32(k) }
        }
        return result.map { (up, $0) }
    }
}
