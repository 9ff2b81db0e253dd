import Dispatch
import Engine
import Foundation
import HTTPService
import RoadGraph

/// `wayfinder serve`: the OSRM-compatible HTTP API and the map page.
enum ServeCommand {
    static let help = """
    Usage: wayfinder serve --graph <dir> [--host 127.0.0.1] [--port 5000] [--threads N] [limits]

    Serves OSRM v5's /route, /table, /nearest, /trip and /match for the driving (car) and walking (foot) profiles
    (GET, or POST with the request in a JSON body as OSRM 26 takes it: route, table, nearest, match), the map page at
    /, /directions for renderers, and /geocode, /reverse and /search over the place index. Binds to loopback unless
    told otherwise; --port 0 picks a free port. Logs one line per request on stderr. On SIGINT or SIGTERM it stops
    accepting connections, lets the requests in progress finish (up to --grace seconds), then exits.

    GET /health answers 200 with the graphs' source, build time, format version, modes and import rules once they
    are loaded, 503 before that and while a new graph is being swapped in (for load balancers and readiness probes).
    Graph swaps without downtime: when an import renames a new generation into --graph (or the directory is
    pointed elsewhere), and on SIGHUP, the server maps and verifies the new graphs, sends new requests to them
    and unmaps the old ones when their last request ends. A damaged new graph is refused with a log line and the
    old one keeps serving.
      --watch S               seconds between checks for a new generation (default 1; 0: only on SIGHUP)
      --compat osrm|wayfinder whose answers requests get unless they say (compat=); osrm turns off every
                              deviation from OSRM that GUIDANCE.md and PROFILES.md list (default wayfinder)

    Limits (a request over one gets a TooBig error):
      --max-table-size N      most coordinates in a table request (default 1000)
      --max-trip-size N       most coordinates in a trip request (default 100)
      --max-trace-points N    most coordinates in a match request (default 100)
      --max-matching-radius M largest radius of a match request, metres (default 1000; unlimited: none)
      --max-isochrone-points N most points an isochrone may triangulate (default 300000)
      --max-waypoints N       most coordinates in a route request (default 50)
      --max-query-length N    longest place query in bytes (default 512)
      --max-query-words N     most words in a place query (default 32)
      --max-compute-ms N      CPU time one request may take, milliseconds (default 2000; 0: no limit)
      --max-url-length N      longest accepted URL in bytes, as sent (default 65536: a 1,000-point table fits)
      --max-body-size N       largest POST body in bytes (default 1048576, as OSRM; over it: 413)
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
                                 options: ["--graph", "--host", "--port", "--threads", "--max-table-size", "--max-trip-size", "--max-trace-points",
                                           "--max-matching-radius", "--max-isochrone-points",
                                           "--max-waypoints", "--max-url-length", "--max-body-size", "--timeout", "--max-query-length",
                                           "--max-query-words", "--max-compute-ms", "--header-timeout",
                                           "--max-connections", "--max-connections-per-client", "--cors", "--grace",
                                           "--watch", "--compat"])
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
        options.maxBodySize = try args.integer("--max-body-size", default: options.maxBodySize, range: 1024...1_073_741_824)
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
        let watch = try args.decimal("--watch", default: 1, range: 0...86_400)
        var limits = try EngineLimits.server.configured(by: args)
        let compute = try args.integer("--max-compute-ms", default: Int(limits.maxComputeMilliseconds ?? 0), range: 0...3_600_000)
        limits.maxComputeMilliseconds = compute == 0 ? nil : Double(compute)
        let maxURLLength = try args.integer("--max-url-length", default: WayfinderService.defaultMaxURLLength,
                                            range: 256...10_000_000)
        raiseDescriptorLimit()

        guard let graphPath = args["--graph"] else {
            throw CommandError.usage("--graph is required (a directory made by wayfinder import)")
        }
        // A directory with no graph at all is a mistake to report now, not after listening.
        do { _ = try GraphDirectory(graphPath).current() } catch { throw CommandError.badInput("\(error)") }
        let slot = EngineSlot()
        let service = WayfinderService(slot: slot, maxURLLength: maxURLLength,
                                       compatibility: try args.choice("--compat", default: Compatibility.wayfinder))
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
        signal(SIGHUP, SIG_IGN)
        let server = HTTPServer(handler: { service.handle($0) }, options: options)
        do {
            try server.start()
        } catch {
            throw CommandError.badInput("\(error)")
        }
        log("listening on http://\(options.host):\(server.port) with \(options.threads) threads")

        // Listening already, so probes see 503 rather than a refused connection while the graphs are verified.
        let engine: Engine
        do {
            // Copies, not mappings: an operator's `cp` over a served file must not pull pages from under a search.
            engine = try openEngine(args, limits: limits, privateCopies: true)
        } catch {
            server.stop(grace: 0)
            throw error
        }
        slot.engine = engine
        log("serving \(describe(engine.current.generation, engine.health))")

        // Swaps run on one serial queue: a signal and the watch never load at once.
        let swaps = DispatchQueue(label: "wayfinder.graph-swap")
        func refresh(force: Bool) {
            switch engine.refresh(force: force) {
            case .unchanged: break
            case .installed(let generation): log("now serving \(describe(generation, engine.health))")
            case .refused(let why): log("refusing the new graph in \(graphPath): \(why); still serving \(describe(engine.current.generation, engine.health))")
            }
        }
        let hangup = DispatchSource.makeSignalSource(signal: SIGHUP, queue: swaps)
        hangup.setEventHandler { refresh(force: true) }
        hangup.resume()
        sources.append(hangup)
        var watcher: DispatchSourceTimer?
        if watch > 0 {
            let timer = DispatchSource.makeTimerSource(queue: swaps)
            timer.schedule(deadline: .now() + watch, repeating: watch, leeway: .milliseconds(Int(watch * 100)))
            timer.setEventHandler { refresh(force: false) }
            timer.resume()
            watcher = timer
        }

        stop.wait()
        watcher?.cancel()
        log("stopping")
        server.stop(grace: Double(grace))
        log("stopped")
        _ = sources
        return .ok
    }

    static func log(_ line: String) {
        FileHandle.standardError.write(Data("wayfinder: \(line)\n".utf8))
    }

    static func describe(_ generation: GraphGeneration?, _ health: EngineHealth) -> String {
        let built = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(health.buildTime)))
        return (generation?.name ?? "the graph") + " (\(health.source), built \(built))"
    }

    /// Connections are file descriptors: let the server have as many as the system allows this process.
    static func raiseDescriptorLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}
