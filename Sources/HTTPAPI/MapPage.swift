import Engine
import Foundation
import Geocoding
import Guidance
import RoadGraph
import RouteFormats

/// The files every command may read besides a graph: the phrase books, the words naming kinds of place, the map page.
public enum BundledResources {
    /// The resource directories (as `swift build` names them beside the binary) that cannot be found; empty when
    /// all are there.
    public static var missing: [String] {
        [("Guidance", PhraseBook.directory), ("Geocoding", Geocoder.categoriesFile), ("HTTPAPI", MapPage.file)]
            .filter { $0.1.map { !FileManager.default.fileExists(atPath: $0.path) } ?? true }
            .map { ResourceDirectory.bundleName($0.0) }
    }
}

/// The map page at `/`, Leaflet served from Debian's libjs-leaflet (no CDN), and the graph's own roads as a light
/// vector layer, since no basemap tiles exist offline.
struct MapPage {
    let engine: Engine
    static let leafletDirectory = ProcessInfo.processInfo.environment["WAYFINDER_LEAFLET_DIR"] ?? "/usr/share/javascript/leaflet"
    /// At most this many roads per `/roads` answer; beyond it the minor classes are left out.
    static let maxRoads = 20_000

    /// The page, or nil where this binary was copied without its resources.
    static var file: URL? { ResourceDirectory.url(module: "HTTPAPI", resource: "Web", sourceFile: #filePath)?.appendingPathComponent("index.html") }

    func page() -> HTTPResponse {
        guard let url = Self.file,
              let html = try? Data(contentsOf: url)
        else { return EngineError(.notFound, "the map page is missing from this build", status: 500).response }
        return HTTPResponse(status: 200, contentType: "text/html; charset=utf-8", body: Array(html))
    }

    func leaflet(_ path: String) -> HTTPResponse {
        let name = String(path.dropFirst("/leaflet/".count))
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-/")
        guard !name.contains(".."), name.unicodeScalars.allSatisfy(allowed.contains),
              let data = FileManager.default.contents(atPath: Self.leafletDirectory + "/" + name)
        else { return EngineError(.notFound, "no such file: \(path) (is libjs-leaflet installed?)", status: 404).response }
        let type = name.hasSuffix(".js") ? "application/javascript" : name.hasSuffix(".css") ? "text/css"
            : name.hasSuffix(".png") ? "image/png" : "application/octet-stream"
        return HTTPResponse(status: 200, contentType: type, body: Array(data), headers: [("Cache-Control", "max-age=86400")])
    }

    func graphInfo() -> HTTPResponse {
        let graphs = engine.current.graphs
        var bounds = BoundingBox.empty
        for graph in graphs.values where !graph.metadata.bounds.isEmpty {
            let b = graph.metadata.bounds
            bounds.extend(Coordinate(latitude: b.minLatitude, longitude: b.minLongitude))
            bounds.extend(Coordinate(latitude: b.maxLatitude, longitude: b.maxLongitude))
        }
        if bounds.isEmpty { bounds = BoundingBox(minLatitude: 0, minLongitude: 0, maxLatitude: 0, maxLongitude: 0) }
        let source = graphs.values.first?.metadata.sourceName ?? ""
        return .json(JSON.object([
            ("modes", .array(TravelMode.allCases.filter { graphs[$0] != nil }.map { .string($0.rawValue) })),
            ("bounds", .array([bounds.minLongitude, bounds.minLatitude, bounds.maxLongitude, bounds.maxLatitude].map { .number($0, decimals: 6) })),
            ("source", .string(source)),
        ]))
    }

    /// `/roads?bbox=w,s,e,n&zoom=z&mode=m`: the roads in a box, simplified to about a pixel at that zoom.
    func roads(_ request: HTTPRequest) throws -> HTTPResponse {
        let mode = TravelMode(profileName: request.argument("mode") ?? "driving") ?? .driving
        guard let graph = engine.current.graphs[mode] else { throw EngineError(.invalidValue, "this server has no \(mode.rawValue) graph") }
        let box = (request.argument("bbox") ?? "").split(separator: ",").compactMap { Double($0) }
        guard box.count == 4, box[0] <= box[2], box[1] <= box[3], box.allSatisfy({ $0.isFinite }) else {
            throw EngineError(.invalidValue, "bbox must be west,south,east,north")
        }
        let zoom = min(22, max(0, Int(request.argument("zoom") ?? "16") ?? 16))
        let metresPerPixel = 40_075_016.7 / 256 / pow(2, Double(zoom))
        let grid = graph.metadata.grid
        let r0 = max(0, grid.rowIndex(box[1])), r1 = min(Int(grid.rows) - 1, grid.rowIndex(box[3]))
        let c0 = max(0, grid.columnIndex(box[0])), c1 = min(Int(grid.columns) - 1, grid.columnIndex(box[2]))
        var edges = Set<Int>()
        if r0 <= r1 && c0 <= c1 && (r1 - r0 + 1) * (c1 - c0 + 1) <= 4_000_000 {
            for r in r0...r1 {
                for c in c0...c1 {
                    let cell = r * Int(grid.columns) + c
                    for k in Int(graph.gridCellStart[cell])..<Int(graph.gridCellStart[cell + 1]) {
                        edges.insert(graph.edge(ofSegmentStartingAt: Int(graph.gridSegments[k])))
                    }
                }
            }
        }
        var chosen = Array(edges)
        if chosen.count > Self.maxRoads {
            chosen.sort { graph.edgeClass[$0] < graph.edgeClass[$1] }  // major classes first
            chosen = Array(chosen.prefix(Self.maxRoads))
        }
        let features = chosen.sorted().map { e -> JSON in
            let line = Simplification.simplify(graph.shapeRange(ofEdge: e).map(graph.shapePoint), tolerance: metresPerPixel)
            return GeoJSON.line(line, [("class", .string(String(describing: graph.roadClass(ofEdge: e))))])
        }
        return .json(GeoJSON.collection(features))
    }
}
