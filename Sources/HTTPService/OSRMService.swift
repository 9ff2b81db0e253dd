import Engine
import Foundation
import Guidance
import RoadGraph
import RouteFormats
import Routing

/// OSRM v5's `route`, `table` and `nearest` services: thin adapters from URLs to the engine and back to JSON.
struct OSRMService {
    let engine: Engine

    func handle(_ request: OSRMRequest) throws -> HTTPResponse {
        switch request.service {
        case "route": return try route(request)
        case "table": return try table(request)
        default: return try nearest(request)
        }
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
                    throw EngineError(.invalidValue, "radius '\(r)' must be a non-negative number or 'unlimited'")
                }
                filter.radius = metres
            }
            if let b = bearings?[i], !b.isEmpty {
                let parts = b.split(separator: ",").compactMap { Double($0) }
                guard parts.count == 2, (0...360).contains(parts[0]), (0...180).contains(parts[1]) else {
                    throw EngineError(.invalidValue, "bearing '\(b)' must be value,range with value 0-360 and range 0-180")
                }
                filter.bearing = (parts[0], parts[1])
            }
            return filter
        }
    }

    func route(_ request: OSRMRequest) throws -> HTTPResponse {
        try request.allowOnly(["steps", "overview", "geometries", "annotations", "radiuses", "bearings", "continue_straight",
                               "alternatives"])
        var query = RouteQuery(mode: request.mode, points: request.coordinates)
        // OSRM: true asks for one alternative, a number for up to that many (here at most 3); only between two points.
        switch request.options["alternatives"] {
        case nil, "false": break
        case "true": query.alternatives = 1
        case let text?:
            guard let n = Int(text), (0...Engine.maxAlternatives).contains(n) else {
                throw EngineError(.invalidValue, "alternatives must be true, false or a number from 0 to \(Engine.maxAlternatives)")
            }
            query.alternatives = n
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
                    throw EngineError(.invalidValue, "unknown annotation '\($0)'")
                }
                return kind
            }
        }
        query.directions = DirectionsOptions(language: request.options["language"] ?? "en")
        query.filters = try filters(request)
        // OSRM's "default" leaves it to the profile: on for driving, off for walking.
        if ![nil, "default"].contains(request.options["continue_straight"]) {
            query.continueStraight = try request.bool("continue_straight", default: true)
        }
        let answer = try engine.route(query)
        return .json(OSRMRouteResponse.make(answer.route, directions: answer.directions, graph: answer.graph,
                                            options: options, alternatives: answer.alternatives.map { ($0.route, $0.directions) })
            .serialized())
    }

    func table(_ request: OSRMRequest) throws -> HTTPResponse {
        try request.allowOnly(["sources", "destinations", "annotations", "radiuses", "bearings"])
        var query = TableQuery(mode: request.mode, points: request.coordinates,
                               sources: try request.indices("sources"), destinations: try request.indices("destinations"))
        let wanted = Set((request.options["annotations"] ?? "duration").split(separator: ",").map(String.init))
        guard !wanted.isEmpty, wanted.isSubset(of: ["duration", "distance"]) else {
            throw EngineError(.invalidValue, "annotations for a table are duration, distance or both")
        }
        query.filters = try filters(request)
        let table = try engine.table(query)
        // The request already runs on one of the server's threads: one thread per request.
        let cells = try table.rows(0..<table.sources.count)
        var members: [(String, JSON)] = [("code", .string("Ok"))]
        if wanted.contains("duration") {
            members.append(("durations", .array(cells.map { .array($0.map { $0.map { JSON.number(Double($0.weight) / 1000, decimals: 1) } ?? .null }) })))
        }
        if wanted.contains("distance") {
            members.append(("distances", .array(cells.map { .array($0.map { $0.map { JSON.number($0.distance, decimals: 1) } ?? .null }) })))
        }
        members.append(("sources", OSRMRouteResponse.waypoints(table.sources, graph: table.graph)))
        members.append(("destinations", OSRMRouteResponse.waypoints(table.destinations, graph: table.graph)))
        return .json(JSON.object(members).serialized())
    }

    func nearest(_ request: OSRMRequest) throws -> HTTPResponse {
        try request.allowOnly(["number", "radiuses", "bearings"])
        guard request.coordinates.count == 1 else { throw EngineError(.invalidQuery, "nearest takes exactly one coordinate") }
        guard let number = Int(request.options["number"] ?? "1") else {
            throw EngineError(.invalidValue, "number must be a whole number")
        }
        let (graph, snaps) = try engine.nearest(mode: request.mode, point: request.coordinates[0], count: number,
                                                radius: try filters(request)?.first?.radius)
        let waypoints = snaps.map { OSRMRouteResponse.waypoint($0, name: graph.name(ofEdge: $0.edge)) }
        return .json(JSON.object([("code", .string("Ok")), ("waypoints", .array(waypoints))]).serialized())
    }
}
