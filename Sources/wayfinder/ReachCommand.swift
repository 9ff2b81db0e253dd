import Engine
import Foundation
import RoadGraph
import RouteFormats
import Routing

/// `wayfinder reach`: where one can get within some minutes or metres, as contour polygons.
enum ReachCommand {
    static let help = """
    Usage: wayfinder reach --graph <dir> [--mode driving|walking|cycling] (--minutes 5,10,15 | --meters 500,1000)
                           [--format geojson|text] [--polygons true|false] [--resolution METRES]
                           [--denoise 0..1] [--generalize METRES] [--exclude toll,motorway,ferry]
                           [--radius METRES|unlimited] <lat,lon | place name>

    The ground reachable from the point within each limit (up to 4; at most 60 minutes or 100,000 metres), by the
    fastest path (time) or the shortest (distance) on roads the mode may use. geojson (default): a
    FeatureCollection with one feature per contour, farthest first, as Mapbox's isochrone API gives it; text: each
    contour's polygons, rings and area. A graph vertex inside a contour is reachable within its limit.
      --polygons false         the contours' rings as lines instead of polygons
      --resolution M           how far ground may be from a road and still count (triangle side, metres;
                               default 300 driving, 150 walking)
      --denoise X              drop polygons smaller than X times the largest of their contour (default 1:
                               the largest only; 0 keeps all)
      --generalize M           simplify rings by M metres (default 0: exact)
      --max-isochrone-points N most points to triangulate (default 300000; past it the answer is TooBig)
    """

    static func run(_ raw: [String]) throws -> ExitCode {
        let args = try Arguments(raw, flags: ["--help"],
                                 options: ["--graph", "--mode", "--minutes", "--meters", "--format", "--polygons",
                                           "--resolution", "--denoise", "--generalize", "--exclude", "--radius",
                                           "--colors", "--max-isochrone-points"])
        if args.has("--help") { print(help); return .ok }
        let mode = try args.mode()
        guard args.positional.count == 1 else { throw CommandError.usage("reach needs one point (lat,lon or a place name)") }
        let metric: ReachMetric
        let text: String
        switch (args["--minutes"], args["--meters"]) {
        case (let minutes?, nil): (metric, text) = (.duration, minutes)
        case (nil, let meters?): (metric, text) = (.distance, meters)
        default: throw CommandError.usage("reach needs --minutes or --meters (one of them)")
        }
        let values = try text.split(separator: ",", omittingEmptySubsequences: false).map { item -> Double in
            guard let n = Double(decimal: item.trimmingCharacters(in: .whitespaces)) else {
                throw CommandError.usage("'\(item)' is not a number (--minutes 5,10,15)")
            }
            return n
        }
        let format = args["--format"] ?? "geojson"
        guard ["geojson", "text"].contains(format) else { throw CommandError.usage("invalid value '\(format)' for --format") }
        let polygons: Bool
        switch args["--polygons"] ?? "true" {
        case "true": polygons = true
        case "false": polygons = false
        case let other: throw CommandError.usage("invalid value '\(other)' for --polygons (true, false)")
        }
        let engine = try openEngine(args, modes: [mode])
        let point = try engineCall { try engine.resolve(args.positional[0]) }
        if let place = point.place { FileHandle.standardError.write(Data("'\(args.positional[0])': \(place.name) (\(point.coordinate))\n".utf8)) }
        var query = IsochroneQuery(mode: mode, point: point.coordinate, metric: metric,
                                   limits: values.map { metric == .duration ? $0 * 60 : $0 })
        if let r = args["--resolution"] { guard let v = Double(decimal: r) else { throw CommandError.usage("--resolution must be metres") }; query.resolution = v }
        query.denoise = try args.decimal("--denoise", default: 1, range: 0...1)
        query.generalize = try args.decimal("--generalize", default: 0, range: 0...10_000)
        query.excluding = try RouteCommand.exclusion(args)
        query.snapRadius = try RouteCommand.snapRadius(args)
        let (_, isochrone) = try engineCall { try engine.isochrone(query) }
        if format == "text" {
            for contour in isochrone.contours {
                let limit = metric == .duration ? "\(JSON.format(contour.limit / 60)) min" : "\(JSON.format(contour.limit)) m"
                let rings = contour.polygons.reduce(0) { $0 + $1.count }
                let area = contour.polygons.reduce(0.0) { $0 + Geo.polygonArea($1) } / 1e6
                print("\(limit): \(contour.polygons.count) polygon(s), \(rings) ring(s), \(String(format: "%.2f", area)) km²")
            }
        } else {
            print(IsochroneGeoJSON.make(isochrone, polygons: polygons,
                                        colors: args["--colors"].map { $0.split(separator: ",").map(String.init) }).serialized())
        }
        return .ok
    }
}
