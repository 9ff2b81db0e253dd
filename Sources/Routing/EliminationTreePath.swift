import RoadGraph

/// The nodes an upward search on a customized hierarchy can reach. In a nested-dissection order every up edge leads
/// to an ancestor in the elimination tree, so they are the starts' paths up the tree, and taking them in order
/// settles each before its edges are relaxed, with no queue (Dibbelt, Strasser and Wagner's elimination tree query).
/// Keeps its arrays between searches.
struct EliminationTreePath {
    private var marked = SearchStamps()
    /// The nodes collected, ascending.
    private(set) var nodes: [UInt32] = []

    /// Whether the graph's hierarchy over `count` nodes is a customized one (it has an elimination tree).
    static func applies(to graph: RoadGraph, nodeCount count: Int) -> Bool { graph.cchUpStart.count == count + 1 }

    /// Collects the paths up from `starts`, each to where a path taken already joins.
    mutating func collect(_ graph: RoadGraph, from starts: [UInt32], nodeCount count: Int) {
        marked.reset(count: count)
        nodes.removeAll(keepingCapacity: true)
        for start in starts {
            var v = start
            while v != noIndex && !marked.contains(Int(v)) {
                marked.insert(Int(v))
                nodes.append(v)
                let up = Int(graph.cchUpStart[Int(v)])
                v = up < Int(graph.cchUpStart[Int(v) + 1]) ? graph.cchUpHead[up] : noIndex
            }
        }
        nodes.sort()
    }
}
