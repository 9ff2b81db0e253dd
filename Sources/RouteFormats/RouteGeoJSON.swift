import Guidance
import RoadGraph
import Routing

/// A route as an RFC 7946 FeatureCollection (longitude, latitude): the LineString, then the waypoints, then one
/// Point per maneuver carrying its instruction, all in the directions' language.
public enum RouteGeoJSON {
    public static func make(_ guided: GuidedRoute) -> JSON {
        let (route, directions) = (guided.route, guided.directions)
        var features = [line(route)]
        for (i, snap) in route.waypoints.enumerated() {
            let role = i == 0 ? "start" : i == route.waypoints.count - 1 ? "end" : "via"
            features.append(GeoJSON.point(snap.location, [
                ("role", .string(role)),
                ("name", .string(directions.waypointNames[i])),
                ("snap_distance", .number(snap.distance, decimals: 2)),
            ]))
        }
        for (leg, steps) in directions.legs.enumerated() {
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
                features.append(GeoJSON.point(step.maneuver.location, properties))
            }
        }
        return GeoJSON.collection(features)
    }

    /// The route's line, with its mode, distance and duration.
    public static func line(_ route: Route) -> JSON {
        GeoJSON.line(route.coordinates, [
            ("mode", .string(route.mode.rawValue)),
            ("distance", .number(route.distance, decimals: 1)),
            ("duration", .number(route.duration, decimals: 1)),
        ])
    }
}
