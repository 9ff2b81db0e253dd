import Foundation
import Geocoding
import RoadGraph
import Routing

/// Limits a server enforces on requests, all configurable from the command line.
public struct ServiceLimits: Sendable {
    /// Most locations in one table request (sources plus destinations, as OSRM counts them).
    public var maxTableLocations = 1000
    public var maxRouteWaypoints = 50
    public var maxNearestResults = 100
    public var maxURLLength = 8192
    public init() {}
}

/// The graphs a server answers from, and per-thread search state handed out from a pool: searches keep scratch
/// arrays the size of the graph, so each request borrows one and gives it back.
public final class RoutingEngine: @unchecked Sendable {
    public let graphs: [TravelMode: RoadGraph]
    /// The place index, where the graph directory has one.
    public let geocoder: Geocoder?
    private let lock = NSLock()
    private var routers: [TravelMode: [Router]] = [:]
    private var tables: [TravelMode: [TableSearch]] = [:]

    public init(graphs: [TravelMode: RoadGraph], geocoder: Geocoder? = nil) {
        self.graphs = graphs
        self.geocoder = geocoder
    }

    public func withRouter<T>(_ mode: TravelMode, _ body: (inout Router) throws -> T) throws -> T? {
        guard let graph = graphs[mode] else { return nil }
        lock.lock()
        var router = routers[mode]?.popLast() ?? Router(graph: graph)
        lock.unlock()
        defer {
            lock.lock()
            routers[mode, default: []].append(router)
            lock.unlock()
        }
        return try body(&router)
    }

    public func withTableSearch<T>(_ mode: TravelMode, _ body: (inout TableSearch, RoadGraph) throws -> T) throws -> T? {
        guard let graph = graphs[mode] else { return nil }
        lock.lock()
        var search = tables[mode]?.popLast() ?? TableSearch()
        lock.unlock()
        defer {
            lock.lock()
            tables[mode, default: []].append(search)
            lock.unlock()
        }
        return try body(&search, graph)
    }
}
