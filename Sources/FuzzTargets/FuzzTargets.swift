import Customization
import Engine
import Foundation
import Geocoding
import GraphImport
import HTTPService
import Isochrones
import MapMatching
import Navigation
import RoadGraph
import RouteFormats
import Routing
import TraceReading

/// libFuzzer targets for every parser of outside input: `wayfinder-fuzz <target> [libFuzzer options] [corpus…]`.
/// `scripts/fuzz.sh` builds this with coverage and AddressSanitizer and runs each target; a plain build only
/// prints how. A target must never trap, whatever the bytes: errors are fine, crashes and hangs are findings.
enum FuzzTarget: String, CaseIterable {
    /// OSRM request targets: `/route/v1/driving/…?…`, and the route, table, nearest, isochrone, trip and match
    /// queries built from them.
    case url
    /// OSRM's POST form: the first byte picks the service, the rest is the JSON body.
    case body
    /// Google encoded polylines, precision 5 and 6.
    case polyline
    /// What a user types for a point: `lat,lon` or a place name.
    case point
    /// The geocoder's query normaliser: folding and tokens, and the bounded edit distance.
    case query
    /// Graph files: a mutated small graph, resealed half the time so the structural checks are reached, then
    /// routed on if it loads.
    case graph
    /// OSM XML: read and built into both modes' graphs.
    case osmxml
    /// GPX tracks with their times, as `wayfinder match` reads them, and the time parser alone.
    case gpx
    /// A route sent whole for progress along it (`POST /navigation/v1/progress`): the first byte picks the line
    /// encoding, the rest is the route object; fixes along and beside it follow, and the state text alone.
    case progress
    /// Traffic files (`wayfinder customize`): the first byte picks segment speeds or turn penalties.
    case traffic
    /// Conditional tag values (`no @ (Mo-Fr 07:00-09:00)`), their opening-hours conditions at a few times, and
    /// request times (`depart_at`).
    case conditions

    func run(_ bytes: UnsafeBufferPointer<UInt8>) {
        switch self {
        case .url:
            guard let request = try? OSRMRequest(target: String(decoding: bytes, as: UTF8.self)) else { return }
            _ = try? request.routeQuery()
            _ = try? request.tableQuery()
            _ = try? request.nearestQuery()
            _ = try? request.isochroneQuery()
            _ = try? request.tripQuery()
            _ = try? request.matchQuery()
        case .body:
            guard let first = bytes.first else { return }
            let path = "/" + ["route", "table", "nearest", "match", "trip"][Int(first) % 5] + "/v1/driving"
            guard let request = try? OSRMRequest(path: path, body: Array(bytes.dropFirst())) else { return }
            _ = try? request.routeQuery()
            _ = try? request.tableQuery()
            _ = try? request.nearestQuery()
            _ = try? request.matchQuery()
        case .polyline:
            let text = String(decoding: bytes, as: UTF8.self)
            for precision in [5, 6] {
                if let line = Polyline.decode(text, precision: precision) { _ = Polyline.encode(line, precision: precision) }
            }
        case .point:
            _ = try? PointText.parse(String(decoding: bytes, as: UTF8.self))
        case .query:
            let text = String(decoding: bytes, as: UTF8.self)
            let tokens = TextNormalizer.tokens(text)
            _ = TextNormalizer.fold(text)
            if tokens.count >= 2 {
                _ = TextNormalizer.editDistance(Array(tokens[0]), Array(tokens[1]), limit: 2)
            }
        case .graph:
            guard let flags = bytes.first else { return }
            var image = Array(bytes.dropFirst())
            if flags & 1 == 1 { GraphFormat.reseal(&image) }
            guard let file = try? MappedFile(bytes: image), let graph = try? RoadGraph(mapping: file, path: "input") else { return }
            var router = Router(graph: graph)
            let b = graph.metadata.bounds
            guard !b.isEmpty else { return }
            let points = [Coordinate(latitude: b.minLatitude, longitude: b.minLongitude),
                          Coordinate(latitude: b.maxLatitude, longitude: b.maxLongitude)]
            for algorithm in [SearchAlgorithm.automatic, .astar] { _ = try? router.route(points, algorithm: algorithm) }
            // A departure time reads the timed rules, whatever the file holds of them.
            router.departure = Departure(local: LocalTime(wallSeconds: Int64(flags) * 86_400 * 37))
            _ = try? router.route(points, algorithm: .automatic)
            // And weights by kind of road, which read the surfaces and the classes.
            var factors = WeightFactors()
            factors.weigh(.unpaved, by: 3)
            factors.weigh(.minorRoads, by: 1.5)
            router.weightFactors = factors
            _ = try? router.route(points, algorithm: .automatic)
            _ = graph.nearestRoads(to: points[0], count: 3)
            // Isochrones and matching read the same arrays by other paths.
            if let origin = graph.snap(points[0])?.nearest {
                var builder = IsochroneBuilder(graph: graph)
                _ = try? builder.build(from: origin, options: IsochroneOptions(metric: .duration, limits: [600], resolution: 100))
            }
            var matcher = MapMatcher(graph: graph)
            _ = try? matcher.match(points.map { TracePoint(coordinate: $0) }, options: MatchOptions())
        case .osmxml:
            _ = try? GraphImporter.buildInMemory(osmXML: Array(bytes))
        case .progress:
            guard let first = bytes.first else { return }
            _ = NavigationState(text: String(decoding: bytes.dropFirst(), as: UTF8.self))
            let encoding = [GeometryEncoding.polyline, .polyline6, .geojson][Int(first) % 3]
            guard let object = (try? JSONSerialization.jsonObject(with: Data(bytes.dropFirst()))) as? [String: Any],
                  let route = try? NavigationRoute(json: object, geometries: encoding) else { return }
            let tracker = ProgressTracker(route: route)
            var state = NavigationState()
            for (k, p) in route.points.prefix(64).enumerated() {
                let fix = Fix(location: Coordinate(latitude: p.latitude + Double(k % 3) * 1e-4, longitude: p.longitude),
                              bearing: Double(k * 37 % 360), speed: Double(k % 20), accuracy: 10, time: Double(k))
                state = tracker.progress(at: fix, state: state).state
            }
        case .traffic:
            guard let first = bytes.first else { return }
            let data = Data(bytes.dropFirst())
            if first & 1 == 0 { _ = try? TrafficFiles.segmentSpeeds(data, name: "input") } else { _ = try? TrafficFiles.turnPenalties(data, name: "input") }
        case .conditions:
            let text = String(decoding: bytes, as: UTF8.self)
            _ = try? ClockTime(iso8601: text)
            for part in ConditionalValue.parse(text) ?? [ConditionalValue(value: "no", condition: text)] {
                guard let hours = OpeningHours(part.condition) else { continue }
                for wall: Int64 in [0, 1_736_926_200, -86_400 * 400, 4_102_444_800] { _ = hours.isActive(at: LocalTime(wallSeconds: wall)) }
            }
        case .gpx:
            _ = try? GPXTrace.read(Data(bytes))
            _ = try? GPXTrace.read(Data(bytes), maxPoints: 2)  // the limit met while reading
            _ = GPXTrace.seconds(String(decoding: bytes.prefix(64), as: UTF8.self))
        }
    }

    /// The target this process runs (set before libFuzzer starts).
    nonisolated(unsafe) static var selected = FuzzTarget.url
}

#if FUZZING
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzer(_ argc: UnsafeMutablePointer<Int32>,
               _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
               _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32
#endif

@main enum FuzzMain {
    static func main() {
        let arguments = CommandLine.arguments
        guard arguments.count >= 2, let target = FuzzTarget(rawValue: arguments[1]) else {
            print("usage: wayfinder-fuzz <\(FuzzTarget.allCases.map(\.rawValue).joined(separator: "|"))> [libFuzzer options] [corpus…]")
            exit(1)
        }
        FuzzTarget.selected = target
        #if FUZZING
        // libFuzzer gets the arguments without the target's name.
        var argv = CommandLine.unsafeArgv
        argv[1] = argv[0]
        var argc = CommandLine.argc - 1
        var shifted = argv + 1
        exit(runFuzzer(&argc, &shifted) { data, size in
            FuzzTarget.selected.run(UnsafeBufferPointer(start: data, count: size))
            return 0
        })
        #else
        print("this build has no fuzzer: run scripts/fuzz.sh, which builds with -sanitize-coverage and AddressSanitizer")
        exit(1)
        #endif
    }
}
