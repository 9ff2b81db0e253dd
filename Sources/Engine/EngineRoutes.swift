import Foundation
import Guidance
import RoadGraph
import Routing

/// A route request, whatever front end it came from.
public struct RouteQuery: Sendable {
    public var mode: TravelMode
    public var points: [Coordinate]
    /// Per point: how far it may be from its road, and the direction of travel there (OSRM's `radiuses`, `bearings`).
    public var filters: [WaypointFilter]?
    /// How far any point may be from its road when its filter does not say; nil for the engine's default.
    public var snapRadius: Double?
    /// OSRM's `continue_straight`; nil for the mode's default (on for driving).
    public var continueStraight: Bool?
    public var alternatives = 0
    public var algorithm = SearchAlgorithm.automatic
    /// Road classes to avoid (OSRM's `exclude`): any of toll, motorway, ferry.
    public var excluding: ArcClasses = []
    public var directions = DirectionsOptions()
    /// When the route leaves or must arrive (`depart_at`, `arrive_by`): the graph's conditional restrictions and
    /// closures then hold at the time each road is reached. Nil: they are ignored, as OSRM ignores them.
    public var time: TravelTime?
    /// Weights by kind of road (`avoid=unpaved`, `prefer=major_roads`): the route choice counts them, durations do
    /// not. Nil or empty: the metric's.
    public var weightFactors: WeightFactors?
    /// Places already found for some points (a reroute's road driven, its route's own waypoints): not looked for
    /// again where they are places on the graph in use.
    public var knownPlaces: [Snap?]?
    /// `.osrm`: OSRM's answer, without Wayfinder's deviations (the rest on foot, the guidance of GUIDANCE.md).
    public var compatibility: Compatibility {
        get { directions.compatibility }
        set { directions.compatibility = newValue }
    }

    public init(mode: TravelMode, points: [Coordinate]) {
        self.mode = mode
        self.points = points
    }
}

public struct RouteAnswer: Sendable {
    public let graph: RoadGraph
    /// The best route, and up to `RouteQuery.alternatives` others (OSRM's `routes`, in its order).
    public let best: GuidedRoute
    public let alternatives: [GuidedRoute]
    /// The local time the route leaves at, when the query gave a time (for `arrive_by`, the latest that arrives
    /// in time, as far as the search finds).
    public var departure: LocalTime? = nil
}

extension Engine {
    public static let maxAlternatives = 3

    public func route(_ query: RouteQuery) throws -> RouteAnswer { try route(query, maxWaypoints: limits.maxRouteWaypoints) }

    /// A route with its own limit on points: a trip's route is as long as the trip may be. One budget covers the
    /// route and the walk at its end.
    func route(_ query: RouteQuery, maxWaypoints: Int) throws -> RouteAnswer {
        try withinBudget { try planRoute(query, maxWaypoints: maxWaypoints) }
    }

    private func planRoute(_ query: RouteQuery, maxWaypoints: Int) throws -> RouteAnswer {
        let set = current
        let graph = try graph(set, query.mode)
        guard query.points.count >= 2 else { throw EngineError(.invalidQuery, "a route needs at least two points") }
        guard query.points.count <= maxWaypoints else {
            throw EngineError(.tooBig, "a route may have at most \(limits.maxRouteWaypoints) points (--max-waypoints)")
        }
        guard (0...Self.maxAlternatives).contains(query.alternatives) else {
            throw EngineError(.invalidValue, "at most \(Self.maxAlternatives) alternatives")
        }
        if query.algorithm == .ch && !graph.hasHierarchy {
            throw EngineError(.invalidValue, "the \(query.mode.rawValue) graph has no contraction hierarchy (imported with --no-contraction)")
        }
        try Self.checkExclusion(query.excluding, mode: query.mode)
        try Self.checkFactors(query.weightFactors, graph: graph)
        let answer = try withinBudget {
            try set.routers[query.mode]!.with { router in
                router.maxSnapDistance = query.snapRadius ?? limits.defaultSnapRadius
                router.excluding = query.excluding
                router.snapsAsOSRM = query.compatibility == .osrm
                router.departure = nil
                router.weightFactors = query.weightFactors
                // The engine's routers go back to their pool as routes expect them: without factors.
                defer { router.weightFactors = nil }
                do {
                    var route = try router.route(query.points, algorithm: query.algorithm, filters: query.filters,
                                                 continueStraight: query.continueStraight, known: query.knownPlaces)
                    var departure: LocalTime?
                    switch query.time {
                    case nil: break
                    case .departure(let clock):
                        departure = graph.localTime(clock)
                    case .arrival(let clock):
                        // Leave the route's duration before the deadline; where timed rules or historical speeds
                        // make it later, leave earlier by as much and look again (a few rounds).
                        let deadline = graph.localTime(clock)
                        departure = deadline.adding(seconds: -Int64(route.duration.rounded(.up)))
                    }
                    if let start = departure, graph.dependsOnTime {
                        var leave = start
                        for _ in 0..<4 {
                            router.departure = Departure(local: leave, closesRoads: query.compatibility != .osrm)
                            route = try router.route(query.points, algorithm: query.algorithm, filters: query.filters,
                                                     continueStraight: query.continueStraight, known: query.knownPlaces)
                            guard case .arrival(let clock) = query.time else { break }
                            let late = leave.adding(seconds: Int64(route.duration.rounded(.up))).wallSeconds - graph.localTime(clock).wallSeconds
                            if late <= 0 { break }
                            leave = leave.adding(seconds: -late)
                        }
                        departure = leave
                    }
                    let labels = set.labels[query.mode]
                    let directions = try Directions(route: route, graph: graph, options: query.directions, labels: labels)
                    let others = try router.alternatives(to: route, count: query.alternatives).map {
                        GuidedRoute(route: $0, directions: try Directions(route: $0, graph: graph, options: query.directions, labels: labels))
                    }
                    return RouteAnswer(graph: graph, best: GuidedRoute(route: route, directions: directions), alternatives: others,
                                       departure: departure)
                } catch let error as RoutingError {
                    throw EngineError.from(error)
                }
            }
        }
        return try withinBudget { walkTheRest(answer, query, set) }
    }

    /// How much closer a walker gets to a destination than the car must be before the route walks the rest.
    public static let onFootMargin = 25.0
    /// The longest walk added after a drive, metres, and how much longer than the straight line it may be.
    public static let onFootLimit = 2_000.0, onFootDetour = 2.0

    /// A destination on a road the car cannot reach from the route (behind bollards or a gate: the nearest road is
    /// an island, so the drive ended on the main network): the last leg goes on on foot from where the car
    /// stopped, with a step that says so. OSRM stops at the main network without a word; PROFILES.md says why we
    /// do otherwise. A destination that is merely far from any road keeps OSRM's answer (and the table's).
    func walkTheRest(_ answer: RouteAnswer, _ query: RouteQuery, _ set: GraphSet) -> RouteAnswer {
        guard query.mode == .driving, query.compatibility == .wayfinder, let walkers = set.routers[.walking], let destination = query.points.last,
              let carStop = answer.best.route.waypoints.last, carStop.distance > Self.onFootMargin,
              let nearest = answer.graph.snap(destination, maxDistance: carStop.distance,
                                              filter: query.filters?.last ?? WaypointFilter(excluding: query.excluding))?.nearest,
              nearest.edge != carStop.edge, !nearest.onMainNetwork else { return answer }
        let walking = walkers.with { router -> (Route, RoadGraph)? in
            router.maxSnapDistance = query.snapRadius ?? limits.defaultSnapRadius
            router.snapsAsOSRM = false
            router.excluding = query.excluding.intersection(.ferry)
            router.departure = nil
            let crow = Geo.distance(carStop.location, destination)
            guard let walk = try? router.route([carStop.location, destination], algorithm: .automatic),
                  let target = walk.waypoints.last, target.distance + Self.onFootMargin < carStop.distance,
                  walk.distance <= min(Self.onFootLimit, Self.onFootDetour * crow + 100) else { return nil }
            return (walk, router.graph)
        }
        guard let (walk, walkingGraph) = walking,
              let walkDirections = try? Directions(route: walk, graph: walkingGraph, options: query.directions,
                                                   labels: set.labels[.walking]) else { return answer }
        var best = answer.best
        best.route.continueOnFoot(walk, nodeIDs: walk.legs.first.map(walkingGraph.nodeIDs(along:)) ?? [])
        best.directions.continueOnFoot(walkDirections)
        return RouteAnswer(graph: answer.graph, best: best, alternatives: answer.alternatives, departure: answer.departure)
    }

    /// Weight factors the graph can apply: `unpaved` needs a graph that knows its surfaces.
    static func checkFactors(_ factors: WeightFactors?, graph: RoadGraph) throws {
        if factors?.weighs(.unpaved) == true && !graph.knowsSurfaces {
            throw EngineError(.invalidValue, "the \(graph.mode.rawValue) graph does not know which roads are paved: re-import it to avoid unpaved roads")
        }
    }

    /// Only the excludable classes may be avoided, and a walker has none of them but ferries (as OSRM, whose foot
    /// profile has no exclusion at all, Wayfinder lets walkers avoid ferries).
    static func checkExclusion(_ classes: ArcClasses, mode: TravelMode) throws {
        guard classes.isSubset(of: .excludable) else {
            throw EngineError(.invalidValue, "only toll, motorway and ferry can be excluded")
        }
        if mode == .walking && !classes.isSubset(of: .ferry) {
            throw EngineError(.invalidValue, "walking can exclude only ferry")
        }
    }

    /// Up to `count` roads nearest to a point, nearest first (OSRM's `nearest`).
    /// `filter`: the request's bearing, approach and snapping for the point (its radius wins over `radius`).
    /// `bySegment`: OSRM's list, one per segment of road, ranked as OSRM ranks them (`RoadGraph.nearestRoads`).
    public func nearest(mode: TravelMode, point: Coordinate, count: Int, radius: Double? = nil,
                        filter: WaypointFilter = WaypointFilter(), bySegment: Bool = false) throws -> (RoadGraph, [Snap]) {
        let graph = try graph(current, mode)
        // OSRM's codes: none asked is a malformed option, too many is over a limit.
        guard count >= 1 else { throw EngineError(.invalidOptions, "number must be at least 1") }
        guard count <= limits.maxNearestResults else {
            throw EngineError(.tooBig, "nearest lists at most \(limits.maxNearestResults) roads, not \(count)")
        }
        let limit = filter.radius ?? radius ?? limits.defaultSnapRadius
        let snaps = try withinBudget { graph.nearestRoads(to: point, count: count, maxDistance: limit, filter: filter, bySegment: bySegment) }
        guard !snaps.isEmpty else {
            throw EngineError(.noSegment, "no road usable by \(mode.rawValue)"
                + (limit.isFinite ? " within \(Int(limit)) m" : "") + " of \(point)")
        }
        return (graph, snaps)
    }
}
