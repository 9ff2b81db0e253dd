import Guidance
import Navigation
import RoadGraph
import Routing

extension Engine {
    /// A new route for a client that has left its route (issue 30): from where it is, the way it is going (OSRM's
    /// `bearings`, ±45°, where it moves), to the waypoints still ahead, with the guidance it asked for before.
    /// Where no road goes that way within reach, from the nearest road.
    public func reroute(_ tracker: ProgressTracker, from fix: Fix, progress: RouteProgress, mode: TravelMode,
                        directions: DirectionsOptions) throws -> RouteAnswer {
        let (points, bearing) = tracker.reroutePoints(from: fix, progress: progress)
        var query = RouteQuery(mode: mode, points: points)
        query.directions = directions
        guard let bearing else { return try route(query) }
        query.filters = [WaypointFilter(bearing: (bearing, 45))] + points.dropFirst().map { _ in WaypointFilter() }
        do { return try route(query) } catch let error as EngineError where error.kind == .noSegment || error.kind == .noRoute {
            query.filters = nil
            return try route(query)
        }
    }
}
