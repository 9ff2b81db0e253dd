import RoadGraph

/// The oracle: textbook Dijkstra over the same arc/transition model, written for obviousness rather than speed
/// (a sorted-insertion priority list of tuples, no heuristic, no early target bookkeeping beyond the definition).
/// Tests and benchmarks compare every faster search with it.
public enum ReferenceDijkstra {
    /// Minimum cost in milliseconds from any source to any target, or nil if none is reachable or the cheapest
    /// costs 2³² − 1 or more (a leg no search returns; see `SearchResult.cost`). Sums are 64-bit, so nothing wraps.
    /// With `excluding`, arcs of those classes are left out (the endpoints' own arcs must not have them).
    /// With `departure`, the graph's timed rules hold at the time each arc is entered and each turn made, that time
    /// being the one along the arc's cheapest path, and arcs cost what their historical speeds say for that time.
    /// With `factors`, arcs weigh as they say (`ArcPricing` prices both).
    public static func cost(in graph: RoadGraph, from sources: [SearchEndpoint], to targets: [SearchEndpoint],
                            excluding: ArcClasses = [], departure: Departure? = nil, factors: WeightFactors? = nil) -> UInt64? {
        var best: UInt64? = nil
        func offer(_ c: UInt64) { if best == nil || c < best! { best = c } }
        func closed(_ arc: UInt32, _ ms: UInt64) -> Bool {
            departure.map { graph.timedRules.isClosed(arc: graph.arcBase[Int(arc)], $0, after: ms) } ?? false
        }
        func forbidden(_ a: UInt32, _ b: UInt32, _ ms: UInt64) -> Bool {
            guard let departure else { return false }
            let to = graph.arcBase[Int(b)]
            return graph.timedRules.isForbidden(from: a, to: to, departure, after: ms)
                || graph.timedRules.isForbidden(from: graph.arcBase[Int(a)], to: to, departure, after: ms)
        }
        let pricing = ArcPricing(graph: graph, departure: departure, factors: factors)
        let sources = sources.filter { !closed($0.arc, 0) }
        var time = [UInt32: UInt64]()
        for s in sources {
            for t in targets where t.arc == s.arc && t.fraction >= s.fraction {
                // Travel within one arc: the target's cost-from-tail minus the source's already-travelled part.
                if let pricing {
                    offer(UInt64(pricing.cellWithinArc(from: s, to: t)!.weight))
                } else {
                    offer(UInt64(t.cost) - (UInt64(graph.arcWeight[Int(s.arc)]) - UInt64(s.cost)))
                }
            }
        }
        var dist = [UInt32: UInt64]()
        var done = Set<UInt32>()
        var queue = BinaryHeap()
        for s in sources {
            let (cost, duration) = pricing?.source(s) ?? (s.cost, graph.sourceDuration(s))
            if let known = dist[s.arc], known <= UInt64(cost) { continue }
            dist[s.arc] = UInt64(cost)
            time[s.arc] = UInt64(duration)
            queue.insert((UInt64(cost), s.arc))
        }
        while let (d, arc) = queue.extractMin() {
            if let b = best, d >= b { break }
            if done.contains(arc) { continue }
            done.insert(arc)
            let range = Int(graph.transitionStart[Int(arc)])..<Int(graph.transitionStart[Int(arc) + 1])
            for i in range {
                let nextArc = graph.transitionTargets[i]
                if !graph.classes(ofArc: nextArc).intersection(excluding).isEmpty { continue }
                let turned = d + UInt64(graph.transitionWeight[i])
                let entered = (time[arc] ?? 0) + UInt64(graph.transitionWeight[i])
                if forbidden(arc, nextArc, entered) || closed(nextArc, entered) { continue }
                for t in targets where graph.arcBase[Int(nextArc)] == t.arc {
                    let part = pricing?.target(t, after: UInt32(entered)).weight ?? t.cost
                    offer(turned + UInt64(part) + UInt64(graph.entryWeight(ofArc: nextArc)))
                }
                let (weight, duration) = pricing?.costs(ofArc: nextArc, after: UInt32(entered))
                    ?? (graph.arcWeight[Int(nextArc)], graph.arcDuration[Int(nextArc)])
                let nd = turned + UInt64(weight)
                if dist[nextArc].map({ nd < $0 }) ?? true {
                    dist[nextArc] = nd
                    time[nextArc] = entered + UInt64(duration)
                    queue.insert((nd, nextArc))
                }
            }
        }
        return best.flatMap { $0 < UInt64(UInt32.max) ? $0 : nil }
    }

    /// The cheapest cost (ReachMetric: milliseconds of travel, or centimetres) from a snapped point to every vertex
    /// that can be arrived at, up to `limit`: the oracle of isochrones. Written apart from `ReachSearch`, as
    /// `cost` is apart from the searches it checks.
    public static func vertexCosts(in graph: RoadGraph, from snap: Snap, metric: ReachMetric, limit: UInt32) -> [UInt32: UInt32] {
        func arcCost(_ a: UInt32) -> UInt32 {
            metric == .duration ? graph.arcDuration[Int(a)]
                : graph.arcCentimetres(Int(a))
        }
        var dist = [UInt32: UInt64]()
        var done = Set<UInt32>()
        var queue = BinaryHeap()
        for (arc, f) in graph.candidateArcs(at: snap) {
            let c = arcCost(arc) - partialWeight(arcCost(arc), f)
            if dist[arc].map({ UInt64(c) < $0 }) ?? true {
                dist[arc] = UInt64(c)
                queue.insert((UInt64(c), arc))
            }
        }
        var vertices = [UInt32: UInt32]()
        while let (d, arc) = queue.extractMin() {
            if d > limit { break }
            if done.contains(arc) { continue }
            done.insert(arc)
            let head = graph.arcHead[Int(arc)]
            vertices[head] = min(vertices[head] ?? .max, UInt32(d))  // d ≤ limit
            for i in Int(graph.transitionStart[Int(arc)])..<Int(graph.transitionStart[Int(arc) + 1]) {
                let next = graph.transitionTargets[i]
                let nd = d + UInt64(metric == .duration ? graph.transitionWeight[i] : 0) + UInt64(arcCost(next))
                if dist[next].map({ nd < $0 }) ?? true {
                    dist[next] = nd
                    queue.insert((nd, next))
                }
            }
        }
        return vertices
    }

    struct BinaryHeap {
        var items: [(UInt64, UInt32)] = []
        mutating func insert(_ item: (UInt64, UInt32)) {
            items.append(item)
            var i = items.count - 1
            while i > 0, items[(i - 1) / 2].0 > items[i].0 {
                items.swapAt(i, (i - 1) / 2)
                i = (i - 1) / 2
            }
        }
        mutating func extractMin() -> (UInt64, UInt32)? {
            guard !items.isEmpty else { return nil }
            items.swapAt(0, items.count - 1)
            let top = items.removeLast()
            var i = 0
            while true {
                let l = 2 * i + 1, r = l + 1
                var m = i
                if l < items.count && items[l].0 < items[m].0 { m = l }
                if r < items.count && items[r].0 < items[m].0 { m = r }
                if m == i { break }
                items.swapAt(i, m)
                i = m
            }
            return top
        }
    }
}
