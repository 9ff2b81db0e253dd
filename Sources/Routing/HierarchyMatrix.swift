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
    // Buckets, by arc: the entries of arc a are bucketRange[a] (only arcs the backward searches reached).
    private let bucketRange: [UInt32: Range<Int>]
    private let bucketTarget: [UInt32]
    private let bucketWeight: [Int64]
    private let bucketLength: [Double]
    /// Whether the entry is a target's own starting label (the target arc itself, not reached by the search).
    private let bucketAtStart: [Bool]
    private let scratch: TableScratch

    /// `scratch` holds search arrays between tables; without one, this table allocates its own.
    public init(graph: RoadGraph, targets: [Snap], scratch: TableScratch? = nil) {
        precondition(graph.hasHierarchy, "the graph has no contraction hierarchy")
        self.graph = graph
        self.targets = targets
        let scratch = scratch ?? TableScratch(graph: graph)
        self.scratch = scratch
        let targetEndpoints = targets.map { graph.targetEndpoints($0) }
        self.targetEndpoints = targetEndpoints
        let copies = graph.arcCopies()
        var entries: [(arc: UInt32, target: UInt32, weight: Int64, length: Double, atStart: Bool)] = []
        scratch.upward.with { side in
        for (j, endpoints) in targetEndpoints.enumerated() {
            var starts: [(UInt32, Int64, Double)] = []
            for t in endpoints {
                let length = Double(graph.edgeLength[graph.edge(ofArc: t.arc).edge])
                let weight = Int64(t.cost) - Int64(graph.arcWeight[Int(t.arc)])
                let metres = length * t.fraction - length
                starts.append((t.arc, weight, metres))
                for copy in copies[t.arc] ?? [] { starts.append((copy, weight, metres)) }
            }
            side.run(graph, starts: starts, upward: false) { arc, weight, length, atStart in
                entries.append((arc, UInt32(j), weight, length, atStart))
            }
        }
        }
        entries.sort { $0.arc < $1.arc }
        var ranges: [UInt32: Range<Int>] = [:]
        var k = 0
        while k < entries.count {
            var end = k + 1
            while end < entries.count && entries[end].arc == entries[k].arc { end += 1 }
            ranges[entries[k].arc] = k..<end
            k = end
        }
        bucketRange = ranges
        bucketTarget = entries.map(\.target)
        bucketWeight = entries.map(\.weight)
        bucketLength = entries.map(\.length)
        bucketAtStart = entries.map(\.atStart)
    }

    /// Rows for `sources`, computed on `threads` threads.
    public func rows(for sources: [Snap], threads: Int = ProcessInfo.processInfo.activeProcessorCount) -> [[TableCell?]] {
        parallelMap(sources.count, threads: threads, pool: scratch.upward) { search, i in
            // Past a request's CPU budget the remaining rows are left empty; the caller reports the timeout.
            WorkBudget.exceeded() ? [TableCell?](repeating: nil, count: targets.count) : row(for: sources[i], search: &search)
        }
    }

    private func row(for source: Snap, search: inout UpwardSearch) -> [TableCell?] {
        var best = [TableCell?](repeating: nil, count: targets.count)
        func offer(_ j: Int, _ weight: Int64, _ length: Double) {
            guard weight >= 0, weight < Int64(best[j]?.weight ?? UInt32.max) else { return }
            best[j] = TableCell(weight: UInt32(weight), distance: max(0, length))
        }
        let sourceEndpoints = graph.sourceEndpoints(source)
        var starts: [(UInt32, Int64, Double)] = []
        for s in sourceEndpoints {
            let length = Double(graph.edgeLength[graph.edge(ofArc: s.arc).edge])
            starts.append((s.arc, Int64(s.cost), length * (1 - s.fraction)))
        }
        // Cells the buckets cannot give: travel within one arc, and a target behind the source on the same arc.
        var needsPlainSearch: [Int] = []
        for (j, endpoints) in targetEndpoints.enumerated() {
            for s in sourceEndpoints {
                for t in endpoints where t.arc == s.arc {
                    let length = Double(graph.edgeLength[graph.edge(ofArc: s.arc).edge])
                    if t.fraction >= s.fraction {
                        offer(j, Int64(t.cost) - Int64(graph.arcWeight[Int(s.arc)] - s.cost), length * (t.fraction - s.fraction))
                    } else if !needsPlainSearch.contains(j) {
                        needsPlainSearch.append(j)
                    }
                }
            }
        }
        search.run(graph, starts: starts, upward: true) { arc, weight, length, atStart in
            guard let range = bucketRange[arc] else { return }
            for k in range {
                // Both labels being starting labels means travel inside one arc: handled above.
                if atStart && bucketAtStart[k] { continue }
                offer(Int(bucketTarget[k]), weight + bucketWeight[k], length + bucketLength[k])
            }
        }
        if !needsPlainSearch.isEmpty {
            let cells = scratch.plain.with { plain in
                plain.table(in: graph, sources: [source], targets: needsPlainSearch.map { targets[$0] })[0]
            }
            for (k, j) in needsPlainSearch.enumerated() { best[j] = cells[k] }
        }
        return best
    }
}

/// A full (unpruned) upward search in a hierarchy: forward along `up` edges or backward along `down` edges.
struct UpwardSearch {
    private var distance: [Int64]
    private var length: [Double]
    private var stamp: [UInt32]
    private var atStart: [Bool]
    private var generation: UInt32 = 0
    private var heap = SignedHeap()

    init(count: Int) {
        distance = Array(repeating: 0, count: count)
        length = Array(repeating: 0, count: count)
        stamp = Array(repeating: 0, count: count)
        atStart = Array(repeating: false, count: count)
    }

    /// Settles every arc reachable upwards; `settle` gets the arc, its distance, its length and whether the label
    /// is a starting label (not reached through an edge).
    mutating func run(_ graph: RoadGraph, starts initial: [(UInt32, Int64, Double)], upward: Bool,
                      settle: (UInt32, Int64, Double, Bool) -> Void)
    {
        generation &+= 1
        if generation == 0 {
            for i in stamp.indices { stamp[i] = 0 }
            generation = 1
        }
        heap.removeAll()
        for (arc, d, l) in initial {
            let i = Int(arc)
            if stamp[i] == generation && distance[i] <= d { continue }
            stamp[i] = generation
            distance[i] = d
            length[i] = l
            atStart[i] = true
            heap.push(d, arc)
        }
        let edgeStart = upward ? graph.chUpStart : graph.chDownStart
        let edgeNode = upward ? graph.chUpTarget : graph.chDownSource
        let edgeWeight = upward ? graph.chUpWeight : graph.chDownWeight
        let edgeLength = upward ? graph.chUpLength : graph.chDownLength
        // Stall-on-demand: an arc reached more cheaply from above than by this search's own label is not on a
        // shortest path from the start, so neither its label nor its edges are worth using.
        let otherStart = upward ? graph.chDownStart : graph.chUpStart
        let otherNode = upward ? graph.chDownSource : graph.chUpTarget
        let otherWeight = upward ? graph.chDownWeight : graph.chUpWeight
        while let (d, arc) = heap.pop() {
            let i = Int(arc)
            if d != distance[i] { continue }
            var stalled = false
            for k in Int(otherStart[i])..<Int(otherStart[i + 1]) {
                let x = Int(otherNode[k])
                if stamp[x] == generation && distance[x] + Int64(otherWeight[k]) < d { stalled = true; break }
            }
            if stalled { continue }
            settle(arc, d, length[i], atStart[i])
            for k in Int(edgeStart[i])..<Int(edgeStart[i + 1]) {
                let x = Int(edgeNode[k])
                let nd = d + Int64(edgeWeight[k])
                if stamp[x] == generation && distance[x] <= nd { continue }
                stamp[x] = generation
                distance[x] = nd
                length[x] = length[i] + Double(edgeLength[k])
                atStart[x] = false
                heap.push(nd, edgeNode[k])
            }
        }
    }
}
