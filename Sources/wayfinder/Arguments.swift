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

    private static func looksNumeric(_ s: String) -> Bool {
        guard let c = s.dropFirst().first else { return false }
        return c.isNumber || c == "."
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

/// `lat,lon` as a maps app writes it.
func parseCoordinate(_ text: String) throws -> Coordinate {
    let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        .map { $0.trimmingCharacters(in: .whitespaces) }
    guard parts.count == 2, let lat = Double(parts[0]), let lon = Double(parts[1]), lat.isFinite, lon.isFinite else {
        throw CommandError.badInput("'\(text)' is not a coordinate: expected lat,lon such as 60.1699,24.9384")
    }
    guard abs(lat) <= 90, abs(lon) <= 180 else {
        throw CommandError.badInput("'\(text)' is out of range: latitude must be within ±90 and longitude within ±180")
    }
    return Coordinate(latitude: lat, longitude: lon)
}

/// Loads `graphs/<name>/<mode>.wfgraph`, turning every failure into a one-line message.
func loadGraph(directory: String?, mode: TravelMode) throws -> RoadGraph {
    guard let directory else { throw CommandError.usage("--graph is required (a directory made by wayfinder import)") }
    let path = URL(fileURLWithPath: directory).appendingPathComponent(GraphFormat.fileName(for: mode)).path
    guard FileManager.default.fileExists(atPath: path) else {
        throw CommandError.badInput("no \(mode.rawValue) graph in \(directory): run 'wayfinder import <file.osm.pbf> --output \(directory)' first")
    }
    do {
        return try RoadGraph(contentsOf: path)
    } catch {
        throw CommandError.badInput("\(error)")
    }
}
