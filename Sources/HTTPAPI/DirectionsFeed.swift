import Engine
import Foundation
import Guidance
import RoadGraph
import RouteFormats
import Routing

/// `/directions`: everything a map renderer needs in one GeoJSON FeatureCollection — the route line, start and
/// end pins with titles, a point per step with its instruction — plus the region and Web-Mercator zoom that fit
/// the route into the caller's viewport. Also accepts Apple Maps link parameters (`saddr`, `daddr`, `dirflg`).
struct DirectionsFeed {
    let engine: Engine

    func handle(_ request: HTTPRequest) throws -> HTTPResponse {
        guard let fromText = request.argument("from") ?? request.argument("saddr"),
              let toText = request.argument("to") ?? request.argument("daddr")
        else { throw EngineError(.invalidQuery, "directions need from and to (or saddr and daddr)") }
        let mode: TravelMode
        if let flag = request.argument("dirflg") {
            switch flag {
            case "d": mode = .driving
            case "w": mode = .walking
            case "b": mode = .cycling
            default: throw EngineError(.invalidValue, "dirflg '\(flag)' is not supported (d: driving, w: walking, b: cycling)")
            }
        } else if let name = request.argument("mode") {
            guard let parsed = TravelMode(profileName: name) else { throw EngineError(.invalidValue, "unknown mode '\(name)'") }
            mode = parsed
        } else {
            mode = .driving
        }
        let width = try dimension(request, "width", default: 800), height = try dimension(request, "height", default: 600)
        let from = try engine.resolve(fromText).coordinate
        let to = try engine.resolve(toText, near: from).coordinate
        var query = RouteQuery(mode: mode, points: [from, to])
        query.directions = DirectionsOptions(language: request.argument("language") ?? "en")
        let answer = try engine.route(query)
        return .json(feed(answer.best, width: width, height: height))
    }

    private func dimension(_ request: HTTPRequest, _ key: String, default value: Int) throws -> Int {
        guard let text = request.argument(key) else { return value }
        guard let n = Int(text), (16...16384).contains(n) else { throw EngineError(.invalidValue, "\(key) must be 16 to 16384 pixels") }
        return n
    }

    func feed(_ guided: GuidedRoute, width: Int, height: Int) -> JSON {
        let (route, directions) = (guided.route, guided.directions)
        let phrases = directions.phrases
        let summary = phrases.summary(distance: route.distance, duration: route.duration, mode: route.mode, units: .metric)
        var features: [JSON] = [GeoJSON.line(route.coordinates, [
            ("kind", .string("route")), ("mode", .string(route.mode.rawValue)),
            ("distance", .number(route.distance, decimals: 1)),
            ("duration", .number(route.duration, decimals: 1)), ("summary", .string(summary)),
        ])]
        let names = directions.waypointNames
        let ends = [("start", route.waypoints[0], names[0]), ("end", route.waypoints[route.waypoints.count - 1], names[names.count - 1])]
        for (kind, snap, name) in ends {
            features.append(GeoJSON.point(snap.location, [
                ("kind", .string(kind)),
                ("title", .string(name.isEmpty ? (kind == "start" ? "Start" : "Destination") : name)),
                ("subtitle", .string(String(format: "%.5f, %.5f", snap.input.latitude, snap.input.longitude))),
            ]))
        }
        for (index, step) in directions.legs.joined().enumerated() {
            features.append(GeoJSON.point(step.maneuver.location, [
                ("kind", .string("step")), ("index", .number(Double(index))),
                ("instruction", .string(step.instruction)), ("type", .string(step.maneuver.type.rawValue)),
                ("modifier", step.maneuver.modifier.map { .string($0.rawValue) } ?? .null),
                ("distance", .number(step.distance, decimals: 1)), ("duration", .number(step.duration, decimals: 1)),
            ]))
        }
        var bounds = BoundingBox.empty
        for c in route.coordinates { bounds.extend(c) }
        let viewport = Viewport(bounds: bounds, width: width, height: height)
        return GeoJSON.collection(features, members: [
            ("bbox", .array([bounds.minLongitude, bounds.minLatitude, bounds.maxLongitude, bounds.maxLatitude].map { .number($0, decimals: 6) })),
            ("region", .object([
                ("center", OSRMRouteResponse.location(viewport.center)),
                ("latitudeDelta", .number(viewport.latitudeDelta, decimals: 6)),
                ("longitudeDelta", .number(viewport.longitudeDelta, decimals: 6)),
            ])),
            ("zoom", .number(Double(viewport.zoom))),
        ])
    }
}

/// The map region (centre and spans, as a map SDK's coordinate region) and the Web-Mercator zoom level at which a
/// bounding box, with a margin, fits a viewport of 256-pixel tiles.
struct Viewport {
    var center: Coordinate
    var latitudeDelta: Double
    var longitudeDelta: Double
    var zoom: Int

    init(bounds: BoundingBox, width: Int, height: Int, margin: Double = 1.2) {
        center = Coordinate(latitude: (bounds.minLatitude + bounds.maxLatitude) / 2,
                            longitude: (bounds.minLongitude + bounds.maxLongitude) / 2)
        latitudeDelta = (bounds.maxLatitude - bounds.minLatitude) * margin
        longitudeDelta = (bounds.maxLongitude - bounds.minLongitude) * margin
        func mercatorY(_ latitude: Double) -> Double {
            let phi = latitude * Double.pi / 180
            return (1 - log(tan(phi) + 1 / cos(phi)) / Double.pi) / 2
        }
        let spanX = max(1e-9, longitudeDelta / 360)
        let spanY = max(1e-9, abs(mercatorY(bounds.maxLatitude) - mercatorY(bounds.minLatitude)) * margin)
        let fit = min(log2(Double(width) / (256 * spanX)), log2(Double(height) / (256 * spanY)))
        zoom = max(0, min(19, Int(fit.rounded(.down))))
    }
}
