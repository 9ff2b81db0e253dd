import Dispatch
import RoadGraph

/// The customization's hot loops: every lower triangle z < x < y of a topology, in order of z, and every upper and
/// intermediate one, from the top down, with one SIMD lane per exclusion set. They read the edge arrays through raw
/// pointers (the loops run tens of millions of times per city; checked indexing and copy-on-write checks were most
/// of their time); `relax` and `tighten` are the safe entry points. Given an `EliminationSplit`, the two ranges'
/// triangles run on a core each and the rest before or after them, in the order that gives the same weights and
/// the same `via` as one pass.
enum TriangleKernel {
    /// Lowers each edge's weights to the cheapest path through a lower node, and records that triangle by its
    /// edge from the lowest node to the edge's low end. Returns the number of triangles.
    static func relax<V: SIMD>(start: [UInt32], head: [UInt32], up: inout [V], down: inout [V],
                               upVia: inout [V], downVia: inout [V], split: EliminationSplit?) -> Int
    where V.Scalar == UInt32 {
        let nodes = max(0, start.count - 1)
        var triangles = 0
        withEdges(start: start, head: head, up: &up, down: &down, upVia: &upVia, downVia: &downVia) { edges in
            guard let split else {
                triangles = edges.relax(0..<nodes, lows: 0..<UInt32(nodes))
                return
            }
            // Below the split, no node has an upper neighbour in it. In its ranges, a triangle whose low edge's low
            // end is in the range stays in it; those whose low end is above wait until both ranges are done, and
            // come before the triangles of the nodes above, as in one pass in order of z.
            triangles = edges.relax(0..<split.start, lows: 0..<UInt32(nodes))
            let inside = [Locked(0), Locked(0)]
            DispatchQueue.concurrentPerform(iterations: 2) { i in
                let count = edges.relax(i == 0 ? split.left : split.right, lows: 0..<UInt32(split.end))
                inside[i].mutate { $0 = count }
            }
            triangles += inside[0].value + inside[1].value
            triangles += edges.relax(split.start..<split.end, lows: UInt32(split.end)..<UInt32(nodes))
            triangles += edges.relax(split.end..<nodes, lows: 0..<UInt32(nodes))
        }
        return triangles
    }

    /// Marks, in `via`, a lane whose weight tightening lowered (triangle and base edge indices are below 2³⁰).
    static var loweredFlag: UInt32 { 1 << 30 }

    /// Perfect customization: lowers each edge to the true distance between its ends, through any node. Nodes go
    /// from the top down; at each node x, every pair of its upper neighbours y < z closes a triangle whose edge y–z
    /// is final already (its low end is above x): z is an upper node for x–y, and y an intermediate one for x–z.
    /// An edge whose weight drops here is on no shortest path, so the query can do without it: its lane is marked
    /// with `loweredFlag` in `via` (in place, rather than in a copy of the weights: a copy is a gigabyte on a large
    /// graph).
    static func tighten<V: SIMD>(start: [UInt32], head: [UInt32], up: inout [V], down: inout [V],
                                 upVia: inout [V], downVia: inout [V], split: EliminationSplit?) where V.Scalar == UInt32 {
        let nodes = max(0, start.count - 1)
        withEdges(start: start, head: head, up: &up, down: &down, upVia: &upVia, downVia: &downVia) { edges in
            guard let split else { return edges.tighten(0..<nodes) }
            // A node writes its own edges and reads its ancestors': above the split first, then its ranges, each
            // of which has its ancestors in it or above it, then the nodes below it.
            edges.tighten(split.end..<nodes)
            DispatchQueue.concurrentPerform(iterations: 2) { i in edges.tighten(i == 0 ? split.left : split.right) }
            edges.tighten(0..<split.start)
        }
    }

    /// The arrays as the loops read them, for the length of `body`.
    private static func withEdges<V: SIMD, R>(start: [UInt32], head: [UInt32], up: inout [V], down: inout [V],
                                              upVia: inout [V], downVia: inout [V], _ body: (Edges<V>) -> R) -> R
    where V.Scalar == UInt32 {
        precondition(up.count == head.count && down.count == head.count && upVia.count == head.count
                     && downVia.count == head.count)
        precondition(start.last.map { Int($0) == head.count } ?? true)
        return start.withUnsafeBufferPointer { start in
        head.withUnsafeBufferPointer { head in
        up.withUnsafeMutableBufferPointer { up in
        down.withUnsafeMutableBufferPointer { down in
        upVia.withUnsafeMutableBufferPointer { upVia in
        downVia.withUnsafeMutableBufferPointer { downVia in
            body(Edges(start: start, head: head, up: up, down: down, upVia: upVia, downVia: downVia))
        }}}}}}
    }

    /// The arrays, as the loops read them. Each range writes only the edges its triangles allow (see above).
    private struct Edges<V: SIMD>: @unchecked Sendable where V.Scalar == UInt32 {
        let start, head: UnsafeBufferPointer<UInt32>
        let up, down: UnsafeMutableBufferPointer<V>
        let upVia, downVia: UnsafeMutableBufferPointer<V>

        /// The lower triangles of the nodes z in `nodes` whose middle node x is in `lows`.
        func relax(_ nodes: Range<Int>, lows: Range<UInt32>) -> Int {
            var triangles = 0
            for z in nodes {
                var lo = Int(start[z]), end = Int(start[z + 1])
                guard end - lo > 1 else { continue }
                let hi = end
                // The list is sorted: the middle nodes in `lows` are one stretch of it.
                while lo < hi - 1 && head[lo] < lows.lowerBound { lo += 1 }
                while end > lo && head[end - 1] >= lows.upperBound { end -= 1 }
                guard lo < min(end, hi - 1) else { continue }
                for i in lo..<min(end, hi - 1) {
                    let x = Int(head[i])
                    var k = Int(start[x])
                    let xz = down[i], zx = up[i]
                    let viaIndex = V(repeating: UInt32(i))
                    for j in (i + 1)..<hi {
                        let y = head[j]
                        // By chordality x–y exists: x's sorted list reaches y.
                        while head[k] < y { k += 1 }
                        // Most triangles improve nothing: stores only where one does.
                        let upward = xz &+ up[j]
                        let better = upward .< up[k]
                        if any(better) {
                            up[k].replace(with: upward, where: better)
                            upVia[k].replace(with: viaIndex, where: better)
                        }
                        let downward = down[j] &+ zx
                        let lower = downward .< down[k]
                        if any(lower) {
                            down[k].replace(with: downward, where: lower)
                            downVia[k].replace(with: viaIndex, where: lower)
                        }
                    }
                    triangles += hi - i - 1
                }
            }
            return triangles
        }

        /// The upper and intermediate triangles of `nodes`, from the top down.
        func tighten(_ nodes: Range<Int>) {
            // A node's weights as relaxation left them, to mark what its triangles lower.
            var relaxedUp: [V] = [], relaxedDown: [V] = []
            let flag = V(repeating: TriangleKernel.loweredFlag), none = V(repeating: 0)
            for x in nodes.reversed() {
                let lo = Int(start[x]), hi = Int(start[x + 1])
                guard hi - lo > 1 else { continue }
                relaxedUp.removeAll(keepingCapacity: true); relaxedDown.removeAll(keepingCapacity: true)
                relaxedUp.append(contentsOf: up[lo..<hi]); relaxedDown.append(contentsOf: down[lo..<hi])
                defer {
                    for k in lo..<hi {
                        upVia[k] |= none.replacing(with: flag, where: up[k] .< relaxedUp[k - lo])
                        downVia[k] |= none.replacing(with: flag, where: down[k] .< relaxedDown[k - lo])
                    }
                }
                for i in lo..<(hi - 1) {
                    let y = Int(head[i])
                    var k = Int(start[y])
                    // x–y's weights stay in registers through the loop.
                    var xy = up[i], yx = down[i]
                    for j in (i + 1)..<hi {
                        let z = head[j]
                        while head[k] < z { k += 1 }
                        let (xz, zx, yz, zy) = (up[j], down[j], up[k], down[k])
                        // Edge x–y through the upper z: x → z → y and y → z → x.
                        xy = pointwiseMin(xy, xz &+ zy)
                        yx = pointwiseMin(yx, yz &+ zx)
                        // Edge x–z through the intermediate y: x → y → z and z → y → x.
                        up[j] = pointwiseMin(xz, xy &+ yz)
                        down[j] = pointwiseMin(zx, zy &+ yx)
                    }
                    up[i] = xy
                    down[i] = yx
                }
            }
        }
    }
}
