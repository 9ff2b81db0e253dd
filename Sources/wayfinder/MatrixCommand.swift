import Engine
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import RoadGraph
import RouteFormats
import Routing

enum MatrixFormat: String {
    case csv, json, protobuf
}

/// `wayfinder matrix`: durations and distances between many points, streamed out in blocks of rows.
enum MatrixCommand {
    static let help = """
    Usage: wayfinder matrix --graph <dir> [--mode driving|walking|cycling] --sources S [--destinations D]
                            [--format csv|json|protobuf] [--threads N] [--algorithm ch|dijkstra]
                            [--radius METRES|unlimited] [--exclude toll,motorway,ferry] [--resolve-only]
                            [--depart-at YYYY-MM-DDTHH:MM]

    S and D are files (CSV with lat,lon per line, or GeoJSON Point features) or inline lat,lon;lat,lon; in a CSV
    file or inline, a place name may stand for a point ("Kamppi;Senate Square;60.17,24.95").
    Without --destinations the sources are used. Durations are of the fastest path (seconds), distances its length
    (metres); unreachable cells are null (CSV: empty; protobuf: NaN).
      csv        source,destination,duration,distance per line
      json       OSRM's table response: durations, distances, sources, destinations
      protobuf   a wayfinder.Matrix message (proto/wayfinder.proto), written in row blocks
    Uses the contraction hierarchy with every core (--threads); --algorithm dijkstra runs one Dijkstra per source.
    A point with no road within --radius (metres or 'unlimited'; default 5000) is named on stderr and its row and
    column are null: the rest of the table still comes out.
    --resolve-only prints the points as read, place names resolved (CSV: role,index,lat,lon, full precision) and
    computes no table: what a batch that splits the table into row blocks runs once (cluster/).
    --depart-at: every cell leaves at that time (the extract's local time), under the conditional restrictions and
    closures then; on a graph that has some, each cell is searched as a route, slower than the matrix.
    """

    static func run(_ raw: [String]) throws -> ExitCode {
        let args = try Arguments(raw, flags: ["--help", "--resolve-only"],
                                 options: (["--graph", "--mode", "--sources", "--destinations", "--format", "--threads",
                                           "--algorithm", "--radius", "--exclude", "--depart-at"] as Set<String>).union(EngineLimits.options))
        if args.has("--help") { print(help); return .ok }
        let mode = try args.mode()
        let format: MatrixFormat = try args.choice("--format", default: .csv)
        let threads = try args.integer("--threads", default: ProcessInfo.processInfo.activeProcessorCount, range: 1...256)
        guard let sourceText = args["--sources"] else { throw CommandError.usage("matrix needs --sources") }
        let useHierarchy: Bool
        switch args["--algorithm"] ?? "ch" {
        case "ch": useHierarchy = true
        case "dijkstra": useHierarchy = false
        case let other: throw CommandError.usage("invalid value '\(other)' for --algorithm (ch, dijkstra)")
        }
        let engine = try openEngine(args, modes: [mode])
        let resolver = PointReader(engine: engine)
        let sourcePoints = try readPoints(sourceText, resolver: resolver)
        let destinationPoints = try args["--destinations"].map { try readPoints($0, resolver: resolver) }
        if args.has("--resolve-only") {
            // Double's description is the shortest text that reads back as the same number.
            var text = "role,index,lat,lon\n"
            for (role, points) in [("source", sourcePoints), ("destination", destinationPoints ?? [])] {
                for (i, p) in points.enumerated() { text += "\(role),\(i),\(p.latitude),\(p.longitude)\n" }
            }
            FileHandle.standardOutput.write(Data(text.utf8))
            return .ok
        }
        var query = TableQuery(mode: mode, points: sourcePoints + (destinationPoints ?? []),
                               sources: Array(sourcePoints.indices),
                               destinations: destinationPoints.map { Array(sourcePoints.count..<(sourcePoints.count + $0.count)) })
        query.snapRadius = try RouteCommand.snapRadius(args)
        query.excluding = try RouteCommand.exclusion(args)
        query.unsnappedPointsAreNull = true
        query.useHierarchy = useHierarchy
        query.threads = threads
        if case .departure(let clock)? = try RouteCommand.travelTime(args) { query.departure = clock }
        let table = try engineCall { try engine.table(query) }
        // One unsnappable point must not cost the batch: its row and column are null, and it is named here.
        for i in table.unsnapped {
            let side = i < sourcePoints.count ? "source \(i)" : "destination \(i - sourcePoints.count)"
            let limit = query.snapRadius ?? engine.limits.defaultSnapRadius
            FileHandle.standardError.write(Data(("wayfinder: \(side) (\(query.points[i])) has no road usable by \(mode.rawValue)"
                + (limit.isFinite ? " within \(Int(limit)) m" : "") + ": its cells are null\n").utf8))
        }

        let out = OutputBuffer()
        let writer = MatrixWriter(format: format, graph: table.graph, mode: mode, sources: table.sources,
                                  destinations: table.destinations, out: out)
        try writer.begin()
        // Blocks of about four million cells keep memory flat however large the table.
        let rowCount = table.sources.count
        let blockRows = max(1, min(rowCount, 4_000_000 / max(1, table.destinations.count)))
        // Each block is written on its own thread while the next is computed (encoding and writing 800 MB was a
        // third of a 10,000 × 10,000 table's time, all of it on top of the search); one block waits at most.
        let writing = DispatchQueue(label: "matrix writer")
        let slot = DispatchSemaphore(value: 1)
        let failure = Locked<Error?>(nil)
        defer { writing.sync {} }  // a block in flight is finished whatever stops the loop
        var first = 0
        while first < rowCount && failure.value == nil {
            let end = min(rowCount, first + blockRows)
            let rows = try engineCall { try table.rows(first..<end) }
            slot.wait()
            writing.async { [first] in
                do { try writer.write(rows, firstRow: first) } catch { failure.mutate { $0 = $0 ?? error } }
                slot.signal()
            }
            first = end
        }
        writing.sync {}
        if let error = failure.value { throw error }
        try writer.end()
        out.flush()
        if let failure = out.failure { throw CommandError.badInput("cannot write the table: \(failure)") }
        return .ok
    }

    /// Points from a file (CSV lat,lon lines or GeoJSON points) or inline `lat,lon;lat,lon`; in a CSV file or
    /// inline, a place name stands for the place's coordinate ("Kamppi;Senate Square").
    static func readPoints(_ text: String, resolver: PointReader) throws -> [Coordinate] {
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
    static func resolved(_ text: String, _ resolver: PointReader) throws -> Coordinate {
        let point = try resolver.resolve(text)
        if let place = point.place { FileHandle.standardError.write(Data("'\(text)': \(place.name) (\(point.coordinate))\n".utf8)) }
        return point.coordinate
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

/// Reads points one after another: a place name is searched near the point before it.
final class PointReader {
    let engine: Engine
    private var previous: Coordinate?
    init(engine: Engine) { self.engine = engine }

    func resolve(_ text: String) throws -> ResolvedPoint {
        let point = try engineCall { try engine.resolve(text, near: previous) }
        previous = point.coordinate
        return point
    }
}

/// Buffered binary stdout.
final class OutputBuffer {
    private var buffer: [UInt8] = []
    func write(_ bytes: [UInt8]) {
        // Large pieces (a block of a protobuf table) go out as they are, not through the buffer.
        if bytes.count >= 1 << 20 {
            flush()
            emit(bytes)
            return
        }
        buffer += bytes
        if buffer.count > 1 << 20 { flush() }
    }
    func write(_ text: String) { write(Array(text.utf8)) }
    func flush() {
        emit(buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    /// Why output stopped (a full disk), once it has; what follows is not written.
    private(set) var failure: String?

    /// Straight to standard output, without copying into `Data` first.
    private func emit(_ bytes: [UInt8]) {
        guard failure == nil else { return }
        bytes.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                let n = Glibc.write(1, raw.baseAddress! + done, raw.count - done)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { failure = String(cString: strerror(errno)); return }
                done += n
            }
        }
    }
}

/// Writes a table as it is computed (JSON through RouteFormats' OSRM table writer, shared with the server).
final class MatrixWriter {
    let format: MatrixFormat
    let graph: RoadGraph
    let mode: TravelMode
    let sources: [Snap?], destinations: [Snap?]
    let out: OutputBuffer
    private let json: OSRMTableWriter

    init(format: MatrixFormat, graph: RoadGraph, mode: TravelMode, sources: [Snap?], destinations: [Snap?], out: OutputBuffer) {
        self.format = format
        self.graph = graph
        self.mode = mode
        self.sources = sources
        self.destinations = destinations
        self.out = out
        json = OSRMTableWriter(graph: graph, sources: sources, destinations: destinations) { out.write($0) }
    }

    func begin() throws {
        switch format {
        case .csv: out.write("source,destination,duration,distance\n")
        case .json: json.begin()
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
                    if let cell { text += "\(JSON.format(OSRMTableWriter.seconds(cell))),\(JSON.format(OSRMTableWriter.metres(cell.distance)))\n" } else { text += ",\n" }
                }
            }
            out.write(text)
        case .json: json.write(rows)
        case .protobuf: out.write(try ProtobufOutput.matrixRows(rows))
        }
    }

    func end() throws {
        guard format == .json else { return }
        json.end()
        out.write("\n")
    }
}
