import Dispatch
import Foundation
import Geocoding
import HTTPService
import RoadGraph

/// `wayfinder serve`: the OSRM-compatible HTTP API and the map page.
enum ServeCommand {
    static let help = """
    Usage: wayfinder serve --graph <dir> [--host 127.0.0.1] [--port 5000] [--threads N] [limits]

    Serves OSRM v5's /route, /table and /nearest for the driving (car) and walking (foot) profiles, the map page at
    /, /directions for renderers, and /geocode, /reverse and /search over the place index. Binds to loopback unless told otherwise; --port 0 picks a free port. Logs one
    line per request on stderr; stops cleanly on SIGINT or SIGTERM.

    Limits:
      --max-table-size N     most coordinates in a table request (default 1000)
      --max-waypoints N      most coordinates in a route request (default 50)
      --max-url-length N     longest accepted URL in bytes (default 8192)
      --timeout S            seconds before an idle connection is closed (default 30)
      --quiet                no request log
    """

    static func run(_ raw: [String]) throws -> ExitCode {
        let args = try Arguments(raw, flags: ["--help", "--quiet"],
                                 options: ["--graph", "--host", "--port", "--threads", "--max-table-size",
                                           "--max-waypoints", "--max-url-length", "--timeout"])
        if args.has("--help") { print(help); return .ok }
        let host = args["--host"] ?? "127.0.0.1"
        let port = try args.integer("--port", default: 5000, range: 0...65535)
        let threads = try args.integer("--threads", default: ProcessInfo.processInfo.activeProcessorCount, range: 1...256)
        var limits = ServiceLimits()
        limits.maxTableLocations = try args.integer("--max-table-size", default: limits.maxTableLocations, range: 2...100_000)
        limits.maxRouteWaypoints = try args.integer("--max-waypoints", default: limits.maxRouteWaypoints, range: 2...10_000)
        limits.maxURLLength = try args.integer("--max-url-length", default: limits.maxURLLength, range: 256...10_000_000)
        let timeout = try args.integer("--timeout", default: 30, range: 1...3600)

        var graphs: [TravelMode: RoadGraph] = [:]
        for mode in TravelMode.allCases { graphs[mode] = try loadGraph(directory: args["--graph"], mode: mode) }
        // Geocoding endpoints answer when the import built a place index.
        let geocoder = try? Geocoder(graphDirectory: args["--graph"]!)
        let service = WayfinderService(engine: RoutingEngine(graphs: graphs, geocoder: geocoder), limits: limits)
        // Signal handling first, so a SIGTERM that arrives as soon as the server answers is never lost.
        let stop = DispatchSemaphore(value: 0)
        var sources: [DispatchSourceSignal] = []
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { stop.signal() }
            source.resume()
            sources.append(source)
        }
        let server = HTTPServer(handler: { service.handle($0) }, log: !args.has("--quiet"))
        do {
            try server.start(host: host, port: port, threads: threads, timeoutSeconds: timeout)
        } catch {
            throw CommandError.badInput("\(error)")
        }
        FileHandle.standardError.write(Data("wayfinder: listening on http://\(host):\(server.port) with \(threads) threads\n".utf8))

        stop.wait()
        server.stop()
        FileHandle.standardError.write(Data("wayfinder: stopped\n".utf8))
        _ = sources
        return .ok
    }
}
