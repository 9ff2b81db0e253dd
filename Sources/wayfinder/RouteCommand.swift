import Engine
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
      --mode driving|walking|cycling travel mode (default driving; car, foot, bicycle and bike too)
      --format text|json|geojson|gpx|polyline|polyline6
                                    text (default): directions; json: OSRM v5 route response with steps;
                                    geojson: RFC 7946 line plus start/end points; gpx: GPX 1.1 route and track;
                                    polyline(6): encoded line; protobuf: a wayfinder.Route message (binary)
      --language en|zh|…            street names from name:xx where mapped, and instructions where a phrase
                                    file exists (en, zh; others fall back to English); default en
      --units metric|imperial       distances in instructions (default metric)
      --compat osrm|wayfinder       osrm: OSRM's answer, without the deviations of GUIDANCE.md and PROFILES.md
      --deviations all|none|LIST    Wayfinder's guidance rules to apply (default all): fold_short_steps,
                                    use_lane, names, tidy_names (GUIDANCE.md)
      --algorithm ch|astar|dijkstra search algorithm (default: ch where the graph has a contraction hierarchy, else
                                    astar; all give the same cost)
      --radius <metres>|unlimited   how far a point may be from its road (default 5000)
      --exclude toll,motorway,ferry avoid these roads (any combination; walking: ferry)
      --avoid KIND[:F],…            weigh these roads F times their time in the choice (default 10): toll,
                                    motorway, ferry, tunnel, unpaved (PROFILES.md, section 15)
      --prefer major_roads[:F]      weigh the other roads F times (default 1.5)
      --alternatives N              up to N (at most 3) other reasonable routes between two points, in text
                                    (a summary line each) and json (more entries in routes)
      --continue-straight true|false
                                    pass via points without turning back there (default: true driving, false
                                    walking; OSRM's continue_straight)
      --depart-at TIME, --arrive-by TIME
                                    leave at, or arrive by, a time (YYYY-MM-DDTHH:MM, the extract's local time; or
                                    with Z or an offset): conditional restrictions and closures then hold at the
                                    time each road is reached
      --max-waypoints N             most points in a route (default 10000)
      --max-query-length N, --max-query-words N
                                    longest place name accepted for a point (default 512 bytes, 32 words)
    """

    static func run(_ raw: [String]) throws -> ExitCode {
        let args = try Arguments(raw, flags: ["--help"],
                                 options: (["--graph", "--mode", "--format", "--algorithm", "--max-snap", "--radius", "--language",
                                           "--units", "--compat", "--deviations", "--continue-straight", "--alternatives", "--exclude",
                                           "--depart-at", "--arrive-by", "--avoid", "--prefer"] as Set<String>)
                                 .union(EngineLimits.options))
        if args.has("--help") { print(help); return .ok }
        let format: RouteFormat = try args.choice("--format", default: .text)
        let mode = try args.mode()
        guard args.positional.count >= 2 else { throw CommandError.usage("route needs at least two points (lat,lon or a place name)") }
        var query = RouteQuery(mode: mode, points: [])
        query.algorithm = try args.choice("--algorithm", default: .automatic)
        query.directions = DirectionsOptions(language: args["--language"] ?? "en", units: try args.choice("--units", default: .metric),
                                             compatibility: try args.choice("--compat", default: Compatibility.wayfinder),
                                             deviations: try RouteCommand.deviations(args))
        query.snapRadius = try snapRadius(args)
        query.excluding = try exclusion(args)
        query.alternatives = try args.integer("--alternatives", default: 0, range: 0...Engine.maxAlternatives)
        query.time = try travelTime(args)
        query.weightFactors = try weightFactors(args)
        switch args["--continue-straight"] {
        case nil: break
        case "true": query.continueStraight = true
        case "false": query.continueStraight = false
        case let other?: throw CommandError.usage("invalid value '\(other)' for --continue-straight (true, false)")
        }
        let engine = try openEngine(args, modes: [mode])
        let places = try resolve(args.positional, engine: engine, language: query.directions.language)
        query.points = places.map(\.coordinate)
        for (i, place) in places.enumerated() where format == .text {
            guard let found = place.place else { continue }
            print("\(i == 0 ? "From" : i == places.count - 1 ? "To" : "Via"): \(found.name) (\(found.coordinate))")
        }
        // Only text and json show alternatives: the other formats carry one route.
        if format != .text && format != .json { query.alternatives = 0 }
        let answer: RouteAnswer
        do { answer = try engine.route(query) } catch let error as EngineError {
            if format == .json { print(OSRMRouteResponse.error(code: error.code, message: error.message).serialized()) }
            throw CommandError(error)
        }
        let graph = answer.graph
        if format == .protobuf {
            FileHandle.standardOutput.write(Data(try ProtobufOutput.route(answer.best, graph: graph)))
            return .ok
        }
        if let departure = answer.departure, format == .text { print("Leave at \(departure) (\(graph.timeZoneName ?? "UTC"))") }
        print(render(answer.best, graph, format, alternatives: answer.alternatives, departure: answer.departure))
        for (k, alternative) in answer.alternatives.enumerated() where format == .text {
            let (other, otherDirections) = (alternative.route, alternative.directions)
            // A summary line, and the two roads it uses most, to tell it apart.
            var byName: [String: Double] = [:]
            for s in other.legs.flatMap(\.stretches) where !s.name.isEmpty { byName[s.name, default: 0] += s.distance }
            let via = byName.sorted { $0.value > $1.value }.prefix(2).map(\.key)
            print("Alternative \(k + 1): " + otherDirections.phrases.summary(
                distance: other.distance, duration: other.duration, mode: graph.mode, units: query.directions.units)
                + (via.isEmpty ? "" : " — " + via.joined(separator: ", ")))
        }
        return .ok
    }

    /// `--depart-at` or `--arrive-by`, not both.
    static func travelTime(_ args: Arguments) throws -> TravelTime? {
        do {
            switch (args["--depart-at"], args["--arrive-by"]) {
            case (nil, nil): return nil
            case (let text?, nil): return .departure(try ClockTime(iso8601: text))
            case (nil, let text?): return .arrival(try ClockTime(iso8601: text))
            default: throw CommandError.usage("give --depart-at or --arrive-by, not both")
            }
        } catch let error as EngineError { throw CommandError.usage(error.message) }
    }

    /// `--deviations all|none|fold_short_steps,…`: which of Wayfinder's guidance rules apply.
    static func deviations(_ args: Arguments) throws -> GuidanceDeviations {
        guard let text = args["--deviations"] else { return .all }
        guard let deviations = GuidanceDeviations(list: text) else {
            throw CommandError.usage("--deviations takes all, none or a list of "
                + GuidanceDeviations.names.map(\.name).joined(separator: ", "))
        }
        return deviations
    }

    /// `--avoid unpaved,toll:4` and `--prefer major_roads:1.5`: weights by kind of road.
    static func weightFactors(_ args: Arguments) throws -> WeightFactors? {
        switch WeightFactors.reading(avoid: args["--avoid"], prefer: args["--prefer"]) {
        case .success(let factors): return factors
        case .failure(let problem): throw CommandError.usage("--\(problem.option.rawValue): \(problem.message)")
        }
    }

    /// `--exclude toll,motorway,ferry`: the classes of road to avoid.
    static func exclusion(_ args: Arguments) throws -> ArcClasses {
        guard let text = args["--exclude"] else { return [] }
        guard let classes = ArcClasses(names: text.split(separator: ",").map(String.init)) else {
            throw CommandError.usage("--exclude takes toll, motorway and ferry, separated by commas")
        }
        return classes
    }

    /// `--radius METRES|unlimited` (`--max-snap` is its older name): how far a point may be from its road.
    static func snapRadius(_ args: Arguments) throws -> Double? {
        guard let text = args["--radius"] ?? args["--max-snap"] else { return nil }
        if text == "unlimited" { return .infinity }
        guard let metres = Double(text), metres > 0, metres.isFinite else {
            throw CommandError.usage("--radius must be a positive number of metres or 'unlimited'")
        }
        return metres
    }

    /// Each text as a point: a coordinate, or a place name (searched near the point before it).
    static func resolve(_ texts: [String], engine: Engine, language: String) throws -> [ResolvedPoint] {
        var previous: Coordinate?
        return try texts.map { text in
            let point = try engineCall { try engine.resolve(text, near: previous, language: language) }
            previous = point.coordinate
            return point
        }
    }

    static func render(_ guided: GuidedRoute, _ graph: RoadGraph, _ format: RouteFormat, alternatives: [GuidedRoute] = [],
                       departure: LocalTime? = nil) -> String {
        let route = guided.route
        switch format {
        case .text: return RouteText.make(guided)
        case .json: return OSRMRouteResponse.make(guided, graph: graph, alternatives: alternatives, departure: departure).serialized()
        case .gpx: return RouteGPX.make(guided)
        case .geojson: return RouteGeoJSON.make(guided).serialized()
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
        let engine = try openEngine(args)
        let set = engine.current
        if let name = set.generation?.name { print("\(args["--graph"]!): \(name)") }
        for mode in TravelMode.allCases {
            guard let graph = set.graphs[mode] else { continue }
            let m = graph.metadata
            let b = m.bounds
            print("""
            \(mode.rawValue): format \(GraphFormat.version), from \(m.sourceName) (\(m.sourceSize) bytes, crc32 \(String(m.sourceChecksum, radix: 16))), \(m.compatibility.rawValue) import rules
              \(graph.vertexCount) vertices, \(graph.edgeCount) edges, \(graph.arcCount) arcs, \(graph.transitionCount) turns, \(graph.componentSize.count) components
              bounds \(b.isEmpty ? "empty" : String(format: "%.5f,%.5f – %.5f,%.5f", b.minLatitude, b.minLongitude, b.maxLatitude, b.maxLongitude)), top speed \(String(format: "%.1f", m.maxSpeed * 3.6)) km/h, file \(graph.file.size) bytes
              metric \(m.metric.isEmpty ? "import" : m.metric)\(graph.cchUpStart.isEmpty ? "" : " (customizable hierarchy)")\(historical(graph))
              time zone \(graph.timeZoneName ?? "UTC (none given at import)"); \(graph.timedRuleList.count) timed rules (conditional restrictions and closures), \(graph.conditionNotes.count) conditional tags not applied
            """)
            for line in graph.conditionNoteLines { print("    not applied: \(line)") }
        }
        return .ok
    }

    /// What `info` says of a graph's historical speeds: how many arcs have a week, in how many runs.
    private static func historical(_ graph: RoadGraph) -> String {
        guard graph.hasHistory else { return "" }
        let arcs = (0..<graph.arcCount).count { graph.historyStart[$0 + 1] > graph.historyStart[$0] }
        return "; historical speeds on \(arcs) arcs (\(graph.historySlots.count) runs of quarter hours)"
    }
}
