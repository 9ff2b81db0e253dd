import Engine
import Foundation
import RoadGraph

/// Exit codes, as documented in README.md.
enum ExitCode: Int32 {
    case ok = 0, usage = 1, badInput = 2, noRoute = 3
}

/// A failure that ends the command with a message on stderr and an exit code.
struct CommandError: Error {
    var message: String
    var code: ExitCode
    /// OSRM error code, for `--format json` output.
    var osrmCode: String? = nil

    static func usage(_ message: String) -> CommandError { CommandError(message: message, code: .usage) }
    static func badInput(_ message: String) -> CommandError { CommandError(message: message, code: .badInput) }
}

/// `--name value` options, `--flag`s and positional arguments. Coordinates such as `-33.9,151.2` are positional.
struct Arguments {
    private(set) var options: [String: String] = [:]
    private(set) var flags: Set<String> = []
    private(set) var positional: [String] = []

    init(_ raw: [String], flags knownFlags: Set<String>, options knownOptions: Set<String>) throws {
        var i = 0
        var onlyPositional = false
        while i < raw.count {
            let arg = raw[i]
            i += 1
            if onlyPositional || !arg.hasPrefix("-") || arg == "-" || Arguments.looksNumeric(arg) {
                positional.append(arg)
                continue
            }
            if arg == "--" { onlyPositional = true; continue }
            var name = arg
            var inlineValue: String?
            if let eq = arg.firstIndex(of: "=") {
                name = String(arg[..<eq])
                inlineValue = String(arg[arg.index(after: eq)...])
            }
            if knownFlags.contains(name) && inlineValue == nil {
                flags.insert(name)
            } else if knownOptions.contains(name) {
                if let inlineValue {
                    options[name] = inlineValue
                } else {
                    guard i < raw.count else { throw CommandError.usage("\(name) needs a value") }
                    options[name] = raw[i]
                    i += 1
                }
            } else {
                throw CommandError.usage("unknown option \(name)")
            }
        }
    }

    /// `-33.9,151.2`, `-inf,5`: a negative coordinate, not an option (Wayfinder's options all start with `--`).
    private static func looksNumeric(_ s: String) -> Bool {
        guard let c = s.dropFirst().first else { return false }
        return c.isNumber || c == "." || (c != "-" && s.contains(","))
    }

    subscript(_ name: String) -> String? { options[name] }
    func has(_ flag: String) -> Bool { flags.contains(flag) }

    func integer(_ name: String, default value: Int, range: ClosedRange<Int>) throws -> Int {
        guard let text = options[name] else { return value }
        guard let n = Int(text), range.contains(n) else {
            throw CommandError.usage("\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return n
    }

    func decimal(_ name: String, default value: Double, range: ClosedRange<Double>) throws -> Double {
        guard let text = options[name] else { return value }
        guard let n = Double(text), n.isFinite, range.contains(n) else {
            throw CommandError.usage("\(name) must be a number from \(range.lowerBound.formatted()) to \(range.upperBound.formatted())")
        }
        return n
    }

    func choice<T: RawRepresentable>(_ name: String, default value: T) throws -> T where T.RawValue == String {
        guard let text = options[name] else { return value }
        guard let parsed = T(rawValue: text) else { throw CommandError.usage("invalid value '\(text)' for \(name)") }
        return parsed
    }

    func mode() throws -> TravelMode {
        guard let text = options["--mode"] else { return .driving }
        guard let mode = TravelMode(profileName: text) else {
            throw CommandError.usage("unknown mode '\(text)' (driving, walking)")
        }
        return mode
    }
}

/// `lat,lon` as a maps app writes it (never a place name).
func parseCoordinate(_ text: String) throws -> Coordinate {
    do { return try PointText.coordinate(text) } catch let error as EngineError { throw CommandError(error) }
}

extension CommandError {
    /// An engine failure as the CLI reports it: `NoRoute` exits 3, the rest 2.
    init(_ error: EngineError) {
        self.init(message: error.message, code: error.kind == .noRoute ? .noRoute : .badInput, osrmCode: error.code)
    }
}

extension EngineLimits {
    /// The options that change a limit, for the commands that take them. (`--max-matching-radius` and
    /// `--max-isochrone-points` only `match`, `reach` and `serve` take: elsewhere they would change nothing.)
    static let options: Set<String> = ["--max-waypoints", "--max-table-size", "--max-query-length", "--max-query-words",
                                       "--max-trip-size", "--max-trace-points"]

    /// These limits with any of `options` the command line sets.
    func configured(by args: Arguments) throws -> EngineLimits {
        var limits = self
        limits.maxRouteWaypoints = try args.integer("--max-waypoints", default: maxRouteWaypoints, range: 2...1_000_000)
        limits.maxTableLocations = try args.integer("--max-table-size", default: maxTableLocations, range: 2...10_000_000)
        limits.maxTripPoints = try args.integer("--max-trip-size", default: maxTripPoints, range: 2...100_000)
        limits.maxTracePoints = try args.integer("--max-trace-points", default: maxTracePoints, range: 2...10_000_000)
        limits.maxQueryLength = try args.integer("--max-query-length", default: maxQueryLength, range: 1...1_000_000)
        limits.maxQueryWords = try args.integer("--max-query-words", default: maxQueryWords, range: 1...100_000)
        limits.maxIsochronePoints = try args.integer("--max-isochrone-points", default: maxIsochronePoints, range: 1_000...100_000_000)
        if let text = args["--max-matching-radius"] {
            if text == "unlimited" { limits.maxMatchingRadius = nil } else {
                guard let metres = Double(text), metres.isFinite, metres > 0, metres <= 1e7 else {
                    throw CommandError.usage("--max-matching-radius must be a number of metres above zero (at most 10,000 km), or unlimited")
                }
                limits.maxMatchingRadius = metres
            }
        }
        return limits
    }
}

/// The engine over `--graph <dir>`, with the graphs of `modes` (nil: every mode imported) loaded (and verified) now
/// and the place index on first use; every failure becomes a one-line message.
/// The engine's graph of `mode`, or a clear error where the directory was imported without that mode.
func modeGraph(_ engine: Engine, _ mode: TravelMode, _ args: Arguments) throws -> RoadGraph {
    guard let graph = engine.current.graphs[mode] else {
        throw CommandError.badInput("\(GraphDirectoryError.noModeGraph(args["--graph"] ?? "the graph directory", mode))")
    }
    return graph
}

func openEngine(_ args: Arguments, modes: [TravelMode]? = nil, limits: EngineLimits? = nil,
                privateCopies: Bool = false) throws -> Engine {
    guard let directory = args["--graph"] else {
        throw CommandError.usage("--graph is required (a directory made by wayfinder import)")
    }
    do {
        return try Engine(directory: directory, modes: modes, limits: limits ?? EngineLimits.commandLine.configured(by: args),
                          privateCopies: privateCopies)
    } catch let error as CommandError {
        throw error
    } catch {
        throw CommandError.badInput("\(error)")
    }
}

/// Runs an engine call, turning its errors into the CLI's.
func engineCall<T>(_ body: () throws -> T) throws -> T {
    do { return try body() } catch let error as EngineError { throw CommandError(error) }
}
