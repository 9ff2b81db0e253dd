import Foundation
import RoadGraph

/// OSRM's sliproad handler, for the road a route takes: a short road that leaves the main road just before a
/// junction and cuts the corner to the crossing road is a dedicated turn road, and the turn at its end is the same
/// maneuver ("turn right" once, not "slight right" then "turn right").
enum Sliproads {
    /// OSRM's scale per road class for how far and how large a sliproad may be.
    static func factor(_ road: JunctionRoad) -> Double {
        if road.isLink { return 0.3 }
        switch road.roadClass {
        case .motorway: return 1.0
        case .trunk, .primary: return 0.8
        case .secondary: return 0.6
        case .tertiary: return 0.5
        case .residential: return 0.4
        case .livingStreet: return 0.3
        default: return 0.1
        }
    }

    static func isCCW(_ a: Coordinate, _ p: Coordinate, _ b: Coordinate) -> Bool {
        (p.longitude - a.longitude) * (b.latitude - a.latitude) - (p.latitude - a.latitude) * (b.longitude - a.longitude) > 0
    }

    /// Whether the road taken at junction `k` is a sliproad. `instructions` holds the turn analysis of junction `k`
    /// for every road there, `obvious[j]` the obvious road of junction `j` (0 for none).
    static func isSliproad(_ leg: GuidanceLeg, junction k: Int, instructions: [TurnInstruction],
                           obvious: [Int]) -> Bool {
        let b = leg.junctions[k]
        let roads = b.roads
        guard roads.count > 2, b.taken != 0 else { return false }
        let s = b.takenRoad
        let via = roads[0]
        // The main road: the obvious one, carrying the approach on, right next to the slip road (or the other branch
        // of a fork).
        var main = obvious[k]
        if main == 0, roads.count == 3, instructions[1].kind == .fork, instructions[2].kind == .fork { main = 3 - b.taken }
        guard main != 0, abs(main - b.taken) == 1, let aheadIndex = roads[main].ahead else { return false }
        let ahead = leg.aheads[aheadIndex], labels = leg.labels
        let taken = instructions[b.taken]
        guard !taken.kind.hasRingType, !s.lowPriority, !s.onRing, Geo.deviation(s.angle, 180) <= 80,
              Geo.deviation(roads[main].angle, s.angle) > 0.001 else { return false }
        guard ahead.distance <= 250 * factor(roads[main]) || ahead.distance <= 60 else { return false }
        let rightSlip = b.taken < main
        guard let crossing = rightSlip ? ahead.rightmost : ahead.leftmost else { return false }
        // The slip road's end: the next junction of more than two roads along the route.
        var d = k + 1
        var hops = 0
        while d < leg.junctions.count && leg.junctions[d].roads.count <= 2 && hops < 10 {
            d += 1
            hops += 1
        }
        guard d < leg.junctions.count else { return false }
        let end = leg.junctions[d]
        guard (3...4).contains(end.roads.count), via.mode == s.mode, s.mode == end.takenRoad.mode else { return false }
        guard b.vertex != ahead.vertex, b.vertex != end.vertex, ahead.vertex != end.vertex else { return false }
        if end.roads.count == 4 && !end.roads.contains(where: { $0.farVertex == crossing.far }) { return false }
        // Not a road that itself goes on at its end.
        let approachAtEnd = end.roads[0]
        if !labels.isEmpty(approachAtEnd.label) && end.roads.indices.contains(where: { j in
            j != 0 && Geo.deviation(end.roads[j].angle, 180) < 25 && RoadNames.identical(labels[end.roads[j].label], labels[approachAtEnd.label])
                && end.roads[j].priority == approachAtEnd.priority
        }) { return false }
        let o = obvious[d]
        if o == 0 || Geo.deviation(end.roads[o].angle, 180) > 80 || end.roads[o].onRing { return false }
        // It hugs the corner.
        let first = leg.stretches[k + 1].coordinates.lowerBound, last = leg.stretches[d].coordinates.upperBound
        let line = Array(leg.coordinates[first...last])
        guard line.count >= 2 else { return false }
        if Geo.distance(b.location, ahead.location) >= 3 {
            for p in line.dropFirst().dropLast() where isCCW(line[0], p, line[line.count - 1]) != !rightSlip { return false }
            if Geo.deviation(crossing.angle, 180) > 140 && !s.isLink { return false }
        }
        let area = Geo.distance(b.location, ahead.location) * Geo.distance(ahead.location, end.location) / 2
        let maxArea = pow(250 * factor(s), 2)
        guard area >= 3 && area <= maxArea else { return false }
        // A road at the slip road's end leads to the junction ahead, or to where the crossing road goes.
        for (j, r) in end.roads.enumerated() where j != 0 {
            guard ahead.labels.contains(where: { !RoadNames.requiresAnnouncement(from: labels[$0], to: labels[r.label]) }) else { continue }
            if !s.isLink && !labels.isUnnamed(roads[main].label) && !labels.isUnnamed(s.label) && !labels.isUnnamed(r.label)
                && RoadNames.requiresAnnouncement(from: labels[roads[main].label], to: labels[s.label])
                && RoadNames.requiresAnnouncement(from: labels[s.label], to: labels[r.label]) { continue }
            if s.isLink && r.isLink { continue }
            if r.farVertex == ahead.vertex { return true }
            if r.farVertex == crossing.far && Geo.deviation(r.bearing, crossing.bearing) < 25
                && [.sharpRight, .sharpLeft].contains(Modifier(angle: r.angle)) { return true }
        }
        return false
    }
}
