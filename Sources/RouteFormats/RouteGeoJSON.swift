import RoadGraph
import Routing

/// A route as an RFC 7946 FeatureCollection: the LineString, then start and end points (longitude, latitude).
public enum RouteGeoJSON {
    public static func make(_ route: Route) -> JSON {
        let line = JSON.object([
            ("type", .string("Feature")),
            ("geometry", OSRMRouteResponse.geometry(route.coordinates, .geojson)),
            ("properties", .object([
                ("mode", .string(route.mode.rawValue)),
                ("distance", .number(route.distance, decimals: 1)),
                ("duration", .number(route.duration, decimals: 1)),
            ])),
        ])
        var features = [line]
        for (i, snap) in route.waypoints.enumerated() {
            let role = i == 0 ? "start" : i == route.waypoints.count - 1 ? "end" : "via"
            features.append(.object([
                ("type", .string("Feature")),
                ("geometry", .object([("type", .string("Point")), ("coordinates", OSRMRouteResponse.location(snap.location))])),
                ("properties", .object([
                    ("role", .string(role)),
                    ("name", .string(snap.name)),
                    ("snap_distance", .number(snap.distance, decimals: 2)),
                ])),
            ]))
        }
        return .object([("type", .string("FeatureCollection")), ("features", .array(features))])
    }
}
