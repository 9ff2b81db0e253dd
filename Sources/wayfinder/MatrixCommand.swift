import Foundation
import RoadGraph
import RouteFormats
import Routing

enum MatrixFormat: String {
    case csv, json, protobuf
}

/// `wayfinder matrix`: durations and distances between many points, streamed out in blocks of rows.
enum MatrixCommand {
    static let help = """
    Usage: wayfinder matrix --graph <dir> [--mode driving|walking] --sources S [--destinations D]
                            [--format csv|json|protobuf] [--threads N] [--algorithm ch|dijkstra]

    S and D are files (CSV with lat,lon per line, or GeoJSON Point features) or inline lat,lon;lat,lon; in a CSV
    file or inline, a place name may stand for a point ("Kamppi;Senate Square;60.17,24.95").
    Without --destinations the sources are used. Durations are of the fastest path (seconds), distances its length
    (metres); unreachable cells are null (CSV: empty; protobuf: NaN).
      csv        source,destination,duration,distance per line
      json       OSRM's table response: durations, distances, sources, destinations
      protobuf   a wayfinder.Matrix message (proto/wayfinder.proto), written in row blocks
    Uses the contraction hierarchy with every core (--threads); --algorithm dijkstra runs one Dijkstra per source.
    """

    static func run(_ raw: [String]) throws -> ExitCode {
        let args = try Arguments(raw, flags: ["--help"],
                                 options: ["--graph", "--mode", "--sources", "--destinations", "--format", "--threads",
                                           "--algorithm"])
        if args.has("--help") { print(help); return .ok }
        let mode = try args.mode()
        let format: MatrixFormat = try args.choice("--format", default: .csv)
        let threads = try args.integer("--threads", default: ProcessInfo.processInfo.activeProcessorCount, range: 1...256)
        guard let sourceText = args["--sources"] else { throw CommandError.usage("matrix needs --sources") }
        let resolver = PlaceResolver(graphDirectory: args["--graph"])
        let sourcePoints = try readPoints(sourceText, resolver: resolver)
        let destinationPoints = try args["--destinations"].map { try readPoints($0, resolver: resolver) } ?? sourcePoints
        let graph = try loadGraph(directory: args["--graph"], mode: mode)
        let useHierarchy: Bool
        switch args["--algorithm"] ?? "ch" {
        case "ch":
            guard graph.hasHierarchy else {
                throw CommandError.badInput("the \(mode.rawValue) graph has no contraction hierarchy: re-import without --no-contraction, or use --algorithm dijkstra")
            }
            useHierarchy = true
        case "dijkstra": useHierarchy = false
        case let other: throw CommandError.usage("invalid value '\(other)' for --algorithm (ch, dijkstra)")
        }
        let router = Router(graph: graph)
        let sources: [Snap], destinations: [Snap]
        do {
            sources = try router.snapWaypoints(sourcePoints)
            destinations = try router.snapWaypoints(destinationPoints)
        } catch let error as RoutingError {
            throw CommandError(message: error.description, code: .badInput, osrmCode: error.code)
        }

        let out = OutputBuffer()
        let writer = MatrixWriter(format: format, graph: graph, mode: mode, sources: sources, destinations: destinations, out: out)
        try writer.begin()
        let matrix = useHierarchy ? HierarchyMatrix(graph: graph, targets: destinations) : nil
        // Blocks of about four million cells keep memory flat however large the table.
        let blockRows = max(1, min(sources.count, 4_000_000 / max(1, destinations.count)))
        var first = 0
        while first < sources.count {
            let block = Array(sources[first..<min(sources.count, first + blockRows)])
            let rows: [[TableCell?]]
            if let matrix {
                rows = matrix.rows(for: block, threads: threads)
            } else {
                rows = TableSearch.rows(in: graph, sources: block, targets: destinations, threads: threads)
            }
            try writer.write(rows, firstRow: first)
            first += block.count
        }
        try writer.end()
        out.flush()
        return .ok
    }

    /// Points from a file (CSV lat,lon lines or GeoJSON points) or inline `lat,lon;lat,lon`; in a CSV file or
    /// inline, a place name stands for the place's coordinate ("Kamppi;Senate Square").
    static func readPoints(_ text: String, resolver: PlaceResolver) throws -> [Coordinate] {
        if FileManager.default.fileExists(atPath: text) {
            guard let data = FileManager.default.contents(atPath: text) else { throw CommandError.badInput("cannot read \(text)") }
            let content = String(decoding: data, as: UTF8.self)
            if content.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("{") {
                return try geoJSONPoints(data, file: text)
            }
            var points: [Coordinate] = []
            for (n, line) in content.split(whereSeparator: \.isNewline).enumerated() {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
                // A header line (lat,lon) is allowed.
                if n == 0 && trimmed.lowercased().hasPrefix("lat") { continue }
                // lat,lon and extra columns, or a name (which may hold one comma: "Mannerheimintie 5, Helsinki").
                let columns = trimmed.split(separator: ",")
                let fields = columns.count > 2 ? columns.prefix(2).joined(separator: ",") : trimmed
                do { points.append(try resolved(fields, resolver)) } catch let e as CommandError {
                    throw CommandError(message: "\(text) line \(n + 1): \(e.message)", code: e.code, osrmCode: e.osrmCode)
                }
            }
            guard !points.isEmpty else { throw CommandError.badInput("\(text) holds no points") }
            return points
        }
        if text.contains("/") || [".csv", ".json", ".geojson", ".txt"].contains(where: text.lowercased().hasSuffix) {
            throw CommandError.badInput("no such file: \(text)")
        }
        return try text.split(separator: ";").map { try resolved(String($0).trimmingCharacters(in: .whitespaces), resolver) }
    }

    /// A point, with the place a name stood for reported on stderr (stdout is the table).
    static func resolved(_ text: String, _ resolver: PlaceResolver) throws -> Coordinate {
        let (point, place) = try resolver.resolve(text)
        if let place { FileHandle.standardError.write(Data("'\(text)': \(place.name) (\(point))\n".utf8)) }
        return point
    }

    static func geoJSONPoints(_ data: Data, file: String) throws -> [Coordinate] {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw CommandError.badInput("\(file) is not valid JSON")
        }
        let features = (object["features"] as? [[String: Any]]) ?? [object]
        return try features.enumerated().map { i, feature in
            let geometry = (feature["geometry"] as? [String: Any]) ?? feature
            guard geometry["type"] as? String == "Point", let c = geometry["coordinates"] as? [Double], c.count >= 2,
                  abs(c[1]) <= 90, abs(c[0]) <= 180
            else { throw CommandError.badInput("\(file): feature \(i) is not a Point with [lon, lat]") }
            return Coordinate(latitude: c[1], longitude: c[0])
        }
    }
}

/// Buffered binary stdout.
final class OutputBuffer {
    private var buffer: [UInt8] = []
    func write(_ bytes: [UInt8]) {
        buffer += bytes
        if buffer.count > 1 << 20 { flush() }
    }
    func write(_ text: String) { write(Array(text.utf8)) }
    func flush() {
        buffer.withUnsafeBytes { FileHandle.standardOutput.write(Data($0)) }
        buffer.removeAll(keepingCapacity: true)
    }
}

/// Writes a table as it is computed. JSON keeps the distances (one float per cell) until the durations are out.
final class MatrixWriter {
    let format: MatrixFormat
    let graph: RoadGraph
    let mode: TravelMode
    let sources: [Snap], destinations: [Snap]
    let out: OutputBuffer
    private var distances: [Float] = []
    private var wroteRow = false

    init(format: MatrixFormat, graph: RoadGraph, mode: TravelMode, sources: [Snap], destinations: [Snap], out: OutputBuffer) {
        self.format = format
        self.graph = graph
        self.mode = mode
        self.sources = sources
        self.destinations = destinations
        self.out = out
    }

    func begin() throws {
        switch format {
        case .csv: out.write("source,destination,duration,distance\n")
        case .json: out.write("{\"code\":\"Ok\",\"durations\":[")
        case .protobuf: out.write(try ProtobufOutput.matrixHeader(mode: mode, sources: sources, destinations: destinations, graph: graph))
        }
    }

    func write(_ rows: [[TableCell?]], firstRow: Int) throws {
        switch format {
        case .csv:
            var text = ""
            for (k, row) in rows.enumerated() {
                for (j, cell) in row.enumerated() {
                    text += "\(firstRow + k),\(j),"
                    if let cell { text += "\(JSON.format((Double(cell.weight) / 100).rounded() / 10)),\(JSON.format((cell.distance * 10).rounded() / 10))\n" } else { text += ",\n" }
                }
            }
            out.write(text)
        case .json:
            var text = ""
            for row in rows {
                text += wroteRow ? ",[" : "["
                wroteRow = true
                text += row.map { $0.map { JSON.format((Double($0.weight) / 100).rounded() / 10) } ?? "null" }.joined(separator: ",")
                text += "]"
                distances += row.map { $0.map { Float($0.distance) } ?? .nan }
            }
            out.write(text)
        case .protobuf:
            out.write(try ProtobufOutput.matrixRows(rows))
        }
    }

    func end() throws {
        guard format == .json else { return }
        out.write("],\"distances\":[")
        let columns = destinations.count
        for i in 0..<sources.count {
            let row = distances[(i * columns)..<((i + 1) * columns)]
            out.write((i > 0 ? ",[" : "[") + row.map { $0.isNaN ? "null" : JSON.format((Double($0) * 10).rounded() / 10) }.joined(separator: ",") + "]")
        }
        let waypoints = { (snaps: [Snap]) in
            JSON.array(snaps.map { OSRMRouteResponse.waypoint($0, name: self.graph.name(ofEdge: $0.edge)) }).serialized()
        }
        out.write("],\"sources\":\(waypoints(sources)),\"destinations\":\(waypoints(destinations))}\n")
    }
}
