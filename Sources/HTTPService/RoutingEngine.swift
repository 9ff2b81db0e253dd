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

/// The graphs a server answers from, and search state handed out from pools: searches keep scratch arrays the
/// size of the graph, so each request borrows them and gives them back.
public final class RoutingEngine: @unchecked Sendable {
    public let graphs: [TravelMode: RoadGraph]
    /// The place index, where the graph directory has one.
    public let geocoder: Geocoder?
    private let routers: [TravelMode: Pool<Router>]
    private let tableScratch: [TravelMode: TableScratch]

    public init(graphs: [TravelMode: RoadGraph], geocoder: Geocoder? = nil) {
        self.graphs = graphs
        self.geocoder = geocoder
        routers = graphs.mapValues { graph in Pool { Router(graph: graph) } }
        tableScratch = graphs.mapValues { TableScratch(graph: $0) }
    }

    public func withRouter<T>(_ mode: TravelMode, _ body: (inout Router) throws -> T) throws -> T? {
        try routers[mode]?.with(body)
    }

    public func withTableSearch<T>(_ mode: TravelMode, _ body: (inout TableSearch, RoadGraph) throws -> T) throws -> T? {
        guard let graph = graphs[mode] else { return nil }
        return try tableScratch[mode]?.plain.with { try body(&$0, graph) }
    }

    /// The tables' scratch for a mode.
    public func tableScratch(_ mode: TravelMode) -> TableScratch? { tableScratch[mode] }
}
