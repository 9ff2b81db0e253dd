import Foundation
import RoadGraph

/// A query point placed on the road network: on an edge, at `offset` metres from the edge's first shape point.
public struct Snap: Sendable {
    public var input: Coordinate
    public var location: Coordinate
    /// Metres between the input and the snapped location.
    public var distance: Double
    public var edge: Int
    /// Metres along the edge, in shape order.
    public var offset: Double
    /// The edge's length as measured when snapping (same measure as `offset`).
    public var edgeLength: Double
    public var name: String
    public var onMainNetwork: Bool
    /// Connected component of the snapped edge (islands have their own).
    public var component: UInt32

    /// Fraction of the edge before the snapped point, measured along `arc`'s direction.
    public func fraction(alongArcReversed reversed: Bool) -> Double {
        let f = edgeLength > 0 ? min(1, max(0, offset / edgeLength)) : 0
        return reversed ? 1 - f : f
    }
}

public enum RoutingError: Error, Equatable, CustomStringConvertible {
    /// OSRM's `NoSegment`: no usable road near waypoint `index`.
    case noSegment(index: Int, coordinate: Coordinate, maxDistance: Double)
    /// OSRM's `NoRoute`: the waypoints are not connected for this mode.
    case noRoute(fromWaypoint: Int, toWaypoint: Int)
    case tooFewWaypoints

    public var code: String {
        switch self {
        case .noSegment: return "NoSegment"
        case .noRoute: return "NoRoute"
        case .tooFewWaypoints: return "InvalidQuery"
        }
    }

    public var description: String {
        switch self {
        case .noSegment(let i, let c, let d):
            return "NoSegment: no road usable by this mode within \(Int(d)) m of waypoint \(i + 1) (\(c))"
        case .noRoute(let a, let b): return "NoRoute: no route between waypoint \(a + 1) and waypoint \(b + 1)"
        case .tooFewWaypoints: return "InvalidQuery: a route needs at least two waypoints"
        }
    }
}

/// The candidates for one waypoint: the nearest usable road, and the nearest on the main network when the
/// nearest lies on an island (a car park, a gated estate) — as OSRM does, routing prefers the main network
/// unless both ends of a leg share the island.
public struct WaypointCandidates: Sendable {
    public var nearest: Snap
    public var mainNetwork: Snap?
}

extension RoadGraph {
    public static let defaultSnapDistance = 5000.0

    public func snap(_ point: Coordinate, maxDistance: Double = RoadGraph.defaultSnapDistance) -> WaypointCandidates? {
        guard let hit = nearestSegment(to: point, maxDistance: maxDistance) else { return nil }
        let nearest = makeSnap(point, hit)
        if nearest.onMainNetwork { return WaypointCandidates(nearest: nearest, mainNetwork: nearest) }
        let main = nearestSegment(to: point, maxDistance: maxDistance) { segment in
            let e = self.edge(ofSegmentStartingAt: segment)
            return self.isMainNetwork(edge: e)
        }.map { makeSnap(point, $0) }
        return WaypointCandidates(nearest: nearest, mainNetwork: main)
    }

    /// Whether the edge can be driven in a direction that belongs to the core (the largest strongly connected part).
    public func isInCore(edge e: Int) -> Bool {
        let f = edgeForwardArc[e], b = edgeBackwardArc[e]
        return (f != noIndex && arcInCore[Int(f)] == 1) || (b != noIndex && arcInCore[Int(b)] == 1)
    }

    /// The nearest road of the core network.
    public func snapToCore(_ point: Coordinate, maxDistance: Double = RoadGraph.defaultSnapDistance) -> Snap? {
        nearestSegment(to: point, maxDistance: maxDistance) { self.isInCore(edge: self.edge(ofSegmentStartingAt: $0)) }
            .map { makeSnap(point, $0) }
    }

    public func isMainNetwork(edge e: Int) -> Bool {
        let f = edgeForwardArc[e], b = edgeBackwardArc[e]
        return (f != noIndex && isMainNetwork(arc: f)) || (b != noIndex && isMainNetwork(arc: b))
    }

    private func makeSnap(_ point: Coordinate, _ hit: SegmentHit) -> Snap {
        let e = edge(ofSegmentStartingAt: hit.segment)
        let range = shapeRange(ofEdge: e)
        var offset = 0.0, total = 0.0
        for i in range.lowerBound..<(range.upperBound - 1) {
            let length = Geo.distance(shapePoint(i), shapePoint(i + 1))
            if i < hit.segment { offset += length } else if i == hit.segment { offset += length * hit.fraction }
            total += length
        }
        let arc = edgeForwardArc[e] != noIndex ? edgeForwardArc[e] : edgeBackwardArc[e]
        return Snap(input: point, location: hit.position, distance: hit.distance, edge: e, offset: offset,
                    edgeLength: total, name: name(ofEdge: e), onMainNetwork: isMainNetwork(edge: e),
                    component: arcComponent[Int(arc)])
    }
}
