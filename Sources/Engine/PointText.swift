import Foundation
import RoadGraph

/// What a user typed for a point: a coordinate, or the name of a place. Text that looks like a coordinate is
/// always read as one, valid or not: "0,inf" is a bad coordinate, never a search for a street called "Infante".
public enum PointText: Equatable, Sendable {
    case coordinate(Coordinate)
    case name(String)

    /// Reads `lat,lon` (as a maps app writes it); anything that is not number-like is a name.
    public static func parse(_ text: String) throws -> PointText {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let parts = trimmed.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        let numbers = parts.map { Double($0) }
        let numberLike = parts.count == 2 && numbers.allSatisfy { $0 != nil }
            // Digits, signs, dots and separators only: "60.17;24.9" or "1,2,3" are broken coordinates too.
            || (!trimmed.isEmpty && trimmed.allSatisfy { $0.isASCII && ($0.isNumber || ",.-+ ;".contains($0)) })
        guard numberLike else { return .name(trimmed) }
        guard parts.count == 2, let lat = numbers[0], let lon = numbers[1] else {
            throw EngineError(.invalidValue, "'\(text)' is not a coordinate: expected lat,lon such as 60.1699,24.9384")
        }
        guard lat.isFinite, lon.isFinite else {
            throw EngineError(.invalidValue, "'\(text)' is not a coordinate: latitude and longitude must be finite numbers")
        }
        guard abs(lat) <= 90, abs(lon) <= 180 else {
            throw EngineError(.invalidValue, "'\(text)' is out of range: latitude must be within ±90 and longitude within ±180")
        }
        return .coordinate(Coordinate(latitude: lat, longitude: lon))
    }

    /// A `lat,lon` that must be a coordinate (no names allowed here).
    public static func coordinate(_ text: String) throws -> Coordinate {
        guard case .coordinate(let point) = try parse(text) else {
            throw EngineError(.invalidValue, "'\(text)' is not a coordinate: expected lat,lon such as 60.1699,24.9384")
        }
        return point
    }
}
