import Foundation
import RoadGraph

/// Every HTTP endpoint, dispatched by path. Handlers never throw past here: every failure is an OSRM error body.
public struct WayfinderService: Sendable {
    let engine: RoutingEngine
    let limits: ServiceLimits

    public init(engine: RoutingEngine, limits: ServiceLimits = ServiceLimits()) {
        self.engine = engine
        self.limits = limits
    }

    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        do {
            let length = request.path.utf8.count + request.query.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count + 2 }
            guard length <= limits.maxURLLength else {
                throw ServiceError("TooBig", "the URL is longer than \(limits.maxURLLength) bytes", status: 414)
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
                return try OSRMService(engine: engine, limits: limits).handle(osrm)
            }
        } catch let error as ServiceError {
            return error.response
        } catch {
            return ServiceError("InvalidQuery", "\(error)").response
        }
    }
}
