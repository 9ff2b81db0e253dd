/// The customization's hot loop: every lower triangle z < x < y of a topology, in order of z, with one SIMD lane
/// per exclusion set. It reads the edge arrays through raw pointers (the loop runs tens of millions of times per
/// city; checked indexing and copy-on-write checks were most of its time); `relax` is its safe entry point.
enum TriangleKernel {
    /// Lowers each edge's weights to the cheapest path through a lower node, and records that triangle by its
    /// edge from the lowest node to the edge's low end. Returns the number of triangles.
    static func relax<V: SIMD>(start: [UInt32], head: [UInt32], up: inout [V], down: inout [V],
                               upVia: inout [V], downVia: inout [V]) -> Int
    where V.Scalar == UInt32 {
        precondition(up.count == head.count && down.count == head.count && upVia.count == head.count
                     && downVia.count == head.count)
        precondition(start.last.map { Int($0) == head.count } ?? true)
        var triangles = 0
        start.withUnsafeBufferPointer { start in
        head.withUnsafeBufferPointer { head in
        up.withUnsafeMutableBufferPointer { up in
        down.withUnsafeMutableBufferPointer { down in
        upVia.withUnsafeMutableBufferPointer { upVia in
        downVia.withUnsafeMutableBufferPointer { downVia in
            let nodes = start.count - 1
            for z in 0..<max(0, nodes) {
                let lo = Int(start[z]), hi = Int(start[z + 1])
                guard hi - lo > 1 else { continue }
                for i in lo..<(hi - 1) {
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
        }}}}}}
        return triangles
    }
}

extension TriangleKernel {
    /// Perfect customization: lowers each edge to the true distance between its ends, through any node. Nodes go
    /// from the top down; at each node x, every pair of its upper neighbours y < z closes a triangle whose edge y–z
    /// is final already (its low end is above x): z is an upper node for x–y, and y an intermediate one for x–z.
    /// An edge whose weight drops here is on no shortest path, so the query can do without it.
    static func tighten<V: SIMD>(start: [UInt32], head: [UInt32], up: inout [V], down: inout [V]) where V.Scalar == UInt32 {
        precondition(up.count == head.count && down.count == head.count)
        precondition(start.last.map { Int($0) == head.count } ?? true)
        start.withUnsafeBufferPointer { start in
        head.withUnsafeBufferPointer { head in
        up.withUnsafeMutableBufferPointer { up in
        down.withUnsafeMutableBufferPointer { down in
            let nodes = start.count - 1
            for x in stride(from: nodes - 1, through: 0, by: -1) {
                let lo = Int(start[x]), hi = Int(start[x + 1])
                guard hi - lo > 1 else { continue }
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
        }}}}
    }
}
