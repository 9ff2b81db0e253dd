import Engine
import Foundation
import Guidance
import RoadGraph
import RouteFormats
import Routing

/// `wayfinder trip`: visit every point in the best order (OSRM's trip service).
enum TripCommand {
    static let help = """
    Usage: wayfinder trip --graph <dir> [--mode driving|walking|cycling] [--roundtrip true|false] [--source any|first]
                          [--destination any|last] [--format text|json|geojson] [--language xx] [--units …]
                          [--points FILE] [<lat,lon | place name> ...]

    The order to visit the points in that takes the least time, and the route through them in that order. With
    --roundtrip true (the default) the trip comes back to where it starts. --source first starts it at the first
    point, --destination last ends it at the last (a round trip then comes back from the last point). Points come
    from the command line, --points (a file of lat,lon lines, names or GeoJSON points, as `matrix` reads them), or
    both. Up to 11 stops the order is the best there is (dynamic programming); beyond, it is farthest insertion
    improved by 2-opt and Or-opt. Points that cannot all reach one another make several round trips.
      text     the order, then the directions; json: OSRM's trip response; geojson: each trip's line and its stops
      --max-trip-size N   most points (default 10000)
      --compat osrm       OSRM's answer, without the deviations of GUIDANCE.md and PROFILES.md
      --deviations LIST   Wayfinder's guidance rules to apply: all (default), none, or some of
                          fold_short_steps, use_lane, names, tidy_names (GUIDANCE.md)
      --depart-at TIME    leave at a time (YYYY-MM-DDTHH:MM, local): conditional restrictions then hold
    """

    static func run(_ raw: [String]) throws -> ExitCode {
        let args = try Arguments(raw, flags: ["--help"],
                                 options: (["--graph", "--mode", "--roundtrip", "--source", "--destination", "--format",
                                           "--language", "--units", "--compat", "--deviations", "--points", "--radius", "--exclude", "--threads",
                                           "--depart-at"] as Set<String>)
                                 .union(EngineLimits.options))
        if args.has("--help") { print(help); return .ok }
        let mode = try args.mode()
        let format = args["--format"] ?? "text"
        guard ["text", "json", "geojson"].contains(format) else { throw CommandError.usage("invalid value '\(format)' for --format") }
        var query = TripQuery(mode: mode, points: [])
        switch args["--roundtrip"] ?? "true" {
        case "true": query.roundtrip = true
        case "false": query.roundtrip = false
        case let other: throw CommandError.usage("invalid value '\(other)' for --roundtrip (true, false)")
        }
        switch args["--source"] ?? "any" {
        case "any": break
        case "first": query.fixedStart = true
        case let other: throw CommandError.usage("invalid value '\(other)' for --source (any, first)")
        }
        switch args["--destination"] ?? "any" {
        case "any": break
        case "last": query.fixedEnd = true
        case let other: throw CommandError.usage("invalid value '\(other)' for --destination (any, last)")
        }
        query.directions = DirectionsOptions(language: args["--language"] ?? "en", units: try args.choice("--units", default: .metric),
                                             compatibility: try args.choice("--compat", default: Compatibility.wayfinder),
                                             deviations: try RouteCommand.deviations(args))
        query.snapRadius = try RouteCommand.snapRadius(args)
        query.excluding = try RouteCommand.exclusion(args)
        query.threads = try args.integer("--threads", default: ProcessInfo.processInfo.activeProcessorCount, range: 1...256)
        if case .departure(let clock)? = try RouteCommand.travelTime(args) { query.departure = clock }
        let engine = try openEngine(args, modes: [mode])
        var points = try RouteCommand.resolve(args.positional, engine: engine, language: query.directions.language).map(\.coordinate)
        if let file = args["--points"] { points += try MatrixCommand.readPoints(file, resolver: PointReader(engine: engine)) }
        guard points.count >= 2 else { throw CommandError.usage("trip needs at least two points") }
        query.points = points
        let answer: TripAnswer
        do { answer = try engine.trip(query) } catch let error as EngineError {
            if format == "json" { print(OSRMRouteResponse.error(code: error.code, message: error.message).serialized()) }
            throw CommandError(error)
        }
        switch format {
        case "json":
            print(OSRMTripResponse.make(trips: answer.trips.map(\.guided), placement: answer.placement,
                                        graph: answer.graph, options: OSRMRouteResponse.Options()).serialized())
        case "geojson":
            var features: [JSON] = []
            for (t, trip) in answer.trips.enumerated() {
                features.append(RouteGeoJSON.line(trip.guided.route))
                for (k, stop) in trip.stops.enumerated() {
                    features.append(GeoJSON.point(trip.guided.route.waypoints[k].location, [
                        ("trip", .number(Double(t))), ("order", .number(Double(k + 1))), ("point", .number(Double(stop))),
                    ]))
                }
            }
            print(GeoJSON.collection(features).serialized())
        default:
            for (t, trip) in answer.trips.enumerated() {
                if answer.trips.count > 1 { print("Trip \(t + 1) of \(answer.trips.count)") }
                let order = trip.stops.map { "\($0 + 1)" } + (query.roundtrip ? ["\(trip.stops[0] + 1)"] : [])
                print("Order: " + order.joined(separator: " → "))
                print(RouteText.make(trip.guided))
                print()
            }
        }
        return .ok
    }
}
