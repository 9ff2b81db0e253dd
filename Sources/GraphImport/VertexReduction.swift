import RoadGraph

/// A mode's arc graph seen as a graph of vertices, for a contraction hierarchy over vertices (a quarter of the
/// nodes of one over arcs, for walking). Possible where, at every vertex, each arc arriving may go on along every
/// arc leaving but its own way back, all at one cost (the vertex's: a traffic signal), or along its own way back
/// only (a barrier that lets nothing through, or a dead end). A path over vertices then costs what the same path
/// over arcs costs: arriving at a vertex costs the arc plus the vertex, and a U-turn, the only turn the vertex
/// graph allows and the arc graph does not, never shortens a path (it comes back to a vertex already passed).
/// Turn costs that depend on the turn, turn restrictions and copied arcs (driving) rule it out.
struct VertexReduction {
    /// Per vertex: what passing it costs (milliseconds), `noIndex` where nothing passes.
    var cost: [UInt32]
    /// Per arc: the vertex it leaves.
    var tail: [UInt32]

    init?(_ g: GraphArrays) {
        let arcs = g.arcHead.count, vertices = g.vertexLatitudes.count
        guard arcs > 0, g.arcBase.indices.allSatisfy({ g.arcBase[$0] == UInt32($0) }) else { return nil }
        var tail = [UInt32](repeating: noIndex, count: arcs)
        for v in 0..<vertices {
            for k in Int(g.vertexEdgeStart[v])..<Int(g.vertexEdgeStart[v + 1]) {
                let e = Int(g.vertexEdges[k] >> 1), atEnd = g.vertexEdges[k] & 1 == 1
                let leaving = atEnd ? g.edgeBackwardArc[e] : g.edgeForwardArc[e]
                if leaving != noIndex { tail[Int(leaving)] = UInt32(v) }
            }
        }
        guard !tail.contains(noIndex) else { return nil }
        func twin(_ a: Int) -> UInt32 {
            let e = Int(g.arcEdge[a] >> 1)
            return g.arcEdge[a] & 1 == 1 ? g.edgeForwardArc[e] : g.edgeBackwardArc[e]
        }
        // Arcs leaving each vertex.
        var leavingStart = [Int](repeating: 0, count: vertices + 1)
        for a in 0..<arcs { leavingStart[Int(tail[a]) + 1] += 1 }
        for v in 0..<vertices { leavingStart[v + 1] += leavingStart[v] }
        var leaving = [UInt32](repeating: 0, count: arcs)
        var fill = leavingStart
        for a in 0..<arcs { leaving[fill[Int(tail[a])]] = UInt32(a); fill[Int(tail[a])] += 1 }
        fill = []
        // Per vertex: unknown (no arc has said), a cost, or blocked.
        let unknown = UInt32.max - 1
        var cost = [UInt32](repeating: unknown, count: vertices)
        for a in 0..<arcs {
            let v = Int(g.arcHead[a]), back = twin(a)
            let others = leavingStart[v + 1] - leavingStart[v] - (back != noIndex && tail[Int(back)] == UInt32(v) ? 1 : 0)
            let turns = Int(g.transitionStart[a])..<Int(g.transitionStart[a + 1])
            let says: UInt32
            if turns.allSatisfy({ g.transitionTargets[$0] == back }) {
                if others == 0 { continue }  // a dead end: U-turns only, which no shortest path takes
                says = noIndex
            } else {
                // Every arc leaving but the way back, once each, all at one cost.
                guard turns.count == others, let first = turns.first else { return nil }
                let weight = g.transitionWeight[first]
                for i in turns {
                    let b = g.transitionTargets[i]
                    guard b != back, tail[Int(b)] == UInt32(v), g.transitionWeight[i] == weight,
                          !g.transitionTargets[turns.lowerBound..<i].contains(b) else { return nil }
                }
                says = weight
            }
            if cost[v] == unknown { cost[v] = says } else if cost[v] != says { return nil }
        }
        for v in 0..<vertices where cost[v] == unknown { cost[v] = 0 }
        self.cost = cost
        self.tail = tail
    }
}
