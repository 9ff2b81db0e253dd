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
    public static func seconds(_ cell: TableCell) -> Double { (Double(cell.duration) / 100).rounded() / 10 }
    public static func metres(_ distance: Double) -> Double { (distance * 10).rounded() / 10 }

    public func begin() {
        var out = JSONWriter(capacity: 64)
        out.beginObject()
        out.key("code")
        out.string("Ok")
        if durations {
            out.key("durations")
            out.beginArray()
        }
        emit(out.bytes())
    }

    public func write(_ rows: [[TableCell?]]) {
        if distances { for row in rows { keptDistances += row.map { $0.map { Float($0.distance) } ?? .nan } } }
        guard durations, !rows.isEmpty else { return }
        // Inside the durations array, after the rows of the blocks before.
        var out = JSONWriter(capacity: rows.count * (destinations.count * 8 + 2), afterValue: wroteRow)
        for row in rows {
            out.beginArray()
            for cell in row {
                if let cell { out.number(Self.seconds(cell)) } else { out.null() }
            }
            out.endArray()
        }
        wroteRow = true
        emit(out.bytes())
    }

    public func end() {
        // Inside the answer's object after its code, or inside the durations array.
        var out = JSONWriter(capacity: sources.count * destinations.count * (distances ? 9 : 0) + 256, afterValue: true)
        if durations { out.endArray() }
        if distances {
            out.key("distances")
            out.beginArray()
            let columns = destinations.count
            for i in 0..<sources.count {
                out.beginArray()
                for distance in keptDistances[(i * columns)..<((i + 1) * columns)] {
                    if distance.isNaN { out.null() } else { out.number(Self.metres(Double(distance))) }
                }
                out.endArray()
            }
            out.endArray()
        }
        if includeWaypoints {
            out.key("sources")
            out.value(OSRMRouteResponse.waypoints(sources, graph: graph))
            out.key("destinations")
            out.value(OSRMRouteResponse.waypoints(destinations, graph: graph))
        }
        if let fallbackCells {
            out.key("fallback_speed_cells")
            out.beginArray()
            for cell in fallbackCells {
                out.beginArray()
                out.number(cell.row)
                out.number(cell.column)
                out.endArray()
            }
            out.endArray()
        }
        out.endObject()
        emit(out.bytes())
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
