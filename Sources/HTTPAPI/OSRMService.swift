import Engine
import Foundation
import RoadGraph
import RouteFormats

/// OSRM v5's `route`, `table` and `nearest` services: thin adapters from a parsed request to the engine and back
/// to JSON.
struct OSRMService {
    let engine: Engine
    /// Where routes answered with voice or banner instructions are kept for progress reports.
    var routes: RouteStore?

    /// One CPU budget for the whole request: its snapping, searches and answer alike (see `WorkBudget.run`).
    func handle(_ request: OSRMRequest) throws -> HTTPResponse {
        try engine.withinBudget { try answer(request) }
    }

    /// `annotations=nodes` on a graph that does not know its OSM nodes (one drawn in code) is refused, not faked.
    private static func check(_ options: OSRMRouteResponse.Options, on graph: RoadGraph) throws {
        if options.annotations.contains(.nodes) && !graph.hasNodeIDs {
            throw EngineError(.notImplemented, "annotations=nodes: this graph does not keep OSM node ids")
        }
    }

    private func answer(_ request: OSRMRequest) throws -> HTTPResponse {
        switch request.service {
        case "route":
            let (query, options) = try request.routeQuery()
            let answer = try engine.route(query)
            try Self.check(options, on: answer.graph)
            let json = OSRMRouteResponse.make(answer.best, graph: answer.graph, options: options, alternatives: answer.alternatives,
                                              departure: answer.departure)
            // A route to be followed: kept for progress reports along it.
            guard let routes, query.directions.voiceInstructions || query.directions.bannerInstructions else { return .json(json) }
            return .json(routes.keep([answer.best] + answer.alternatives, query: query, output: options, in: json))
        case "table":
            let (query, wanted) = try request.tableQuery()
            let table = try engine.table(query)
            // The request already runs on one of the server's threads: one thread per request.
            let (cells, filled) = try table.answer(0..<table.sources.count)
            return HTTPResponse(status: 200, contentType: "application/json; charset=utf-8",
                                body: OSRMTableWriter.body(graph: table.graph, sources: table.sources,
                                                           destinations: table.destinations, annotations: wanted,
                                                           rows: cells, includeWaypoints: try request.includesWaypoints(),
                                                           fallbackCells: query.fallback == nil ? nil : filled))
        case "trip":
            let (query, options) = try request.tripQuery()
            let answer = try engine.trip(query)
            try Self.check(options, on: answer.graph)
            return .json(OSRMTripResponse.make(trips: answer.trips.map(\.guided), placement: answer.placement,
                                               graph: answer.graph, options: options))
        case "match":
            let (query, options) = try request.matchQuery()
            let answer = try engine.match(query)
            try Self.check(options, on: answer.graph)
            return .json(OSRMMatchResponse.make(answer.matchings.map {
                OSRMMatchResponse.Matched(guided: $0.guided, confidence: $0.confidence,
                                          alternatives: $0.points.map(\.alternatives))
            }, placement: answer.placement, graph: answer.graph, options: options))
        case "isochrone":
            let (query, polygons, colors) = try request.isochroneQuery()
            let (_, isochrone) = try engine.isochrone(query)
            let body = IsochroneGeoJSON.make(isochrone, polygons: polygons, colors: colors)
            return HTTPResponse(status: 200, contentType: "application/geo+json; charset=utf-8", body: body.bytes())
        default:
            // One point: its roads; several (OSRM 26): a list of roads per point.
            let (points, count, filters) = try request.nearestQuery()
            let lists = try zip(points, filters).map { point, filter -> JSON in
                let (graph, snaps) = try engine.nearest(mode: request.mode, point: point, count: count, filter: filter,
                                                        bySegment: request.compatibility == .osrm)
                return .array(snaps.map { OSRMRouteResponse.nearestWaypoint($0, graph: graph) })
            }
            guard try request.includesWaypoints() else { return .json(JSON.object([("code", .string("Ok"))])) }
            return .json(JSON.object([("code", .string("Ok")), ("waypoints", lists.count == 1 ? lists[0] : .array(lists))]))
        }
    }
}
