import Foundation
import RoadGraph

// Divided roads at a junction: carriageways seen as one road, and the short connectors between them.
extension GuidanceLeg {
    /// OSRM's internal intersection edge: a short piece (≤ 32 m) joining the carriageways of divided roads, with a
    /// oneway road turning onto it at one end and off it at the other, not a zig-zag.
    static func isSegregated(_ s: GuidanceStretch, start: GuidanceJunction, end: GuidanceJunction) -> Bool {
        guard s.edgeLength <= 32, !s.roundabout, !s.circular else { return false }
        func qualifies(_ r: JunctionRoad) -> Bool { r.oneway && !r.isLink && r.priority <= 11 }
        // Arriving at the start along a oneway road other than this one, turning onto the connector.
        let leavingStart = start.takenRoad.bearing
        let inTurns = start.roads.enumerated().compactMap { i, r -> Modifier? in
            guard i != start.taken, r.incomingOnly, qualifies(r) else { return nil }
            let angle = Geo.turnAngle(arriving: Geo.remainder360(r.bearing + 180), leaving: leavingStart)
            return angle > 150 && angle < 210 ? nil : Modifier(angle: angle)
        }
        let arrivingEnd = end.approachBearing
        let outTurns = end.roads.enumerated().compactMap { i, r -> Modifier? in
            guard i != 0, !r.incomingOnly, r.oneway, qualifies(r) else { return nil }
            let angle = Geo.turnAngle(arriving: arrivingEnd, leaving: r.bearing)
            return angle > 150 && angle < 210 ? nil : Modifier(angle: angle)
        }
        guard !inTurns.isEmpty, !outTurns.isEmpty else { return false }
        let inLeft = inTurns.contains { $0 == .left || $0 == .sharpLeft }, inRight = inTurns.contains { $0 == .right || $0 == .sharpRight }
        let outLeft = outTurns.contains { $0 == .left || $0 == .sharpLeft }, outRight = outTurns.contains { $0 == .right || $0 == .sharpRight }
        return !(inLeft && outRight) && !(inRight && outLeft) && !(outLeft && outRight)
    }
}

extension GuidanceJunction {
    /// A dual carriageway seen as one road (OSRM's mergeable roads): two roads, one only coming in and one going
    /// out, of one name and class, that the import read as one road (`mergeDividedRoadBearings` gave them one
    /// bearing, their mean), become one road.
    mutating func mergeDividedRoads(approach: inout Int, labels: LegLabels) {
        guard roads.count >= 3 else { return }
        var merged = true
        // Most junctions have no road that only arrives: nothing to merge, nothing to sort.
        guard roads.contains(where: { $0.incomingOnly && !$0.onRing }) else { return }
        while merged {
            merged = false
            // The order on the stack, not in an array per junction with a oneway pair.
            withUnsafeTemporaryAllocation(of: Int.self, capacity: roads.count) { order in
                stableOrder(into: order) { roads[$0].bearing < roads[$1].bearing }
                for k in order.indices {
                    let i = order[k], j = order[(k + 1) % order.count]
                    // Read in place: copies of the two roads would retain their labels for every pair looked at.
                    guard roads[i].incomingOnly != roads[j].incomingOnly,
                          !roads[i].onRing, !roads[j].onRing, roads[i].roadClass == roads[j].roadClass,
                          roads[i].isLink == roads[j].isLink, roads[i].mode == roads[j].mode,
                          labels.identical(roads[i].label, roads[j].label),
                          roads[i].bearing == roads[j].bearing else { continue }
                    let (outgoing, incoming) = roads[i].incomingOnly ? (j, i) : (i, j)
                    // The route's own roads stay: only a road it neither arrived nor left on is dropped (arriving on
                    // one carriageway and leaving on the other is a U-turn, and keeps both).
                    guard incoming != taken, !(incoming == approach && outgoing == taken) else { continue }
                    // The import gave both their mean bearing already.
                    if incoming == approach {
                        // Arriving on one carriageway: the road behind is the pair.
                        roads[incoming].entryAllowed = roads[outgoing].entryAllowed || roads[incoming].entryAllowed
                        roads.remove(at: outgoing)
                        if taken > outgoing { taken -= 1 }
                        if approach > outgoing { approach -= 1 }
                    } else {
                        roads.remove(at: incoming)
                        if taken > incoming { taken -= 1 }
                        if approach > incoming { approach -= 1 }
                    }
                    merged = true
                    break
                }
            }
        }
    }
}
