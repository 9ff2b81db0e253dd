/// Weakly connected components of a CSR graph (transitions taken as undirected), by union-find.
/// Islands are what snapping must avoid: a car park or estate whose roads do not join the network at all.
public enum ConnectedComponents {
    /// Component id of each node (0, 1, 2… in order of first appearance) and each component's size.
    public static func compute(count: Int, start: [UInt32], targets: [UInt32]) -> (component: [UInt32], size: [UInt32]) {
        var parent = [UInt32](0..<UInt32(count))
        func root(_ x: UInt32) -> UInt32 {
            var x = x
            while parent[Int(x)] != x {
                parent[Int(x)] = parent[Int(parent[Int(x)])]  // path halving
                x = parent[Int(x)]
            }
            return x
        }
        for a in 0..<count {
            for i in Int(start[a])..<Int(start[a + 1]) {
                let ra = root(UInt32(a)), rb = root(targets[i])
                if ra != rb { parent[Int(max(ra, rb))] = min(ra, rb) }
            }
        }
        var idOfRoot = [UInt32](repeating: UInt32.max, count: count)
        var component = [UInt32](repeating: 0, count: count)
        var sizes: [UInt32] = []
        for a in 0..<count {
            let r = Int(root(UInt32(a)))
            if idOfRoot[r] == UInt32.max {
                idOfRoot[r] = UInt32(sizes.count)
                sizes.append(0)
            }
            component[a] = idOfRoot[r]
            sizes[Int(idOfRoot[r])] += 1
        }
        return (component, sizes)
    }
}
