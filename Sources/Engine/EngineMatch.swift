import Foundation
import Guidance
import MapMatching
import RoadGraph
import Routing

/// A GPS trace to match to the roads (OSRM's `match`).
public struct MatchQuery: Sendable {
    public var mode: TravelMode
    public var points: [Coordinate]
    /// Seconds, one per point, never decreasing; nil when the trace has no times.
    public var timestamps: [Double]?
    /// Each fix's accuracy in metres (OSRM's `radiuses`); nil entries take the default.
    public var accuracies: [Double?]?
    /// OSRM `gaps=split` (the default) or `ignore`.
    public var splitGaps = true
    public var tidy = false
    public var excluding: ArcClasses = []
    public var directions = DirectionsOptions()

    public init(mode: TravelMode, points: [Coordinate]) {
        self.mode = mode
        self.points = points
    }
}

public struct MatchAnswer: Sendable {
    public struct Matched: Sendable {
        public var guided: GuidedRoute
        public var confidence: Double
        public var points: [MatchedPoint]
    }

    public let graph: RoadGraph
    public let matchings: [Matched]
    /// Per trace point: its matching and its place among that matching's waypoints, nil where not matched.
    public let placement: [(matching: Int, index: Int)?]
}

extension Engine {
    public func match(_ query: MatchQuery) throws -> MatchAnswer {
        let set = current
        let graph = try graph(set, query.mode)
        let n = query.points.count
        guard n > 0 else { throw EngineError(.invalidQuery, "the trace is empty") }
        guard n >= 2 else { throw EngineError(.invalidQuery, "a trace needs at least two points") }
        guard n <= limits.maxTracePoints else {
            throw EngineError(.tooBig, "a trace may have at most \(limits.maxTracePoints) points (--max-trace-points)")
        }
        if let times = query.timestamps {
            guard times.count == n else {
                throw EngineError(.invalidOptions, "timestamps has \(times.count) entries for \(n) points")
            }
            guard times.allSatisfy(\.isFinite) else { throw EngineError(.invalidValue, "timestamps must be numbers of seconds") }
            if let k = times.indices.dropLast().first(where: { times[$0 + 1] < times[$0] }) {
                throw EngineError(.invalidValue, "timestamps must not decrease (point \(k + 2) is earlier than point \(k + 1))")
            }
        }
        if let accuracies = query.accuracies {
            guard accuracies.count == n else {
                throw EngineError(.invalidOptions, "radiuses has \(accuracies.count) entries for \(n) points")
            }
            guard accuracies.allSatisfy({ $0.map { $0.isFinite && $0 > 0 } ?? true }) else {
                throw EngineError(.invalidValue, "a radius must be a positive number of metres")
            }
            // OSRM's answer to a radius over `--max-matching-radius`.
            if let most = limits.maxMatchingRadius, accuracies.contains(where: { ($0 ?? 0) > most }) {
                throw EngineError(.tooBig, "Radius search size is too large for map matching (at most \(JSONNumber.format(most)) m, --max-matching-radius).")
            }
        }
        try Self.checkExclusion(query.excluding, mode: query.mode)
        let trace = query.points.indices.map { i in
            TracePoint(coordinate: query.points[i], time: query.timestamps?[i], accuracy: query.accuracies?[i] ?? nil)
        }
        var options = MatchOptions()
        options.splitGaps = query.splitGaps
        options.tidy = query.tidy
        options.excluding = query.excluding
        let result: (matchings: [Matching], placement: [(matching: Int, index: Int)?])
        do {
            result = try withinBudget { try set.matchers[query.mode]!.with { try $0.match(trace, options: options) } }
        } catch MapMatcher.Failure.noCandidates {
            // OSRM's code and words for it.
            throw EngineError(.noSegment, "Could not find a matching segment for any coordinate.")
        }
        let matchings = try result.matchings.map { m -> MatchAnswer.Matched in
            let route = Route(mode: query.mode, legs: m.legs, waypoints: m.points.map(\.snap))
            let directions = try Directions(route: route, graph: graph, options: query.directions, labels: set.labels[query.mode])
            return .init(guided: GuidedRoute(route: route, directions: directions), confidence: m.confidence, points: m.points)
        }
        return MatchAnswer(graph: graph, matchings: matchings, placement: result.placement)
    }
}
