import Foundation
import RoadGraph

/// A lower bound on the remaining cost (milliseconds) from a vertex to the target.
public protocol SearchHeuristic {
    func estimate(fromVertex v: UInt32) -> UInt32
    /// From arc `a`'s head (vertex `head`): by default the vertex's estimate.
    func estimate(fromArc a: UInt32, head: UInt32) -> UInt32
}

extension SearchHeuristic {
    public func estimate(fromArc a: UInt32, head: UInt32) -> UInt32 { estimate(fromVertex: head) }
}

/// Plain Dijkstra.
public struct NoHeuristic: SearchHeuristic {
    public init() {}
    public func estimate(fromVertex v: UInt32) -> UInt32 { 0 }
}

/// Straight-line distance at the graph's top speed: never more than the true cost, so A* stays exact.
public struct GreatCircleHeuristic: SearchHeuristic {
    let latitudes: UnsafeBufferPointer<Int32>, longitudes: UnsafeBufferPointer<Int32>
    let target: Coordinate
    let millisecondsPerMetre: Double

    public init(graph: RoadGraph, target: Coordinate) {
        latitudes = graph.vertexLatitudes
        longitudes = graph.vertexLongitudes
        self.target = target
        // Roads are measured with OSRM's ruler, up to 0.6 % shorter than the sphere north–south near the equator:
        // 0.993 keeps the sphere's straight line below every path (and absorbs floating-point error).
        millisecondsPerMetre = graph.metadata.maxSpeed > 0 ? 0.993 * 1000 / graph.metadata.maxSpeed : 0
    }

    public func estimate(fromVertex v: UInt32) -> UInt32 {
        // A bound, whose last bit does not matter: multiplied, which is cheaper per settled vertex than the division
        // `Coordinate(fixedLatitude:…)` makes to hold OSRM's millionths.
        let point = Coordinate(latitude: Double(latitudes[Int(v)]) * 1e-7, longitude: Double(longitudes[Int(v)]) * 1e-7)
        // Capped, not trapped, past 49 days: a smaller estimate is still a lower bound.
        return UInt32(min((Geo.distance(point, target) * millisecondsPerMetre).rounded(.down), Double(UInt32.max - 1)))
    }
}

/// Where a search may start or end: an arc and the cost of the part of it that is (or is not) driven.
public struct SearchEndpoint: Sendable {
    public var arc: UInt32
    /// For a source: cost from the start point to the arc's head. For a target: cost from the arc's tail to the point.
    public var cost: UInt32
    /// Position of the point along the arc (0 at its tail), to tell when a source lies before a target on one arc.
    public var fraction: Double

    public init(arc: UInt32, cost: UInt32, fraction: Double) {
        self.arc = arc
        self.cost = cost
        self.fraction = fraction
    }
}

public struct SearchResult: Sendable {
    /// Milliseconds, below 2³² − 1 (49.7 days): every search drops a path that would cost more, so such a leg is
    /// not found (`NoRoute`); totals over several legs are 64-bit (`Route.weight`).
    public var cost: UInt32
    /// The arcs travelled, first (source) to last (target); duplicated arcs already mapped to their originals.
    public var arcs: [UInt32]
    /// What the turn onto each arc cost, milliseconds (0 for the first).
    public var turns: [UInt32]
    /// Weight (not time) charged for entering each arc beyond its own: OSRM's price for turning onto a restricted
    /// road (`RoadGraph.entryWeight`); zero almost everywhere.
    public var entries: [UInt32]
    public var settled: Int
    /// The arcs as searched, duplicates included: where a via-way restriction's copies carry their own rules.
    public var searched: [UInt32]

    /// From the arcs as searched (duplicates included, which is where the turns are known).
    init(cost: UInt32, path: [UInt32], in graph: RoadGraph, settled: Int) {
        self.cost = cost
        searched = path
        arcs = path.map { graph.arcBase[Int($0)] }
        turns = path.indices.map { $0 == 0 ? 0 : graph.turnWeight(from: path[$0 - 1], to: path[$0]) }
        entries = path.map { graph.entryWeight(ofArc: $0) }
        self.settled = settled
    }
}

/// An edge-based shortest-path search (A* or, with `NoHeuristic`, Dijkstra) over arcs and allowed transitions.
/// Holds its scratch arrays between queries, so create one per thread and reuse it.
public struct PathSearch {
    private var distance: [UInt32] = []
    private var parent: [UInt32] = []
    private var estimate: [UInt32] = []
    /// With a departure time: milliseconds from the start to each reached arc's head.
    private var elapsed: [UInt32] = []
    private var reached = SearchStamps()
    private var heap = SearchHeap()

    public init() {}

    /// `penalties` (milliseconds by original arc) make arcs dearer for this search only, to find alternatives;
    /// the result's cost then includes them.
    /// `excluding`: arcs of these classes are not used.
    /// `departure`: the local time at the sources; the graph's timed rules then apply at the time each arc is
    /// entered and each turn made (the time along the cheapest path found to it, as Valhalla decides), and an arc
    /// costs what its historical speeds say for the quarter hour it is entered in (`RoadGraph.costs(ofArc:inSlot:)`).
    /// `factors`: weights by kind of road (`WeightFactors`). Both price arcs as `ArcPricing` says; the heuristic must
    /// be a bound at those prices.
    public mutating func shortestPath<H: SearchHeuristic>(
        in graph: RoadGraph, from sources: [SearchEndpoint], to targets: [SearchEndpoint], heuristic: H,
        penalties: [UInt32: UInt32]? = nil, excluding: ArcClasses = [], departure: Departure? = nil,
        factors: WeightFactors? = nil
    ) -> SearchResult? {
        let excluded = excluding.rawValue
        let classes = graph.arcClasses
        let arcCount = graph.arcCount
        if reached.reset(count: arcCount) {
            distance = Array(repeating: 0, count: arcCount)
            parent = Array(repeating: noIndex, count: arcCount)
            estimate = Array(repeating: 0, count: arcCount)
            elapsed = []
        }
        heap.removeAll()
        let pricing = ArcPricing(graph: graph, departure: departure, factors: factors)
        let ruled = departure != nil && !graph.timedRules.isEmpty
        // The clock runs where rules or prices depend on the time.
        let timed = ruled || pricing?.departure != nil
        let priced = pricing != nil
        if timed && elapsed.count != arcCount { elapsed = Array(repeating: 0, count: arcCount) }
        func barred(_ a: UInt32?, _ b: UInt32, _ ms: UInt32) -> Bool {
            ruled && graph.isBarred(entering: b, from: a, departure!, after: UInt64(ms))
        }

        var best = UInt32.max
        var bestPredecessor = noIndex, bestTarget = noIndex
        for s in sources {
            if timed && barred(nil, s.arc, 0) { continue }
            for t in targets {
                let within = pricing.map { $0.cellWithinArc(from: s, to: t)?.weight } ?? graph.weightWithinArc(from: s, to: t)
                if let direct = within, direct < best {
                    best = direct; bestPredecessor = noIndex; bestTarget = s.arc
                }
            }
        }

        let arcHead = graph.arcHead, arcWeight = graph.arcWeight, arcBase = graph.arcBase
        let start = graph.transitionStart, next = graph.transitionTargets, turn = graph.transitionWeight
        var settled = 0
        distance.withUnsafeMutableBufferPointer { distance in
        parent.withUnsafeMutableBufferPointer { parent in
        estimate.withUnsafeMutableBufferPointer { estimate in
            for s in sources {
                let a = Int(s.arc)
                let (cost, duration) = pricing?.source(s) ?? (s.cost, graph.sourceDuration(s))
                if reached.contains(a) && distance[a] <= cost { continue }
                if timed {
                    if barred(nil, s.arc, 0) { continue }
                    elapsed[a] = duration
                }
                reached.insert(a)
                distance[a] = cost
                parent[a] = noIndex
                estimate[a] = heuristic.estimate(fromArc: s.arc, head: arcHead[a])
                heap.push(Int64(cost) + Int64(estimate[a]), s.arc)
            }
            while let (key, arc) = heap.pop() {
                if key >= Int64(best) { break }
                let a = Int(arc)
                let d = distance[a]
                if Int64(d) + Int64(estimate[a]) != key { continue }  // stale entry: the arc was reached more cheaply since
                settled += 1
                // A request's CPU budget (the server's) ends a search that would run on.
                if settled & 0x3FFF == 0 && WorkBudget.exceeded() { best = .max; break }
                for i in Int(start[a])..<Int(start[a + 1]) {
                    let b = next[i]
                    if classes[Int(b)] & excluded != 0 { continue }
                    let base = arcBase[Int(b)]
                    // A path past 2³² − 1 ms (49 days) is not a leg (see `SearchResult.cost`): it is dropped, never
                    // wrapped round to a small cost.
                    let (dt, turnOverflow) = d.addingReportingOverflow(turn[i])
                    if turnOverflow { continue }
                    var entered: UInt32 = 0
                    var weightB = arcWeight[Int(b)], durationB: UInt32 = 0
                    if timed {
                        entered = elapsed[a] &+ turn[i]
                        if barred(arc, b, entered) { continue }
                        durationB = graph.arcDuration[Int(b)]
                    }
                    if priced { (weightB, durationB) = pricing!.costs(ofArc: b, after: entered) }
                    for t in targets where t.arc == base {
                        let part = priced ? pricing!.target(t, after: entered).weight : t.cost
                        let (candidate, overflow) = dt.addingReportingOverflow(part &+ graph.entryWeight(ofArc: b))
                        if !overflow && candidate < best { best = candidate; bestPredecessor = arc; bestTarget = b }
                    }
                    var (nd, overflow) = dt.addingReportingOverflow(weightB)
                    if let penalties, let extra = penalties[base], !overflow { (nd, overflow) = nd.addingReportingOverflow(extra) }
                    if overflow || nd == .max { continue }
                    let bi = Int(b)
                    if reached.insertIfAbsent(bi) {
                        estimate[bi] = heuristic.estimate(fromArc: b, head: arcHead[bi])
                    } else if nd >= distance[bi] {
                        continue
                    }
                    distance[bi] = nd
                    parent[bi] = arc
                    if timed { elapsed[bi] = entered &+ durationB }
                    heap.push(Int64(nd) + Int64(estimate[bi]), b)
                }
            }
        }}}
        guard best != UInt32.max else { return nil }
        var arcs = [bestTarget]
        var current = bestPredecessor
        while current != noIndex {
            arcs.append(current)
            current = parent[Int(current)]
        }
        arcs.reverse()
        return SearchResult(cost: best, path: arcs, in: graph, settled: settled)
    }
}

