import Guidance
import RoadGraph
import Routing

/// OSRM v5's trip response: `trips` (a route object each), and `waypoints` in the order the points were given,
/// each with the trip it is on (`trips_index`) and its place in that trip (`waypoint_index`).
public enum OSRMTripResponse {
    public static func make(trips: [GuidedRoute], placement: [(trip: Int, index: Int)],
                            graph: RoadGraph, options: OSRMRouteResponse.Options) -> JSON {
        var members: [(String, JSON)] = [
            ("code", .string("Ok")),
            ("trips", .array(trips.map { OSRMRouteResponse.routeObject($0, graph: graph, options: options) })),
        ]
        if options.includeWaypoints {
            members.append(("waypoints", .array(placement.map { place in
                let trip = trips[place.trip]
                let snap = trip.route.waypoints[place.index]
                guard case .object(var fields) = OSRMRouteResponse.waypoint(snap, name: trip.directions.waypointNames[place.index]) else {
                    return .null
                }
                fields.append(("waypoint_index", .number(Double(place.index))))
                fields.append(("trips_index", .number(Double(place.trip))))
                return .object(fields)
            })))
        }
        return .object(members)
    }
}
