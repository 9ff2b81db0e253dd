/// Tarjan's algorithm, iterative (road graphs are deep enough to overflow a recursive one), over a CSR graph.
public enum StronglyConnectedComponents {
    /// Component id of each node and the size of each component.
    public static func compute(count: Int, start: [UInt32], targets: [UInt32]) -> (component: [UInt32], size: [UInt32]) {
        let unvisited = Int32(-1)
        var index = [Int32](repeating: unvisited, count: count)
        var low = [Int32](repeating: 0, count: count)
        var onStack = [Bool](repeating: false, count: count)
        var component = [UInt32](repeating: 0, count: count)
        var sizes: [UInt32] = []
        var stack: [Int32] = []
        var calls: [(node: Int32, next: UInt32)] = []
        var counter: Int32 = 0
        for root in 0..<count where index[root] == unvisited {
            calls.append((Int32(root), start[root]))
            index[root] = counter; low[root] = counter; counter += 1
            stack.append(Int32(root)); onStack[root] = true
            while let frame = calls.last {
                let v = Int(frame.node)
                if frame.next < start[v + 1] {
                    calls[calls.count - 1].next += 1
                    let w = Int(targets[Int(frame.next)])
                    if index[w] == unvisited {
                        index[w] = counter; low[w] = counter; counter += 1
                        stack.append(Int32(w)); onStack[w] = true
                        calls.append((Int32(w), start[w]))
                    } else if onStack[w] {
                        low[v] = min(low[v], index[w])
                    }
                } else {
                    calls.removeLast()
                    if let parent = calls.last { low[Int(parent.node)] = min(low[Int(parent.node)], low[v]) }
                    if low[v] == index[v] {
                        let id = UInt32(sizes.count)
                        var size: UInt32 = 0
                        while true {
                            let w = Int(stack.removeLast())
                            onStack[w] = false
                            component[w] = id
                            size += 1
                            if w == v { break }
                        }
                        sizes.append(size)
                    }
                }
            }
        }
        return (component, sizes)
    }
}
