import Foundation
import WayfinderC
import WayfinderEngine

/// `wayfinder bench-library`: routes with steps through the Swift library, the baseline a binding's route call is
/// measured against (scripts/bench_python.py runs both on the same pairs).
enum LibraryBenchCommand {
    static let help = """
    Usage: wayfinder bench-library --graph <dir> --pairs FILE [--mode driving|walking|cycling] [--rounds N]

    Routes every pair of FILE (lat,lon,lat,lon per line) with steps through WayfinderEngine, N rounds (default 3),
    two ways, a pass over the pairs each: route(_:options:) then osrmJSON(), the public API (Swift values, then
    their JSON), the JSON alone (what the C entry point answers), and the C entry point wf_route itself (its
    request's JSON parsed, the answer copied). Prints one JSON line: calls, the median and the 90th
    percentile of a call of each in microseconds, and failed calls.
    """

    static func run(_ raw: [String]) throws -> ExitCode {
        let args = try Arguments(raw, flags: ["--help"], options: ["--graph", "--pairs", "--mode", "--rounds"])
        if args.has("--help") { print(help); return .ok }
        guard let graph = args["--graph"], let file = args["--pairs"] else {
            throw CommandError.usage("bench-library needs --graph and --pairs")
        }
        let rounds = try args.integer("--rounds", default: 3, range: 1...1000)
        guard let mode = Mode(profileName: args["--mode"] ?? "driving") else {
            throw CommandError.usage("--mode is driving, walking or cycling")
        }
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { throw CommandError.badInput("cannot read \(file)") }
        let pairs = try text.split(whereSeparator: \.isNewline).enumerated().map { n, line -> [Waypoint] in
            let f = line.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard f.count == 4 else { throw CommandError.badInput("\(file) line \(n + 1): expected lat,lon,lat,lon") }
            return [.coordinate(f[0], f[1]), .coordinate(f[2], f[3])]
        }
        let wayfinder: Wayfinder
        do { wayfinder = try Wayfinder(directory: graph, modes: [mode]) } catch { throw CommandError.badInput(error.message) }
        let options = RouteOptions(mode: mode)
        var times: [Double] = [], jsonTimes: [Double] = [], cTimes: [Double] = [], failed = 0, bytes = 0
        let requests = pairs.map { pair -> String in
            let points = pair.map { waypoint -> String in
                guard case .location(let l) = waypoint else { return "" }
                return "[\(l.latitude),\(l.longitude)]"
            }
            return #"{"points": [\#(points.joined(separator: ","))], "mode": "\#(mode.rawValue)"}"#
        }
        guard let engine = wf_open(graph, mode.rawValue, nil) else { throw CommandError.badInput("cannot open \(graph)") }
        defer { wf_close(engine) }
        // A pass over all pairs each: a route repeated at once runs on caches its first run warmed.
        for _ in 0..<rounds {
            for pair in pairs {
                let started = DispatchTime.now().uptimeNanoseconds
                do { bytes &+= try wayfinder.route(pair, options: options).osrmJSON().utf8.count } catch { failed += 1 }
                times.append(Double(DispatchTime.now().uptimeNanoseconds - started) / 1000)
            }
            for pair in pairs {
                let started = DispatchTime.now().uptimeNanoseconds
                do { bytes &+= try wayfinder.routeJSON(pair, options: options).count } catch { failed += 1 }
                jsonTimes.append(Double(DispatchTime.now().uptimeNanoseconds - started) / 1000)
            }
            for request in requests {
                var out: UnsafeMutablePointer<UInt8>?
                var length = 0
                let started = DispatchTime.now().uptimeNanoseconds
                if wf_route(engine, request, &out, &length) != 0 { failed += 1 }
                wf_free(out)
                cTimes.append(Double(DispatchTime.now().uptimeNanoseconds - started) / 1000)
                bytes &+= length
            }
        }
        print(#"{"calls": \#(times.count), "median_us": \#(BenchCommand.median(times)), "#
            + #""p90_us": \#(BenchCommand.percentile(times, 0.9)), "#
            + #""json_only_median_us": \#(BenchCommand.median(jsonTimes)), "#
            + #""json_only_p90_us": \#(BenchCommand.percentile(jsonTimes, 0.9)), "#
            + #""c_median_us": \#(BenchCommand.median(cTimes)), "failed": \#(failed), "bytes": \#(bytes)}"#)
        return .ok
    }
}
