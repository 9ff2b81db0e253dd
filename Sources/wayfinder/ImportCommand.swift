import Foundation
import GraphImport
import RoadGraph

enum ImportCommand {
    static let help = """
    Usage: wayfinder import <file.osm.pbf|.osm|.osm.gz|.osm.bz2> --output <dir> [--quiet] [--no-contraction]
                            [--compat osrm|wayfinder] [--modes driving,walking,cycling]
                            [--time-zone NAME | --time-zone-file ZONES.geojson]

    Reads an OpenStreetMap extract and writes a graph per mode into <dir> (driving.wfgraph, walking.wfgraph and
    cycling.wfgraph; --modes chooses fewer, and a city's import takes about a fifth less time without cycling),
    each with a contraction hierarchy for fast queries and tables (cycling's is customizable, as `wayfinder
    customize` makes one; --no-contraction skips them: A* and Dijkstra still work). The directory is replaced only
    when the import succeeds.
    Progress goes to stderr: a bar on a terminal, plain lines otherwise; --quiet silences it.
    --compat osrm follows OSRM's rules where PROFILES.md lists a deviation decided at import (proposed roads,
    access lists, widths, trunk roads and barriers for walkers, platforms crossed, height restrictors), so that
    a server with --compat osrm on this graph answers as OSRM does (default wayfinder).
    --time-zone names the extract's IANA time zone (Europe/Lisbon); --time-zone-file finds it in a GeoJSON file of
    time-zone polygons with a tzid property, as osrm-contract takes it. Routes with depart_at read conditional
    restrictions and closures in that local time (UTC when neither is given).
    """

    static func run(_ raw: [String]) throws -> ExitCode {
        let args = try Arguments(raw, flags: ["--quiet", "--help", "--no-contraction"], options: ["--output", "--compat", "--modes",
                                                                                                   "--time-zone", "--time-zone-file"])
        if args.has("--help") { print(help); return .ok }
        guard args.positional.count == 1 else { throw CommandError.usage("import takes exactly one input file") }
        guard let output = args["--output"] else { throw CommandError.usage("import needs --output <dir>") }
        let input = args.positional[0]
        var modes = TravelMode.importedByDefault
        if let list = args["--modes"] {
            modes = try list.split(separator: ",", omittingEmptySubsequences: false).map { name in
                guard let mode = TravelMode(rawValue: name.trimmingCharacters(in: .whitespaces)) else {
                    throw CommandError.usage("--modes is a list of driving, walking and cycling, not '\(list)'")
                }
                return mode
            }
        }
        var timeZone: TimeZoneChoice?
        switch (args["--time-zone"], args["--time-zone-file"]) {
        case (let name?, nil): timeZone = .named(name)
        case (nil, let path?): timeZone = .boundaries(path: path)
        case (nil, nil): timeZone = nil
        default: throw CommandError.usage("give --time-zone or --time-zone-file, not both")
        }
        do { try timeZone?.check() } catch { throw CommandError.usage("\(error)") }
        let progress = ProgressReporter(quiet: args.has("--quiet"))
        let summary: ImportSummary
        do {
            summary = try GraphImporter.importGraphs(from: input, to: output, contract: !args.has("--no-contraction"),
                                                     compatibility: try args.choice("--compat", default: Compatibility.wayfinder),
                                                     modes: modes, timeZone: timeZone) {
                progress.handle($0)
            }
        } catch let error as ImportError {
            progress.finish()
            throw CommandError.badInput("import of \(input) failed: \(error)")
        }
        progress.finish()
        if !args.has("--quiet") {
            var lines = [String(format: "imported %@ in %.2f s: %d highway ways, %d nodes, %d restriction and maneuver relations",
                                input, summary.seconds, summary.ways, summary.nodes, summary.relations)]
            for m in summary.modes {
                lines.append("  \(m.mode.rawValue): \(m.vertices) vertices, \(m.edges) edges, \(m.arcs) arcs, "
                    + "\(m.transitions) turns; restrictions: \(m.restrictionsViaNode) via node, "
                    + "\(m.restrictionsViaWay) via way"
                    + (m.maneuverRelations > 0 ? "; maneuver relations: \(m.maneuverOverrides) of \(m.maneuverRelations) on its roads" : "")
                    + (m.duplicateEdges > 0 ? "; \(m.duplicateEdges) edges mapped twice, dropped" : "")
                    + (m.mergedCarriageways > 0 ? "; \(m.mergedCarriageways) carriageway pairs read as one road" : "")
                    + (m.timedRestrictions + m.timedClosures + m.conditionNotes > 0
                        ? "; conditional: \(m.timedRestrictions) restrictions, \(m.timedClosures) closed directions, "
                            + "\(m.conditionNotes) not applied (wayfinder info lists them)" : ""))
            }
            lines.append("graph written to \(output)")
            FileHandle.standardError.write(Data((lines.joined(separator: "\n") + "\n").utf8))
        }
        return .ok
    }
}

/// Import progress on stderr: a redrawn bar on a terminal, a line per quarter otherwise.
final class ProgressReporter {
    let quiet: Bool
    let isTerminal = isatty(STDERR_FILENO) != 0
    private var lastPrinted: [Int: Int] = [:]
    private var barShown = false

    init(quiet: Bool) { self.quiet = quiet }

    func handle(_ event: ImportEvent) {
        guard !quiet else { return }
        switch event {
        case .reading(let pass, let done, let total):
            let label = pass == 1 ? "reading ways and relations" : "reading nodes"
            let percent = total > 0 ? Int(min(100, Double(done) * 100 / Double(total))) : 100
            if isTerminal {
                let width = 30, filled = percent * width / 100
                let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
                write("\r[\(bar)] \(String(format: "%3d", percent))% \(label)   ")
                barShown = true
            } else if percent / 25 > (lastPrinted[pass] ?? -1) {
                lastPrinted[pass] = percent / 25
                write("\(label): \(percent)%\n")
            }
        case .building(let mode):
            finish()
            write("building \(mode.rawValue) graph\n")
        case .built:
            break
        case .contracting(let mode, let fraction):
            if isTerminal {
                let percent = Int(fraction * 100)
                write("\rcontracting \(mode.rawValue): \(percent)%   ")
                barShown = true
            } else if Int(fraction * 4) > (lastPrinted[mode == .driving ? 10 : 11] ?? 0) {
                lastPrinted[mode == .driving ? 10 : 11] = Int(fraction * 4)
                write("contracting \(mode.rawValue): \(Int(fraction * 100))%\n")
            }
        case .indexedPlaces(let stats):
            finish()
            write(String(format: "indexed places in %.1f s: %d places, %d streets, %d addresses (%d interpolated), %d POIs, %d boundaries\n",
                         stats.seconds, stats.places, stats.streets, stats.addresses, stats.interpolated, stats.pois, stats.areas))
        case .contracted(let mode, let stats):
            finish()
            if stats.customizable {
                write(String(format: "ordered and customized %@ in %.1f s: %d arcs, %d hierarchy edges\n", mode.rawValue,
                             stats.seconds, stats.nodes, stats.shortcuts))
            } else {
                write(String(format: "contracted %@ in %.1f s: %d %@, %d shortcuts, %d rounds\n", mode.rawValue, stats.seconds,
                             stats.nodes, stats.overVertices ? "vertices" : "arcs", stats.shortcuts, stats.rounds))
            }
        case .warning(let message):
            finish()
            write("warning: \(message)\n")
        }
    }

    func finish() {
        if barShown { write("\n"); barShown = false }
    }

    private func write(_ text: String) { FileHandle.standardError.write(Data(text.utf8)) }
}
