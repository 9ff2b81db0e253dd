import Foundation
import RoadGraph
import Routing

/// A distance table request: `points`, and which of them are sources and destinations (OSRM's shape).
public struct TableQuery: Sendable {
    public var mode: TravelMode
    public var points: [Coordinate]
    public var sources: [Int]
    public var destinations: [Int]
    public var filters: [WaypointFilter]?
    public var snapRadius: Double?
    /// A point with no road in reach fails the table (OSRM's `NoSegment`), or, when this is set, gets a row and
    /// a column of nulls, so that one bad address does not cost a planner the whole batch.
    public var unsnappedPointsAreNull = false
    /// Road classes to avoid (OSRM's `exclude`).
    public var excluding: ArcClasses = []
    /// One Dijkstra per source instead of the hierarchy (the baseline).
    public var useHierarchy = true
    public var threads = 1

    public init(mode: TravelMode, points: [Coordinate], sources: [Int]? = nil, destinations: [Int]? = nil) {
        self.mode = mode
        self.points = points
        self.sources = sources ?? Array(points.indices)
        self.destinations = destinations ?? Array(points.indices)
    }
}

/// A table ready to compute, in blocks of rows (so that a large one is written out as it goes).
public final class Table: @unchecked Sendable {
    public let graph: RoadGraph
    /// Snapped sources and destinations; nil for a point with no road in reach.
    public let sources: [Snap?], destinations: [Snap?]
    /// The query's points that found no road, by index.
    public let unsnapped: [Int]
    private let reachableColumns: [Int]
    private let matrix: HierarchyMatrix?
    private let scratch: TableScratch?
    private let threads: Int
    private let excluding: ArcClasses
    private let engine: Engine

    init(engine: Engine, graph: RoadGraph, sources: [Snap?], destinations: [Snap?], unsnapped: [Int],
         scratch: TableScratch?, useHierarchy: Bool, threads: Int, excluding: ArcClasses)
    {
        self.excluding = excluding
        self.engine = engine
        self.graph = graph
        self.sources = sources
        self.destinations = destinations
        self.unsnapped = unsnapped
        self.scratch = scratch
        self.threads = threads
        reachableColumns = destinations.indices.filter { destinations[$0] != nil }
        let targets = reachableColumns.map { destinations[$0]! }
        matrix = useHierarchy ? HierarchyMatrix(graph: graph, targets: targets, scratch: scratch, excluding: excluding,
                                                threads: threads) : nil
    }

    /// Rows `range` of the table; cells of unsnapped points are nil like unreachable ones.
    public func rows(_ range: Range<Int>) throws -> [[TableCell?]] {
        let block = range.map { sources[$0] }
        let snapped = block.compactMap { $0 }
        let targets = reachableColumns.map { destinations[$0]! }
        let computed: [[TableCell?]] = try engine.withinBudget {
            if let matrix { return matrix.rows(for: snapped, threads: threads) }
            if threads == 1, let scratch {
                return scratch.plain.with { $0.table(in: graph, sources: snapped, targets: targets, excluding: excluding) }
            }
            return TableSearch.rows(in: graph, sources: snapped, targets: targets, threads: threads, excluding: excluding)
        }
        // Every point snapped: the rows are the table's as computed.
        if reachableColumns.count == destinations.count && snapped.count == block.count { return computed }
        var next = computed.makeIterator()
        return block.map { source in
            var row = [TableCell?](repeating: nil, count: destinations.count)
            guard source != nil, let cells = next.next() else { return row }
            for (k, column) in reachableColumns.enumerated() { row[column] = cells[k] }
            return row
        }
    }
}

extension Engine {
    public func table(_ query: TableQuery) throws -> Table {
        let set = current
        let graph = try graph(set, query.mode)
        guard !query.sources.isEmpty, !query.destinations.isEmpty else {
            throw EngineError(.invalidQuery, "a table needs sources and destinations")
        }
        guard query.points.count <= limits.maxTableLocations else {
            throw EngineError(.tooBig, "a table may have at most \(limits.maxTableLocations) locations (--max-table-size)")
        }
        guard (query.sources + query.destinations).allSatisfy(query.points.indices.contains) else {
            throw EngineError(.invalidValue, "sources and destinations must be indices of the points")
        }
        if query.useHierarchy && !graph.hasHierarchy {
            throw EngineError(.invalidValue, "the \(query.mode.rawValue) graph has no contraction hierarchy: re-import without --no-contraction, or use one Dijkstra per source")
        }
        try Self.checkExclusion(query.excluding, mode: query.mode)
        let radius = query.snapRadius ?? limits.defaultSnapRadius
        var filters = query.filters
        if !query.excluding.isEmpty {
            filters = query.points.indices.map { i in
                var f = query.filters?[i] ?? WaypointFilter()
                f.excluding = query.excluding
                return f
            }
        }
        // Only the points the table uses are snapped.
        let used = Set(query.sources + query.destinations)
        // Within the budget: a point far from every road is the dearest part of snapping.
        let snaps = try withinBudget { graph.snapPoints(query.points, maxDistance: radius, filters: filters) }
        let unsnapped = query.points.indices.filter { used.contains($0) && snaps[$0] == nil }
        if let first = unsnapped.first, !query.unsnappedPointsAreNull {
            throw EngineError.from(.noSegment(index: first, coordinate: query.points[first],
                                              maxDistance: query.filters?[first].radius ?? radius))
        }
        return try withinBudget {
            Table(engine: self, graph: graph, sources: query.sources.map { snaps[$0] },
                  destinations: query.destinations.map { snaps[$0] }, unsnapped: unsnapped,
                  scratch: set.tableScratch[query.mode], useHierarchy: query.useHierarchy, threads: query.threads,
                  excluding: query.excluding)
        }
    }
}
