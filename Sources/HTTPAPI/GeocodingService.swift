import Engine
import Foundation
import Geocoding
import RoadGraph
import RouteFormats

/// `/geocode?q=…&near=lat,lon&limit=…`, `/reverse?lat=…&lon=…`, `/search?q=…&near=lat,lon&radius=…`:
/// GeoJSON FeatureCollections with GeocodeJSON-style properties.
struct GeocodingService {
    let engine: Engine

    func handle(_ request: HTTPRequest) throws -> HTTPResponse {
        let language = request.argument("language")
        let near = try request.argument("near").map(coordinate)
        switch request.path {
        case "/geocode":
            guard let q = request.argument("q"), !q.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw EngineError(.invalidQuery, "geocode needs q=")
            }
            let limit = try number(request, "limit", default: 5, range: 1...50)
            let places = try engine.geocode(q, near: near, limit: Int(limit), language: language)
            return .json(PlaceFormats.geocodeJSON(places, query: q))
        case "/reverse":
            guard let lat = request.argument("lat").flatMap({ Double(decimal: $0) }), let lon = request.argument("lon").flatMap({ Double(decimal: $0) }) else {
                throw EngineError(.invalidQuery, "reverse needs lat= and lon=")
            }
            let point = try OSRMRequest.checked(Coordinate(latitude: lat, longitude: lon))
            let radius = try number(request, "radius", default: 50, range: 1...5000)
            let places = try engine.reverse(point, radius: radius, language: language).map { [$0] } ?? []
            return .json(PlaceFormats.geocodeJSON(places, query: "\(lat),\(lon)"))
        default:
            guard let q = request.argument("q"), let near else { throw EngineError(.invalidQuery, "search needs q= and near=lat,lon") }
            let radius = try number(request, "radius", default: 2000, range: 1...100_000)
            let limit = try number(request, "limit", default: 10, range: 1...200)
            let places = try engine.search(q, near: near, radius: radius, limit: Int(limit), language: language)
            return .json(PlaceFormats.geocodeJSON(places, query: q))
        }
    }

    private func coordinate(_ text: String) throws -> Coordinate { try PointText.coordinate(text) }

    private func number(_ request: HTTPRequest, _ key: String, default value: Double, range: ClosedRange<Double>) throws -> Double {
        guard let text = request.argument(key) else { return value }
        guard let n = Double(text), range.contains(n) else {
            throw EngineError(.invalidValue, "\(key) must be from \(Int(range.lowerBound)) to \(Int(range.upperBound))")
        }
        return n
    }
}
