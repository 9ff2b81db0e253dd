import Dispatch
import Foundation
import RoadGraph

/// Many-to-many tables on a contraction hierarchy with buckets: one backward upward search per target leaves
/// (target, distance) entries in buckets at every arc it settles; one forward upward search per source then scans
/// the buckets of the arcs it settles. Sources are shared out over threads; rows come back in blocks so a large
/// table can be written out as it is computed.
public struct HierarchyMatrix: @unchecked Sendable {
    let graph: RoadGraph
    let targets: [Snap]
    private let targetEndpoints: [[SearchEndpoint]]
    /// Buckets as one flat array sorted by hierarchy node: the entries of node r are
    /// `buckets[bucketStart[r]..<bucketStart[r+1]]` (a dictionary of ranges cost a hash per settled node; the flat
    /// index is 4 bytes per node).
    private let bucketStart: [UInt32]
    private let buckets: [BucketEntry]
    /// Per bucket entry: whether it is a target's own starting label (the target arc itself, not reached by the
    /// search); rare, so kept apart from the entries.
    private let bucketAtStart: [Bool]
    /// Targets by the arcs they lie on, for the cells within one arc.
    private let targetsOnArc: [UInt32: [(target: Int, endpoint: SearchEndpoint)]]
    /// Targets whose cells the plain search gives: over vertices, those pinned to one direction of their road;
    /// and those with a label too large for a bucket.
    private let plainTargets: [Int]
    private let scratch: TableScratch
    private let excluded: UInt8

    /// 16 bytes, so a scan reads half as much: target-side labels fit 32 bits (weights and durations are
    /// milliseconds of the part of a path above the target; lengths in metres to the centimetre as floats). A
    /// label past 24 days is not put in a bucket: its target's cells come from a plain search instead.
    struct BucketEntry {
        var target: UInt32
        var weight: Int32, duration: Int32
        var length: Float
    }

    /// `scratch` holds search arrays between tables; without one, this table allocates its own.
    /// With `excluding`, the table's paths avoid those classes (targets must be snapped with the same exclusion).
    /// The backward searches run on `threads` threads.
    public init(graph: RoadGraph, targets: [Snap], scratch: TableScratch? = nil, excluding: ArcClasses = [],
                threads: Int = ProcessInfo.processInfo.activeProcessorCount) {
        let excluded = excluding.rawValue
        self.excluded = excluded
        precondition(graph.hasHierarchy, "the graph has no contraction hierarchy")
        self.graph = graph
        self.targets = targets
        let scratch = scratch ?? TableScratch(graph: graph)
        self.scratch = scratch
        let targetEndpoints = targets.map { graph.targetEndpoints($0) }
        self.targetEndpoints = targetEndpoints
        let copies = graph.arcCopies()
        let overVertices = graph.hierarchyOverVertices
        // Each thread takes every k-th target and keeps its own entries; they are merged and sorted after.
        let workers = max(1, min(threads, targets.count / 16))
        let parts = parallelMap(workers, threads: workers, pool: scratch.upward) { side, worker -> (entries: [Labelled], far: [Int]) in
            var entries: [Labelled] = []
            var far: [Int] = []
            for j in stride(from: worker, to: targetEndpoints.count, by: workers) {
                var starts: [UpwardSearch.Start] = []
                for t in targetEndpoints[j] {
                    let length = Double(graph.edgeLength[graph.edge(ofArc: t.arc).edge])
                    if overVertices {
                        guard let tail = graph.vertexStart(ofTarget: t) else { continue }
                        starts.append(UpwardSearch.Start(node: graph.hierarchyNode(of: tail), weight: Int64(t.cost), duration: Int64(graph.targetDuration(t)),
                                                         length: length * t.fraction))
                        continue
                    }
                    // Entering the target arc costs its whole weight; only the part up to the point counts.
                    let start = UpwardSearch.Start(node: graph.hierarchyNode(of: t.arc), weight: Int64(t.cost) - Int64(graph.arcWeight[Int(t.arc)]),
                                                   duration: Int64(graph.targetDuration(t)) - Int64(graph.arcDuration[Int(t.arc)]),
                                                   length: length * t.fraction - length)
                    starts.append(start)
                    for copy in copies[t.arc] ?? [] { var s = start; s.node = graph.hierarchyNode(of: copy); starts.append(s) }
                }
                side.run(graph, starts: starts, upward: false, excluded: excluded) { node, label, atStart in
                    guard Int64(Int32.min)...Int64(Int32.max) ~= label.weight, Int64(Int32.min)...Int64(Int32.max) ~= label.duration else {
                        if far.last != j { far.append(j) }
                        return
                    }
                    // Over vertices, two starting labels meeting is a path from the source arc onto the target's.
                    entries.append(Labelled(node: node, atStart: atStart && !overVertices,
                                            entry: BucketEntry(target: UInt32(j), weight: Int32(clamping: label.weight),
                                                               duration: Int32(clamping: label.duration),
                                                               length: Float(label.length))))
                }
            }
            return (entries, far)
        }
        var entries = Array(parts.map(\.entries).joined())
        entries.sort { $0.node < $1.node || ($0.node == $1.node && $0.entry.target < $1.entry.target) }
        let nodes = graph.hierarchyNodeCount
        var starts = [UInt32](repeating: 0, count: nodes + 1)
        for e in entries { starts[Int(e.node) + 1] += 1 }
        for a in 0..<nodes { starts[a + 1] += starts[a] }
        bucketStart = starts
        buckets = entries.map(\.entry)
        bucketAtStart = entries.map(\.atStart)
        targetsOnArc = graph.targetsByArc(targetEndpoints)
        let pinned = overVertices ? targetEndpoints.indices.filter { !graph.endpointsFree(targetEndpoints[$0], excluded: excluded) } : []
        plainTargets = Array(Set(pinned + parts.flatMap(\.far))).sorted()
    }

    private struct Labelled {
        var node: UInt32
        var atStart: Bool
        var entry: BucketEntry
    }

    /// Rows for `sources`, computed on `threads` threads.
    public func rows(for sources: [Snap], threads: Int = ProcessInfo.processInfo.activeProcessorCount) -> [[TableCell?]] {
        parallelMap(sources.count, threads: threads, pool: scratch.upward) { search, i in
            // Past a request's CPU budget the remaining rows are left empty; the caller reports the timeout.
            WorkBudget.exceeded() ? [TableCell?](repeating: nil, count: targets.count) : row(for: sources[i], search: &search)
        }
    }

    private func row(for source: Snap, search: inout UpwardSearch) -> [TableCell?] {
        let n = targets.count
        // Flat per-target labels while searching (an array of optional cells cost a test and a copy per entry),
        // kept with the thread's search between rows: fresh ones for each of 10,000 rows were a tenth of a large
        // table's time in page faults.
        var weight = search.rowWeight, duration = search.rowDuration, length = search.rowLength
        search.rowWeight = []; search.rowDuration = []; search.rowLength = []
        defer { search.rowWeight = weight; search.rowDuration = duration; search.rowLength = length }
        if weight.count != n {
            weight = Array(repeating: 0, count: n); duration = Array(repeating: 0, count: n); length = Array(repeating: 0, count: n)
        }
        weight.withUnsafeMutableBufferPointer { $0.update(repeating: Int64(UInt32.max)) }
        duration.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
        length.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
        let sourceEndpoints = graph.sourceEndpoints(source)
        var starts: [UpwardSearch.Start] = []
        for s in sourceEndpoints {
            let arcLength = Double(graph.edgeLength[graph.edge(ofArc: s.arc).edge])
            var start = UpwardSearch.Start(node: graph.hierarchyNode(of: s.arc), weight: Int64(s.cost), duration: Int64(graph.sourceDuration(s)),
                                           length: arcLength * (1 - s.fraction))
            if graph.hierarchyOverVertices {
                guard let (vertex, pass) = graph.vertexStart(ofSource: s) else { continue }
                start.node = graph.hierarchyNode(of: vertex)
                start.weight += Int64(pass)
                start.duration += Int64(pass)
            }
            starts.append(start)
        }
        // Cells the buckets cannot give: travel within one arc, a target behind the source on the same arc, and
        // over vertices, endpoints pinned to one direction (see `endpointsFree`).
        var needsPlainSearch = graph.hierarchyOverVertices && !graph.endpointsFree(sourceEndpoints, excluded: excluded)
            ? Array(0..<n) : plainTargets
        for s in sourceEndpoints {
            for (j, t) in targetsOnArc[s.arc] ?? [] {
                if let cell = graph.cellWithinArc(from: s, to: t) {
                    if Int64(cell.weight) < weight[j] {
                        weight[j] = Int64(cell.weight); duration[j] = Int64(cell.duration); length[j] = cell.distance
                    }
                } else if !needsPlainSearch.contains(j) {
                    needsPlainSearch.append(j)
                }
            }
        }
        if needsPlainSearch.count < n {
        weight.withUnsafeMutableBufferPointer { weight in
        duration.withUnsafeMutableBufferPointer { duration in
        length.withUnsafeMutableBufferPointer { length in
        buckets.withUnsafeBufferPointer { buckets in
        bucketStart.withUnsafeBufferPointer { bucketStart in
            search.run(graph, starts: starts, upward: true, excluded: excluded) { node, label, atStart in
                for k in Int(bucketStart[Int(node)])..<Int(bucketStart[Int(node) + 1]) {
                    let entry = buckets[k]
                    // Both labels being starting labels means travel inside one arc: handled above.
                    if atStart && bucketAtStart[k] { continue }
                    let j = Int(entry.target), w = label.weight + Int64(entry.weight)
                    if w >= 0 && w < weight[j] {
                        weight[j] = w
                        duration[j] = label.duration + Int64(entry.duration)
                        length[j] = label.length + Double(entry.length)
                    }
                }
            }
        }}}}}
        }
        var best = (0..<n).map { j -> TableCell? in
            weight[j] < Int64(UInt32.max)
                ? TableCell(weight: UInt32(weight[j]), duration: UInt32(clamping: max(0, duration[j])), distance: max(0, length[j]))
                : nil
        }
        if !needsPlainSearch.isEmpty {
            let cells = scratch.plain.with { plain in
                plain.table(in: graph, sources: [source], targets: needsPlainSearch.map { targets[$0] },
                            excluding: ArcClasses(rawValue: excluded))[0]
            }
            for (k, j) in needsPlainSearch.enumerated() { best[j] = cells[k] }
        }
        return best
    }
}

/// A full (unpruned) upward search in a hierarchy: forward along `up` edges or backward along `down` edges.
struct UpwardSearch {
    /// A label: the weight searched on, and the duration and length of the same path.
    struct Start {
        /// A node of the hierarchy; it stands for an arc, or a vertex (see `GraphArrays.chNode`).
        var node: UInt32
        var weight: Int64, duration: Int64
        var length: Double
    }

    /// A table row's labels per target, kept between rows (see `HierarchyMatrix.row`).
    var rowWeight: [Int64] = [], rowDuration: [Int64] = [], rowLength: [Double] = []
    private var distance: [Int64]
    private var duration: [Int64]
    private var length: [Double]
    private var labelled = SearchStamps()
    private var atStart: [Bool]
    private var heap = SearchHeap()
    /// On a customized hierarchy, the nodes on the starts' paths up the elimination tree.
    private var tree = EliminationTreePath()

    init(count: Int) {
        distance = Array(repeating: 0, count: count)
        duration = Array(repeating: 0, count: count)
        length = Array(repeating: 0, count: count)
        labelled.reset(count: count)
        atStart = Array(repeating: false, count: count)
    }

    /// Settles every node reachable upwards; `settle` gets the node, its label and whether the label is a starting
    /// label (not reached through an edge).
    mutating func run(_ graph: RoadGraph, starts initial: [Start], upward: Bool, excluded: UInt8 = 0,
                      settle: (UInt32, Start, Bool) -> Void)
    {
        labelled.reset(count: distance.count)
        heap.removeAll()
        for start in initial {
            let i = Int(start.node)
            if labelled.contains(i) && distance[i] <= start.weight { continue }
            labelled.insert(i)
            distance[i] = start.weight
            duration[i] = start.duration
            length[i] = start.length
            atStart[i] = true
            heap.push(start.weight, start.node)
        }
        let edgeStart = upward ? graph.chUpStart : graph.chDownStart, edges = upward ? graph.chUpEdges : graph.chDownEdges
        let edgeDuration = upward ? graph.chUpDuration : graph.chDownDuration
        let edgeLength = upward ? graph.chUpLength : graph.chDownLength
        // Over vertices, nodes have no classes: the edges' masks carry them all.
        let classes = graph.hierarchyOverVertices || excluded == 0 ? UnsafeBufferPointer<UInt8>(start: nil, count: 0) : graph.arcClasses
        let original = graph.chOriginal
        // Stall-on-demand: a node reached more cheaply from above than by this search's own label is not on a
        // shortest path from the start, so neither its label nor its edges are worth using.
        let otherStart = upward ? graph.chDownStart : graph.chUpStart, otherEdges = upward ? graph.chDownEdges : graph.chUpEdges
        // A customized hierarchy: its nodes up the elimination tree in order, with no queue (`EliminationTreePath`).
        let walksTree = EliminationTreePath.applies(to: graph, nodeCount: distance.count)
        if walksTree {
            tree.collect(graph, from: heap.items, nodeCount: distance.count)
            heap.removeAll()
        }
        var next = 0
        while let (d, arc) = walksTree ? nextOnTree(&next) : heap.pop() {
            let i = Int(arc)
            if d != distance[i] { continue }
            var stalled = false
            for k in Int(otherStart[i])..<Int(otherStart[i + 1]) {
                let e = otherEdges[k]
                let x = Int(e.node)
                if e.mask & excluded == 0 && labelled.contains(x) && distance[x] + Int64(e.weight) < d { stalled = true; break }
            }
            if stalled { continue }
            settle(arc, Start(node: arc, weight: d, duration: duration[i], length: length[i]), atStart[i])
            for k in Int(edgeStart[i])..<Int(edgeStart[i + 1]) {
                let e = edges[k]
                let x = Int(e.node)
                if e.mask & excluded != 0 || (!classes.isEmpty && classes[Int(original[x])] & excluded != 0) { continue }
                let nd = d + Int64(e.weight)
                if labelled.contains(x) && distance[x] <= nd { continue }
                labelled.insert(x)
                distance[x] = nd
                duration[x] = duration[i] + Int64(edgeDuration[k])
                length[x] = length[i] + Double(edgeLength[k])
                atStart[x] = false
                if !walksTree { heap.push(nd, e.node) }
            }
        }
    }

    /// The next labelled node of the tree, in order.
    private func nextOnTree(_ next: inout Int) -> (Int64, UInt32)? {
        while next < tree.nodes.count {
            let v = tree.nodes[next]
            next += 1
            if labelled.contains(Int(v)) { return (distance[Int(v)], v) }
        }
        return nil
    }
}
