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
    /// OSRM's `fallback_speed` (metres per second) and `fallback_coordinate`: a cell no route reaches gets the
    /// straight line at this speed instead of null.
    public var fallback: TableFallback?
    /// OSRM's `scale_factor`: durations multiplied by it.
    public var scaleFactor = 1.0
    public var compatibility = Compatibility.wayfinder
    /// When every trip of the table leaves (`depart_at`); a table cannot arrive by a time.
    public var departure: ClockTime?
    /// Weights by kind of road (`WeightFactors`): each cell's is at them, its duration the roads' own.
    public var weightFactors: WeightFactors?

    public init(mode: TravelMode, points: [Coordinate], sources: [Int]? = nil, destinations: [Int]? = nil) {
        self.mode = mode
        self.points = points
        self.sources = sources ?? Array(points.indices)
        self.destinations = destinations ?? Array(points.indices)
    }
}

/// How a table fills the cells no route reaches (OSRM's `fallback_speed`, `fallback_coordinate`).
public struct TableFallback: Sendable {
    /// Metres per second.
    public var speed: Double
    /// From the snapped points rather than the points as given.
    public var fromSnappedPoints = false

    public init(speed: Double, fromSnappedPoints: Bool = false) {
        self.speed = speed
        self.fromSnappedPoints = fromSnappedPoints
    }
}

/// A table ready to compute, in blocks of rows (so that a large one is written out as it goes).
public final class Table: @unchecked Sendable {
    public let graph: RoadGraph
    /// Snapped sources and destinations; nil for a point with no road in reach.
    public let sources: [Snap?], destinations: [Snap?]
    /// The query's points that found no road, by index.
    public let unsnapped: [Int]
    /// For a point whose road is off the core (a one-way trap, an island): its nearest road on the core. As OSRM
    /// keeps a second snap on its big component, a cell takes whichever pair of snaps costs least.
    private let sourceAlternates: [Snap?]
    /// The searched targets: each reachable column's snap, then the alternates' (`alternateTarget[column]`).
    private let targets: [Snap]
    private let reachableColumns: [Int]
    private let alternateTarget: [Int?]
    private let matrix: HierarchyMatrix?
    private let scratch: TableScratch?
    private let threads: Int
    private let excluding: ArcClasses
    private let engine: Engine
    /// The points as given, for the fallback, and the query's fallback, scale and rules.
    private let sourcePoints: [Coordinate], destinationPoints: [Coordinate]
    private let fallback: TableFallback?
    private let scaleFactor: Double
    private let compatibility: Compatibility
    /// With timed rules or historical speeds to apply: when every cell leaves (see `timedRows`).
    private let departure: Departure?
    /// Weights by kind of road: every row is then one search per source at them.
    private let weightFactors: WeightFactors?
    /// The graph's routers (the engine's, with their search arrays), for the cells searched again at the time.
    private let routers: Pool<Router>

    init(engine: Engine, graph: RoadGraph, query: TableQuery, sources: [Snap?], destinations: [Snap?],
         unsnapped: [Int], alternates: (sources: [Snap?], destinations: [Snap?]), scratch: TableScratch?,
         routers: Pool<Router>?)
    {
        excluding = query.excluding
        threads = query.threads
        sourcePoints = query.sources.map { query.points[$0] }
        destinationPoints = query.destinations.map { query.points[$0] }
        fallback = query.fallback
        scaleFactor = query.scaleFactor
        compatibility = query.compatibility
        departure = !graph.dependsOnTime ? nil
            : query.departure.map { Departure(local: graph.localTime($0), closesRoads: query.compatibility != .osrm) }
        weightFactors = query.weightFactors?.isEmpty == false ? query.weightFactors : nil
        self.engine = engine
        self.graph = graph
        self.sources = sources
        self.destinations = destinations
        self.unsnapped = unsnapped
        sourceAlternates = alternates.sources
        self.scratch = scratch
        self.routers = routers ?? Pool { Router(graph: graph) }
        reachableColumns = destinations.indices.filter { destinations[$0] != nil }
        var targets = reachableColumns.map { destinations[$0]! }
        var alternateTarget = [Int?](repeating: nil, count: destinations.count)
        for column in reachableColumns {
            if let alternate = alternates.destinations[column] {
                alternateTarget[column] = targets.count
                targets.append(alternate)
            }
        }
        self.targets = targets
        self.alternateTarget = alternateTarget
        matrix = query.useHierarchy ? HierarchyMatrix(graph: graph, targets: targets, scratch: scratch,
                                                      excluding: query.excluding, threads: query.threads) : nil
    }

    /// Rows `range` of the table; cells of unsnapped points are nil like unreachable ones.
    public func rows(_ range: Range<Int>) throws -> [[TableCell?]] {
        let rows = Array(range)
        var searched = rows.compactMap { sources[$0] }
        var alternateRow = [Int?](repeating: nil, count: rows.count)
        for (k, row) in rows.enumerated() where sources[row] != nil {
            if let alternate = sourceAlternates[row] {
                alternateRow[k] = searched.count
                searched.append(alternate)
            }
        }
        let targets = self.targets
        let computed: [[TableCell?]] = try engine.withinBudget {
            if let weightFactors {
                return TableSearch.rows(in: graph, sources: searched, targets: targets, threads: threads, excluding: excluding,
                                        departure: departure, factors: weightFactors)
            }
            if let departure { return timedRows(searched, targets, departure) }
            if let matrix { return matrix.rows(for: searched, threads: threads) }
            if threads == 1, let scratch {
                return scratch.plain.with { $0.table(in: graph, sources: searched, targets: targets, excluding: excluding) }
            }
            return TableSearch.rows(in: graph, sources: searched, targets: targets, threads: threads, excluding: excluding)
        }
        // Every point snapped and on the core: the rows are the table's as computed.
        if targets.count == destinations.count && searched.count == rows.count { return computed }
        func cheaper(_ a: TableCell?, _ b: TableCell?) -> TableCell? {
            guard let a else { return b }
            guard let b else { return a }
            return b.weight < a.weight ? b : a
        }
        var next = 0
        return rows.enumerated().map { k, source in
            var row = [TableCell?](repeating: nil, count: destinations.count)
            guard sources[source] != nil else { return row }
            let cells = computed[next]
            next += 1
            let alternateCells = alternateRow[k].map { computed[$0] }
            for (index, column) in reachableColumns.enumerated() {
                var best = cells[index]
                if let other = alternateTarget[column] { best = cheaper(best, cells[other]) }
                if let alternateCells {
                    best = cheaper(best, alternateCells[index])
                    if let other = alternateTarget[column] { best = cheaper(best, alternateCells[other]) }
                }
                row[column] = best
            }
            return row
        }
    }

    /// Rows leaving at a time. The import's hierarchy gives each road and turn closed at times the class `timed`:
    /// where the table that avoids them costs what the plain one does, a fastest path is open at every time, so
    /// the cell stands. The other cells (a fastest path through such a road or turn) are searched again with the
    /// times, each as a leg searched by A* guided by the hierarchy, column by column so that a target's bounds serve
    /// all its cells (a search from a source to all its targets settles the whole map around it instead: 15 ms on
    /// Porto, a second on 8.7M nodes). A customized hierarchy carries no such class, and historical speeds change
    /// every cost with the time: every row is then searched with the times.
    private func timedRows(_ searched: [Snap], _ targets: [Snap], _ departure: Departure) -> [[TableCell?]] {
        guard let matrix, graph.cchUpStart.isEmpty, !graph.hasHistory else {
            return TableSearch.rows(in: graph, sources: searched, targets: targets, threads: threads, excluding: excluding,
                                    departure: departure)
        }
        var cells = matrix.rows(for: searched, threads: threads)
        let open = HierarchyMatrix(graph: graph, targets: targets, excluding: excluding.union(.timed), threads: threads)
            .rows(for: searched, threads: threads)
        // A point on a road closed at times may be left or reached within that road, which no search sees.
        func onTimedRoad(_ snap: Snap) -> Bool { graph.arcs(at: snap).contains { graph.classes(ofArc: $0.0).contains(.timed) } }
        let timedTargets = targets.map(onTimedRoad)
        let again: [[Int]] = searched.indices.map { i in
            let timedSource = onTimedRoad(searched[i])
            return targets.indices.filter { j in
                guard let cell = cells[i][j] else { return false }  // no path without the times: none with them
                return timedSource || timedTargets[j] || open[i][j]?.weight != cell.weight
            }
        }
        var column = [[Int]](repeating: [], count: targets.count)
        for (i, row) in again.enumerated() { for j in row { column[j].append(i) } }
        let columns = targets.indices.filter { !column[$0].isEmpty }
        let avoided = excluding
        let redone = parallelMap(columns.count, threads: threads, pool: routers) { router, k in
            router.excluding = avoided
            router.departure = departure
            // The engine's routers go back to their pool as routes expect them: without a time.
            defer { router.departure = nil }
            return router.timedLegs(from: column[columns[k]].map { searched[$0] }, to: targets[columns[k]]).map { leg in
                leg.map {
                    TableCell(weight: UInt32(min($0.weight, UInt64(UInt32.max - 1))), duration: Self.milliseconds($0.duration),
                              distance: $0.distance)
                }
            }
        }
        for (k, j) in columns.enumerated() {
            for (n, i) in column[j].enumerated() { cells[i][j] = redone[k][n] }
        }
        return cells
    }

    /// Rows `range` as OSRM's table service answers them: unreachable cells filled by the fallback, durations
    /// scaled. Also the cells the fallback filled, by row (from the range's start) and column.
    public func answer(_ range: Range<Int>) throws -> (rows: [[TableCell?]], fallbackCells: [(row: Int, column: Int)]) {
        var rows = try rows(range)
        var filled: [(row: Int, column: Int)] = []
        if fallback == nil && scaleFactor == 1 { return (rows, filled) }
        for (k, source) in range.enumerated() {
            for column in rows[k].indices {
                if rows[k][column] == nil, let fallback, let from = sources[source], let to = destinations[column] {
                    let start = fallback.fromSnappedPoints ? from.location : sourcePoints[source]
                    let end = fallback.fromSnappedPoints ? to.location : destinationPoints[column]
                    let metres = Geo.osrmRulerDistance(start, end)
                    // OSRM 26.10 reports a tenth of the straight line's time (deciseconds read as seconds):
                    // `compat=osrm` keeps that, Wayfinder answers the time itself (PROFILES.md).
                    var seconds = metres / fallback.speed
                    if compatibility == .osrm { seconds = (metres / fallback.speed).rounded(.down) / 10 }
                    rows[k][column] = TableCell(weight: Self.milliseconds(seconds), duration: Self.milliseconds(seconds),
                                                distance: metres)
                    filled.append((k, column))
                }
                if scaleFactor != 1, let cell = rows[k][column], cell.duration > 0 {
                    // OSRM scales its tenths of a second and rounds to the nearest tenth.
                    let tenths = (Double(cell.duration) / 100).rounded()
                    rows[k][column]!.duration = Self.milliseconds((tenths * scaleFactor).rounded() / 10)
                }
            }
        }
        return (rows, filled)
    }

    /// Seconds as a cell's milliseconds, held within the cell's 32 bits.
    static func milliseconds(_ seconds: Double) -> UInt32 {
        UInt32(min(Double(UInt32.max - 99), (seconds * 1000).rounded()))
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
        try Self.checkFactors(query.weightFactors, graph: graph)
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
        let snaps = try withinBudget {
            graph.snapPoints(query.points, maxDistance: radius, filters: filters,
                             restrictedMargin: query.compatibility == .osrm ? 0 : RoadGraph.restrictedSnapMargin)
        }
        let unsnapped = query.points.indices.filter { used.contains($0) && snaps[$0] == nil }
        if let first = unsnapped.first, !query.unsnappedPointsAreNull {
            throw EngineError.from(.noSegment(index: first, coordinate: query.points[first],
                                              maxDistance: query.filters?[first].radius ?? radius))
        }
        return try withinBudget {
            // A point off the core (a one-way trap) keeps a second snap on it, as the router would move it
            // (`Router.snapsAsOSRM`), so that a cell is filled exactly where a route is found.
            var alternates: [Snap?] = query.points.indices.map { i in
                guard used.contains(i), let snap = snaps[i] else { return nil }
                return graph.coreSnap(for: snap, at: query.points[i], filter: filters?[i] ?? WaypointFilter(),
                                      radius: radius, asOSRM: query.compatibility == .osrm)
            }
            // OSRM's rule (`Router.movedToCoreAsOSRM`): where some point is on the core, the others off it are
            // moved onto it, reached or not.
            var snaps = snaps
            if query.compatibility == .osrm,
               query.points.indices.contains(where: { used.contains($0) && snaps[$0].map { graph.isInCore(edge: $0.edge) } == true }) {
                for i in query.points.indices where alternates[i] != nil {
                    snaps[i] = alternates[i]
                    alternates[i] = nil
                }
            }
            return Table(engine: self, graph: graph, query: query, sources: query.sources.map { snaps[$0] },
                         destinations: query.destinations.map { snaps[$0] }, unsnapped: unsnapped,
                         alternates: (query.sources.map { alternates[$0] }, query.destinations.map { alternates[$0] }),
                         scratch: set.tableScratch[query.mode], routers: set.routers[query.mode])
        }
    }
}
