import Engine
import Foundation
import Guidance
import MapMatching
import Navigation
import RoadGraph
import RouteFormats
import Routing
import TraceReading

/// `wayfinder navigate`: a GPS track replayed along a route, printing what a driver would hear and see.
enum NavigateCommand {
    static let help = """
    Usage: wayfinder navigate --graph <dir> [options] (--route <route.json> | <from> <to>) <trace.gpx | trace.csv>

    Replays a GPS track along a route as a maps app in directions mode follows it, and prints, with the time into
    the track, what the driver hears (say), what the banner shows (show), when the track leaves the route (off
    route) and the new route from there (new route), and the arrival. The route is the first of an OSRM JSON answer
    (`wayfinder route --format json`, or any server's with steps), or one computed between two points (lat,lon or
    place names). Bearing and speed come from the fixes (over the last three, as noise matters less there).

    Options:
      --mode driving|walking|cycling travel mode (default driving)
      --route <file>                the route to follow, as OSRM JSON with steps
      --geometries polyline|polyline6|geojson
                                    how that file's lines are written (default polyline; GeoJSON is recognised)
      --language en|zh              words of the announcements (default en)
      --units metric|imperial       distances said (default metric)
      --accuracy <metres>           the fixes' accuracy (default: unknown)
      --simulate <file.gpx> <from> <to>
                                    instead: write a track to replay, a fix a second driving the route between the
                                    points at the roads' speeds, with --noise metres of GPS error (default 5)

    `wayfinder navigate --bench --help`: random routes driven on and off their line, to measure the tracker.
    """

    static func run(_ raw: [String]) throws -> ExitCode {
        let args = try Arguments(raw, flags: ["--help", "--bench", "--json"],
                                 options: ["--graph", "--mode", "--route", "--geometries", "--language", "--units", "--accuracy",
                                           "--pairs", "--seed", "--noise", "--simulate"])
        if args.has("--bench") {
            if args.has("--help") { print(NavigateBench.help); return .ok }
            return try NavigateBench.run(args)
        }
        if args.has("--help") { print(help); return .ok }
        let mode = try args.mode()
        var directions = DirectionsOptions(language: args["--language"] ?? "en")
        directions.voiceInstructions = true
        directions.bannerInstructions = true
        directions.voiceUnits = try args.choice("--units", default: .metric)
        let accuracy = try args["--accuracy"].map { text -> Double in
            guard let metres = Double(text), metres.isFinite, metres > 0 else { throw CommandError.usage("--accuracy must be a positive number of metres") }
            return metres
        }
        let engine = try openEngine(args, modes: [mode])
        if let output = args["--simulate"] {
            guard args.positional.count == 2 else { throw CommandError.usage("navigate --simulate FILE takes two points") }
            var query = RouteQuery(mode: mode, points: try RouteCommand.resolve(args.positional, engine: engine,
                                                                                language: directions.language).map(\.coordinate))
            query.directions = DirectionsOptions(steps: false)
            let drive = try engineCall { try engine.route(query) }.best.route
            let noise = try args["--noise"].map { text -> Double in
                guard let m = Double(text), m >= 0, m <= 100 else { throw CommandError.usage("--noise is metres from 0 to 100") }
                return m
            } ?? 5
            let trace = TraceSimulation.trace(along: drive, interval: 1...1, noise: noise, dropRate: 0, seed: 1)
            try writeGPX(trace, to: output)
            print("wrote \(trace.count) fixes, one a second along \(String(format: "%.1f km", drive.distance / 1000)), to \(output)")
            return .ok
        }
        var route: NavigationRoute
        let tracePath: String
        // What a reroute is asked as: the route's own query where it is computed here.
        var asked = RouteQuery(mode: mode, points: [])
        asked.directions = directions
        if let file = args["--route"] {
            guard args.positional.count == 1 else { throw CommandError.usage("navigate --route takes one trace file") }
            tracePath = args.positional[0]
            route = try readRoute(file, geometries: try args.choice("--geometries", default: .polyline))
        } else {
            guard args.positional.count == 3 else { throw CommandError.usage("navigate needs a route: --route FILE, or two points, then a trace file") }
            tracePath = args.positional[2]
            var query = RouteQuery(mode: mode, points: try RouteCommand.resolve(Array(args.positional[0...1]), engine: engine,
                                                                                language: directions.language).map(\.coordinate))
            query.directions = directions
            route = NavigationRoute(try engineCall { try engine.route(query) }.best)
            asked = query
        }
        guard let data = FileManager.default.contents(atPath: tracePath) else { throw CommandError.badInput("cannot read \(tracePath)") }
        let fixes = try MatchCommand.readTrace(data, name: tracePath)
        guard !fixes.isEmpty else { throw CommandError.badInput("\(tracePath) has no points") }

        print("route: " + describe(route))
        var tracker = ProgressTracker(route: route)
        var state = NavigationState()
        let start = fixes[0].time ?? 0
        var shown = ""
        for (i, point) in fixes.enumerated() {
            let time = point.time ?? Double(i)
            var fix = Fix(location: point.coordinate, accuracy: accuracy, time: time)
            if i > 0 {
                // Over the last three fixes, where noise of a few metres turns the direction less than over one.
                let k = max(0, i - 3), before = fixes[k], elapsed = time - (before.time ?? Double(k))
                let moved = Geo.distance(before.coordinate, point.coordinate)
                if moved > 5 { fix.bearing = Geo.bearing(from: before.coordinate, to: point.coordinate) }
                if elapsed > 0 { fix.speed = moved / elapsed }
            }
            let progress = tracker.progress(at: fix, state: state)
            state = progress.state
            let clock = stamp(time - start)
            if let voice = progress.voice { print("\(clock)  say         \(voice.announcement)") }
            if let banner = progress.banner, progress.bannerChanged {
                let line = banner.primary.text + (banner.sub.map { sub in sub.components.contains { $0.kind == .lane }
                    ? "  [lanes " + sub.components.map { ($0.active ?? false) ? "▲" : "·" }.joined() + "]" : "  then " + sub.text } ?? "")
                if line != shown { print("\(clock)  show        \(line)") }
                shown = line
            }
            if progress.offRoute {
                print("\(clock)  off route   \(progress.offRouteReason ?? "") (\(Int(progress.distanceFromRoute.rounded())) m from the route)")
                let answer = try engineCall { try engine.reroute(tracker, from: fix, progress: progress, like: asked) }
                route = NavigationRoute(answer.best)
                tracker = ProgressTracker(route: route)
                state = NavigationState()
                print("\(clock)  new route   " + describe(route))
            }
            if progress.arrived {
                print("\(clock)  arrived")
                return .ok
            }
        }
        print("\(stamp((fixes.last?.time ?? Double(fixes.count - 1)) - start))  the track ends before the destination")
        return .ok
    }

    /// A GPX 1.1 track, times from 2026-01-01T00:00:00Z.
    static func writeGPX(_ trace: [TracePoint], to path: String) throws {
        let formatter = ISO8601DateFormatter()
        var text = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        text += #"<gpx version="1.1" creator="wayfinder navigate --simulate" xmlns="http://www.topografix.com/GPX/1/1">"# + "\n<trk><trkseg>\n"
        for point in trace {
            let time = formatter.string(from: Date(timeIntervalSince1970: 1_767_225_600 + (point.time ?? 0)))
            text += String(format: "<trkpt lat=\"%.7f\" lon=\"%.7f\"><time>%@</time></trkpt>\n",
                           point.coordinate.latitude, point.coordinate.longitude, time)
        }
        text += "</trkseg></trk>\n</gpx>\n"
        do { try text.write(toFile: path, atomically: true, encoding: .utf8) } catch {
            throw CommandError.badInput("cannot write \(path): \(error.localizedDescription)")
        }
    }

    static func stamp(_ seconds: Double) -> String {
        let s = Int(max(0, seconds).rounded())
        return String(format: "%02d:%02d:%02d", s / 3600, s / 60 % 60, s % 60)
    }

    static func describe(_ route: NavigationRoute) -> String {
        String(format: "%.1f km, %d min, %d steps", route.length / 1000, Int((route.duration / 60).rounded()), route.steps.count)
    }

    /// The first route of an OSRM answer in a file, or a route object alone.
    static func readRoute(_ path: String, geometries: GeometryEncoding) throws -> NavigationRoute {
        guard let data = FileManager.default.contents(atPath: path) else { throw CommandError.badInput("cannot read \(path)") }
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw CommandError.badInput("\(path) is not a JSON object")
        }
        let route = (object["routes"] as? [[String: Any]])?.first ?? object
        // A GeoJSON line says what it is.
        let firstGeometry = ((route["legs"] as? [[String: Any]])?.first?["steps"] as? [[String: Any]])?.first?["geometry"]
        do {
            return try NavigationRoute(json: route, geometries: firstGeometry is [String: Any] ? .geojson : geometries)
        } catch let error as NavigationRoute.ReadError {
            throw CommandError.badInput("\(path): \(error)")
        }
    }
}
