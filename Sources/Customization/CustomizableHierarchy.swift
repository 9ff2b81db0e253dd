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

    /// `whenLanesAreDone` is called once both cores are free again (the hierarchy's assembly is one thread's work),
    /// for the caller to start work of its own beside it.
    public static func customize(_ topology: HierarchyTopology, _ input: CustomizationInput, excludable: UInt8,
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
        switch sets.count {
        // All sets go through the triangles at once, one lane each, in two groups (one per core) from three sets on.
        case 1...4: (hierarchy, statistics.triangles) = customize(topology, input, sets: sets, lanes: SIMD2<UInt32>.self, whenLanesAreDone)
        default: (hierarchy, statistics.triangles) = customize(topology, input, sets: sets, lanes: SIMD4<UInt32>.self, whenLanesAreDone)
        }
        statistics.hierarchyEdges = hierarchy.up.count + hierarchy.down.count
        statistics.seconds = Date().timeIntervalSince(started)
        return (hierarchy, statistics)
    }

    static func customize<V: SIMD>(_ t: HierarchyTopology, _ input: CustomizationInput, sets: [UInt8], lanes: V.Type,
                                   _ whenLanesAreDone: () -> Void) -> (HierarchyArrays, Int) where V.Scalar == UInt32 {
        let m = t.edgeCount
        let nodeClasses = t.node.map { input.nodeClasses.isEmpty ? 0 : input.nodeClasses[Int($0)] }
        // Lanes in groups of V's width, each group on a core of its own.
        let width = V.scalarCount
        let groups = (sets.count + width - 1) / width
        let results = (0..<groups).map { _ in Locked<LaneGroup<V>?>(nil) }
        DispatchQueue.concurrentPerform(iterations: groups) { g in
            let lanes = Array(sets[(g * width)..<min(sets.count, (g + 1) * width)])
            results[g].mutate { $0 = LaneGroup<V>(t, input, sets: lanes, nodeClasses: nodeClasses) }
        }
        let lanes = results.map { $0.value! }
        whenLanesAreDone()
        let triangles = lanes[0].triangles
        // Plain arrays per field: reading through the groups would copy a group (a retain and release of each of
        // its arrays) per read.
        let up = lanes.map(\.up), down = lanes.map(\.down), upExact = lanes.map(\.upExact), downExact = lanes.map(\.downExact)
        let upVia = lanes.map(\.upVia), downVia = lanes.map(\.downVia)

        // The hierarchy, node by node: per edge and direction, one hierarchy edge per set unless another set's is
        // as cheap with no more classes. A shortcut's halves have lower low ends, so theirs are written already:
        // its duration, length and classes come from them.
        var h = HierarchyArrays()
        h.node = t.number
        h.original = t.node
        h.upStart = [0]; h.downStart = [0]
        // Per edge and set (`k * sets.count + lane`), the hierarchy edge that set uses (noIndex: none).
        var upIndex = [UInt32](repeating: noIndex, count: m * sets.count), downIndex = upIndex
        var kept: [(weight: UInt32, classes: UInt8, index: UInt32)] = []
        var lowOf = [UInt32](repeating: 0, count: m)
        for x in 0..<t.nodeCount { for k in Int(t.upStart[x])..<Int(t.upStart[x + 1]) { lowOf[k] = UInt32(x) } }
        for list in [0, 1] {
            let reserve = m * 3 / 4  // about what tightening keeps
            if list == 0 { h.up.reserveCapacity(reserve); h.upDuration.reserveCapacity(reserve); h.upLength.reserveCapacity(reserve)
                           h.upShortcuts.reserveCapacity(reserve)
            } else { h.down.reserveCapacity(reserve); h.downDuration.reserveCapacity(reserve); h.downLength.reserveCapacity(reserve)
                     h.downShortcuts.reserveCapacity(reserve) }
        }
        for x in 0..<t.nodeCount {
            for k in Int(t.upStart[x])..<Int(t.upStart[x + 1]) {
                let y = t.upHead[k]
                for direction in 0..<2 {
                    let upward = direction == 0
                    kept.removeAll(keepingCapacity: true)
                    // The unrestricted set's edge, which any other set may use where it is as cheap there and has
                    // none of the classes that set leaves out (most edges of most sets).
                    var first: (weight: UInt32, index: UInt32)?
                    for lane in sets.indices {
                        let (g, l) = lane.quotientAndRemainder(dividingBy: width)
                        let w = upward ? up[g][k][l] : down[g][k][l]
                        guard w < unreachable, w == (upward ? upExact[g][k][l] : downExact[g][k][l]) else { continue }
                        if let first, first.weight == w,
                           (upward ? h.up[Int(first.index)].mask : h.down[Int(first.index)].mask) & sets[lane] == 0 {
                            if upward { upIndex[k * sets.count + lane] = first.index } else { downIndex[k * sets.count + lane] = first.index }
                            continue
                        }
                        let via = upward ? upVia[g][k][l] : downVia[g][k][l]
                        var halves = HierarchyShortcut.original
                        var duration: UInt32, length: Float, classes: UInt8
                        if via & LaneGroup<V>.baseFlag != 0 {
                            let e = input.edges[Int(via & ~LaneGroup<V>.baseFlag)]
                            (duration, length, classes) = (e.duration, e.length, e.classes)
                        } else {
                            // Upward x → z → y: down along `via` (x → z), then up along z–y; downward y → z → x:
                            // down along z–y, then up along `via`. Halves are tight, so both were kept.
                            let z = lowOf[Int(via)]
                            let onward = t.edge(z, y)!
                            let (first, second) = upward ? (Int(via), onward) : (onward, Int(via))
                            let f = Int(downIndex[first * sets.count + lane]), s = Int(upIndex[second * sets.count + lane])
                            halves = HierarchyShortcut(middle: z, first: UInt32(f), second: UInt32(s))
                            duration = h.downDuration[f] &+ h.upDuration[s]
                            length = h.downLength[f] + h.upLength[s]
                            classes = h.down[f].mask | h.up[s].mask | nodeClasses[Int(z)]
                        }
                        if let same = kept.first(where: { $0.weight <= w && $0.classes & ~classes == 0 }) {
                            if upward { upIndex[k * sets.count + lane] = same.index } else { downIndex[k * sets.count + lane] = same.index }
                            continue
                        }
                        let index = UInt32(upward ? h.up.count : h.down.count)
                        kept.append((w, classes, index))
                        if lane == 0 { first = (w, index) }
                        if upward { upIndex[k * sets.count + lane] = index } else { downIndex[k * sets.count + lane] = index }
                        let edge = HierarchyEdge(node: y, weight: w, mask: classes)
                        if upward {
                            h.up.append(edge); h.upDuration.append(duration); h.upLength.append(length); h.upShortcuts.append(halves)
                        } else {
                            h.down.append(edge); h.downDuration.append(duration); h.downLength.append(length)
                            h.downShortcuts.append(halves)
                        }
                    }
                }
            }
            h.upStart.append(UInt32(h.up.count))
            h.downStart.append(UInt32(h.down.count))
        }
        return (h, triangles)
    }
}

/// One group of lanes (exclusion sets) through base edges, relaxation and tightening.
struct LaneGroup<V: SIMD> where V.Scalar == UInt32 {
    /// Per topology edge, upward (low → high) and downward (high → low): the weight through lower nodes, where it
    /// came from (`via`: the edge from the triangle's lowest node to the edge's low end, or `baseFlag` with the base
    /// edge, the cheapest allowed in that set: one array for both, not two), and the
    /// true distance (`exact`).
    var up: [V], down: [V], upVia: [V], downVia: [V], upExact: [V], downExact: [V]
    var triangles = 0

    /// Marks a base edge's index in `via` (triangle edges are below 2³¹).
    static var baseFlag: UInt32 { 1 << 31 }

    init(_ t: HierarchyTopology, _ input: CustomizationInput, sets: [UInt8], nodeClasses: [UInt8]) {
        let m = t.edgeCount, unreachable = HierarchyCustomization.unreachable
        up = [V](repeating: V(repeating: unreachable), count: m)
        down = up
        upVia = [V](repeating: V(repeating: noIndex), count: m)
        downVia = upVia
        // Lanes past the sets stay unreachable.
        for (i, e) in input.edges.enumerated() where e.from != e.to {
            let (x, y) = (t.number[Int(e.from)], t.number[Int(e.to)])
            guard let k = t.edge(min(x, y), max(x, y)) else { continue }
            let classes = e.classes | nodeClasses[Int(x)] | nodeClasses[Int(y)]
            for (lane, excluded) in sets.enumerated() where classes & excluded == 0 {
                if x < y {
                    if e.weight < up[k][lane] { up[k][lane] = e.weight; upVia[k][lane] = Self.baseFlag | UInt32(i) }
                } else if e.weight < down[k][lane] {
                    down[k][lane] = e.weight; downVia[k][lane] = Self.baseFlag | UInt32(i)
                }
            }
        }
        triangles = TriangleKernel.relax(start: t.upStart, head: t.upHead, up: &up, down: &down, upVia: &upVia, downVia: &downVia)
        // Edges on no shortest path are left out of the hierarchy: the searches then meet after far fewer nodes.
        upExact = up
        downExact = down
        TriangleKernel.tighten(start: t.upStart, head: t.upHead, up: &upExact, down: &downExact)
    }
}
