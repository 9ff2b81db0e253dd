import Foundation
import Geocoding
import Guidance
import Isochrones
import MapMatching
import RoadGraph
import Routing

/// The routing engine behind every front end: the CLI commands, the HTTP services and batch tasks are thin
/// adapters over it, as OSRM's server and bindings share `osrm.hpp`. It offers routes, tables, nearest roads and
/// places (`resolve` turns "lat,lon" or a name into a point), enforces `limits`, and owns the loaded graphs: a
/// request takes one `GraphSet` and uses it throughout, so replacing the set (`refresh`) never mixes two imports in
/// one answer.
public final class Engine: @unchecked Sendable {
    public let limits: EngineLimits
    /// Where the graphs came from (nil for graphs handed over directly, as tests do).
    public let directory: GraphDirectory?
    let modes: [TravelMode]
    private let lock = NSLock()
    private var loaded: GraphSet
    /// Held by `refresh`, so two triggers (a signal and the watch) never load the same generation twice at once.
    let refreshLock = NSLock()
    /// The files behind `loaded`, and behind the last generation refused: the watch reloads only when they change.
    var loadedIdentity: GraphIdentity?
    /// `.some(nil)`: the graph was missing altogether.
    var refusedIdentity: GraphIdentity?? = .none
    private var swappingNow = false

    /// Graphs are read into memory of their own rather than mapped (see `MappedFile`), so that a file written in
    /// place cannot change them under a request: what a long-running server wants.
    let privateCopies: Bool

    /// Loads the current generation of a graph directory: the graphs of `modes` (mapped, or with `privateCopies`
    /// read, and verified now; nil: every mode the import built) and the place index (opened on first use).
    public init(directory path: String, modes: [TravelMode]? = nil, limits: EngineLimits = EngineLimits(),
                privateCopies: Bool = false) throws
    {
        let directory = GraphDirectory(path)
        self.directory = directory
        let modes = try modes ?? directory.builtModes()
        self.modes = modes
        self.limits = limits
        self.privateCopies = privateCopies
        let identity = directory.identity(modes: modes)
        loaded = try GraphSet.load(directory, modes: modes, privateCopies: privateCopies)
        loadedIdentity = identity
    }

    public init(graphs: [TravelMode: RoadGraph], geocoder: Geocoder? = nil, limits: EngineLimits = EngineLimits()) {
        directory = nil
        privateCopies = false
        modes = Array(graphs.keys)
        self.limits = limits
        loaded = GraphSet(generation: nil, graphs: graphs, geocoder: geocoder)
    }

    /// The graphs in use now. Hold on to the value for the whole of a request.
    public var current: GraphSet { lock.withLock { loaded } }

    /// Replaces the graphs in use; requests that hold the old set finish with it, and its mappings go with the
    /// last of them.
    public func install(_ set: GraphSet) { lock.withLock { loaded = set } }

    /// True while `refresh` maps and verifies a new generation (the old one keeps answering meanwhile).
    public internal(set) var isSwapping: Bool {
        get { lock.withLock { swappingNow } }
        set { lock.withLock { swappingNow = newValue } }
    }

    /// Runs `body` within the CPU budget of one request (`limits.maxComputeMilliseconds`), turning a budget that
    /// ran out into a `TooBig` error.
    public func withinBudget<T>(_ body: () throws -> T) throws -> T {
        try WorkBudget.run(milliseconds: limits.maxComputeMilliseconds) {
            let result: T
            do { result = try body() } catch {
                if WorkBudget.wasExceeded { throw EngineError.timeout(limits.maxComputeMilliseconds ?? 0) }
                throw error
            }
            if WorkBudget.wasExceeded { throw EngineError.timeout(limits.maxComputeMilliseconds ?? 0) }
            return result
        }
    }

    func graph(_ set: GraphSet, _ mode: TravelMode) throws -> RoadGraph {
        guard let graph = set.graphs[mode] else {
            throw EngineError(.invalidValue, "there is no \(mode.rawValue) graph here")
        }
        return graph
    }
}

/// One import's graphs and place index, with the search state that queries borrow: searches keep scratch arrays
/// the size of the graph, so each request takes them from a pool and gives them back.
public final class GraphSet: @unchecked Sendable {
    public let generation: GraphGeneration?
    public let graphs: [TravelMode: RoadGraph]
    let routers: [TravelMode: Pool<Router>]
    let tableScratch: [TravelMode: TableScratch]
    let isochroneBuilders: [TravelMode: Pool<IsochroneBuilder>]
    let matchers: [TravelMode: Pool<MapMatcher>]
    /// Road labels decoded once per graph for every request's directions.
    let labels: [TravelMode: RoadLabelStore]
    private let placesPath: String?
    private let placeLock = NSLock()
    private var openedGeocoder: Geocoder?
    private var geocoderFailure: Error?

    init(generation: GraphGeneration?, graphs: [TravelMode: RoadGraph], geocoder: Geocoder?) {
        self.generation = generation
        self.graphs = graphs
        routers = graphs.mapValues { graph in Pool { Router(graph: graph) } }
        tableScratch = graphs.mapValues { TableScratch(graph: $0) }
        isochroneBuilders = graphs.mapValues { graph in Pool { IsochroneBuilder(graph: graph) } }
        matchers = graphs.mapValues { graph in Pool { MapMatcher(graph: graph) } }
        labels = graphs.mapValues { _ in RoadLabelStore() }
        openedGeocoder = geocoder
        placesPath = geocoder == nil ? generation?.placesPath : nil
        if geocoder == nil && placesPath == nil { geocoderFailure = GeocodingError.noIndex("this graph") }
    }

    /// Maps the current generation's graphs. A generation replaced while it is being opened is opened again.
    static func load(_ directory: GraphDirectory, modes: [TravelMode], privateCopies: Bool) throws -> GraphSet {
        var attempt = 0
        while true {
            let generation = try directory.current()
            do {
                var graphs: [TravelMode: RoadGraph] = [:]
                for mode in modes {
                    let path = generation.graphPath(for: mode)
                    guard FileManager.default.fileExists(atPath: path) else {
                        throw GraphDirectoryError.noModeGraph(directory.path, mode)
                    }
                    graphs[mode] = try RoadGraph(contentsOf: path, privateCopy: privateCopies)
                }
                return GraphSet(generation: generation, graphs: graphs, geocoder: nil)
            } catch {
                attempt += 1
                guard attempt < 3, (try? directory.current()) != generation else { throw error }
            }
        }
    }

    /// The place index, opened on first use.
    public func geocoder() throws -> Geocoder {
        try placeLock.withLock {
            if let openedGeocoder { return openedGeocoder }
            if let geocoderFailure { throw geocoderFailure }
            do {
                let opened = try Geocoder(path: placesPath ?? "")
                openedGeocoder = opened
                return opened
            } catch {
                geocoderFailure = error
                throw error
            }
        }
    }

    public var hasPlaceIndex: Bool { (try? geocoder()) != nil }
}
