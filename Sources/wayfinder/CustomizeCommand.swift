import Customization
import Foundation
import RoadGraph

enum CustomizeCommand {
    static let help = """
    Usage: wayfinder customize --graph <dir> [--mode driving|walking|cycling] [--segment-speeds FILE[,FILE...]]
                               [--turn-penalties FILE[,FILE...]] [--historical-speeds FILE[,FILE...]]
                               [--name NAME] [--quiet]

    Gives a mode new costs from traffic files in OSRM's formats, without a new import, and makes them current in
    <dir> as a new generation (a running 'wayfinder serve' switches to it without a pause, and /health names it):
      segment speeds  from_osm_node,to_osm_node,speed_kmh[,rate]   the segment in that direction; speed 0 closes it;
                      the weight follows the time, or the rate (m/s) when given, and stays with an empty rate
      turn penalties  from_osm_node,via_osm_node,to_osm_node,penalty_s[,weight]
    and, for routes given a departure time (depart_at, arrive_by), the speeds of each quarter hour of the week:
      historical speeds  from_osm_node,to_osm_node,speed_kmh,when
                      when: a week slot (0 = Monday 00:00-00:15 ... 671 = Sunday 23:45-24:00), or opening_hours
                      of a week (Mo-Fr 07:00-09:30; Sa,Su 10:00-18:00) as the rest of the line; the weight follows
                      the time; outside the slots named, the other files' costs hold
    Every customization starts from the import's costs, and gives all the files that make the metric: running it
    without files restores the import's costs and drops historical speeds. The first one
    orders the graph for a customizable hierarchy (METIS) and keeps that order for the next ones.
    Rows that name a segment or turn the graph does not have are counted, as in OSRM. A malformed row is reported
    with its line, and nothing is changed. --name names the metric (default: the files' names and the time).
    """

    static func run(_ raw: [String]) throws -> ExitCode {
        let args = try Arguments(raw, flags: ["--quiet", "--help"],
                                 options: ["--graph", "--mode", "--segment-speeds", "--turn-penalties", "--historical-speeds", "--name"])
        if args.has("--help") { print(help); return .ok }
        guard args.positional.isEmpty else { throw CommandError.usage("customize takes no positional arguments") }
        guard let graph = args["--graph"] else { throw CommandError.usage("customize needs --graph <dir>") }
        let mode = try args.mode()
        func files(_ option: String) -> [String] {
            (args[option] ?? "").split(separator: ",").map(String.init).filter { !$0.isEmpty }
        }
        let report: GraphCustomizer.Report
        do {
            report = try GraphCustomizer.customize(directory: graph, mode: mode, speedFiles: files("--segment-speeds"),
                                                   turnFiles: files("--turn-penalties"), historyFiles: files("--historical-speeds"),
                                                   metricName: args["--name"])
        } catch let error as TrafficFileError {
            throw CommandError.badInput("customize refused its files (the graph is unchanged):\n\(error)")
        } catch let error as GraphCustomizer.Failure {
            if case .badName = error { throw CommandError.usage("\(error)") }
            throw CommandError.badInput("\(error)")
        } catch let error as GraphDirectoryError {
            throw CommandError.badInput("\(error)")
        } catch let error as GraphFileError {
            throw CommandError.badInput("\(error)")
        }
        if !args.has("--quiet") {
            let h = report.hierarchy
            let lines = [
                String(format: "customized %@ in %.3f s as metric '%@' (%@)", mode.rawValue, report.seconds, report.metric, report.generation),
                "  segment speed rows: \(report.usedSpeedRows) used, \(report.unusedSpeedRows) naming no segment of the graph; "
                    + "\(report.changedArcs) arcs changed",
                "  turn penalty rows: \(report.usedTurnRows) used, \(report.unusedTurnRows) naming no turn of the graph; "
                    + "\(report.changedTurns) turns changed",
                "  historical speeds: \(report.usedHistorySegments) segments used, \(report.unusedHistorySegments) naming no segment "
                    + "of the graph; \(report.historicalArcs) arcs with a week of their own",
                String(format: "  hierarchy: %d edges, %d triangles, %d exclusion sets, %d hierarchy edges; customized in %.3f s",
                       h.edges, h.triangles, h.exclusionSets, h.hierarchyEdges, h.seconds)
                    + (report.orderSeconds > 0 ? String(format: "; ordered (first customization) in %.3f s", report.orderSeconds) : ""),
            ]
            FileHandle.standardError.write(Data((lines.joined(separator: "\n") + "\n").utf8))
        }
        return .ok
    }
}
