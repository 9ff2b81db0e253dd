import Foundation
import RoadGraph

// Circles along a leg: which ones OSRM announces as roundabouts, rotaries or plain intersections.
extension GuidanceLegReader {
    /// OSRM's roundabout classification of the circle through `v`: walks the ring once (cached for all its
    /// vertices). Nil where there is no circle, a mix of tags, a fork in the ring, or a circle open both ways
    /// (as for walkers).
    mutating func ringKind(at v: UInt32) -> RingKind? {
        var roundabout = false, circular = false
        for (edge, _) in graph.edges(atVertex: v) {
            let flags = graph.flags(ofEdge: edge)
            roundabout = roundabout || flags.contains(.roundabout)
            circular = circular || flags.contains(.circular)
        }
        guard roundabout != circular else { return nil }
        if let cached = rings[v] { return cached }
        if let walk = store?.ringWalk(from: v) {
            for vertex in walk.visited { rings[vertex] = .some(walk.kind) }
            rings[v] = .some(walk.kind)
            return walk.kind
        }
        let ringFlag: EdgeFlags = roundabout ? .roundabout : .circular
        var visited: [UInt32] = []
        var exitNodes: [UInt32] = []
        var length = 0.0
        var names: [RoadLabel] = []
        var connected: [String] = []
        var n = v
        var result: RingKind?
        walk: do {
            for _ in 0..<10_000 {
                visited.append(n)
                let here = graph.edges(atVertex: n)
                if here.count > 2 { exitNodes.append(n) }
                let ringEdges = here.filter { graph.flags(ofEdge: $0.edge).contains(ringFlag) }
                guard ringEdges.count == 2 else { break walk }
                for (edge, _) in here {
                    let label = roadLabel(edge)
                    if graph.flags(ofEdge: edge).contains(ringFlag) {
                        if !label.name.isEmpty && names.allSatisfy({ RoadNames.requiresAnnouncement(from: $0, to: label) }) {
                            names.append(label)
                        }
                    } else {
                        connected.append(label.name)
                    }
                }
                let onward = ringEdges.compactMap { edge, atEnd -> UInt32? in
                    let arc = atEnd ? graph.edgeBackwardArc[edge] : graph.edgeForwardArc[edge]
                    return arc == noIndex ? nil : arc
                }
                guard onward.count == 1 else { break walk }
                length += Double(graph.edgeLength[graph.edge(ofArc: onward[0]).edge])
                n = graph.arcHead[Int(onward[0])]
                if n == v { break }
                guard !visited.contains(n) else { break walk }
            }
            guard n == v, !exitNodes.isEmpty else { break walk }
            if exitNodes.count == 1 && roundabout { result = .intersection; break walk }
            let radius = length / (2 * Double.pi)
            if names.count == 1 && (circular || (!connected.contains(names[0].name) && radius > 15)) {
                result = .rotary
            } else if circular {
                result = nil
            } else if radius < 15 && qualifiesAsRoundaboutIntersection(exitNodes, ringFlag) {
                result = .intersection
            } else {
                result = .roundabout
            }
        }
        for vertex in visited { rings[vertex] = .some(result) }
        rings[v] = .some(result)
        store?.keepRingWalk(from: v, kind: result, visited: visited)
        return result
    }

    /// A small circle with at most four simple exits, each more than 40° from the next (OSRM compares the sorted
    /// bearings without wrapping round, and so do we). An exit's bearing is the one perceived at its junction
    /// (`EdgeEnd.bearing`), as OSRM reads it there: a road that bends away after a few metres keeps its first
    /// direction (Monaco's Boulevard d'Italie circle: 104° at the junction, 90° twenty metres on).
    func qualifiesAsRoundaboutIntersection(_ nodes: [UInt32], _ ringFlag: EdgeFlags) -> Bool {
        guard nodes.count <= 4 else { return false }
        var bearings: [Double] = []
        for n in nodes {
            let here = graph.edges(atVertex: n)
            guard here.count <= 3, let exit = here.first(where: { !graph.flags(ofEdge: $0.edge).contains(ringFlag) }) else {
                return false
            }
            bearings.append(graph.edgeEnds[2 * exit.edge + (exit.atEnd ? 1 : 0)].bearing)
        }
        bearings.sort()
        for i in bearings.indices where abs(bearings[(i + 1) % bearings.count] - bearings[i]) <= 40 { return false }
        return true
    }
}
