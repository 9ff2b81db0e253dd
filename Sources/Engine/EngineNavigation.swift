import Guidance
import Navigation
import RoadGraph
import Routing

extension Engine {
    /// A new route for a client that has left its route (issue 30), asked as the route was (`original`): see
    /// `rerouteQuery`. Where no road within reach goes the client's way, from the nearest road.
    public func reroute(_ tracker: ProgressTracker, from fix: Fix, progress: RouteProgress,
                        like original: RouteQuery) throws -> RouteAnswer {
        try reroute(try rerouteQuery(tracker, from: fix, progress: progress, like: original))
    }

    /// A reroute's query answered: where no road within reach goes the client's way, from the nearest road.
    public func reroute(_ query: RouteQuery) throws -> RouteAnswer {
        do { return try route(query) } catch let error as EngineError where error.kind == .noSegment || error.kind == .noRoute {
            guard var filters = query.filters, filters.first?.bearing != nil else { throw error }
            var nearest = query
            filters[0].bearing = nil
            nearest.filters = filters
            nearest.knownPlaces = query.knownPlaces.map { [nil] + $0.dropFirst() }
            return try route(nearest)
        }
    }

    /// The query for a new route for a client that has left its route: from where it is, on the road its last
    /// fixes follow, the way it is going (OSRM's `bearings`, ±45°, where it moves), to the waypoints still ahead.
    /// Asked as the route was: the same mode, guidance, roads excluded and weighed, `continue_straight`, and the
    /// waypoints' own radiuses and approaches; a departure time moved on by the time the route takes to where the
    /// client is (an arrival time stays). One route: a client off its route follows the best.
    public func rerouteQuery(_ tracker: ProgressTracker, from fix: Fix, progress: RouteProgress,
                             like original: RouteQuery) throws -> RouteQuery {
        var (points, places, bearing) = tracker.reroutePoints(from: fix, progress: progress)
        places[0] = Self.startPlace(in: try graph(current, original.mode), by: progress.state.recent, at: fix, bearing: bearing)
        var query = original
        query.points = points
        query.knownPlaces = places
        query.alternatives = 0
        var start = WaypointFilter(bearing: bearing.map { ($0, 45) }, excluding: original.excluding)
        start.snapsAnywhere = original.filters?.first?.snapsAnywhere ?? false
        // The waypoints ahead keep their filters where the route has a waypoint for each point it was asked for.
        let ahead = original.filters.flatMap { $0.count == tracker.route.waypoints.count ? Array($0.suffix(points.count - 1)) : nil }
        query.filters = [start] + (ahead ?? points.dropFirst().map { _ in WaypointFilter(excluding: original.excluding) })
        if case .departure(var clock)? = original.time {
            clock.wallSeconds += Int64((tracker.route.duration - progress.durationRemaining).rounded())
            query.time = .departure(clock)
        }
        return query
    }

    /// Where a reroute starts: of the roads near a fix that go its way, the place on the one the last fixes
    /// (`recent`, the fix last) lie along best. A fix is metres off, and a road beside the one driven may be nearer
    /// it. The fixes before it are measured to the road's line, its ends drawn on straight (a few seconds back the
    /// client may have been before the junction the road starts at). Nil where the router is to look itself: the
    /// fixes are too few, no road is within reach, the place is at a road's end (a junction, where a route may
    /// start along any road there), the road is off the main network, or the nearest fits best and is restricted
    /// (the router passes such a road over for an open one a little farther).
    static func startPlace(in graph: RoadGraph, by recent: [Coordinate], at fix: Fix, bearing: Double?) -> Snap? {
        guard recent.count >= 3 else { return nil }
        let reach = max(30, 3 * (fix.accuracy ?? 10))
        let roads = graph.nearestRoads(to: fix.location, count: 4, maxDistance: reach,
                                       filter: WaypointFilter(bearing: bearing.map { ($0, 45) }))
        guard !roads.isEmpty else { return nil }
        // The fix itself to the place it snaps to: a road it lies beyond the end of (one the client has driven
        // off into the next) does not fit it.
        func misfit(_ road: Snap) -> Double {
            let line = graph.shapeRange(ofEdge: road.edge).map(graph.shapePoint)
            return recent.dropLast().reduce(road.distance * road.distance) { sum, p in
                let d = Geo.distance(from: p, toLineExtended: line)
                return sum + d * d
            }
        }
        let fits = roads.map(misfit)
        let best = fits.indices.min { fits[$0] < fits[$1] }!
        // Not from a road's end: at a junction a route may start along any road there.
        let road = roads[best]
        guard road.offset > 0.5, road.offset < road.edgeLength - 0.5, road.onMainNetwork,
              best > 0 || !graph.isRestricted(edge: road.edge) else { return nil }
        return road
    }
}
