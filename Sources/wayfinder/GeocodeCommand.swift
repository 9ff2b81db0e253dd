import Engine
import Foundation
import Geocoding
import RoadGraph
import RouteFormats

enum PlaceFormat: String {
    case text, json, geojson
}

/// `wayfinder geocode`, `reverse` and `search`: the place index built by `import`.
enum GeocodeCommand {
    static let help = """
    Usage: wayfinder geocode --graph <dir> [--near lat,lon] [--limit N] [--language xx] [--format text|json|geojson] "query"
           wayfinder geocode --graph <dir> [--street S] [--housenumber N] [--city C] [--postcode P] ...
           wayfinder reverse --graph <dir> [--radius metres] [--language xx] [--format ...] lat,lon
           wayfinder search  --graph <dir> --near lat,lon [--radius 2km] [--limit N] [--format ...] "school"

    geocode finds places, streets, addresses and POIs by name (accents, case, typos and word order forgiven;
    prefixes match, for search-as-you-type; CJK names by characters). reverse gives the placemark at a point: the
    nearest address, else the nearest street, else the containing area. search finds places of a category
    (school, 学校, restaurant, 餐厅, pharmacy, 药店, supermarket, park, …) or name near a point, with distance and
    bearing. json is GeocodeJSON (as Photon and Nominatim return); geojson is a FeatureCollection of map pins.
    """

    /// The engine for place queries: no routing graph is needed.
    static func open(_ args: Arguments) throws -> Engine { try openEngine(args, modes: []) }

    static func output(_ places: [Placemark], _ format: PlaceFormat, query: String) {
        switch format {
        case .text: print(PlaceFormats.text(places))
        case .json: print(PlaceFormats.geocodeJSON(places, query: query).serialized())
        case .geojson: print(PlaceFormats.geoJSON(places).serialized())
        }
    }

    static func geocode(_ raw: [String]) throws -> ExitCode {
        let args = try Arguments(raw, flags: ["--help"], options: ["--graph", "--near", "--limit", "--language", "--format",
                                                                   "--street", "--housenumber", "--city", "--postcode",
                                                                   "--max-query-length", "--max-query-words"])
        if args.has("--help") { print(help); return .ok }
        let format: PlaceFormat = try args.choice("--format", default: .text)
        let limit = try args.integer("--limit", default: 5, range: 1...100)
        let near = try args["--near"].map(parseCoordinate)
        let engine = try open(args)
        let structured = ["--street", "--housenumber", "--city", "--postcode"].contains { args[$0] != nil }
        guard structured || args.positional.count == 1 else { throw CommandError.usage("geocode takes one quoted query") }
        let query = structured ? ["--street", "--housenumber", "--postcode", "--city"].compactMap { args[$0] }.joined(separator: " ")
            : args.positional[0]
        let places = try engineCall {
            structured
                ? try engine.geocode(street: args["--street"], housenumber: args["--housenumber"], city: args["--city"],
                                     postcode: args["--postcode"], near: near, limit: limit, language: args["--language"])
                : try engine.geocode(query, near: near, limit: limit, language: args["--language"])
        }
        output(places, format, query: query)
        return places.isEmpty ? .badInput : .ok
    }

    static func reverse(_ raw: [String]) throws -> ExitCode {
        let args = try Arguments(raw, flags: ["--help"], options: ["--graph", "--radius", "--language", "--format"])
        if args.has("--help") { print(help); return .ok }
        let format: PlaceFormat = try args.choice("--format", default: .text)
        guard args.positional.count == 1 else { throw CommandError.usage("reverse takes one lat,lon") }
        let point = try parseCoordinate(args.positional[0])
        let radius = try distance(args["--radius"] ?? "50")
        let engine = try open(args)
        guard let place = try engineCall({ try engine.reverse(point, radius: radius, language: args["--language"]) }) else {
            output([], format, query: args.positional[0])
            throw CommandError.badInput("nothing known at \(args.positional[0])")
        }
        if format == .text {
            print(PlaceFormats.text([place]))
            for (label, value) in [("name", place.name), ("thoroughfare", place.thoroughfare), ("subThoroughfare", place.subThoroughfare),
                                   ("locality", place.locality), ("subLocality", place.subLocality),
                                   ("administrativeArea", place.administrativeArea), ("subAdministrativeArea", place.subAdministrativeArea),
                                   ("postalCode", place.postalCode), ("country", place.country), ("isoCountryCode", place.isoCountryCode)]
                where !value.isEmpty
            {
                print("   \(label): \(value)")
            }
        } else {
            output([place], format, query: args.positional[0])
        }
        return .ok
    }

    static func search(_ raw: [String]) throws -> ExitCode {
        let args = try Arguments(raw, flags: ["--help"], options: ["--graph", "--near", "--radius", "--limit", "--language", "--format",
                                                                   "--max-query-length", "--max-query-words"])
        if args.has("--help") { print(help); return .ok }
        let format: PlaceFormat = try args.choice("--format", default: .text)
        guard args.positional.count == 1 else { throw CommandError.usage("search takes one quoted query") }
        guard let near = try args["--near"].map(parseCoordinate) else { throw CommandError.usage("search needs --near lat,lon") }
        let radius = try distance(args["--radius"] ?? "2km")
        let engine = try open(args)
        let limit = try args.integer("--limit", default: 10, range: 1...200)
        let places = try engineCall {
            try engine.search(args.positional[0], near: near, radius: radius, limit: limit, language: args["--language"])
        }
        output(places, format, query: args.positional[0])
        return .ok
    }

    /// "500", "500m", "2km".
    static func distance(_ text: String) throws -> Double {
        let t = text.lowercased().trimmingCharacters(in: .whitespaces)
        let (number, scale) = t.hasSuffix("km") ? (t.dropLast(2), 1000.0) : t.hasSuffix("m") ? (t.dropLast(), 1.0) : (Substring(t), 1.0)
        guard let value = Double(number), value > 0, value <= 100_000 else {
            throw CommandError.usage("'\(text)' is not a distance such as 500, 500m or 2km")
        }
        return value * scale
    }
}
