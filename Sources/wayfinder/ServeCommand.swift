import Dispatch
import Engine
import Foundation
import HTTPService
import RoadGraph

/// `wayfinder serve`: the OSRM-compatible HTTP API and the map page.
enum ServeCommand {
    static let help = """
    Usage: wayfinder serve --graph <dir> [--host 127.0.0.1] [--port 5000] [--threads N] [limits]

    Serves OSRM v5's /route, /table and /nearest for the driving (car) and walking (foot) profiles, the map page at
    /, /directions for renderers, and /geocode, /reverse and /search over the place index. Binds to loopback unless
    told otherwise; --port 0 picks a free port. Logs one line per request on stderr. On SIGINT or SIGTERM it stops
    accepting connections, lets the requests in progress finish (up to --grace seconds), then exits.

    Limits (a request over one gets a TooBig error):
      --max-table-size N      most coordinates in a table request (default 1000)
      --max-waypoints N       most coordinates in a route request (default 50)
      --max-query-length N    longest place query in bytes (default 512)
      --max-query-words N     most words in a place query (default 32)
      --max-compute-ms N      CPU time one request may take, milliseconds (default 2000; 0: no limit)
      --max-url-length N      longest accepted URL in bytes, as sent (default 8192)
    Connections:
      --timeout S             seconds before a silent connection is closed (default 30)
      --header-timeout S      seconds a client has to send a request's head (default 10)
      --max-connections N     open connections at most (default 4096)
      --max-connections-per-client N
                              open connections per client address (default 128; raise it behind a proxy)
      --cors ORIGIN|none      Access-Control-Allow-Origin (default *)
      --grace S               seconds to finish requests in progress when stopping (default 10)
      --quiet                 no request log
    """

    static func run(_ raw: [String]) throws -> ExitCode {
        let args = try Arguments(raw, flags: ["--help", "--quiet"],
                                 options: ["--graph", "--host", "--port", "--threads", "--max-table-size",
                                           "--max-waypoints", "--max-url-length", "--timeout", "--max-query-length",
                                           "--max-query-words", "--max-compute-ms", "--header-timeout",
                                           "--max-connections", "--max-connections-per-client", "--cors", "--grace"])
        if args.has("--help") { print(help); return .ok }
        var options = HTTPServerOptions()
        options.host = args["--host"] ?? "127.0.0.1"
        options.port = try args.integer("--port", default: 5000, range: 0...65535)
        options.threads = try args.integer("--threads", default: ProcessInfo.processInfo.activeProcessorCount, range: 1...256)
        options.idleTimeout = try args.integer("--timeout", default: options.idleTimeout, range: 1...3600)
        options.headerTimeout = try args.integer("--header-timeout", default: options.headerTimeout, range: 1...3600)
        options.maxConnections = try args.integer("--max-connections", default: options.maxConnections, range: 1...1_000_000)
        options.maxConnectionsPerClient = try args.integer("--max-connections-per-client",
                                                           default: options.maxConnectionsPerClient, range: 1...1_000_000)
        options.log = !args.has("--quiet")
        switch args["--cors"] {
        case nil: break
        case "none": options.allowOrigin = nil
        case let origin?:
            guard !origin.isEmpty, origin.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
                throw CommandError.usage("--cors takes an origin such as https://example.org, * or none")
            }
            options.allowOrigin = origin
        }
        let grace = try args.integer("--grace", default: 10, range: 0...3600)
        var limits = try EngineLimits.server.configured(by: args)
        let compute = try args.integer("--max-compute-ms", default: Int(limits.maxComputeMilliseconds ?? 0), range: 0...3_600_000)
        limits.maxComputeMilliseconds = compute == 0 ? nil : Double(compute)
        let maxURLLength = try args.integer("--max-url-length", default: 8192, range: 256...10_000_000)
        raiseDescriptorLimit()

        let engine = try openEngine(args, limits: limits)
        let service = WayfinderService(engine: engine, maxURLLength: maxURLLength)
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
        let server = HTTPServer(handler: { service.handle($0) }, options: options)
        do {
            try server.start()
        } catch {
            throw CommandError.badInput("\(error)")
        }
        FileHandle.standardError.write(Data("wayfinder: listening on http://\(options.host):\(server.port) with \(options.threads) threads\n".utf8))

        stop.wait()
        FileHandle.standardError.write(Data("wayfinder: stopping\n".utf8))
        server.stop(grace: Double(grace))
        FileHandle.standardError.write(Data("wayfinder: stopped\n".utf8))
        _ = sources
        return .ok
    }

    /// Connections are file descriptors: let the server have as many as the system allows this process.
    static func raiseDescriptorLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}
