import Foundation
import Contraction
import RoadGraph

/// The metric-independent half of a customizable contraction hierarchy (Dibbelt, Strasser and Wagner): nodes
/// numbered by a nested-dissection order, and every edge that contracting them in that order could need, whatever
/// the weights (the chordal supergraph). Built once per graph; `customize` then gives it weights in a fraction of
/// the time a contraction takes.
public struct HierarchyTopology: Sendable {
    /// `number[node]`: the node's place in the order; `node[number]` the inverse.
    public var number: [UInt32], node: [UInt32]
    /// Upward edges in numbers: u's upper neighbours are `upHead[upStart[u]..<upStart[u + 1]]`, ascending.
    public var upStart: [UInt32], upHead: [UInt32]

    public var nodeCount: Int { number.count }
    public var edgeCount: Int { upHead.count }

    public init(number: [UInt32], node: [UInt32], upStart: [UInt32], upHead: [UInt32]) {
        self.number = number; self.node = node; self.upStart = upStart; self.upHead = upHead
    }

    /// Orders the graph and adds the edges its elimination needs. `edges`: the base graph's edges, either direction.
    public init(nodeCount: Int, edges: [(UInt32, UInt32)]) throws {
        let number = try NestedDissection.order(nodeCount: nodeCount, edges: edges)
        var node = [UInt32](repeating: 0, count: nodeCount)
        for (v, k) in number.enumerated() { node[Int(k)] = UInt32(v) }
        var upper = [[UInt32]](repeating: [], count: nodeCount)
        for (a, b) in edges where a != b {
            let (x, y) = (number[Int(a)], number[Int(b)])
            upper[Int(min(x, y))].append(max(x, y))
        }
        // Eliminating u joins its upper neighbours into a clique; adding them to the lowest of them is enough,
        // since that one is eliminated next among them and passes the rest on (the elimination tree).
        for u in 0..<nodeCount {
            var list = upper[u]
            guard !list.isEmpty else { continue }
            list.sort()
            var unique: [UInt32] = []
            unique.reserveCapacity(list.count)
            for v in list where unique.last != v { unique.append(v) }
            upper[u] = unique
            guard unique.count > 1 else { continue }
            upper[Int(unique[0])].append(contentsOf: unique[1...])
        }
        var upStart = [UInt32](repeating: 0, count: nodeCount + 1)
        var upHead: [UInt32] = []
        upHead.reserveCapacity(upper.reduce(0) { $0 + $1.count })
        for u in 0..<nodeCount {
            upHead.append(contentsOf: upper[u])
            upper[u] = []
            upStart[u + 1] = UInt32(upHead.count)
        }
        self.init(number: number, node: node, upStart: upStart, upHead: upHead)
    }

    /// Whether the edges are closed under elimination, as the triangle kernels need: each node's upper neighbours
    /// but the lowest are upper neighbours of that lowest one (then, node by node up the elimination tree, every
    /// two upper neighbours of a node are joined). One merge per node; a file that passes its checksums but not
    /// this is refused rather than read past a list's end.
    public var isClosedUnderElimination: Bool {
        guard upStart.count == nodeCount + 1, number.count == node.count else { return false }
        for u in 0..<nodeCount {
            let lo = Int(upStart[u]), hi = Int(upStart[u + 1])
            guard hi - lo > 1 else { continue }
            let p = Int(upHead[lo])
            var k = Int(upStart[p])
            let end = Int(upStart[p + 1])
            for j in (lo + 1)..<hi {
                while k < end && upHead[k] < upHead[j] { k += 1 }
                guard k < end && upHead[k] == upHead[j] else { return false }
            }
        }
        return true
    }

    /// The edge between numbers `low` < `high`, if the topology has it.
    func edge(_ low: UInt32, _ high: UInt32) -> Int? {
        var lo = Int(upStart[Int(low)]), hi = Int(upStart[Int(low) + 1])
        while lo < hi {
            let mid = (lo + hi) / 2
            if upHead[mid] < high { lo = mid + 1 } else { hi = mid }
        }
        return lo < Int(upStart[Int(low) + 1]) && upHead[lo] == high ? lo : nil
    }
}

/// A base graph with one metric, as a customization reads it: directed edges between nodes (arcs, or vertices for
/// a hierarchy over vertices), each with its weight, duration, length and excludable classes. Over arcs the nodes
/// carry the classes (`nodeClasses`) and the edges none; over vertices the edges carry them.
public struct CustomizationInput {
    public struct Edge {
        public var from: UInt32, to: UInt32, weight: UInt32, duration: UInt32
        public var length: Float
        public var classes: UInt8
        public init(from: UInt32, to: UInt32, weight: UInt32, duration: UInt32, length: Float, classes: UInt8) {
            self.from = from; self.to = to; self.weight = weight; self.duration = duration; self.length = length
            self.classes = classes
        }
    }
    public var nodeCount: Int
    public var edges: [Edge]
    public var nodeClasses: [UInt8]

    public init(nodeCount: Int, edges: [Edge], nodeClasses: [UInt8]) {
        self.nodeCount = nodeCount; self.edges = edges; self.nodeClasses = nodeClasses
    }
}

public struct CustomizationStatistics: Sendable {
    public var edges = 0, triangles = 0
    /// The exclusion sets customized (one per combination of the excludable classes the graph has).
    public var exclusionSets = 0
    /// Hierarchy edges written: per topology edge and direction, one per exclusion set that needs its own.
    public var hierarchyEdges = 0
    /// Whether the elimination tree split in two, each lane group's triangles then running on both cores.
    public var splitInTwo = false
    public var seconds = 0.0
}

/// Gives a topology the weights of one metric: base edges first, then every lower triangle in order of its lowest
/// node, so that each edge ends with the cheapest path through nodes below both its ends (what a contraction
/// hierarchy's query needs); then the upper and intermediate triangles, which leave out the edges on no shortest
/// path (perfect customization). Exclusions (avoid tolls, motorways, ferries) are metrics of their own: each set of
/// classes the graph has is customized with those nodes and edges left out, and an edge keeps one hierarchy edge
/// per set unless another is as cheap with no more classes (the query's masks then pick the right one, as with the
/// import's hierarchy; see `Contraction`).
public enum HierarchyCustomization {
    /// No path: below half of `UInt32.max`, so that two of them add up without overflow and stay unreachable.
    static let unreachable = UInt32.max / 2

    /// `whenLanesAreDone` is called once the triangles are done, for the caller to start work of its own beside the
    /// hierarchy's assembly. `splitting: false` keeps the order from being split in two (the same hierarchy, on
    /// fewer cores: for comparison).
    public static func customize(_ topology: HierarchyTopology, _ input: CustomizationInput, excludable: UInt8,
                                 splitting: Bool = true,
                                 whenLanesAreDone: () -> Void = {}) -> (HierarchyArrays, CustomizationStatistics) {
        let started = Date()
        var statistics = CustomizationStatistics()
        statistics.edges = topology.edgeCount
        var present: UInt8 = 0
        for c in input.nodeClasses { present |= c & excludable }
        for e in input.edges { present |= e.classes & excludable }
        // Every combination of the present classes, the empty set first.
        let sets = (0...UInt8(255)).filter { $0 & ~present == 0 }
        statistics.exclusionSets = sets.count
        let hierarchy: HierarchyArrays
        // All sets go through the triangles at once, one lane each. Where the order splits in two, a group of up
        // to eight lanes at a time, with both cores on each group; else groups of two or four, a core each.
        let split = splitting ? EliminationSplit(topology) : nil
        statistics.splitInTwo = split != nil
        switch (sets.count, split != nil) {
        case (...1, _):
            (hierarchy, statistics.triangles) = customize(topology, input, sets: sets, lanes: SingleLane<UInt32>.self, split, whenLanesAreDone)
        case (2, _), (3...4, false):
            (hierarchy, statistics.triangles) = customize(topology, input, sets: sets, lanes: SIMD2<UInt32>.self, split, whenLanesAreDone)
        case (3...4, true), (5..., false):
            (hierarchy, statistics.triangles) = customize(topology, input, sets: sets, lanes: SIMD4<UInt32>.self, split, whenLanesAreDone)
        default:
            (hierarchy, statistics.triangles) = customize(topology, input, sets: sets, lanes: SIMD8<UInt32>.self, split, whenLanesAreDone)
        }
        statistics.hierarchyEdges = hierarchy.up.count + hierarchy.down.count
        statistics.seconds = Date().timeIntervalSince(started)
        return (hierarchy, statistics)
    }

    static func customize<V: SIMD>(_ t: HierarchyTopology, _ input: CustomizationInput, sets: [UInt8], lanes: V.Type,
                                   _ split: EliminationSplit?, _ whenLanesAreDone: () -> Void) -> (HierarchyArrays, Int)
    where V.Scalar == UInt32 {
        let nodeClasses = t.node.map { input.nodeClasses.isEmpty ? 0 : input.nodeClasses[Int($0)] }
        let width = V.scalarCount
        let groups = (sets.count + width - 1) / width
        func group(_ g: Int) -> LaneGroup<V> {
            LaneGroup<V>(t, input, sets: Array(sets[(g * width)..<min(sets.count, (g + 1) * width)]), nodeClasses: nodeClasses,
                         split: split)
        }
        var lanes: [LaneGroup<V>]
        if split != nil {
            lanes = (0..<groups).map(group)
        } else {
            let results = (0..<groups).map { _ in Locked<LaneGroup<V>?>(nil) }
            DispatchQueue.concurrentPerform(iterations: groups) { g in results[g].mutate { $0 = group(g) } }
            lanes = results.map { $0.value! }
        }
        whenLanesAreDone()
        let triangles = lanes[0].triangles
        return (HierarchyAssembly.assemble(t, input, sets: sets, lanes: &lanes, nodeClasses: nodeClasses, split: split),
                triangles)
    }
}

/// One group of lanes (exclusion sets) through base edges, relaxation and tightening.
struct LaneGroup<V: SIMD> where V.Scalar == UInt32 {
    /// Per topology edge, upward (low → high) and downward (high → low): the true distance between its ends, and
    /// where the weight through lower nodes came from (`via`: the edge from the triangle's lowest node to the edge's
    /// low end, or `baseFlag` with the base edge, the cheapest allowed in that set: one array for both, not two),
    /// with `TriangleKernel.loweredFlag` where the true distance is less (the edge is on no shortest path).
    var up: [V], down: [V], upVia: [V], downVia: [V]
    var triangles = 0

    /// Marks a base edge's index in `via` (triangle and base edges are below 2³⁰).
    static var baseFlag: UInt32 { 1 << 31 }

    init(_ t: HierarchyTopology, _ input: CustomizationInput, sets: [UInt8], nodeClasses: [UInt8], split: EliminationSplit?) {
        let m = t.edgeCount, unreachable = HierarchyCustomization.unreachable
        // Four arrays, filled on both cores (most of the time is the pages' first touch).
        let filled = (0..<4).map { _ in Locked<[V]>([]) }
        DispatchQueue.concurrentPerform(iterations: 4) { a in
            let array = [V](repeating: V(repeating: a < 2 ? unreachable : noIndex), count: m)
            filled[a].mutate { $0 = array }
        }
        var (up, down, upVia, downVia) = (filled[0].value, filled[1].value, filled[2].value, filled[3].value)
        for f in filled { f.mutate { $0 = [] } }
        // Per lane, the classes its set leaves out; lanes past the sets leave out everything and stay unreachable.
        var excluded = V(repeating: UInt32.max)
        for (lane, set) in sets.enumerated() { excluded[lane] = UInt32(set) }
        up.withUnsafeMutableBufferPointer { up in down.withUnsafeMutableBufferPointer { down in
        upVia.withUnsafeMutableBufferPointer { upVia in downVia.withUnsafeMutableBufferPointer { downVia in
            for (i, e) in input.edges.enumerated() where e.from != e.to {
                let (x, y) = (t.number[Int(e.from)], t.number[Int(e.to)])
                guard let k = t.edge(min(x, y), max(x, y)) else { continue }
                let classes = UInt32(e.classes | nodeClasses[Int(x)] | nodeClasses[Int(y)])
                let allowed = (excluded & V(repeating: classes)) .== V(repeating: 0)
                let weight = V(repeating: e.weight), via = V(repeating: LaneGroup.baseFlag | UInt32(i))
                if x < y {
                    let better = allowed .& (weight .< up[k])
                    up[k].replace(with: weight, where: better); upVia[k].replace(with: via, where: better)
                } else {
                    let better = allowed .& (weight .< down[k])
                    down[k].replace(with: weight, where: better); downVia[k].replace(with: via, where: better)
                }
            }
        }}}}
        triangles = TriangleKernel.relax(start: t.upStart, head: t.upHead, up: &up, down: &down, upVia: &upVia, downVia: &downVia,
                                           split: split)
        // Edges on no shortest path are left out of the hierarchy: the searches then meet after far fewer nodes.
        TriangleKernel.tighten(start: t.upStart, head: t.upHead, up: &up, down: &down, upVia: &upVia, downVia: &downVia,
                               split: split)
        (self.up, self.down, self.upVia, self.downVia) = (up, down, upVia, downVia)
    }
}
