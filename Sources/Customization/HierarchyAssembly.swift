import Contraction
import Dispatch
import RoadGraph

/// The customization's last part: the hierarchy written node by node from the lanes' weights. Per topology edge
/// and direction it keeps one hierarchy edge per exclusion set unless another set's is as cheap with no more classes.
/// A shortcut's halves have lower low ends, so theirs are written already: its duration, length and classes come
/// from them. The lanes are read through pointers (checked indexing of nested arrays would cost more than the work
/// itself); `assemble` is its safe entry point.
enum HierarchyAssembly {
    /// One lane group's columns, per edge.
    struct Columns<V: SIMD> where V.Scalar == UInt32 {
        var up, down, upVia, downVia: UnsafeBufferPointer<V>

        /// Hands back the pages of `edges`' values, which the assembly has read: it reads each edge's once, in
        /// order, so the lanes (a gigabyte or more on a large graph) go as the hierarchy's edges come, and the peak
        /// is not both at once.
        func release(_ edges: Range<Int>) {
            for column in [up, down, upVia, downVia] {
                releaseWholePages(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(column)[
                    (edges.lowerBound * MemoryLayout<V>.stride)..<(edges.upperBound * MemoryLayout<V>.stride)]))
            }
        }
    }

    /// What a shortcut reads of its halves besides their classes (their edges' masks), in one place: one cache
    /// miss per half, not two.
    struct Cost {
        var duration: UInt32, length: Float
    }

    /// One direction's hierarchy edges, in the order they are written.
    struct Side {
        var start: [UInt32] = [0]
        var edges: [HierarchyEdge] = [], costs: [Cost] = [], shortcuts: [HierarchyShortcut] = []

        init(reserving count: Int) {
            edges.reserveCapacity(count); costs.reserveCapacity(count); shortcuts.reserveCapacity(count)
        }

        mutating func append(_ edge: HierarchyEdge, _ cost: Cost, _ halves: HierarchyShortcut) {
            edges.append(edge); costs.append(cost); shortcuts.append(halves)
        }
    }

    /// `lanes` are consumed: their pages are handed back as they are read, and the arrays let go before the costs
    /// are copied into the hierarchy's columns (on a large graph each is a gigabyte).
    static func assemble<V: SIMD>(_ t: HierarchyTopology, _ input: CustomizationInput, sets: [UInt8],
                                  lanes: inout [LaneGroup<V>], nodeClasses: [UInt8], split: EliminationSplit?) -> HierarchyArrays
    where V.Scalar == UInt32 {
        var (up, down) = withColumns(lanes[...], []) { columns in
            sides(t, input, sets: sets, columns: columns, nodeClasses: nodeClasses, split: split)
        }
        lanes.removeAll()
        var h = HierarchyArrays()
        h.node = t.number
        h.original = t.node
        (h.upStart, h.up, h.upShortcuts) = (up.start, up.edges, up.shortcuts)
        (h.downStart, h.down, h.downShortcuts) = (down.start, down.edges, down.shortcuts)
        (h.upDuration, h.upLength) = (up.costs.map(\.duration), up.costs.map(\.length))
        up = Side(reserving: 0)
        (h.downDuration, h.downLength) = (down.costs.map(\.duration), down.costs.map(\.length))
        down = Side(reserving: 0)
        return h
    }

    /// Calls `body` with every group's columns, valid for the call.
    private static func withColumns<V: SIMD, R>(_ groups: ArraySlice<LaneGroup<V>>, _ done: [Columns<V>],
                                                _ body: ([Columns<V>]) -> R) -> R where V.Scalar == UInt32 {
        guard let g = groups.first else { return body(done) }
        return g.up.withUnsafeBufferPointer { up in g.down.withUnsafeBufferPointer { down in
            g.upVia.withUnsafeBufferPointer { upVia in g.downVia.withUnsafeBufferPointer { downVia in
                withColumns(groups.dropFirst(), done + [Columns(up: up, down: down, upVia: upVia, downVia: downVia)], body)
            }}
        }}
    }

    /// Both directions' hierarchy edges; the slots that index them are let go on return.
    private static func sides<V: SIMD>(_ t: HierarchyTopology, _ input: CustomizationInput, sets: [UInt8],
                                       columns: [Columns<V>], nodeClasses: [UInt8], split: EliminationSplit?)
    -> (up: Side, down: Side) where V.Scalar == UInt32 {
        let m = t.edgeCount, setCount = sets.count
        let reserve = m * 3 / 4  // about what tightening keeps
        var up = Side(reserving: reserve), down = Side(reserving: reserve)
        // Per edge, its low end, then per set the hierarchy edges that set uses upward and downward (noIndex:
        // none): one record, since a shortcut reads all of them at random.
        let stride = 1 + 2 * setCount
        var slots = [UInt32](repeating: noIndex, count: m * stride)
        for x in 0..<t.nodeCount { for k in Int(t.upStart[x])..<Int(t.upStart[x + 1]) { slots[k * stride] = UInt32(x) } }

        t.upStart.withUnsafeBufferPointer { upStart in
        t.upHead.withUnsafeBufferPointer { upHead in
        input.edges.withUnsafeBufferPointer { baseEdges in
        nodeClasses.withUnsafeBufferPointer { nodeClasses in
        slots.withUnsafeMutableBufferPointer { slots in
            let kernel = Kernel(upStart: upStart, upHead: upHead, baseEdges: baseEdges, nodeClasses: nodeClasses,
                                slots: slots, sets: sets, columns: columns)
            guard let split else {
                kernel.run(0..<t.nodeCount, &up, &down)
                return
            }
            // Below the split, then its two ranges on a core each, then the rest, which may use both.
            kernel.run(0..<split.start, &up, &down)
            // The left range goes on where the edges below it end; the right range's edges start at zero, as
            // the left's count is not known yet, and are moved there after.
            let rightEdges = Int(t.upStart[split.end] - t.upStart[split.middle]) * 3 / 4
            var (rightUp, rightDown) = (Side(reserving: rightEdges), Side(reserving: rightEdges))
            (rightUp.start, rightDown.start) = ([], [])
            DispatchQueue.concurrentPerform(iterations: 2) { i in
                if i == 0 {
                    kernel.run(split.left, &up, &down)
                } else {
                    kernel.run(split.right, &rightUp, &rightDown)
                }
            }
            let rightBase = (up: UInt32(up.edges.count), down: UInt32(down.edges.count))
            up.append(taking: &rightUp, movedBy: rightBase, own: rightBase.up)
            down.append(taking: &rightDown, movedBy: rightBase, own: rightBase.down)
            let right = Int(t.upStart[split.middle])..<Int(t.upStart[split.end])
            kernel.run(split.end..<t.nodeCount, &up, &down, moving: (right, rightBase))
        }}}}}
        return (up, down)
    }

    /// The assembly of a range of nodes, over pointers valid while it lives.
    private struct Kernel<V: SIMD>: @unchecked Sendable where V.Scalar == UInt32 {  // each range writes its own edges' slots
        let upStart, upHead: UnsafeBufferPointer<UInt32>
        let baseEdges: UnsafeBufferPointer<CustomizationInput.Edge>
        let nodeClasses: UnsafeBufferPointer<UInt8>
        /// Per edge k from `k * (1 + 2 * sets.count)`: its low end, then per set its up and down hierarchy edges.
        let slots: UnsafeMutableBufferPointer<UInt32>
        let sets: [UInt8]
        let columns: [Columns<V>]

        /// The edge z–y, which lies past z–x (`after`) in z's sorted list.
        func edge(_ z: Int, _ y: UInt32, after: Int) -> Int {
            var lo = after + 1, hi = Int(upStart[z + 1])
            while lo < hi {
                let mid = (lo + hi) / 2
                if upHead[mid] < y { lo = mid + 1 } else { hi = mid }
            }
            precondition(lo < Int(upStart[z + 1]) && upHead[lo] == y, "the topology is closed under elimination")
            return lo
        }

        /// Appends the hierarchy edges of `nodes` to `up` and `down`, indexed by their places there: the halves of these
        /// nodes' shortcuts are in them already (or in the edges `moving` names).
        /// `moving`: edges whose indices were written from zero, and where their range's edges begin.
        func run(_ nodes: Range<Int>, _ up: inout Side, _ down: inout Side,
                 moving: (edges: Range<Int>, by: (up: UInt32, down: UInt32)) = (0..<0, (0, 0))) {
            let setCount = sets.count, stride = 1 + 2 * setCount, width = V.scalarCount
            let unreachable = HierarchyCustomization.unreachable
            let baseFlag = LaneGroup<V>.baseFlag, lowered = TriangleKernel.loweredFlag
            // Per group, its sets (lanes past them: none, never kept) and whether a lane is one.
            let groupSets: [V] = columns.indices.map { g in
                var v = V(repeating: 0)
                for l in 0..<width where g * width + l < setCount { v[l] = UInt32(sets[g * width + l]) }
                return v
            }
            let present: [SIMDMask<V.MaskStorage>] = columns.indices.map { g in
                var m = SIMDMask<V.MaskStorage>(repeating: false)
                for l in 0..<width where g * width + l < setCount { m[l] = true }
                return m
            }
            let none = V(repeating: 0), far = V(repeating: unreachable), loweredLanes = V(repeating: lowered)
            // The edges kept at this edge and direction so far: weight, classes, index.
            var keptWeight: [UInt32] = [], keptClasses: [UInt8] = [], keptIndex: [UInt32] = []
            keptWeight.reserveCapacity(setCount); keptClasses.reserveCapacity(setCount); keptIndex.reserveCapacity(setCount)
            // The first edge whose columns are still held; they go a megabyte or so at a time.
            var held = nodes.isEmpty ? 0 : Int(upStart[nodes.lowerBound])
            let releaseEvery = max(1, (1 << 20) / MemoryLayout<V>.stride)
            defer { if let last = nodes.last { for c in columns { c.release(held..<Int(upStart[last + 1])) } } }
            for x in nodes {
                if Int(upStart[x]) - held >= releaseEvery {
                    for c in columns { c.release(held..<Int(upStart[x])) }
                    held = Int(upStart[x])
                }
                for k in Int(upStart[x])..<Int(upStart[x + 1]) {
                    let y = upHead[k]
                    for direction in 0..<2 {
                        let upward = direction == 0
                        keptWeight.removeAll(keepingCapacity: true); keptClasses.removeAll(keepingCapacity: true)
                        keptIndex.removeAll(keepingCapacity: true)
                        // The unrestricted set's edge, which any other set may use where it is as cheap there and has
                        // none of the classes that set leaves out (most edges of most sets).
                        var firstWeight = unreachable, firstIndex = noIndex, firstClasses: UInt8 = 0

                        /// Keeps lane `lane`'s edge (weight `w`, from `via`), or finds one kept already that serves.
                        func keep(_ lane: Int, _ w: UInt32, _ via: UInt32) {
                            let slot = k * stride + 1 + 2 * lane + direction
                            var halves = HierarchyShortcut.original
                            var cost: Cost, classes: UInt8
                            if via & baseFlag != 0 {
                                let e = baseEdges[Int(via & ~baseFlag)]
                                (cost, classes) = (Cost(duration: e.duration, length: e.length), e.classes)
                            } else {
                                // Upward x → z → y: down along `via` (x → z), then up along z–y; downward y → z → x:
                                // down along z–y, then up along `via`. Halves are tight, so both were kept.
                                let z = Int(slots[Int(via) * stride])
                                let onward = edge(z, y, after: Int(via))
                                let (first, second) = upward ? (Int(via), onward) : (onward, Int(via))
                                let f = slots[first * stride + 2 + 2 * lane] + (moving.edges.contains(first) ? moving.by.down : 0)
                                let s = slots[second * stride + 1 + 2 * lane] + (moving.edges.contains(second) ? moving.by.up : 0)
                                halves = HierarchyShortcut(middle: UInt32(z), first: f, second: s)
                                let (a, b) = (down.costs[Int(f)], up.costs[Int(s)])
                                cost = Cost(duration: a.duration &+ b.duration, length: a.length + b.length)
                                classes = down.edges[Int(f)].mask | up.edges[Int(s)].mask | nodeClasses[z]
                            }
                            for i in keptWeight.indices where keptWeight[i] <= w && keptClasses[i] & ~classes == 0 {
                                slots[slot] = keptIndex[i]
                                return
                            }
                            let index = UInt32(upward ? up.edges.count : down.edges.count)
                            keptWeight.append(w); keptClasses.append(classes); keptIndex.append(index)
                            if lane == 0 { (firstWeight, firstIndex, firstClasses) = (w, index, classes) }
                            slots[slot] = index
                            let edge = HierarchyEdge(node: y, weight: w, mask: classes)
                            if upward { up.append(edge, cost, halves) } else { down.append(edge, cost, halves) }
                        }

                        for g in columns.indices {
                            let c = columns[g]
                            let w = upward ? c.up[k] : c.down[k], via = upward ? c.upVia[k] : c.downVia[k]
                            // The lanes with an edge here: reachable, and not lowered by tightening.
                            var open = present[g] .& (w .< far) .& ((via & loweredLanes) .== none)
                            guard any(open) else { continue }
                            if g == 0 && open[0] {
                                keep(0, w[0], via[0])
                                open[0] = false
                            }
                            if firstIndex != noIndex {
                                let served = open .& (w .== V(repeating: firstWeight))
                                    .& ((groupSets[g] & V(repeating: UInt32(firstClasses))) .== none)
                                if any(served) {
                                    for l in 0..<width where served[l] {
                                        slots[k * stride + 1 + 2 * (g * width + l) + direction] = firstIndex
                                    }
                                    open = open .& .!served
                                }
                            }
                            guard any(open) else { continue }
                            for l in 0..<width where open[l] { keep(g * width + l, w[l], via[l]) }
                        }
                    }
                }
                up.start.append(UInt32(up.edges.count))
                down.start.append(UInt32(down.edges.count))
            }
        }
    }
}

extension HierarchyAssembly.Side {
    /// Appends another range's edges, whose indices start at `by` (halves: first in the down edges, second in the up
    /// ones; `own`: this side's), and empties it array by array: the two copies of an array of hundreds of megabytes
    /// live together for one append, not until the end.
    mutating func append(taking other: inout Self, movedBy by: (up: UInt32, down: UInt32), own: UInt32) {
        start.append(contentsOf: other.start.lazy.map { $0 + own })
        other.start = []
        edges += other.edges
        other.edges = []
        costs += other.costs
        other.costs = []
        shortcuts.append(contentsOf: other.shortcuts.lazy.map {
            $0.middle == noIndex ? $0 : HierarchyShortcut(middle: $0.middle, first: $0.first + by.down, second: $0.second + by.up)
        })
        other.shortcuts = []
    }
}
