import Engine
import Foundation
import RoadGraph
import RouteFormats

extension EngineError {
    /// OSRM's error body, `{"code": …, "message": …}`, with the error's HTTP status.
    var response: HTTPResponse {
        .json(OSRMRouteResponse.error(code: code, message: message).serialized(), status: status)
    }
}

/// `/{service}/v1/{profile}/{coordinates}?…` taken apart and checked.
struct OSRMRequest {
    var service: String
    var mode: TravelMode
    /// As the client gave them: OSRM URLs say `lon,lat`.
    var coordinates: [Coordinate]
    var options: [String: String]

    static let services: Set<String> = ["route", "table", "nearest"]

    init(path: String, query: [(key: String, value: String)]) throws {
        var parts = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard parts.count == 4 else {
            throw EngineError(.invalidURL, "URL must look like /{service}/v1/{profile}/{coordinates}")
        }
        guard Self.services.contains(parts[0]) else {
            throw EngineError(.invalidService, "service '\(parts[0])' is not supported (route, table, nearest)")
        }
        guard parts[1] == "v1" else { throw EngineError(.invalidVersion, "version '\(parts[1])' is not supported (v1)") }
        guard let mode = TravelMode(profileName: parts[2]) else {
            throw EngineError(.invalidValue, "unknown profile '\(parts[2])' (driving, car, walking, foot)")
        }
        if parts[3].hasSuffix(".json") { parts[3].removeLast(5) }
        service = parts[0]
        self.mode = mode
        coordinates = try Self.parseCoordinates(parts[3])
        var options: [String: String] = [:]
        for (key, value) in query {
            guard options[key] == nil else { throw EngineError(.invalidOptions, "option '\(key)' is given twice") }
            options[key] = value
        }
        self.options = options
    }

    /// `lon,lat;lon,lat`, `polyline(…)` or `polyline6(…)`.
    static func parseCoordinates(_ text: String) throws -> [Coordinate] {
        if text.hasPrefix("polyline(") || text.hasPrefix("polyline6("), text.hasSuffix(")") {
            let precision = text.hasPrefix("polyline6(") ? 6 : 5
            let encoded = String(text.drop { $0 != "(" }.dropFirst().dropLast())
            guard let decoded = Polyline.decode(encoded, precision: precision), !decoded.isEmpty else {
                throw EngineError(.invalidURL, "the polyline of coordinates does not decode")
            }
            return try decoded.map(checked)
        }
        return try text.split(separator: ";", omittingEmptySubsequences: false).map { pair in
            let numbers = pair.split(separator: ",", omittingEmptySubsequences: false)
            guard numbers.count == 2, let lon = Double(numbers[0]), let lat = Double(numbers[1]) else {
                throw EngineError(.invalidURL, "'\(pair)' is not a coordinate: expected lon,lat")
            }
            return try checked(Coordinate(latitude: lat, longitude: lon))
        }
    }

    static func checked(_ c: Coordinate) throws -> Coordinate {
        guard c.latitude.isFinite, c.longitude.isFinite, abs(c.latitude) <= 90, abs(c.longitude) <= 180 else {
            throw EngineError(.invalidValue, "coordinate \(c.longitude),\(c.latitude) is out of range (lon ±180, lat ±90)")
        }
        return c
    }

    /// Rejects options the service does not know: a typo should not be silently ignored.
    func allowOnly(_ keys: Set<String>) throws {
        // Accepted for compatibility with OSRM clients; they do not change Wayfinder's answer.
        let tolerated: Set<String> = ["hints", "generate_hints", "approaches", "exclude", "snapping", "skip_waypoints",
                                      "format", "fallback_speed",
                                      "fallback_coordinate", "scale_factor", "language"]
        for key in options.keys where !keys.contains(key) && !tolerated.contains(key) {
            throw EngineError(.invalidOptions, "unknown option '\(key)' for the \(service) service")
        }
    }

    func bool(_ key: String, default value: Bool) throws -> Bool {
        switch options[key] {
        case nil: return value
        case "true": return true
        case "false": return false
        case let other?: throw EngineError(.invalidValue, "\(key) must be true or false, not '\(other)'")
        }
    }

    func choice<T: RawRepresentable>(_ key: String, default value: T) throws -> T where T.RawValue == String {
        guard let text = options[key] else { return value }
        guard let parsed = T(rawValue: text) else { throw EngineError(.invalidValue, "invalid value '\(text)' for \(key)") }
        return parsed
    }

    /// A `;`-separated list with one entry per coordinate (entries may be empty).
    func perCoordinate(_ key: String) throws -> [String]? {
        guard let text = options[key] else { return nil }
        let items = text.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
        guard items.count == coordinates.count else {
            throw EngineError(.invalidOptions, "\(key) has \(items.count) entries for \(coordinates.count) coordinates")
        }
        return items
    }

    /// `sources=`/`destinations=`: `all` or indices into the coordinates.
    func indices(_ key: String) throws -> [Int] {
        guard let text = options[key], text != "all" else { return Array(coordinates.indices) }
        return try text.split(separator: ";", omittingEmptySubsequences: false).map {
            guard let i = Int($0), coordinates.indices.contains(i) else {
                throw EngineError(.invalidValue, "\(key) must list coordinate indices from 0 to \(coordinates.count - 1)")
            }
            return i
        }
    }
}
