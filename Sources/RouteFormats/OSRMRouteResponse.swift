import Guidance
import RoadGraph
import Routing

/// How the route line is encoded in OSRM responses (`geometries=`).
public enum GeometryEncoding: String, Sendable {
    case polyline, polyline6, geojson
}

/// The OSRM v5 `route` service response.
public enum OSRMRouteResponse {
    /// OSRM's `overview`: the whole line, a simplified one, or none.
    public enum Overview: String, Sendable {
        case full, simplified
        case none = "false"
    }

    /// OSRM's per-segment `annotations`.
    public enum Annotation: String, CaseIterable, Sendable {
        case distance, duration, speed, weight
    }

    public struct Options: Sendable {
        public var geometries: GeometryEncoding = .polyline
        public var steps = true
        public var overview = Overview.full
        public var annotations: [Annotation] = []
        public var includeWaypoints = true
        public init() {}
    }

    /// `alternatives` follow the main route in `routes`, as OSRM lists them.
    public static func make(_ route: Route, directions: Directions, graph: RoadGraph,
                            options: Options = Options(), alternatives: [(Route, Directions)] = []) -> JSON
    {
        var members: [(String, JSON)] = [
            ("code", .string("Ok")),
            ("routes", .array([routeObject(route, directions: directions, options: options)]
                + alternatives.map { routeObject($0.0, directions: $0.1, options: options) })),
        ]
        if options.includeWaypoints {
            // The names come with the directions, in their language; a graph lookup stays for routes without legs.
            let names = directions.waypointNames
            members.append(("waypoints", .array(route.waypoints.enumerated().map { i, snap in
                waypoint(snap, name: i < names.count ? names[i] : graph.name(ofEdge: snap.edge, language: directions.options.language))
            })))
        }
        return .object(members)
    }

    /// An OSRM error body: `{"code": "NoRoute", "message": "..."}`.
    public static func error(code: String, message: String) -> JSON {
        .object([("code", .string(code)), ("message", .string(message))])
    }

    public static func routeObject(_ route: Route, directions: Directions, options: Options) -> JSON {
        var members: [(String, JSON)] = []
        switch options.overview {
        case .full: members.append(("geometry", geometry(route.coordinates, options.geometries)))
        case .simplified: members.append(("geometry", geometry(Simplification.simplify(route.coordinates), options.geometries)))
        case .none: break
        }
        let legs = zip(route.legs, directions.legs).map { leg($0, steps: $1, options) }
        // As MapKit's route says hasTolls and hasHighways: what the route's classes include.
        let classes = route.classes
        members += [
            ("legs", .array(legs)),
            ("weight_name", .string(route.mode == .driving ? "routability" : "duration")),
            ("weight", .number(Double(route.weight) / 1000, decimals: 1)),
            ("duration", .number(route.duration, decimals: 1)),
            ("distance", .number(route.distance, decimals: 1)),
            ("has_tolls", .bool(classes.contains(.toll))),
            ("has_highways", .bool(classes.contains(.motorway))),
            ("has_ferries", .bool(classes.contains(.ferry))),
        ]
        return .object(members)
    }

    static func leg(_ leg: RouteLeg, steps: [GuidanceStep], _ options: Options) -> JSON {
        var members: [(String, JSON)] = [
            ("steps", .array(options.steps ? steps.map { step($0, options) } : [])),
            ("summary", .string(leg.summary)),
            ("weight", .number(Double(leg.weight) / 1000, decimals: 1)),
            ("duration", .number(leg.duration, decimals: 1)),
            ("distance", .number(leg.distance, decimals: 1)),
        ]
        if !options.annotations.isEmpty { members.append(("annotation", annotation(leg, options.annotations))) }
        return .object(members)
    }

    /// Per segment of the leg's line: its length, and its share of its stretch's time.
    static func annotation(_ leg: RouteLeg, _ kinds: [Annotation]) -> JSON {
        var distances: [Double] = [], durations: [Double] = [], weights: [Double] = []
        for stretch in leg.stretches {
            let range = stretch.coordinates
            var lengths: [Double] = []
            for k in range.lowerBound..<range.upperBound {
                lengths.append(Geo.distance(leg.coordinates[k], leg.coordinates[k + 1]))
            }
            let total = lengths.reduce(0, +)
            distances += lengths
            func share(_ value: Double) -> [Double] {
                lengths.map { total > 0 ? value * $0 / total : value / Double(max(1, lengths.count)) }
            }
            durations += share(stretch.duration)
            weights += share(stretch.weight)
        }
        var members: [(String, JSON)] = []
        for kind in kinds {
            switch kind {
            case .distance: members.append(("distance", .array(distances.map { .number($0, decimals: 1) })))
            case .duration: members.append(("duration", .array(durations.map { .number($0, decimals: 1) })))
            case .weight: members.append(("weight", .array(weights.map { .number($0, decimals: 1) })))
            case .speed:
                members.append(("speed", .array(zip(distances, durations).map { .number($1 > 0 ? $0 / $1 : 0, decimals: 1) })))
            }
        }
        return .object(members)
    }

    static func step(_ step: GuidanceStep, _ options: Options) -> JSON {
        let m = step.maneuver
        var maneuver: [(String, JSON)] = [
            ("bearing_after", .number(Double(m.bearingAfter))),
            ("bearing_before", .number(Double(m.bearingBefore))),
            ("location", location(m.location)),
            ("type", .string(m.type.rawValue)),
        ]
        if let modifier = m.modifier { maneuver.append(("modifier", .string(modifier.rawValue))) }
        if let exit = m.exit { maneuver.append(("exit", .number(Double(exit)))) }
        maneuver.append(("instruction", .string(step.instruction)))
        var members: [(String, JSON)] = [
            ("geometry", geometry(step.coordinates, options.geometries)),
            ("maneuver", .object(maneuver)),
            ("mode", .string(step.mode)),
            ("driving_side", .string("right")),
            ("name", .string(step.name)),
        ]
        // OSRM writes these only when the road has them.
        for (key, value) in [("ref", step.ref), ("pronunciation", step.pronunciation), ("destinations", step.destinations),
                             ("exits", step.exits)] where !value.isEmpty {
            members.append((key, .string(value)))
        }
        if let rotary = step.rotaryName {
            members.append(("rotary_name", .string(rotary)))
            if let spoken = step.rotaryPronunciation, !spoken.isEmpty { members.append(("rotary_pronunciation", .string(spoken))) }
        }
        members += [
            ("intersections", .array(step.intersections.map(intersection))),
            ("weight", .number(step.weight, decimals: 1)),
            ("duration", .number(step.duration, decimals: 1)),
            ("distance", .number(step.distance, decimals: 1)),
        ]
        return .object(members)
    }

    static func intersection(_ i: Intersection) -> JSON {
        var members: [(String, JSON)] = []
        if let out = i.outIndex { members.append(("out", .number(Double(out)))) }
        if let inIndex = i.inIndex { members.append(("in", .number(Double(inIndex)))) }
        members += [
            ("entry", .array(i.entry.map(JSON.bool))),
            ("bearings", .array(i.bearings.map { .number(Double($0)) })),
            ("location", location(i.location)),
        ]
        let classes = i.classes.names
        if !classes.isEmpty { members.append(("classes", .array(classes.map(JSON.string)))) }
        if !i.lanes.isEmpty {
            members.append(("lanes", .array(i.lanes.map { lane in
                .object([("indications", .array(lane.indications.map(JSON.string))), ("valid", .bool(lane.valid))])
            })))
        }
        return .object(members)
    }

    public static func waypoint(_ snap: Snap, name: String) -> JSON {
        .object([
            ("distance", .number(snap.distance, decimals: 2)),
            ("name", .string(name)),
            ("location", location(snap.location)),
        ])
    }

    /// A table's waypoints; `null` for a point that found no road (its row or column is all nulls).
    public static func waypoints(_ snaps: [Snap?], graph: RoadGraph) -> JSON {
        .array(snaps.map { $0.map { waypoint($0, name: graph.name(ofEdge: $0.edge)) } ?? .null })
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
