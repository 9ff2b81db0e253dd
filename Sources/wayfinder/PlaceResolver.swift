import Foundation
import Geocoding
import RoadGraph

/// Turns what the user typed for a point into a coordinate: `lat,lon` as given, or a place name looked up in the
/// graph's place index (the best candidate, biased towards the point before it). The index opens on first use.
final class PlaceResolver {
    private let graphDirectory: String?
    private let language: String
    private var geocoder: Geocoder?
    private var previous: Coordinate?

    init(graphDirectory: String?, language: String = "en") {
        self.graphDirectory = graphDirectory
        self.language = language
    }

    /// The point, and the place it names (nil for a coordinate).
    func resolve(_ text: String) throws -> (Coordinate, Placemark?) {
        if let point = try? parseCoordinate(text) {
            previous = point
            return (point, nil)
        }
        // Something that looks like numbers but is not a valid coordinate is an error, not a name.
        if text.allSatisfy({ $0.isNumber || ",.-+ ;".contains($0) }) { _ = try parseCoordinate(text) }
        if geocoder == nil {
            guard let directory = graphDirectory else { throw CommandError.usage("--graph is required") }
            do { geocoder = try Geocoder(graphDirectory: directory) } catch { throw CommandError.badInput("\(error)") }
        }
        guard let best = try geocoder!.forward(text, near: previous, limit: 1, language: language).first else {
            let closest = try geocoder!.forward(String(text.prefix(3)), limit: 3, language: language).map(\.name)
            throw CommandError.badInput("\(GeocodingError.noMatch(text, closest: closest))")
        }
        previous = best.coordinate
        return (best.coordinate, best)
    }
}
