import Isochrones
import RoadGraph
import Routing

/// An isochrone as Mapbox's isochrone API answers it: a FeatureCollection with one feature per contour, the
/// farthest first (so that nearer ones draw on top), each with `contour` (minutes or metres, as asked), `metric`
/// (`time` or `distance`), `color`, `opacity`, and the fill properties Mapbox GL and Leaflet read.
public enum IsochroneGeoJSON {
    /// Colours by contour, nearest first, when the request names none (`contours_colors`).
    public static let palette = ["3cb44b", "ffe119", "f58231", "e6194b"]

    public static func make(_ isochrone: Isochrone, polygons: Bool = true, colors: [String]? = nil) -> JSON {
        let sorted = isochrone.contours.enumerated().sorted { $0.element.limit > $1.element.limit }
        let features: [JSON] = sorted.map { k, contour in
            let color = "#" + (colors?[k] ?? palette[k % palette.count])
            let value = isochrone.metric == .duration ? contour.limit / 60 : contour.limit
            return GeoJSON.feature(geometry(contour, polygons: polygons), [
                ("contour", .number(value, decimals: 3)),
                ("metric", .string(isochrone.metric == .duration ? "time" : "distance")),
                ("color", .string(color)),
                ("opacity", .number(0.33)),
                ("fill", .string(color)),
                ("fill-opacity", .number(0.33)),
                ("fillColor", .string(color)),
                ("fillOpacity", .number(0.33)),
            ])
        }
        return GeoJSON.collection(features)
    }

    static func ring(_ ring: [Coordinate]) -> JSON { .array(ring.map(OSRMRouteResponse.location)) }

    /// Polygon (one part) or MultiPolygon; with `polygons` false, the rings as lines (LineString or MultiLineString).
    static func geometry(_ contour: Contour, polygons: Bool) -> JSON {
        if polygons {
            if contour.polygons.count == 1 {
                return .object([("type", .string("Polygon")), ("coordinates", .array(contour.polygons[0].map(ring)))])
            }
            return .object([("type", .string("MultiPolygon")),
                            ("coordinates", .array(contour.polygons.map { .array($0.map(ring)) }))])
        }
        let rings = contour.polygons.flatMap { $0 }
        if rings.count == 1 { return .object([("type", .string("LineString")), ("coordinates", ring(rings[0]))]) }
        return .object([("type", .string("MultiLineString")), ("coordinates", .array(rings.map(ring)))])
    }
}
