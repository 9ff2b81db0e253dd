import Engine
import Foundation
import RoadGraph
import RouteFormats

/// The engine a server answers with: empty while its graphs are still loading, so the server can listen (and
/// answer `/health` with 503) before they are mapped and verified.
public final class EngineSlot: @unchecked Sendable {
    private let lock = NSLock()
    private var held: Engine?

    public init(_ engine: Engine? = nil) { held = engine }

    public var engine: Engine? {
        get { lock.withLock { held } }
        set { lock.withLock { held = newValue } }
    }
}

/// Every HTTP endpoint, dispatched by path. Handlers never throw past here: every failure is an OSRM error body.
public struct WayfinderService: Sendable {
    let slot: EngineSlot
    /// Longest accepted request target (path and query as sent, before percent-decoding), bytes.
    let maxURLLength: Int
    /// The default: room for a table as large as `--max-table-size` allows by default (1,000 points at about
    /// 25 bytes each, with per-point options), under libmicrohttpd's own 256 KiB.
    public static let defaultMaxURLLength = 65_536
    /// Whose answers requests get unless they say (`compat=`).
    let compatibility: Compatibility
    /// Routes answered with voice or banner instructions, for clients to report their progress along.
    let routes = RouteStore()

    public init(engine: Engine, maxURLLength: Int = defaultMaxURLLength, compatibility: Compatibility = .wayfinder) {
        self.init(slot: EngineSlot(engine), maxURLLength: maxURLLength, compatibility: compatibility)
    }

    public init(slot: EngineSlot, maxURLLength: Int = defaultMaxURLLength, compatibility: Compatibility = .wayfinder) {
        self.slot = slot
        self.maxURLLength = maxURLLength
        self.compatibility = compatibility
    }

    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        do {
            guard request.rawLength <= maxURLLength else {
                throw EngineError(.tooBig, "the URL is longer than \(maxURLLength) bytes", status: 414)
            }
            guard let engine = slot.engine else {
                if request.path == "/health" { return .json(#"{"code":"Loading","status":"loading"}"#, status: 503) }
                throw EngineError(.unavailable, "the graphs are still loading; try again shortly")
            }
            if request.method == "POST" { return try post(request, engine: engine) }
            let page = MapPage(engine: engine)
            switch request.path {
            case "/", "/index.html": return page.page()
            case "/graph": return page.graphInfo()
            case "/roads": return try page.roads(request)
            case "/directions": return try DirectionsFeed(engine: engine).handle(request)
            case "/geocode", "/reverse", "/search": return try GeocodingService(engine: engine).handle(request)
            case "/health": return Self.health(engine.health)
            case let path where path.hasPrefix("/leaflet/"): return page.leaflet(path)
            case let path where path.hasPrefix("/navigation/"):
                return try engine.withinBudget { try NavigationService(engine: engine, routes: routes, compatibility: compatibility).progress(request) }
            default:
                let osrm = try OSRMRequest(path: request.path, query: request.query, compatibility: compatibility)
                return try OSRMService(engine: engine, routes: routes).handle(osrm)
            }
        } catch let error as EngineError {
            return error.response
        } catch {
            return EngineError(.invalidQuery, "\(error)").response
        }
    }

    /// OSRM's JSON form of route, table, nearest and match: everything in the body, nothing in a query string
    /// (OSRM: `InvalidUrl`). Wayfinder's own endpoints take GET only.
    private func post(_ request: HTTPRequest, engine: Engine) throws -> HTTPResponse {
        let first = request.path.split(separator: "/").first.map(String.init) ?? ""
        guard !["", "index.html", "graph", "roads", "directions", "geocode", "reverse", "search", "health", "leaflet"].contains(first) else {
            var refusal = EngineError(.invalidMethod, "\(request.path) takes GET only; POST is for OSRM's services", status: 405).response
            refusal.headers.append(("Allow", "GET, HEAD, OPTIONS"))
            return refusal
        }
        guard !request.rawTarget.contains("?") else {
            throw EngineError(.invalidURL, "a POST takes its options in the JSON body, not in a query string")
        }
        if first == "navigation" {
            return try engine.withinBudget { try NavigationService(engine: engine, routes: routes, compatibility: compatibility).progress(request) }
        }
        let osrm = try OSRMRequest(path: request.path, body: request.body, compatibility: compatibility)
        return try OSRMService(engine: engine, routes: routes).handle(osrm)
    }

    /// `/health`: 200 with what is being served, or 503 while a new generation is being mapped (the old one still
    /// answers routes meanwhile, but a balancer with other replicas should prefer them).
    static func health(_ health: EngineHealth) -> HTTPResponse {
        let built = Date(timeIntervalSince1970: TimeInterval(health.buildTime))
        let body = JSON.object([
            ("code", .string(health.swapping ? "Swapping" : "Ok")),
            ("status", .string(health.swapping ? "swapping" : "ready")),
            ("source", .string(health.source)),
            ("build_time", .string(ISO8601DateFormatter().string(from: built))),
            ("format_version", .number(Double(health.formatVersion), decimals: 0)),
            ("modes", .array(health.modes.map { .string($0.rawValue) })),
            ("generation", health.generation.map { .string($0) } ?? .null),
            ("places", .bool(health.hasPlaceIndex)),
            ("import_rules", .string(health.importRules.rawValue)),
            ("metrics", .object(health.metrics.map { ($0.mode.rawValue, .string($0.name)) })),
        ])
        return .json(body, status: health.swapping ? 503 : 200)
    }
}
