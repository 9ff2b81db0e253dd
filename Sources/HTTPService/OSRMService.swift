import Engine
import Foundation
import RoadGraph
import RouteFormats

/// OSRM v5's `route`, `table` and `nearest` services: thin adapters from a parsed request to the engine and back
/// to JSON.
struct OSRMService {
    let engine: Engine

    func handle(_ request: OSRMRequest) throws -> HTTPResponse {
        switch request.service {
        case "route":
            let (query, options) = try request.routeQuery()
            let answer = try engine.route(query)
            return .json(OSRMRouteResponse.make(answer.route, directions: answer.directions, graph: answer.graph,
                                                options: options,
                                                alternatives: answer.alternatives.map { ($0.route, $0.directions) })
                .serialized())
        case "table":
            let (query, wanted) = try request.tableQuery()
            let table = try engine.table(query)
            // The request already runs on one of the server's threads: one thread per request.
            let cells = try table.rows(0..<table.sources.count)
            var members: [(String, JSON)] = [("code", .string("Ok"))]
            if wanted.contains("duration") {
                members.append(("durations", .array(cells.map { .array($0.map { $0.map { JSON.number(Double($0.duration) / 1000, decimals: 1) } ?? .null }) })))
            }
            if wanted.contains("distance") {
                members.append(("distances", .array(cells.map { .array($0.map { $0.map { JSON.number($0.distance, decimals: 1) } ?? .null }) })))
            }
            members.append(("sources", OSRMRouteResponse.waypoints(table.sources, graph: table.graph)))
            members.append(("destinations", OSRMRouteResponse.waypoints(table.destinations, graph: table.graph)))
            return .json(JSON.object(members).serialized())
        default:
            let (point, count, radius) = try request.nearestQuery()
            let (graph, snaps) = try engine.nearest(mode: request.mode, point: point, count: count, radius: radius)
            let waypoints = snaps.map { OSRMRouteResponse.waypoint($0, name: graph.name(ofEdge: $0.edge)) }
            return .json(JSON.object([("code", .string("Ok")), ("waypoints", .array(waypoints))]).serialized())
        }
    }
}
