import Foundation
import Guidance
import RoadGraph
import Routing
import Trips

/// A round trip or an open one through points, in the best order (OSRM's `trip`).
public struct TripQuery: Sendable {
    public var mode: TravelMode
    public var points: [Coordinate]
    public var roundtrip = true
    /// Start at the first point (OSRM `source=first`), end at the last (`destination=last`).
    public var fixedStart = false
    public var fixedEnd = false
    public var filters: [WaypointFilter]?
    public var snapRadius: Double?
    public var excluding: ArcClasses = []
    public var directions = DirectionsOptions()
    public var threads = 1
    /// When the trip leaves (`depart_at`): its table is computed for that time, its route from it.
    public var departure: ClockTime?
    /// Weights by kind of road (`WeightFactors`), for its table and its route.
    public var weightFactors: WeightFactors?

    public init(mode: TravelMode, points: [Coordinate]) {
        self.mode = mode
        self.points = points
    }
}

public struct TripAnswer: Sendable {
    public struct Trip: Sendable {
        public var guided: GuidedRoute
        /// The points visited, by index into the query's, in order (a round trip then goes back to the first).
        public var stops: [Int]
        /// What the solver minimised (the table's weights, milliseconds), for benchmarks.
        public var cost: Int64
    }

    public let graph: RoadGraph
    public let trips: [Trip]
    /// For each query point: its trip, and its place in that trip's order (OSRM's `trips_index`, `waypoint_index`).
    public let placement: [(trip: Int, index: Int)]
}

extension Engine {
    /// One budget for the whole trip: its table, its order and its routes.
    public func trip(_ query: TripQuery) throws -> TripAnswer {
        try withinBudget { try solveTrip(query) }
    }

    private func solveTrip(_ query: TripQuery) throws -> TripAnswer {
        let graph = try graph(current, query.mode)
        let n = query.points.count
        guard n >= 2 else { throw EngineError(.invalidQuery, "a trip needs at least two points") }
        guard n <= limits.maxTripPoints else {
            throw EngineError(.tooBig, "a trip may have at most \(limits.maxTripPoints) points (--max-trip-size)")
        }
        // The costs between every pair, from the hierarchy: what routes minimise.
        var tableQuery = TableQuery(mode: query.mode, points: query.points)
        tableQuery.filters = query.filters
        tableQuery.snapRadius = query.snapRadius
        tableQuery.excluding = query.excluding
        tableQuery.useHierarchy = graph.hasHierarchy
        tableQuery.threads = query.threads
        tableQuery.compatibility = query.directions.compatibility
        tableQuery.departure = query.departure
        tableQuery.weightFactors = query.weightFactors
        let table = try self.table(tableQuery)
        // The costs alone, flat, taken from blocks of rows: a whole table of optional cells for 10,000 points was
        // 2.4 GB, the flat costs are 0.8 GB.
        var costs = [Int64](repeating: -1, count: n * n)
        for block in stride(from: 0, to: n, by: 256) {
            let rows = try table.rows(block..<min(n, block + 256))
            for (k, row) in rows.enumerated() {
                for (j, cell) in row.enumerated() { if let cell { costs[(block + k) * n + j] = Int64(cell.weight) } }
            }
        }
        func cost(_ i: Int, _ j: Int) -> Int64? { let c = costs[i * n + j]; return c >= 0 ? c : nil }

        // Points that cannot all reach one another make several round trips (OSRM does the same); a trip with a
        // fixed end, or an open one, must have them all in one.
        let groups = Self.stronglyConnected(n, cost)
        if groups.count > 1 && (!query.roundtrip || query.fixedStart || query.fixedEnd) {
            throw EngineError(.noTrips, "the points cannot all be reached from one another by \(query.mode.rawValue)")
        }
        var trips: [TripAnswer.Trip] = []
        var placement = [(trip: Int, index: Int)](repeating: (0, 0), count: n)
        for group in groups.sorted(by: { $0[0] < $1[0] }) {
            let problem = TripSolver.Problem(count: group.count, roundtrip: query.roundtrip, fixedStart: query.fixedStart,
                                             fixedEnd: query.fixedEnd) { cost(group[$0], group[$1]) }
            guard let (order, total) = try withinBudget({ TripSolver.solve(problem) }) else {
                throw EngineError(.noTrips, "no order visits every point by \(query.mode.rawValue)")
            }
            let stops = order.map { group[$0] }
            for (k, stop) in stops.enumerated() { placement[stop] = (trips.count, k) }
            var visit = stops
            if query.roundtrip || visit.count == 1 { visit.append(stops[0]) }
            var routeQuery = RouteQuery(mode: query.mode, points: visit.map { query.points[$0] })
            routeQuery.filters = query.filters.map { f in visit.map { f[$0] } }
            routeQuery.snapRadius = query.snapRadius
            routeQuery.excluding = query.excluding
            routeQuery.directions = query.directions
            routeQuery.time = query.departure.map(TravelTime.departure)
            routeQuery.weightFactors = query.weightFactors
            let answer = try route(routeQuery, maxWaypoints: limits.maxTripPoints + 1)
            trips.append(.init(guided: answer.best, stops: stops, cost: total))
        }
        return TripAnswer(graph: graph, trips: trips, placement: placement)
    }

    /// The groups of points that can all reach one another (Tarjan's strongly connected components on the table).
    static func stronglyConnected(_ n: Int, _ cost: (Int, Int) -> Int64?) -> [[Int]] {
        var index = [Int](repeating: -1, count: n), low = [Int](repeating: 0, count: n)
        var onStack = [Bool](repeating: false, count: n)
        var stack: [Int] = [], groups: [[Int]] = [], counter = 0
        func visit(_ v: Int) {
            index[v] = counter; low[v] = counter; counter += 1
            stack.append(v); onStack[v] = true
            for w in 0..<n where w != v && cost(v, w) != nil {
                if index[w] < 0 { visit(w); low[v] = min(low[v], low[w]) } else if onStack[w] { low[v] = min(low[v], index[w]) }
            }
            if low[v] == index[v] {
                var group: [Int] = []
                while let w = stack.popLast() {
                    onStack[w] = false
                    group.append(w)
                    if w == v { break }
                }
                groups.append(group.sorted())
            }
        }
        for v in 0..<n where index[v] < 0 { visit(v) }
        return groups
    }
}
