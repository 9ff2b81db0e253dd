import Foundation
import Geocoding
import Guidance
import RoadGraph
import RouteFormats
import Routing

enum RouteFormat: String {
    case text, json, geojson, gpx, polyline, polyline6, protobuf
}

enum RouteCommand {
    static let help = """
    Usage: wayfinder route --graph <dir> [options] <lat,lon> <lat,lon> [<lat,lon> ...]

    Finds the fastest route through the points in order (the middle ones are via points, one leg each).
    Coordinates are latitude,longitude as a maps app shows them; each snaps to the nearest road usable by the mode.

    Options:
      --mode driving|walking        travel mode (default driving; car and foot are accepted too)
      --format text|json|geojson|gpx|polyline|polyline6
                                    text (default): directions; json: OSRM v5 route response with steps;
                                    geojson: RFC 7946 line plus start/end points; gpx: GPX 1.1 route and track;
                                    polyline(6): encoded line; protobuf: a wayfinder.Route message (binary)
      --language en|zh|…            street names from name:xx where mapped, and instructions where a phrase
                                    file exists (en, zh; others fall back to English); default en
      --units metric|imperial       distances in instructions (default metric)
      --algorithm ch|astar|dijkstra search algorithm (default: ch where the graph has a contraction hierarchy, else
                                    astar; all give the same cost)
      --max-snap <metres>           how far a point may be from a road (default 5000)
      --alternatives N              up to N (at most 3) other reasonable routes between two points, in text
                                    (a summary line each) and json (more entries in routes)
      --continue-straight true|false
                                    pass via points without turning back there (default: true driving, false
                                    walking; OSRM's continue_straight)
    """

    static func run(_ raw: [String]) throws -> ExitCode {
        let args = try Arguments(raw, flags: ["--help"],
                                 options: ["--graph", "--mode", "--format", "--algorithm", "--max-snap", "--language",
                                           "--units", "--continue-straight", "--alternatives"])
        if args.has("--help") { print(help); return .ok }
        let format: RouteFormat = try args.choice("--format", default: .text)
        let algorithm: SearchAlgorithm = try args.choice("--algorithm", default: .automatic)
        let mode = try args.mode()
        let options = DirectionsOptions(language: args["--language"] ?? "en", units: try args.choice("--units", default: .metric))
        guard args.positional.count >= 2 else { throw CommandError.usage("route needs at least two points (lat,lon or a place name)") }
        let (points, places) = try resolvePoints(args.positional, graphDirectory: args["--graph"], language: options.language)
        for (i, place) in places.enumerated() where place != nil && format == .text {
            print("\(i == 0 ? "From" : i == places.count - 1 ? "To" : "Via"): \(place!.name) (\(place!.coordinate))")
        }
        let graph = try loadGraph(directory: args["--graph"], mode: mode)
        if algorithm == .ch && !graph.hasHierarchy {
            throw CommandError.badInput("the \(mode.rawValue) graph has no contraction hierarchy (imported with --no-contraction)")
        }
        var router = Router(graph: graph)
        if let text = args["--max-snap"] {
            guard let metres = Double(text), metres > 0, metres.isFinite else {
                throw CommandError.usage("--max-snap must be a positive number of metres")
            }
            router.maxSnapDistance = metres
        }
        let alternativeCount = try args.integer("--alternatives", default: 0, range: 0...3)
        let continueStraight: Bool?
        switch args["--continue-straight"] {
        case nil: continueStraight = nil
        case "true": continueStraight = true
        case "false": continueStraight = false
        case let other?: throw CommandError.usage("invalid value '\(other)' for --continue-straight (true, false)")
        }
        do {
            let route = try router.route(points, algorithm: algorithm, continueStraight: continueStraight)
            let directions = try Directions(route: route, graph: graph, options: options)
            // Only text and json show alternatives: the other formats carry one route.
            let others = format == .text || format == .json
                ? try router.alternatives(to: route, count: alternativeCount).map {
                    ($0, try Directions(route: $0, graph: graph, options: options))
                } : []
            if format == .protobuf {
                FileHandle.standardOutput.write(Data(try ProtobufOutput.route(route, directions: directions, graph: graph)))
            } else {
                print(render(route, directions, graph, format, alternatives: others))
                for (k, (other, otherDirections)) in others.enumerated() where format == .text {
                    // A summary line, and the two roads it uses most, to tell it apart.
                    var byName: [String: Double] = [:]
                    for s in other.legs.flatMap(\.stretches) where !s.name.isEmpty { byName[s.name, default: 0] += s.distance }
                    let via = byName.sorted { $0.value > $1.value }.prefix(2).map(\.key)
                    print("Alternative \(k + 1): " + otherDirections.phrases.summary(
                        distance: other.distance, duration: other.duration, mode: graph.mode, units: options.units)
                        + (via.isEmpty ? "" : " — " + via.joined(separator: ", ")))
                }
            }
            return .ok
        } catch let error as RoutingError {
            if format == .json { print(OSRMRouteResponse.error(code: error.code, message: error.description).serialized()) }
            switch error {
            case .noRoute: throw CommandError(message: error.description, code: .noRoute, osrmCode: error.code)
            default: throw CommandError(message: error.description, code: .badInput, osrmCode: error.code)
            }
        }
    }

    static func resolvePoints(_ texts: [String], graphDirectory: String?, language: String)
        throws -> ([Coordinate], [Placemark?])
    {
        let resolver = PlaceResolver(graphDirectory: graphDirectory, language: language)
        let resolved = try texts.map(resolver.resolve)
        return (resolved.map(\.0), resolved.map(\.1))
    }

    static func render(_ route: Route, _ directions: Directions, _ graph: RoadGraph, _ format: RouteFormat,
                       alternatives: [(Route, Directions)] = []) -> String {
        switch format {
        case .text: return RouteText.make(route, directions: directions)
        case .json: return OSRMRouteResponse.make(route, directions: directions, graph: graph, alternatives: alternatives).serialized()
        case .gpx: return RouteGPX.make(route, directions: directions)
        case .geojson: return RouteGeoJSON.make(route).serialized()
        case .polyline: return Polyline.encode(route.coordinates, precision: 5)
        case .polyline6: return Polyline.encode(route.coordinates, precision: 6)
        case .protobuf: return ""  // binary: written directly
        }
    }
}

enum InfoCommand {
    static func run(_ raw: [String]) throws -> ExitCode {
        let args = try Arguments(raw, flags: ["--help"], options: ["--graph"])
        if args.has("--help") { print("Usage: wayfinder info --graph <dir>\n\nDescribes the graphs in <dir>."); return .ok }
        for mode in TravelMode.allCases {
            let graph = try loadGraph(directory: args["--graph"], mode: mode)
            let m = graph.metadata
            let b = m.bounds
            print("""
            \(mode.rawValue): format \(GraphFormat.version), from \(m.sourceName) (\(m.sourceSize) bytes, crc32 \(String(m.sourceChecksum, radix: 16)))
              \(graph.vertexCount) vertices, \(graph.edgeCount) edges, \(graph.arcCount) arcs, \(graph.transitionCount) turns, \(graph.componentSize.count) components
              bounds \(b.isEmpty ? "empty" : String(format: "%.5f,%.5f – %.5f,%.5f", b.minLatitude, b.minLongitude, b.maxLatitude, b.maxLongitude)), top speed \(String(format: "%.1f", m.maxSpeed * 3.6)) km/h, file \(graph.file.size) bytes
            """)
        }
        return .ok
    }
}
