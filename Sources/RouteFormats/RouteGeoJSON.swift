import Guidance
import RoadGraph
import Routing

/// A route as an RFC 7946 FeatureCollection (longitude, latitude): the LineString, then the waypoints, then with
/// directions one Point per maneuver carrying its instruction, all in the directions' language.
public enum RouteGeoJSON {
    public static func make(_ route: Route, directions: Directions? = nil) -> JSON {
        let line = JSON.object([
            ("type", .string("Feature")),
            ("geometry", OSRMRouteResponse.geometry(route.coordinates, .geojson)),
            ("properties", .object([
                ("mode", .string(route.mode.rawValue)),
                ("distance", .number(route.distance, decimals: 1)),
                ("duration", .number(route.duration, decimals: 1)),
            ])),
        ])
        func point(_ c: Coordinate, _ properties: [(String, JSON)]) -> JSON {
            .object([
                ("type", .string("Feature")),
                ("geometry", .object([("type", .string("Point")), ("coordinates", OSRMRouteResponse.location(c))])),
                ("properties", .object(properties)),
            ])
        }
        var features = [line]
        for (i, snap) in route.waypoints.enumerated() {
            let role = i == 0 ? "start" : i == route.waypoints.count - 1 ? "end" : "via"
            features.append(point(snap.location, [
                ("role", .string(role)),
                ("name", .string(directions?.waypointNames[i] ?? snap.name)),
                ("snap_distance", .number(snap.distance, decimals: 2)),
            ]))
        }
        for (leg, steps) in (directions?.legs ?? []).enumerated() {
            for step in steps {
                var properties: [(String, JSON)] = [
                    ("role", .string("maneuver")),
                    ("leg", .number(Double(leg))),
                    ("type", .string(step.maneuver.type.rawValue)),
                ]
                if let modifier = step.maneuver.modifier { properties.append(("modifier", .string(modifier.rawValue))) }
                if let exit = step.maneuver.exit { properties.append(("exit", .number(Double(exit)))) }
                properties += [
                    ("instruction", .string(step.instruction)),
                    ("name", .string(step.name)),
                    ("distance", .number(step.distance, decimals: 1)),
                    ("duration", .number(step.duration, decimals: 1)),
                ]
                features.append(point(step.maneuver.location, properties))
            }
        }
        return .object([("type", .string("FeatureCollection")), ("features", .array(features))])
    }
}
