import Engine
import Foundation
import Guidance
import RoadGraph
import RouteFormats
import Routing
import TraceReading

/// `wayfinder match`: which roads a GPS trace followed (OSRM's match service).
enum MatchCommand {
    static let help = """
    Usage: wayfinder match --graph <dir> [--mode driving|walking|cycling] [--format text|json|geojson]
                           [--accuracy METRES] [--gaps split|ignore] [--tidy] [--language xx] <trace.gpx | trace.csv>

    Matches a trace to the roads the mode may use (a hidden Markov model: Newson & Krumm) and gives the route it
    followed, with steps. The trace is a GPX 1.1 file (its track points, with their times where given) or CSV
    lines of lat,lon[,seconds]. Where the trace cannot be followed without a break (no road within reach, or with
    --gaps split, fixes more than 60 s apart), it is matched in parts.
      text                each matching's confidence and directions (default)
      json                OSRM's match response (matchings, tracepoints)
      geojson             each matching's line, and each fix with the road it was matched to
      --accuracy M        the fixes' accuracy, metres (default 5, OSRM's)
      --tidy              drop fixes within 10 m of the one before, and repeated times
      --max-trace-points N  most fixes (default 100000)
      --max-matching-radius M  largest --accuracy, metres (default: none)
      --compat osrm       OSRM's answer, without the deviations of GUIDANCE.md and PROFILES.md
      --deviations LIST   Wayfinder's guidance rules to apply: all (default), none, or some of
                          fold_short_steps, use_lane, names, tidy_names (GUIDANCE.md)
    """

    static func run(_ raw: [String]) throws -> ExitCode {
        let args = try Arguments(raw, flags: ["--help", "--tidy"],
                                 options: (["--graph", "--mode", "--format", "--accuracy", "--gaps", "--language", "--units", "--compat", "--deviations",
                                           "--exclude", "--max-matching-radius"] as Set<String>).union(EngineLimits.options))
        if args.has("--help") { print(help); return .ok }
        let mode = try args.mode()
        let format = args["--format"] ?? "text"
        guard ["text", "json", "geojson"].contains(format) else { throw CommandError.usage("invalid value '\(format)' for --format") }
        guard args.positional.count == 1 else { throw CommandError.usage("match needs one trace file (GPX or CSV)") }
        let path = args.positional[0]
        guard let data = FileManager.default.contents(atPath: path) else { throw CommandError.badInput("cannot read \(path)") }
        let limits = try EngineLimits.commandLine.configured(by: args)
        let points = try readTrace(data, name: path, maxPoints: limits.maxTracePoints)
        var query = MatchQuery(mode: mode, points: points.map(\.coordinate))
        if points.allSatisfy({ $0.time != nil }) { query.timestamps = points.map { $0.time! } }
        else if points.contains(where: { $0.time != nil }) {
            throw CommandError.badInput("\(path): some points have a time and some do not")
        }
        if let a = args["--accuracy"] {
            guard let metres = Double(a), metres.isFinite, metres > 0 else { throw CommandError.usage("--accuracy must be a positive number of metres") }
            query.accuracies = Array(repeating: metres, count: points.count)
        }
        switch args["--gaps"] ?? "split" {
        case "split": query.splitGaps = true
        case "ignore": query.splitGaps = false
        case let other: throw CommandError.usage("invalid value '\(other)' for --gaps (split, ignore)")
        }
        query.tidy = args.has("--tidy")
        query.excluding = try RouteCommand.exclusion(args)
        query.directions = DirectionsOptions(language: args["--language"] ?? "en", units: try args.choice("--units", default: .metric),
                                             compatibility: try args.choice("--compat", default: Compatibility.wayfinder),
                                             deviations: try RouteCommand.deviations(args))
        let engine = try openEngine(args, modes: [mode], limits: limits)
        let answer: MatchAnswer
        do { answer = try engine.match(query) } catch let error as EngineError {
            if format == "json" { print(OSRMRouteResponse.error(code: error.code, message: error.message).serialized()) }
            throw CommandError(error)
        }
        switch format {
        case "json":
            print(OSRMMatchResponse.make(answer.matchings.map {
                OSRMMatchResponse.Matched(guided: $0.guided, confidence: $0.confidence,
                                          alternatives: $0.points.map(\.alternatives))
            }, placement: answer.placement, graph: answer.graph, options: OSRMRouteResponse.Options()).serialized())
        case "geojson":
            var features: [JSON] = []
            for (k, m) in answer.matchings.enumerated() {
                features.append(GeoJSON.line(m.guided.route.coordinates, [
                    ("matching", .number(Double(k))), ("confidence", .number(m.confidence, decimals: 4)),
                    ("distance", .number(m.guided.route.distance, decimals: 1)),
                    ("duration", .number(m.guided.route.duration, decimals: 1)),
                ]))
            }
            for (i, place) in answer.placement.enumerated() {
                var properties: [(String, JSON)] = [("fix", .number(Double(i)))]
                if let place {
                    let snap = answer.matchings[place.matching].guided.route.waypoints[place.index]
                    properties += [("matching", .number(Double(place.matching))), ("matched", OSRMRouteResponse.location(snap.location)),
                                   ("distance", .number(snap.distance, decimals: 2))]
                }
                features.append(GeoJSON.point(points[i].coordinate, properties))
            }
            print(GeoJSON.collection(features).serialized())
        default:
            let matched = answer.placement.filter { $0 != nil }.count
            print("\(matched) of \(points.count) fixes matched, in \(answer.matchings.count) part(s)")
            for (k, m) in answer.matchings.enumerated() {
                print("\nPart \(k + 1): confidence \(String(format: "%.2f", m.confidence))")
                print(RouteText.make(m.guided))
            }
        }
        return .ok
    }

    /// A GPX file, or CSV lines of lat,lon[,seconds].
    /// At most `maxPoints`: a GPX file is refused as its reader meets one too many, not after it is all read.
    static func readTrace(_ data: Data, name: String, maxPoints: Int = .max) throws -> [GPXTrace.Point] {
        if GPXTrace.looksLikeXML(data) {
            do { return try GPXTrace.read(data, maxPoints: maxPoints) } catch { throw CommandError.badInput("\(name): \(error)") }
        }
        var points: [GPXTrace.Point] = []
        for (n, line) in String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") || (n == 0 && trimmed.lowercased().hasPrefix("lat")) { continue }
            guard points.count < maxPoints else {
                throw CommandError.badInput("\(name): more than \(maxPoints) points (--max-trace-points)")
            }
            let fields = trimmed.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard fields.count >= 2, let c = try? parseCoordinate(fields[0] + "," + fields[1]) else {
                throw CommandError.badInput("\(name) line \(n + 1): expected lat,lon[,seconds]")
            }
            var time: Double?
            if fields.count >= 3 {
                guard let t = Double(fields[2]), t.isFinite else { throw CommandError.badInput("\(name) line \(n + 1): '\(fields[2])' is not a number of seconds") }
                time = t
            }
            points.append(GPXTrace.Point(coordinate: c, time: time))
        }
        return points
    }
}
