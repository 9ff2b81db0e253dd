import Foundation
import Isochrones
import RoadGraph
import Routing

/// A reachability request: contours of travel time or distance around one point.
public struct IsochroneQuery: Sendable {
    public var mode: TravelMode
    public var point: Coordinate
    public var metric: ReachMetric
    /// Seconds (time) or metres (distance), each above zero.
    public var limits: [Double]
    /// Metres; nil for the mode's default (`IsochroneOptions.defaultResolution`).
    public var resolution: Double?
    public var denoise = 1.0
    public var generalize = 0.0
    public var excluding: ArcClasses = []
    public var snapRadius: Double?

    public init(mode: TravelMode, point: Coordinate, metric: ReachMetric, limits: [Double]) {
        self.mode = mode
        self.point = point
        self.metric = metric
        self.limits = limits
    }
}

extension Engine {
    public static let resolutionRange = 20.0...2_000.0

    public func isochrone(_ query: IsochroneQuery) throws -> (graph: RoadGraph, isochrone: Isochrone) {
        let set = current
        let graph = try graph(set, query.mode)
        guard !query.limits.isEmpty else { throw EngineError(.invalidQuery, "an isochrone needs at least one contour") }
        guard query.limits.count <= limits.maxContours else {
            throw EngineError(.tooBig, "at most \(limits.maxContours) contours in one request")
        }
        let (most, unit) = query.metric == .duration ? (limits.maxContourMinutes * 60, "minutes") : (limits.maxContourMeters, "metres")
        for limit in query.limits {
            guard !limit.isNaN else { throw EngineError(.invalidValue, "a contour's limit must be a number") }
            guard limit > 0 else { throw EngineError(.invalidValue, "a contour's limit must be above zero") }
            guard limit <= most else {
                let shown = query.metric == .duration ? most / 60 : most
                throw EngineError(.tooBig, "a contour may reach at most \(JSONNumber.format(shown)) \(unit)")
            }
        }
        let resolution = query.resolution ?? IsochroneOptions.defaultResolution(for: query.mode)
        guard Self.resolutionRange.contains(resolution) else {
            throw EngineError(.invalidValue, "resolution must be from \(Int(Self.resolutionRange.lowerBound)) to \(Int(Self.resolutionRange.upperBound)) metres")
        }
        guard (0...1).contains(query.denoise) else { throw EngineError(.invalidValue, "denoise must be from 0 to 1") }
        guard query.generalize.isFinite, query.generalize >= 0 else {
            throw EngineError(.invalidValue, "generalize must be a number of metres, 0 or more")
        }
        try Self.checkExclusion(query.excluding, mode: query.mode)
        var filter = WaypointFilter(excluding: query.excluding)
        filter.radius = query.snapRadius ?? limits.defaultSnapRadius
        guard let snap = try withinBudget({ graph.snap(query.point, maxDistance: filter.radius!, filter: filter) }) else {
            throw EngineError(.noSegment, "no road usable by \(query.mode.rawValue)"
                + (filter.radius!.isFinite ? " within \(Int(filter.radius!)) m" : "") + " of \(query.point)")
        }
        // As a route's start: the main network where the nearest road is an island and the main one is in reach.
        let origin = snap.mainNetwork ?? snap.nearest
        var options = IsochroneOptions(metric: query.metric, limits: query.limits, resolution: resolution)
        options.denoise = query.denoise
        options.generalize = query.generalize
        options.excluding = query.excluding
        options.maxPoints = limits.maxIsochronePoints
        let isochrone = try withinBudget {
            do {
                return try set.isochroneBuilders[query.mode]!.with { try $0.build(from: origin, options: options) }
            } catch IsochroneError.tooBig(let points) {
                throw EngineError(.tooBig, "the isochrone needs more than \(limits.maxIsochronePoints) points (\(points) so far): "
                    + "use a coarser resolution or smaller contours")
            } catch IsochroneError.outOfTime {
                throw EngineError.timeout(limits.maxComputeMilliseconds ?? 0)
            }
        }
        return (graph, isochrone)
    }
}

/// Numbers in messages as JSON writes them (no ".0" on whole numbers).
enum JSONNumber {
    static func format(_ n: Double) -> String { n == n.rounded() && abs(n) < 1e15 ? String(Int64(n)) : String(n) }
}
