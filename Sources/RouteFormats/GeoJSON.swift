import RoadGraph

/// The pieces every GeoJSON answer is built of (RFC 7946: longitude before latitude), so that a feature is
/// written one way whichever answer carries it.
public enum GeoJSON {
    /// A Feature: its geometry, then its properties.
    public static func feature(_ geometry: JSON, _ properties: [(String, JSON)]) -> JSON {
        .object([("type", .string("Feature")), ("geometry", geometry), ("properties", .object(properties))])
    }

    public static func point(_ c: Coordinate) -> JSON {
        .object([("type", .string("Point")), ("coordinates", OSRMRouteResponse.location(c))])
    }

    /// A Point feature.
    public static func point(_ c: Coordinate, _ properties: [(String, JSON)]) -> JSON { feature(point(c), properties) }

    /// A LineString feature.
    public static func line(_ coordinates: [Coordinate], _ properties: [(String, JSON)]) -> JSON {
        feature(OSRMRouteResponse.geometry(coordinates, .geojson), properties)
    }

    /// A FeatureCollection; `members` go between its type and its features (a `bbox`, a header).
    public static func collection(_ features: [JSON], members: [(String, JSON)] = []) -> JSON {
        .object([("type", .string("FeatureCollection"))] + members + [("features", .array(features))])
    }
}
