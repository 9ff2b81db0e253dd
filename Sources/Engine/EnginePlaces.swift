import Foundation
import Geocoding
import RoadGraph

/// A point as the user gave it: a coordinate, or the place a name was resolved to.
public struct ResolvedPoint: Sendable {
    public var coordinate: Coordinate
    /// The place a name stood for; nil when a coordinate was given.
    public var place: Placemark?
}

extension Engine {
    /// "lat,lon", or a place name looked up in the place index (the best candidate, biased towards `near`).
    public func resolve(_ text: String, near: Coordinate? = nil, language: String? = nil) throws -> ResolvedPoint {
        switch try PointText.parse(text) {
        case .coordinate(let point):
            return ResolvedPoint(coordinate: point, place: nil)
        case .name(let name):
            guard let best = try geocode(name, near: near, limit: 1, language: language).first else {
                let closest = (try? geocode(String(name.prefix(3)), limit: 3, language: language).map(\.name)) ?? []
                throw EngineError(.noMatch, "\(GeocodingError.noMatch(name, closest: closest))")
            }
            return ResolvedPoint(coordinate: best.coordinate, place: best)
        }
    }

    /// Ranked places for free text.
    public func geocode(_ query: String, near: Coordinate? = nil, limit: Int = 5, language: String? = nil) throws
        -> [Placemark]
    {
        try checkQuery(query)
        let geocoder = try placeIndex()
        return try withinBudget { try geocoder.forward(query, near: near, limit: limit, language: language) }
    }

    /// Structured search: street, house number, city, postcode.
    public func geocode(street: String?, housenumber: String?, city: String?, postcode: String?, near: Coordinate? = nil,
                        limit: Int = 5, language: String? = nil) throws -> [Placemark]
    {
        try checkQuery([street, housenumber, postcode, city].compactMap { $0 }.joined(separator: " "))
        let geocoder = try placeIndex()
        return try withinBudget {
            try geocoder.structured(street: street, housenumber: housenumber, city: city, postcode: postcode,
                                    near: near, limit: limit, language: language)
        }
    }

    public func reverse(_ point: Coordinate, radius: Double = 50, language: String? = nil) throws -> Placemark? {
        let geocoder = try placeIndex()
        return try withinBudget { try geocoder.reverse(point, radius: radius, language: language) }
    }

    /// Places of a category, or with a name, near a point.
    public func search(_ query: String, near: Coordinate, radius: Double = 2000, limit: Int = 10,
                       language: String? = nil) throws -> [Placemark]
    {
        try checkQuery(query)
        let geocoder = try placeIndex()
        return try withinBudget {
            try geocoder.search(query, near: near, radius: radius, limit: limit, language: language)
        }
    }

    public func placeIndex() throws -> Geocoder {
        do { return try current.geocoder() } catch {
            throw EngineError(.notFound, "no place index for these graphs: re-run wayfinder import")
        }
    }

    /// Free text within the configured length and word count: the geocoder's work grows with both.
    func checkQuery(_ text: String) throws {
        guard text.utf8.count <= limits.maxQueryLength else {
            throw EngineError(.tooBig, "a place query may be at most \(limits.maxQueryLength) bytes long (--max-query-length)")
        }
        let words = TextNormalizer.tokens(text).count
        guard words <= limits.maxQueryWords else {
            throw EngineError(.tooBig, "a place query may have at most \(limits.maxQueryWords) words; this one has \(words) (--max-query-words)")
        }
    }
}
