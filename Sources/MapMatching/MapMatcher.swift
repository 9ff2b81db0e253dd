import Foundation
import RoadGraph
import Routing

/// One GPS fix of a trace.
public struct TracePoint: Sendable {
    public var coordinate: Coordinate
    /// Seconds (any epoch); nil when the trace has no times.
    public var time: Double?
    /// The fix's accuracy, metres (a standard deviation, as OSRM's `radiuses`); nil for the default.
    public var accuracy: Double?

    public init(coordinate: Coordinate, time: Double? = nil, accuracy: Double? = nil) {
        self.coordinate = coordinate
        self.time = time
        self.accuracy = accuracy
    }
}

public struct MatchOptions: Sendable {
    /// Split the trace where two fixes are further apart in time than `maxGap` seconds (OSRM `gaps=split`).
    public var splitGaps = true
    public var maxGap = 60.0
    /// Drop fixes within `tidyDistance` metres of the one kept before (OSRM `tidy`), and repeated times.
    public var tidy = false
    public var tidyDistance = 10.0
    /// A fix's standard deviation when it gives none (OSRM's default, 5 m).
    public var defaultAccuracy = 5.0
    /// How far from a fix candidate roads are looked for: this many standard deviations, and at least
    /// `minimumSearchRadius` metres.
    public var searchDeviations = 3.5
    public var minimumSearchRadius = 30.0
    /// Candidate roads per fix: this many, or half the fix's standard deviation in metres if more.
    public var maxCandidates = 8
    /// Newson & Krumm's β, metres: how much the route between two candidates may differ from the straight line
    /// between their fixes.
    public var beta = 10.0
    /// The cost of leaving a fix unmatched (natural log of probability): a fix whose every candidate costs more
    /// than this, in distance from the fix and detour, is passed over.
    public var skipPenalty = 10.0
    public var excluding: ArcClasses = []

    public init() {}
}

/// The road a fix was matched to: the point on it, the direction travelled, and the fix's index in the trace.
public struct MatchedPoint: Sendable {
    public var traceIndex: Int
    public var snap: Snap
    /// How many other candidates the fix had (OSRM's `alternatives_count`).
    public var alternatives: Int
}

/// A stretch of the trace matched without a break, as consecutive matched fixes and the legs between them.
public struct Matching: Sendable {
    public var points: [MatchedPoint]
    public var legs: [RouteLeg]
    /// Between 0 and 1: how well the matched roads agree with the trace (see `MapMatcher`).
    public var confidence: Double
}

/// Hidden-Markov map matching after Newson & Krumm (2009). Each fix has candidate positions on the roads near it
/// (from the snapping grid), one per road and direction of travel; a candidate is as likely as a Gaussian of its
/// distance from the fix, and a move from one candidate to the next as likely as an exponential of how much the
/// route between them (a bounded search by length over arcs and turns, so one-way streets and turn restrictions
/// hold) differs from the straight line between the fixes. The Viterbi path through them is the match. Where no
/// candidate of a fix can be reached from the one before, or (with `splitGaps`) the fixes are far apart in time,
/// the trace is split and matched in parts. Legs between matched points are then routed as routes are.
///
/// Confidence: the shorter of the trace's length and the matched route's over the longer, times the share of the
/// part's fixes that were matched.
public struct MapMatcher {
    public let graph: RoadGraph
    private var reach = ReachSearch()
    private var router: Router

    public init(graph: RoadGraph) {
        self.graph = graph
        router = Router(graph: graph)
    }

    struct Candidate {
        var snap: Snap
        var arc: UInt32
        var fraction: Double
        var emission: Double
    }

    public enum Failure: Error, Equatable {
        /// No fix has a road within reach.
        case noCandidates
    }

    /// The trace's matchings, and for each fix its matching and place there (nil where it was not matched).
    public mutating func match(_ trace: [TracePoint], options: MatchOptions) throws -> (matchings: [Matching], placement: [(matching: Int, index: Int)?]) {
        router.excluding = options.excluding
        var kept = Array(trace.indices)
        if options.tidy {
            kept = []
            for i in trace.indices {
                if let last = kept.last {
                    let close = Geo.distance(trace[last].coordinate, trace[i].coordinate) < options.tidyDistance
                    let sameTime = trace[i].time != nil && trace[i].time == trace[last].time
                    if (close || sameTime) && i != trace.count - 1 { continue }
                    if sameTime { continue }
                }
                kept.append(i)
            }
        }
        // Candidates per fix.
        let candidates: [[Candidate]] = kept.map { i in
            if WorkBudget.exceeded() { return [] }  // the caller answers with the budget's error
            let p = trace[i]
            let sigma = p.accuracy ?? options.defaultAccuracy
            let radius = max(options.minimumSearchRadius, options.searchDeviations * sigma)
            var found: [Candidate] = []
            // More roads where the fix is less sure: at 30 m, a city block's worth.
            let count = max(options.maxCandidates, Int(sigma / 2))
            for snap in graph.nearestRoads(to: p.coordinate, count: count, maxDistance: radius) {
                let emission = -0.5 * (snap.distance / sigma) * (snap.distance / sigma)
                // A radius so small that the road's distance is beyond any chance (1e-300 m): not a candidate.
                guard emission.isFinite else { continue }
                for (arc, reversed) in graph.arcs(at: snap) where graph.classes(ofArc: arc).isDisjoint(with: options.excluding) {
                    var directed = snap
                    directed.allowsForward = !reversed
                    directed.allowsBackward = reversed
                    found.append(Candidate(snap: directed, arc: arc, fraction: snap.fraction(alongArcReversed: reversed),
                                           emission: emission))
                }
            }
            return found
        }
        guard candidates.contains(where: { !$0.isEmpty }) else { throw Failure.noCandidates }

        // Viterbi, split where the chain breaks. A fix may also be passed over (an outlier, whose every
        // candidate would take the route on a detour): the chain goes from the fix before it to the one after it,
        // at a cost of `skipPenalty`, and the fix is left unmatched, as OSRM leaves it.
        var parts: [[(fix: Int, candidate: Int)]] = []
        var scores: [[Double]] = [], back: [[(entry: Int, candidate: Int)]] = []
        var chain: [Int] = []  // positions in `kept` of the current part's fixes with candidates
        func closePart() {
            guard let last = scores.indices.last else { return }
            var entry = last, best = scores[last].indices.max { scores[last][$0] < scores[last][$1] }!
            var path: [(fix: Int, candidate: Int)] = []
            while entry >= 0 {
                path.append((chain[entry], best))
                (entry, best) = back[entry][best]
            }
            parts.append(path.reversed())
            chain = []; scores = []; back = []
        }
        func start(_ k: Int, _ here: [Candidate]) {
            chain = [k]
            scores = [here.map(\.emission)]
            back = [here.map { _ in (-1, -1) }]
        }
        // Each search from a candidate of the last matched fix also prices the way past the fix being matched, to
        // the next one: kept for when that one is matched, at no search of its own.
        var pending: (fix: Int, values: [Double], origin: [(entry: Int, candidate: Int)])?
        for (k, i) in kept.enumerated() {
            let here = candidates[k]
            if here.isEmpty { continue }
            // Each fix runs a length search per candidate of the fix before: once the budget is spent, none.
            if WorkBudget.exceeded() { break }
            if let previous = chain.last {
                let gap = (trace[i].time ?? 0) - (trace[kept[previous]].time ?? 0)
                if options.splitGaps, trace[i].time != nil, gap > options.maxGap { closePart(); pending = nil }
            }
            guard let previous = chain.last else { start(k, here); pending = nil; continue }
            let last = chain.count - 1
            let after = (k + 1..<kept.count).first { !candidates[$0].isEmpty }
            let straight = Geo.distance(trace[kept[previous]].coordinate, trace[i].coordinate)
            let straightPast = after.map { Geo.distance(trace[kept[previous]].coordinate, trace[kept[$0]].coordinate) } ?? 0
            // The search's reach is the fix's own: the next fix is priced only where it lies within it.
            let limit = max(1000.0, 4 * straight + 400)
            var next = [Double](repeating: -.infinity, count: here.count)
            var origin = [(entry: Int, candidate: Int)](repeating: (-1, -1), count: here.count)
            let beyond = after.map { candidates[$0] } ?? []
            var past = [Double](repeating: -.infinity, count: beyond.count)
            var pastOrigin = [(entry: Int, candidate: Int)](repeating: (-1, -1), count: beyond.count)
            for (a, candidate) in candidates[previous].enumerated() where scores[last][a] > -.infinity {
                reach.run(in: graph, from: [ReachStart(arc: candidate.arc, fraction: candidate.fraction)], metric: .distance,
                          limit: UInt32(min(limit * 100, Double(Int32.max))), excluding: options.excluding)
                for (b, target) in here.enumerated() {
                    guard let centimetres = reach.cost(arc: target.arc, fraction: target.fraction, in: graph) else { continue }
                    let value = scores[last][a] - abs(Double(centimetres) / 100 - straight) / options.beta + target.emission
                    if value > next[b] { next[b] = value; origin[b] = (last, a) }
                }
                for (b, target) in beyond.enumerated() {
                    guard let centimetres = reach.cost(arc: target.arc, fraction: target.fraction, in: graph) else { continue }
                    let value = scores[last][a] - abs(Double(centimetres) / 100 - straightPast) / options.beta + target.emission
                        - options.skipPenalty
                    if value > past[b] { past[b] = value; pastOrigin[b] = (last, a) }
                }
            }
            // Or past the fix before, as priced from the one before it.
            if let skip = pending, skip.fix == k {
                for b in here.indices where skip.values[b] > next[b] { next[b] = skip.values[b]; origin[b] = skip.origin[b] }
            }
            if next.allSatisfy({ $0 == -.infinity }) {
                // No way on from any candidate: the part ends, and this fix starts the next.
                closePart()
                start(k, here)
                pending = nil
                continue
            }
            chain.append(k)
            scores.append(next)
            back.append(origin)
            pending = after.map { (fix: $0, values: past, origin: pastOrigin) }
        }
        closePart()

        // Legs between consecutive matched fixes, routed as routes are (in the directions the match chose).
        var matchings: [Matching] = []
        var placement = [(matching: Int, index: Int)?](repeating: nil, count: trace.count)
        for part in parts {
            var points: [MatchedPoint] = []
            var legs: [RouteLeg] = []
            for (n, step) in part.enumerated() {
                let candidate = candidates[step.fix][step.candidate]
                let point = MatchedPoint(traceIndex: kept[step.fix], snap: candidate.snap,
                                         alternatives: Set(candidates[step.fix].map(\.snap.edge)).count - 1)
                if n > 0 {
                    guard let leg = router.routeLeg(from: points[points.count - 1].snap, to: point.snap, algorithm: .automatic)
                    else { continue }
                    legs.append(leg)
                }
                points.append(point)
            }
            guard !points.isEmpty else { continue }
            if points.count == 1 {
                // A lone fix: a leg of no length where it lies, so that every matching is a route.
                if let leg = router.routeLeg(from: points[0].snap, to: points[0].snap, algorithm: .automatic) { legs.append(leg) }
            }
            var traced = 0.0
            for k in 1..<max(1, points.count) {
                traced += Geo.distance(trace[points[k - 1].traceIndex].coordinate, trace[points[k].traceIndex].coordinate)
            }
            let matched = legs.reduce(0) { $0 + $1.distance }
            let agreement = max(traced, matched) > 0 ? min(traced, matched) / max(traced, matched) : 1
            let fixes = (points.first!.traceIndex...points.last!.traceIndex).count
            let confidence = agreement * Double(points.count) / Double(max(1, fixes))
            for (k, p) in points.enumerated() { placement[p.traceIndex] = (matchings.count, k) }
            matchings.append(Matching(points: points, legs: legs, confidence: confidence))
        }
        return (matchings, placement)
    }
}
