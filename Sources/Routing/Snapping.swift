import Foundation
import RoadGraph

/// A query point placed on the road network: on an edge, at `offset` metres from the edge's first shape point.
public struct Snap: Sendable {
    public var input: Coordinate
    public var location: Coordinate
    /// Metres between the input and the snapped location.
    public var distance: Double
    public var edge: Int
    /// Shape index of the first point of the segment the point lies on.
    public var segment: Int
    /// Metres along the edge, in shape order.
    public var offset: Double
    /// The edge's length as measured when snapping (same measure as `offset`).
    public var edgeLength: Double
    public var name: String
    public var onMainNetwork: Bool
    /// Connected component of the snapped edge (islands have their own).
    public var component: UInt32
    /// Directions of travel a search may use from or to this point (a `bearings` filter can exclude one).
    public var allowsForward = true
    public var allowsBackward = true
    /// The other roads on which the point's nearest place is this same place: a point at, or just beyond, a
    /// junction is as near every road there whose end is nearest to it. OSRM keeps each as a candidate and the
    /// search starts or ends on whichever is cheapest, so such a point pays no turn it need not take.
    public var alternatives: [Snap] = []

    /// This snap and its alternatives.
    public var candidates: [Snap] { [self] + alternatives }

    /// Whether two snaps put the point at one place of one edge.
    func isSamePlace(as other: Snap) -> Bool { edge == other.edge && abs(offset - other.offset) < 0.01 }

    /// This snap as the candidate a search used, its alternatives the others of `group` (a snap and its alternatives).
    func chosen(from group: Snap) -> Snap {
        if isSamePlace(as: group) { return group }
        var snap = self
        var primary = group
        primary.alternatives = []
        snap.alternatives = [primary] + group.alternatives.filter { !$0.isSamePlace(as: self) }
        return snap
    }

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
            return "NoSegment: no road usable by this mode" + (d.isFinite ? " within \(Int(d)) m" : "")
                + " of waypoint \(i + 1) (\(c))"
        case .noRoute(let a, let b): return "NoRoute: no route between waypoint \(a + 1) and waypoint \(b + 1)"
        case .tooFewWaypoints: return "InvalidQuery: a route needs at least two waypoints"
        }
    }
}

/// What a client may say about one waypoint (OSRM's `radiuses` and `bearings`).
public struct WaypointFilter: Sendable {
    /// How far the point may be from its road, metres; nil for the router's default.
    public var radius: Double?
    /// Direction of travel at the point, degrees clockwise from north, and the tolerance either side.
    public var bearing: (value: Double, range: Double)?
    /// Roads of these classes are not snapped to (the request avoids them).
    public var excluding: ArcClasses = []
    /// From which side a two-way road is reached and left (OSRM's `approaches`).
    public var approach = Approach.unrestricted
    /// OSRM's `snapping=any`: roads a route may not otherwise start on (ferries, trains, private service roads).
    public var snapsAnywhere = false

    public init(radius: Double? = nil, bearing: (value: Double, range: Double)? = nil, excluding: ArcClasses = [],
                approach: Approach = .unrestricted) {
        self.radius = radius
        self.bearing = bearing
        self.excluding = excluding
        self.approach = approach
    }

    static func within(_ a: Double, _ b: Double, _ range: Double) -> Bool {
        let d = abs((a - b).truncatingRemainder(dividingBy: 360))
        return min(d, 360 - d) <= range
    }
}

/// OSRM's `approaches`: on a road open both ways, `curb` arrives and leaves with the point on the kerb side
/// (the right, where traffic keeps right), `opposite` with it on the far side. One-way roads are as they are.
public enum Approach: String, Sendable, CaseIterable {
    case unrestricted, curb, opposite
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

    /// How much closer a restricted road (private, destination-only) must be than one open to all to be chosen:
    /// a point on a private drive snaps to it, a point on a street beside a car park's aisle to the street.
    public static let restrictedSnapMargin = 10.0

    /// `restrictedMargin`: how much nearer a restricted road must be to be chosen (0: the nearest road, as OSRM).
    public func snap(_ point: Coordinate, maxDistance: Double = RoadGraph.defaultSnapDistance,
                     filter: WaypointFilter = WaypointFilter(),
                     restrictedMargin: Double = RoadGraph.restrictedSnapMargin) -> WaypointCandidates?
    {
        let limit = filter.radius ?? maxDistance
        guard var hit = nearestSegment(to: point, maxDistance: limit, accept: { self.matches($0, filter) }) else { return nil }
        var openOnly = false
        if restrictedMargin > 0, isRestricted(edge: edge(ofSegmentStartingAt: hit.segment)),
           let open = nearestSegment(to: point, maxDistance: min(limit, hit.distance + restrictedMargin), accept: {
               self.matches($0, filter) && !self.isRestricted(edge: self.edge(ofSegmentStartingAt: $0))
           }) {
            hit = open
            openOnly = true
        }
        let nearest = makeSnap(point, hit, filter) { segment in
            self.matches(segment, filter) && !(openOnly && self.isRestricted(edge: self.edge(ofSegmentStartingAt: segment)))
        }
        if nearest.onMainNetwork { return WaypointCandidates(nearest: nearest, mainNetwork: nearest) }
        let main = nearestSegment(to: point, maxDistance: limit) { segment in
            self.isMainNetwork(edge: self.edge(ofSegmentStartingAt: segment)) && self.matches(segment, filter)
        }.map { hit in
            makeSnap(point, hit, filter) { self.isMainNetwork(edge: self.edge(ofSegmentStartingAt: $0)) && self.matches($0, filter) }
        }
        return WaypointCandidates(nearest: nearest, mainNetwork: main)
    }

    /// Each point on its road, nil where no usable road is within reach. Points that do not all share one island
    /// leave islands for the main network where it is within reach too. `known`: places already found for some
    /// points (a route's own waypoints, kept for a reroute), not looked for again where this graph `holds` them.
    public func snapPoints(_ points: [Coordinate], maxDistance: Double, filters: [WaypointFilter]? = nil,
                           restrictedMargin: Double = RoadGraph.restrictedSnapMargin, known: [Snap?]? = nil) -> [Snap?] {
        let candidates = points.enumerated().map { i, p -> WaypointCandidates? in
            if let known, i < known.count, let place = known[i], holds(place) {
                return WaypointCandidates(nearest: place, mainNetwork: place.onMainNetwork ? place : nil)
            }
            return snap(p, maxDistance: maxDistance, filter: filters?[i] ?? WaypointFilter(), restrictedMargin: restrictedMargin)
        }
        let components = Set(candidates.compactMap { $0?.nearest.component })
        if components.count <= 1 { return candidates.map { $0?.nearest } }
        return candidates.map { $0.map { $0.mainNetwork ?? $0.nearest } }
    }

    /// Whether a snap made earlier is a place on this graph: its edge and segment exist and its location lies on
    /// that segment. A graph swapped in since (a new import) renumbers its edges.
    public func holds(_ snap: Snap) -> Bool {
        guard snap.edge >= 0, snap.edge < edgeCount else { return false }
        let range = shapeRange(ofEdge: snap.edge)
        guard snap.segment >= range.lowerBound, snap.segment < range.upperBound - 1 else { return false }
        let onSegment = Geo.osrmSnappedLocation(of: snap.location, onSegmentFrom: shapePoint(snap.segment), to: shapePoint(snap.segment + 1))
        return Geo.distance(onSegment, snap.location) < 0.5 && snap.alternatives.allSatisfy(holds)
    }

    /// Up to `count` roads nearest to the point, one snap per edge, nearest first (the `nearest` service).
    /// `bySegment`: as OSRM lists them, one snap per segment (several of one road), in the order its R-tree ranks
    /// them (`Geo.osrmNearnessRank`, which differs from the metres where segments are nearly as near).
    public func nearestRoads(to point: Coordinate, count: Int, maxDistance: Double = RoadGraph.defaultSnapDistance,
                             filter: WaypointFilter = WaypointFilter(), bySegment: Bool = false) -> [Snap] {
        let accept = { self.matches($0, filter) }, limit = filter.radius ?? maxDistance
        guard bySegment else {
            return nearestSegments(to: point, count: count, maxDistance: limit, key: { self.edge(ofSegmentStartingAt: $0) },
                                   accept: accept).map { makeSnap(point, $0, filter) }
        }
        // A few more than asked, by the metres, then ranked as OSRM ranks them: a near tie changes places only
        // with a neighbour in the list.
        let hits = nearestSegments(to: point, count: count + 8, maxDistance: limit, key: { $0 }, accept: accept)
        let ranked = hits.map { hit in
            (hit, Geo.osrmNearnessRank(of: point, onSegmentFrom: shapePoint(hit.segment), to: shapePoint(hit.segment + 1)))
        }.sorted { ($0.1, $0.0.distance, $0.0.segment) < ($1.1, $1.0.distance, $1.0.segment) }
        return ranked.prefix(count).map { makeSnap(point, $0.0, filter) }
    }

    /// Whether a route may start or end on a segment in a direction the filter allows: never on a ferry or train,
    /// nor on a road of an excluded class.
    private func matches(_ segment: Int, _ filter: WaypointFilter) -> Bool {
        if !filter.snapsAnywhere && flags(ofEdge: edge(ofSegmentStartingAt: segment)).contains(.notStartpoint) { return false }
        let directions = travelDirections(segment, filter.bearing, excluding: filter.excluding)
        return directions.forward || directions.backward
    }

    /// Whether every direction of an edge is restricted (a route may only start or end there).
    public func isRestricted(edge e: Int) -> Bool {
        let f = edgeForwardArc[e], b = edgeBackwardArc[e]
        return (f == noIndex || classes(ofArc: f).contains(.restricted)) && (b == noIndex || classes(ofArc: b).contains(.restricted))
    }

    private func travelDirections(_ segment: Int, _ bearing: (value: Double, range: Double)?,
                                  excluding: ArcClasses = []) -> (forward: Bool, backward: Bool) {
        let e = edge(ofSegmentStartingAt: segment)
        func usable(_ arc: UInt32) -> Bool { arc != noIndex && classes(ofArc: arc).intersection(excluding).isEmpty }
        let hasForward = usable(edgeForwardArc[e]), hasBackward = usable(edgeBackwardArc[e])
        guard let bearing else { return (hasForward, hasBackward) }
        let along = Geo.bearing(from: shapePoint(segment), to: shapePoint(segment + 1))
        return (hasForward && WaypointFilter.within(along, bearing.value, bearing.range),
                hasBackward && WaypointFilter.within(along + 180, bearing.value, bearing.range))
    }

    /// Whether the edge can be driven in a direction that belongs to the core (the largest strongly connected part).
    public func isInCore(edge e: Int) -> Bool {
        let f = edgeForwardArc[e], b = edgeBackwardArc[e]
        return (f != noIndex && arcInCore[Int(f)] == 1) || (b != noIndex && arcInCore[Int(b)] == 1)
    }

    /// A waypoint's name as OSRM gives it: the names of the roads it is on (at a junction, those of its
    /// alternatives too), each once, the unnamed left out, joined with " / ". In the order of the graph's edges,
    /// so that each leg at a waypoint names it alike, whichever road it took there.
    public func waypointName(of snap: Snap, language: String? = nil) -> String {
        if snap.alternatives.isEmpty { return name(ofEdge: snap.edge, language: language) }
        var names: [String] = []
        for candidate in snap.candidates.sorted(by: { $0.edge < $1.edge }) {
            let name = name(ofEdge: candidate.edge, language: language)
            if !name.isEmpty && !names.contains(name) { names.append(name) }
        }
        return names.joined(separator: " / ")
    }

    /// The nearest road of the core network.
    public func snapToCore(_ point: Coordinate, maxDistance: Double = RoadGraph.defaultSnapDistance,
                           filter: WaypointFilter = WaypointFilter()) -> Snap?
    {
        nearestSegment(to: point, maxDistance: maxDistance) {
            self.isInCore(edge: self.edge(ofSegmentStartingAt: $0)) && self.matches($0, filter)
        }.map { hit in
            makeSnap(point, hit, filter) { self.isInCore(edge: self.edge(ofSegmentStartingAt: $0)) && self.matches($0, filter) }
        }
    }

    /// Where a point whose road is off the core (a one-way trap, an island) may be moved instead: the nearest road
    /// of the core within `radius` (or the filter's), and Wayfinder's way no farther than `Router.coreSlack` beyond
    /// its own road; OSRM's (`asOSRM`) however far, but only onto a big core. Nil where it stays. Routes and
    /// tables both move points by this one rule, so a cell is filled exactly where a route is found.
    public func coreSnap(for snap: Snap, at point: Coordinate, filter: WaypointFilter, radius: Double, asOSRM: Bool) -> Snap? {
        guard !isInCore(edge: snap.edge), !asOSRM || hasBigCore else { return nil }
        // The slack in the grid's own measure (the sphere's), not the ruler's the snap reports: far from every road
        // the two part by more than the slack.
        let limit = min(filter.radius ?? radius, Geo.distance(point, snap.location) + (asOSRM ? .infinity : Router.coreSlack))
        return snapToCore(point, maxDistance: limit, filter: filter)
    }

    /// Whether the core is what OSRM calls a big component, one that a point off it is moved to: 1,000 junctions
    /// or more. (Measured with osrm-routed 26.10: Monaco's core of 2,184 arcs is big, Helsinki's 1,417-arc core
    /// of under 1,000 junctions is not, and OSRM answers NoRoute from a one-way trap there.)
    public var hasBigCore: Bool { coreVertexCount >= 1000 }

    public func isMainNetwork(edge e: Int) -> Bool {
        let f = edgeForwardArc[e], b = edgeBackwardArc[e]
        return (f != noIndex && isMainNetwork(arc: f)) || (b != noIndex && isMainNetwork(arc: b))
    }

    /// The snap at `hit`, with the other roads `accept` allows whose nearest place to the point is the same
    /// (`Snap.alternatives`). Looked for only where the hit is an edge's end: elsewhere the place is inside one
    /// road, and only overlapping ways could share it.
    private func makeSnap(_ point: Coordinate, _ hit: SegmentHit, _ filter: WaypointFilter,
                          alternativesFrom accept: (Int) -> Bool) -> Snap {
        var snap = makeSnap(point, hit, filter)
        let range = shapeRange(ofEdge: snap.edge)
        // One place to OSRM, which keeps coordinates in micro-degrees: a point given to six decimals at a node
        // stored to seven is at the junction.
        func micro(_ c: Coordinate) -> (Int, Int) { (Int((c.latitude * 1e6).rounded()), Int((c.longitude * 1e6).rounded())) }
        let here = micro(hit.position)
        func isHere(_ c: Coordinate) -> Bool { micro(c) == here }
        let end: Int
        if hit.segment == range.lowerBound && isHere(shapePoint(range.lowerBound)) {
            end = range.lowerBound
        } else if hit.segment == range.upperBound - 2 && isHere(shapePoint(range.upperBound - 1)) {
            end = range.upperBound - 1
        } else {
            return snap
        }
        for other in segments(endingAt: shapePoint(end), nearestTo: point, accept: accept, isPlace: isHere)
        where other.segment != hit.segment {
            let candidate = makeSnap(point, other, filter)
            if !snap.candidates.contains(where: { $0.isSamePlace(as: candidate) }) { snap.alternatives.append(candidate) }
        }
        return snap
    }

    private func makeSnap(_ point: Coordinate, _ hit: SegmentHit, _ filter: WaypointFilter) -> Snap {
        let e = edge(ofSegmentStartingAt: hit.segment)
        let range = shapeRange(ofEdge: e)
        // Measured as the import measured the edge, and placed on the segment as OSRM places it (`partialCost`
        // splits the segment's time there).
        var offset = 0.0, total = 0.0
        for i in range.lowerBound..<(range.upperBound - 1) {
            let length = Geo.osrmRulerDistance(shapePoint(i), shapePoint(i + 1))
            if i < hit.segment { offset += length } else if i == hit.segment {
                offset += length * Geo.osrmRatio(of: point, alongSegmentFrom: shapePoint(i), to: shapePoint(i + 1))
            }
            total += length
        }
        let arc = edgeForwardArc[e] != noIndex ? edgeForwardArc[e] : edgeBackwardArc[e]
        var directions = travelDirections(hit.segment, filter.bearing, excluding: filter.excluding)
        if filter.approach != .unrestricted && directions.forward && directions.backward {
            // The point's side of the segment, by the sign of a cross product in a local east/north plane.
            let a = shapePoint(hit.segment), b = shapePoint(hit.segment + 1)
            let scale = cos(a.latitude * .pi / 180)
            let cross = (b.longitude - a.longitude) * scale * (point.latitude - a.latitude)
                - (b.latitude - a.latitude) * (point.longitude - a.longitude) * scale
            let onTheRight = cross < 0
            let forward = onTheRight == (filter.approach == .curb)
            directions = (forward, !forward)
        }
        // Where OSRM puts the point and how far it measures it from there, within centimetres of the hit's own.
        let location = Geo.osrmSnappedLocation(of: point, onSegmentFrom: shapePoint(hit.segment), to: shapePoint(hit.segment + 1))
        return Snap(input: point, location: location, distance: Geo.osrmRulerDistance(point, location), edge: e,
                    segment: hit.segment, offset: offset, edgeLength: total, name: name(ofEdge: e),
                    onMainNetwork: isMainNetwork(edge: e), component: arcComponent[Int(arc)],
                    allowsForward: directions.forward, allowsBackward: directions.backward)
    }
}
