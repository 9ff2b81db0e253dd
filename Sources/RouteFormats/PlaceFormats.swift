import Foundation
import Geocoding
import RoadGraph

/// Geocoding results as text, GeocodeJSON (as Photon and Nominatim answer) and GeoJSON map pins.
public enum PlaceFormats {
    public static func text(_ places: [Placemark]) -> String {
        if places.isEmpty { return "no results" }
        return places.enumerated().map { i, p in
            var line = "\(i + 1). \(p.name.isEmpty ? p.category : p.name)"
            if !p.subtitle.isEmpty { line += " — \(p.subtitle)" }
            line += String(format: " (%.6f,%.6f) [%@]", p.coordinate.latitude, p.coordinate.longitude, p.category)
            if let d = p.distance {
                line += " \(Int(d.rounded())) m"
                if let b = p.bearing { line += " " + compass(b) }
            }
            return line
        }.joined(separator: "\n")
    }

    static func compass(_ bearing: Double) -> String {
        ["N", "NE", "E", "SE", "S", "SW", "W", "NW"][Int((bearing / 45).rounded()) % 8]
    }

    static func fields(_ p: Placemark) -> [(String, JSON)] {
        var members: [(String, JSON)] = [
            ("type", .string(p.kind)), ("label", .string([p.name, p.subtitle].filter { !$0.isEmpty }.joined(separator: ", "))),
            ("name", .string(p.name)), ("category", .string(p.category)),
        ]
        for (key, value) in [("housenumber", p.subThoroughfare), ("street", p.thoroughfare), ("postcode", p.postalCode),
                             ("city", p.locality), ("district", p.subLocality), ("county", p.subAdministrativeArea),
                             ("state", p.administrativeArea), ("country", p.country), ("country_code", p.isoCountryCode)]
            where !value.isEmpty
        {
            members.append((key, .string(value)))
        }
        if !p.osmType.isEmpty { members += [("osm_type", .string(p.osmType)), ("osm_id", .number(Double(p.osmID)))] }
        if let d = p.distance { members.append(("distance", .number(d, decimals: 1))) }
        if let b = p.bearing { members.append(("bearing", .number(b, decimals: 0))) }
        if !p.bounds.isEmpty, p.bounds.minLatitude < p.bounds.maxLatitude || p.bounds.minLongitude < p.bounds.maxLongitude {
            members.append(("extent", .array([p.bounds.minLongitude, p.bounds.maxLatitude, p.bounds.maxLongitude, p.bounds.minLatitude]
                .map { .number($0, decimals: 6) })))
        }
        return members
    }

    /// GeocodeJSON: a FeatureCollection with a `geocoding` header and `properties.geocoding` per feature.
    public static func geocodeJSON(_ places: [Placemark], query: String) -> JSON {
        GeoJSON.collection(places.map { p in GeoJSON.point(p.coordinate, [("geocoding", .object(fields(p)))]) }, members: [
            ("geocoding", .object([("version", .string("0.1.0")), ("attribution", .string("© OpenStreetMap contributors, ODbL 1.0")),
                                   ("query", .string(query))])),
        ])
    }

    /// Map pins: `title` and `subtitle` beside the placemark fields.
    public static func geoJSON(_ places: [Placemark]) -> JSON {
        GeoJSON.collection(places.map { p in
            GeoJSON.point(p.coordinate, [("title", .string(p.name.isEmpty ? p.category : p.name)), ("subtitle", .string(p.subtitle))] + fields(p))
        })
    }
}
