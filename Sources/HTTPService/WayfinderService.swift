import Engine
import Foundation
import RoadGraph

/// Every HTTP endpoint, dispatched by path. Handlers never throw past here: every failure is an OSRM error body.
public struct WayfinderService: Sendable {
    let engine: Engine
    /// Longest accepted request target (path and query as sent, before percent-decoding), bytes.
    let maxURLLength: Int

    public init(engine: Engine, maxURLLength: Int = 8192) {
        self.engine = engine
        self.maxURLLength = maxURLLength
    }

    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        do {
            guard request.rawLength <= maxURLLength else {
                throw EngineError(.tooBig, "the URL is longer than \(maxURLLength) bytes", status: 414)
            }
            let page = MapPage(engine: engine)
            switch request.path {
            case "/", "/index.html": return page.page()
            case "/graph": return page.graphInfo()
            case "/roads": return try page.roads(request)
            case "/directions": return try DirectionsFeed(engine: engine).handle(request)
            case "/geocode", "/reverse", "/search": return try GeocodingService(engine: engine).handle(request)
            case "/health": return .json(#"{"code":"Ok"}"#)
            case let path where path.hasPrefix("/leaflet/"): return page.leaflet(path)
            default:
                let osrm = try OSRMRequest(path: request.path, query: request.query)
                return try OSRMService(engine: engine).handle(osrm)
            }
        } catch let error as EngineError {
            return error.response
        } catch {
            return EngineError(.invalidQuery, "\(error)").response
        }
    }
}
