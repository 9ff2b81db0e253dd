import Foundation
import WayfinderEngine

/// `wayfinder bench-library`: routes with steps through the Swift library, the baseline a binding's route call is
/// measured against (scripts/bench_python.py runs both on the same pairs).
enum LibraryBenchCommand {
    static let help = """
    Usage: wayfinder bench-library --graph <dir> --pairs FILE [--mode driving|walking|cycling] [--rounds N]

    Routes every pair of FILE (lat,lon,lat,lon per line) with steps through WayfinderEngine, as OSRM JSON (what the
    C entry point wf_route returns), N rounds (default 3), and prints one JSON line: calls, the median and the
    90th percentile of a call in microseconds, and failed calls.
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
        var times: [Double] = [], failed = 0, bytes = 0
        for _ in 0..<rounds {
            for pair in pairs {
                let started = DispatchTime.now().uptimeNanoseconds
                do { bytes &+= try wayfinder.route(pair, options: options).osrmJSON().utf8.count } catch { failed += 1 }
                times.append(Double(DispatchTime.now().uptimeNanoseconds - started) / 1000)
            }
        }
        print(#"{"calls": \#(times.count), "median_us": \#(BenchCommand.median(times)), "#
            + #""p90_us": \#(BenchCommand.percentile(times, 0.9)), "failed": \#(failed), "bytes": \#(bytes)}"#)
        return .ok
    }
}
