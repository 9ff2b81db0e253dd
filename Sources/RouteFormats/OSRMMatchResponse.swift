import Guidance
import RoadGraph
import Routing

/// OSRM v5's match response: `matchings` (route objects with a `confidence`) and `tracepoints`, one per point of
/// the trace: null where it was not matched, else its road with `matchings_index`, `waypoint_index` and
/// `alternatives_count`.
public enum OSRMMatchResponse {
    public struct Matched {
        public var guided: GuidedRoute
        public var confidence: Double
        /// Per waypoint of the route: how many other roads its fix could have been on.
        public var alternatives: [Int]

        public init(guided: GuidedRoute, confidence: Double, alternatives: [Int]) {
            self.guided = guided
            self.confidence = confidence
            self.alternatives = alternatives
        }
    }

    public static func make(_ matchings: [Matched], placement: [(matching: Int, index: Int)?], graph: RoadGraph,
                            options: OSRMRouteResponse.Options) -> JSON {
        let routes: [JSON] = matchings.map { m in
            guard case .object(var fields) = OSRMRouteResponse.routeObject(m.guided, graph: graph, options: options)
            else { return .null }
            fields.append(("confidence", .number(m.confidence, decimals: 4)))
            return .object(fields)
        }
        let tracepoints: [JSON] = placement.map { place in
            guard let place else { return .null }
            let m = matchings[place.matching]
            let snap = m.guided.route.waypoints[place.index]
            guard case .object(var fields) = OSRMRouteResponse.waypoint(snap, name: m.guided.directions.waypointNames[place.index]) else {
                return .null
            }
            fields.append(("matchings_index", .number(Double(place.matching))))
            fields.append(("waypoint_index", .number(Double(place.index))))
            fields.append(("alternatives_count", .number(Double(m.alternatives[place.index]))))
            return .object(fields)
        }
        // OSRM's skip_waypoints leaves out the tracepoints.
        guard options.includeWaypoints else { return .object([("code", .string("Ok")), ("matchings", .array(routes))]) }
        return .object([("code", .string("Ok")), ("matchings", .array(routes)), ("tracepoints", .array(tracepoints))])
    }
}
