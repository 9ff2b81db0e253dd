import RoadGraph
import Routing

/// OSRM v5's table response, written as rows arrive: the server writes one table whole, the CLI streams tables of
/// any size in row blocks. Durations go out with each block; distances (one float a cell) wait for the durations
/// to close, as the response's member order requires.
public final class OSRMTableWriter {
    let graph: RoadGraph
    let sources: [Snap?], destinations: [Snap?]
    let durations: Bool, distances: Bool
    let emit: ([UInt8]) -> Void
    private var keptDistances: [Float] = []
    private var wroteRow = false
    /// OSRM's `skip_waypoints=true` leaves out `sources` and `destinations`.
    public var includeWaypoints = true
    /// The cells `fallback_speed` filled (`fallback_speed_cells`), when it was asked for.
    public var fallbackCells: [(row: Int, column: Int)]?

    /// `annotations`: "duration", "distance" or both.
    public init(graph: RoadGraph, sources: [Snap?], destinations: [Snap?], annotations: Set<String> = ["duration", "distance"],
                emit: @escaping ([UInt8]) -> Void) {
        self.graph = graph
        self.sources = sources
        self.destinations = destinations
        durations = annotations.contains("duration")
        distances = annotations.contains("distance")
        self.emit = emit
    }

    /// Tenths of a second and of a metre, as OSRM rounds them.
    public static func seconds(_ cell: TableCell) -> String { JSON.format((Double(cell.duration) / 100).rounded() / 10) }
    public static func metres(_ distance: Double) -> String { JSON.format((distance * 10).rounded() / 10) }

    public func begin() {
        emit(Array((durations ? "{\"code\":\"Ok\",\"durations\":[" : "{\"code\":\"Ok\"").utf8))
    }

    public func write(_ rows: [[TableCell?]]) {
        if distances { for row in rows { keptDistances += row.map { $0.map { Float($0.distance) } ?? .nan } } }
        guard durations else { return }
        var text = ""
        for row in rows {
            text += wroteRow ? ",[" : "["
            wroteRow = true
            text += row.map { $0.map(Self.seconds) ?? "null" }.joined(separator: ",")
            text += "]"
        }
        emit(Array(text.utf8))
    }

    public func end() {
        var text = durations ? "]" : ""
        if distances {
            text += ",\"distances\":["
            let columns = destinations.count
            for i in 0..<sources.count {
                let row = keptDistances[(i * columns)..<((i + 1) * columns)]
                text += (i > 0 ? ",[" : "[") + row.map { $0.isNaN ? "null" : Self.metres(Double($0)) }.joined(separator: ",") + "]"
            }
            text += "]"
        }
        if includeWaypoints {
            let waypoints = { (snaps: [Snap?]) in OSRMRouteResponse.waypoints(snaps, graph: self.graph).serialized() }
            text += ",\"sources\":\(waypoints(sources)),\"destinations\":\(waypoints(destinations))"
        }
        if let fallbackCells {
            text += ",\"fallback_speed_cells\":[" + fallbackCells.map { "[\($0.row),\($0.column)]" }.joined(separator: ",") + "]"
        }
        emit(Array((text + "}").utf8))
    }

    /// A whole table as one response body.
    public static func body(graph: RoadGraph, sources: [Snap?], destinations: [Snap?], annotations: Set<String>,
                            rows: [[TableCell?]], includeWaypoints: Bool = true,
                            fallbackCells: [(row: Int, column: Int)]? = nil) -> [UInt8] {
        var body: [UInt8] = []
        let writer = OSRMTableWriter(graph: graph, sources: sources, destinations: destinations, annotations: annotations) {
            body += $0
        }
        writer.includeWaypoints = includeWaypoints
        writer.fallbackCells = fallbackCells
        writer.begin()
        writer.write(rows)
        writer.end()
        return body
    }
}
