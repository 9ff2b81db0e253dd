import RoadGraph
import Routing

/// How the route line is encoded in OSRM responses (`geometries=`).
public enum GeometryEncoding: String, Sendable {
    case polyline, polyline6, geojson
}

/// The OSRM v5 `route` service response.
public enum OSRMRouteResponse {
    public struct Options: Sendable {
        public var geometries: GeometryEncoding = .polyline
        public var steps = true
        public var overview = true
        public init() {}
    }

    public static func make(_ route: Route, options: Options = Options()) -> JSON {
        .object([
            ("code", .string("Ok")),
            ("routes", .array([routeObject(route, options: options)])),
            ("waypoints", .array(route.waypoints.map(waypoint))),
        ])
    }

    /// An OSRM error body: `{"code": "NoRoute", "message": "..."}`.
    public static func error(code: String, message: String) -> JSON {
        .object([("code", .string(code)), ("message", .string(message))])
    }

    static func routeObject(_ route: Route, options: Options) -> JSON {
        var members: [(String, JSON)] = []
        if options.overview { members.append(("geometry", geometry(route.coordinates, options.geometries))) }
        members += [
            ("legs", .array(route.legs.map { leg(route.mode, $0, options) })),
            ("weight_name", .string("duration")),
            ("weight", .number(route.duration, decimals: 1)),
            ("duration", .number(route.duration, decimals: 1)),
            ("distance", .number(route.distance, decimals: 1)),
        ]
        return .object(members)
    }

    static func leg(_ mode: TravelMode, _ leg: RouteLeg, _ options: Options) -> JSON {
        let steps = leg.steps
        // OSRM's summary: the names of the longest roads, in route order.
        let named = steps.filter { !$0.name.isEmpty }
        let longest = Set(named.sorted { $0.distance > $1.distance }.prefix(2).map(\.name))
        var summaryNames: [String] = []
        for step in named where longest.contains(step.name) && !summaryNames.contains(step.name) {
            summaryNames.append(step.name)
        }
        return .object([
            ("steps", .array(options.steps ? steps.map { step(mode, $0, options) } : [])),
            ("summary", .string(summaryNames.joined(separator: ", "))),
            ("weight", .number(leg.duration, decimals: 1)),
            ("duration", .number(leg.duration, decimals: 1)),
            ("distance", .number(leg.distance, decimals: 1)),
        ])
    }

    static func step(_ mode: TravelMode, _ step: RouteStep, _ options: Options) -> JSON {
        var maneuver: [(String, JSON)] = [
            ("bearing_after", .number(Double(step.bearingAfter))),
            ("bearing_before", .number(Double(step.bearingBefore))),
            ("location", location(step.location)),
            ("type", .string(step.kind.rawValue)),
        ]
        if let modifier = step.modifier { maneuver.append(("modifier", .string(modifier))) }
        let intersection: JSON
        switch step.kind {
        case .depart:
            intersection = .object([("out", .number(0)), ("entry", .array([.bool(true)])),
                                    ("bearings", .array([.number(Double(step.bearingAfter))])),
                                    ("location", location(step.location))])
        case .arrive:
            intersection = .object([("in", .number(0)), ("entry", .array([.bool(true)])),
                                    ("bearings", .array([.number(Double((step.bearingBefore + 180) % 360))])),
                                    ("location", location(step.location))])
        default:
            let incoming = (step.bearingBefore + 180) % 360
            let ordered = [incoming, step.bearingAfter].sorted()
            intersection = .object([
                ("out", .number(Double(ordered.firstIndex(of: step.bearingAfter)!))),
                ("in", .number(Double(ordered.firstIndex(of: incoming)!))),
                ("entry", .array(ordered.map { .bool($0 == step.bearingAfter || ordered.count == 1) })),
                ("bearings", .array(ordered.map { .number(Double($0)) })),
                ("location", location(step.location)),
            ])
        }
        var members: [(String, JSON)] = [
            ("geometry", geometry(step.coordinates, options.geometries)),
            ("maneuver", .object(maneuver)),
            ("mode", .string(mode.rawValue)),
            ("driving_side", .string("right")),
            ("name", .string(step.name)),
        ]
        if !step.ref.isEmpty { members.append(("ref", .string(step.ref))) }
        members += [
            ("intersections", .array([intersection])),
            ("weight", .number(step.duration, decimals: 1)),
            ("duration", .number(step.duration, decimals: 1)),
            ("distance", .number(step.distance, decimals: 1)),
        ]
        return .object(members)
    }

    static func waypoint(_ snap: Snap) -> JSON {
        .object([
            ("distance", .number(snap.distance, decimals: 2)),
            ("name", .string(snap.name)),
            ("location", location(snap.location)),
        ])
    }

    /// `[longitude, latitude]`, six decimals, as OSRM and GeoJSON order them.
    public static func location(_ c: Coordinate) -> JSON {
        .array([.number(c.longitude, decimals: 6), .number(c.latitude, decimals: 6)])
    }

    public static func geometry(_ coordinates: [Coordinate], _ encoding: GeometryEncoding) -> JSON {
        switch encoding {
        case .polyline: return .string(Polyline.encode(coordinates, precision: 5))
        case .polyline6: return .string(Polyline.encode(coordinates, precision: 6))
        case .geojson: return .object([("type", .string("LineString")), ("coordinates", .array(coordinates.map(location)))])
        }
    }
}
