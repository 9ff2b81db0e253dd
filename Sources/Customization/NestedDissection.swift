import CMetis
import RoadGraph

/// A nested-dissection order of a graph, from METIS: a small separator splits the graph into two halves, each half
/// is ordered the same way, and the separator comes last. Contracting in that order adds few shortcuts whatever the
/// weights, which is what lets a customizable hierarchy take any metric without being rebuilt.
public enum NestedDissection {
    public enum Failure: Error, CustomStringConvertible {
        case metis(Int32)
        case tooLarge(Int)
        public var description: String {
            switch self {
            case .metis(let code): return "METIS could not order the graph (status \(code))"
            case .tooLarge(let n): return "the graph is too large for METIS's 32-bit indices (\(n) adjacencies)"
            }
        }
    }

    /// The position of each node in the order (0 is contracted first). `edges` are the graph's edges in either
    /// direction; loops and repeats are allowed and ignored.
    public static func order(nodeCount: Int, edges: [(UInt32, UInt32)]) throws -> [UInt32] {
        guard nodeCount > 1 else { return (0..<nodeCount).map { UInt32($0) } }
        // Symmetric adjacency without loops or repeats, as METIS requires.
        var degree = [Int](repeating: 0, count: nodeCount + 1)
        for (u, v) in edges where u != v { degree[Int(u) + 1] += 1; degree[Int(v) + 1] += 1 }
        for i in 0..<nodeCount { degree[i + 1] += degree[i] }
        guard degree[nodeCount] < Int(Int32.max) else { throw Failure.tooLarge(degree[nodeCount]) }
        var fill = degree
        var adjacency = [Int32](repeating: 0, count: degree[nodeCount])
        for (u, v) in edges where u != v {
            adjacency[fill[Int(u)]] = Int32(v); fill[Int(u)] += 1
            adjacency[fill[Int(v)]] = Int32(u); fill[Int(v)] += 1
        }
        var xadj = [Int32](repeating: 0, count: nodeCount + 1)
        var write = 0
        for u in 0..<nodeCount {
            let list = adjacency[degree[u]..<degree[u + 1]].sorted()
            var last: Int32 = -1
            for v in list where v != last {
                adjacency[write] = v
                write += 1
                last = v
            }
            xadj[u + 1] = Int32(write)
        }
        adjacency.removeSubrange(write...)
        if adjacency.isEmpty { adjacency = [0] }  // METIS reads the array even when no node has a neighbour
        var options = [idx_t](repeating: 0, count: Int(METIS_NOPTIONS))
        METIS_SetDefaultOptions(&options)
        options[Int(METIS_OPTION_NUMBERING.rawValue)] = 0
        options[Int(METIS_OPTION_SEED.rawValue)] = 1  // the same order on every run
        var n = idx_t(nodeCount)
        var permutation = [idx_t](repeating: 0, count: nodeCount)
        var position = [idx_t](repeating: 0, count: nodeCount)
        let status = METIS_NodeND(&n, &xadj, &adjacency, nil, &options, &permutation, &position)
        guard status == METIS_OK.rawValue else { throw Failure.metis(status) }
        return position.map { UInt32($0) }
    }
}
