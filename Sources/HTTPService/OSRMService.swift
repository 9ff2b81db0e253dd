import Foundation
import Guidance
import RoadGraph
import RouteFormats
import Routing

/// OSRM v5's `route`, `table` and `nearest` services: thin adapters from URLs to the engine and back to JSON.
struct OSRMService {
    let engine: RoutingEngine
    let limits: ServiceLimits

    func handle(_ request: OSRMRequest) throws -> HTTPResponse {
        switch request.service {
        case "route": return try route(request)
        case "table": return try table(request)
        default: return try nearest(request)
        }
    }

    private func noGraph(_ mode: TravelMode) -> ServiceError {
        ServiceError("InvalidValue", "this server has no \(mode.rawValue) graph")
    }

    static func serviceError(_ error: RoutingError) -> ServiceError {
        ServiceError(error.code, error.description)
    }

    /// `radiuses` and `bearings`, one entry per coordinate.
    func filters(_ request: OSRMRequest) throws -> [WaypointFilter]? {
        let radiuses = try request.perCoordinate("radiuses")
        let bearings = try request.perCoordinate("bearings")
        if radiuses == nil && bearings == nil { return nil }
        return try request.coordinates.indices.map { i in
            var filter = WaypointFilter()
            if let r = radiuses?[i], !r.isEmpty, r != "unlimited" {
                guard let metres = Double(r), metres >= 0, metres.isFinite else {
                    throw ServiceError("InvalidValue", "radius '\(r)' must be a non-negative number or 'unlimited'")
                }
                filter.radius = metres
            }
            if let b = bearings?[i], !b.isEmpty {
                let parts = b.split(separator: ",").compactMap { Double($0) }
                guard parts.count == 2, (0...360).contains(parts[0]), (0...180).contains(parts[1]) else {
                    throw ServiceError("InvalidValue", "bearing '\(b)' must be value,range with value 0-360 and range 0-180")
                }
                filter.bearing = (parts[0], parts[1])
            }
            return filter
        }
    }

    func route(_ request: OSRMRequest) throws -> HTTPResponse {
        try request.allowOnly(["steps", "overview", "geometries", "annotations", "radiuses", "bearings", "continue_straight",
                               "alternatives"])
        // OSRM: true asks for one alternative, a number for up to that many (here at most 3); only between two points.
        let alternativeCount: Int
        switch request.options["alternatives"] {
        case nil, "false": alternativeCount = 0
        case "true": alternativeCount = 1
        case let text?:
            guard let n = Int(text), (0...3).contains(n) else {
                throw ServiceError("InvalidValue", "alternatives must be true, false or a number from 0 to 3")
            }
            alternativeCount = n
        }
        guard request.coordinates.count >= 2 else { throw ServiceError("InvalidQuery", "a route needs at least two coordinates") }
        guard request.coordinates.count <= limits.maxRouteWaypoints else {
            throw ServiceError("TooBig", "at most \(limits.maxRouteWaypoints) coordinates per route")
        }
        var options = OSRMRouteResponse.Options()
        options.steps = try request.bool("steps", default: false)
        options.overview = try request.choice("overview", default: .simplified)
        options.geometries = try request.choice("geometries", default: .polyline)
        options.includeWaypoints = !(try request.bool("skip_waypoints", default: false))
        switch request.options["annotations"] {
        case nil, "false": break
        case "true": options.annotations = OSRMRouteResponse.Annotation.allCases
        case let list?:
            options.annotations = try list.split(separator: ",").compactMap {
                if $0 == "nodes" || $0 == "datasources" { return nil }  // not kept by Wayfinder's graphs
                guard let kind = OSRMRouteResponse.Annotation(rawValue: String($0)) else {
                    throw ServiceError("InvalidValue", "unknown annotation '\($0)'")
                }
                return kind
            }
        }
        let language = request.options["language"] ?? "en"
        let filters = try self.filters(request)
        let mode = request.mode
        // OSRM's "default" leaves it to the profile: on for driving, off for walking.
        let continueStraight: Bool? = [nil, "default"].contains(request.options["continue_straight"]) ? nil
            : try request.bool("continue_straight", default: true)
        let result: HTTPResponse? = try engine.withRouter(mode) { router in
            do {
                let route = try router.route(request.coordinates, filters: filters, continueStraight: continueStraight)
                let directionsOptions = DirectionsOptions(language: language)
                let directions = try Directions(route: route, graph: router.graph, options: directionsOptions)
                let others = try router.alternatives(to: route, count: alternativeCount).map {
                    ($0, try Directions(route: $0, graph: router.graph, options: directionsOptions))
                }
                return .json(OSRMRouteResponse.make(route, directions: directions, graph: router.graph, options: options,
                                                    alternatives: others).serialized())
            } catch let error as RoutingError {
                throw Self.serviceError(error)
            }
        }
        guard let result else { throw noGraph(mode) }
        return result
    }

    func table(_ request: OSRMRequest) throws -> HTTPResponse {
        try request.allowOnly(["sources", "destinations", "annotations", "radiuses", "bearings"])
        let sources = try request.indices("sources"), destinations = try request.indices("destinations")
        guard !sources.isEmpty, !destinations.isEmpty else { throw ServiceError("InvalidQuery", "a table needs sources and destinations") }
        guard request.coordinates.count <= limits.maxTableLocations else {
            throw ServiceError("TooBig", "at most \(limits.maxTableLocations) coordinates per table")
        }
        let wanted = Set((request.options["annotations"] ?? "duration").split(separator: ",").map(String.init))
        guard !wanted.isEmpty, wanted.isSubset(of: ["duration", "distance"]) else {
            throw ServiceError("InvalidValue", "annotations for a table are duration, distance or both")
        }
        let filters = try self.filters(request)
        let mode = request.mode
        let result: HTTPResponse? = try engine.withRouter(mode) { router in
            let snaps: [Snap]
            do { snaps = try router.snapWaypoints(request.coordinates, filters: filters) } catch let e as RoutingError {
                throw Self.serviceError(e)
            }
            let cells: [[TableCell?]]
            if router.graph.hasHierarchy {
                // The request already runs on one of the server's threads: one thread per request.
                cells = HierarchyMatrix(graph: router.graph, targets: destinations.map { snaps[$0] },
                                        scratch: engine.tableScratch(mode))
                    .rows(for: sources.map { snaps[$0] }, threads: 1)
            } else {
                cells = try engine.withTableSearch(mode) { search, graph in
                    search.table(in: graph, sources: sources.map { snaps[$0] }, targets: destinations.map { snaps[$0] })
                }!
            }
            var members: [(String, JSON)] = [("code", .string("Ok"))]
            if wanted.contains("duration") {
                members.append(("durations", .array(cells.map { .array($0.map { $0.map { JSON.number(Double($0.weight) / 1000, decimals: 1) } ?? .null }) })))
            }
            if wanted.contains("distance") {
                members.append(("distances", .array(cells.map { .array($0.map { $0.map { JSON.number($0.distance, decimals: 1) } ?? .null }) })))
            }
            let graph = router.graph
            members.append(("sources", .array(sources.map { OSRMRouteResponse.waypoint(snaps[$0], name: graph.name(ofEdge: snaps[$0].edge)) })))
            members.append(("destinations", .array(destinations.map { OSRMRouteResponse.waypoint(snaps[$0], name: graph.name(ofEdge: snaps[$0].edge)) })))
            return .json(JSON.object(members).serialized())
        }
        guard let result else { throw noGraph(mode) }
        return result
    }

    func nearest(_ request: OSRMRequest) throws -> HTTPResponse {
        try request.allowOnly(["number", "radiuses", "bearings"])
        guard request.coordinates.count == 1 else { throw ServiceError("InvalidQuery", "nearest takes exactly one coordinate") }
        let number = Int(request.options["number"] ?? "1") ?? 0
        guard (1...limits.maxNearestResults).contains(number) else {
            throw ServiceError("InvalidValue", "number must be from 1 to \(limits.maxNearestResults)")
        }
        guard let graph = engine.graphs[request.mode] else { throw noGraph(request.mode) }
        let radius = try filters(request)?.first?.radius ?? RoadGraph.defaultSnapDistance
        let snaps = graph.nearestRoads(to: request.coordinates[0], count: number, maxDistance: radius)
        guard !snaps.isEmpty else {
            throw ServiceError("NoSegment", "no road usable by \(request.mode.rawValue) within \(Int(radius)) m")
        }
        let waypoints = snaps.map { OSRMRouteResponse.waypoint($0, name: graph.name(ofEdge: $0.edge)) }
        return .json(JSON.object([("code", .string("Ok")), ("waypoints", .array(waypoints))]).serialized())
    }
}
