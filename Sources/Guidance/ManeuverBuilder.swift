import Foundation
import RoadGraph
import Routing

/// Turns a leg's stretches into the steps a person follows: one step where a decision is made or the road's name
/// changes, none where the road simply goes on through an intersection. Turn angles come from the road geometry
/// at each junction; short connectors and dual-carriageway crossings collapse into the one turn a person perceives.
public struct ManeuverBuilder {
    public let graph: RoadGraph
    public let language: String?

    /// Steps shorter than this, between two turns, are folded into the next one (a crossing of a divided road, a
    /// short connector), in metres. Walkers notice shorter pieces than drivers do.
    var collapseDistance: Double { graph.mode == .driving ? 30 : 12 }
    /// Deviation from straight ahead that still counts as going straight on, degrees.
    static let straightTolerance = 35.0

    public init(graph: RoadGraph, language: String? = nil) {
        self.graph = graph
        self.language = language
    }

    /// What the route meets at the vertex between two stretches.
    struct Junction {
        var vertex: UInt32
        var location: Coordinate
        var inArc: UInt32, outArc: UInt32
        var inBearing: Double  // direction of travel arriving
        var outBearing: Double  // direction of travel leaving
        var roads: [(bearing: Double, allowed: Bool, isIn: Bool, isOut: Bool, edge: Int)]
        var isUturn: Bool

        var deviation: Double { Self.deviation(outBearing, from: inBearing) }

        static func deviation(_ bearing: Double, from reference: Double) -> Double {
            var d = (bearing - reference).truncatingRemainder(dividingBy: 360)
            if d > 180 { d -= 360 }
            if d <= -180 { d += 360 }
            return d
        }

        /// Roads one could take from the approach, other than back.
        var options: [(bearing: Double, allowed: Bool, isIn: Bool, isOut: Bool, edge: Int)] {
            roads.filter { $0.allowed && !$0.isIn }
        }
    }

    public func steps(for leg: RouteLeg, waypointNumber: Int?) -> [GuidanceStep] {
        let stretches = leg.stretches
        guard !stretches.isEmpty else { return [] }
        var steps: [GuidanceStep] = []
        var current = makeStep(type: .depart, modifier: nil, at: 0, stretches: stretches, leg: leg, junction: nil)
        var roundaboutExits = 0
        var inRoundaboutSinceEntry = false
        for k in 1..<stretches.count {
            let junction = analyse(from: stretches[k - 1], to: stretches[k], leg: leg)
            let inEdge = graph.edge(ofArc: junction.inArc).edge, outEdge = graph.edge(ofArc: junction.outArc).edge
            let inFlags = graph.flags(ofEdge: inEdge), outFlags = graph.flags(ofEdge: outEdge)
            var decision: (ManeuverType, Modifier?)? = nil
            if inFlags.contains(.roundabout) && outFlags.contains(.roundabout) {
                if junction.options.contains(where: { !graph.flags(ofEdge: $0.edge).contains(.roundabout) }) { roundaboutExits += 1 }
            } else {
                decision = classify(junction, inEdge: inEdge, outEdge: outEdge, inFlags: inFlags, outFlags: outFlags)
            }
            if let (type, modifier) = decision {
                if type == .roundabout || type == .rotary {
                    roundaboutExits = 0
                    inRoundaboutSinceEntry = true
                }
                var exitNumber: Int? = nil
                if type == .exitRoundabout || type == .exitRotary {
                    exitNumber = roundaboutExits + 1
                    // The entry step tells the exit and the road taken, as a maps app says it.
                    if inRoundaboutSinceEntry, current.maneuver.type == .roundabout || current.maneuver.type == .rotary {
                        current.maneuver.exit = exitNumber
                        current.name = name(of: stretches[k])
                        current.ref = graph.ref(ofEdge: outEdge)
                    }
                    inRoundaboutSinceEntry = false
                }
                steps.append(current)
                current = makeStep(type: type, modifier: modifier, at: k, stretches: stretches, leg: leg, junction: junction)
                current.maneuver.exit = exitNumber
                if type == .rotary { current.rotaryName = name(of: stretches[k]) }
            } else {
                extend(&current, with: stretches[k], leg: leg, junction: junction)
            }
        }
        steps.append(current)
        steps = collapse(steps)
        steps.append(arrival(leg, waypointNumber: waypointNumber, bearingBefore: bearing(arriving: leg.coordinates)))
        return steps
    }

    // MARK: Junction analysis

    func analyse(from a: Stretch, to b: Stretch, leg: RouteLeg) -> Junction {
        let v = graph.arcHead[Int(a.arc)]
        let inLine = Array(leg.coordinates[a.coordinates]), outLine = Array(leg.coordinates[b.coordinates])
        let inBearing = Double(bearing(arriving: inLine)), outBearing = Double(bearing(leaving: outLine))
        let allowed = Set((Int(graph.transitionStart[Int(a.arc)])..<Int(graph.transitionStart[Int(a.arc) + 1]))
            .map { graph.arcBase[Int(graph.transitionTargets[$0])] })
        let inEdge = graph.edge(ofArc: a.arc)
        var roads: [(bearing: Double, allowed: Bool, isIn: Bool, isOut: Bool, edge: Int)] = []
        for (edge, atEnd) in graph.edges(atVertex: v) {
            let leaving = atEnd ? graph.edgeBackwardArc[edge] : graph.edgeForwardArc[edge]
            // The approach: the edge we came along, at the end we arrived at.
            let isIn = edge == inEdge.edge && atEnd != inEdge.reversed
            roads.append((graph.bearing(ofEdge: edge, leavingFromEnd: atEnd), leaving != noIndex && allowed.contains(leaving),
                          isIn, leaving == b.arc, edge))
        }
        let isUturn = graph.edge(ofArc: b.arc).edge == inEdge.edge && graph.edge(ofArc: b.arc).reversed != inEdge.reversed
        return Junction(vertex: v, location: inLine.last ?? leg.coordinates[0], inArc: a.arc, outArc: b.arc,
                        inBearing: inBearing, outBearing: outBearing, roads: roads, isUturn: isUturn)
    }

    /// The maneuver at a junction, or nil where the route just carries on.
    func classify(_ j: Junction, inEdge: Int, outEdge: Int, inFlags: EdgeFlags, outFlags: EdgeFlags)
        -> (ManeuverType, Modifier?)?
    {
        let deviation = j.deviation
        let modifier = Modifier(deviation: deviation)
        if j.isUturn { return (.continueOn, .uturn) }
        if outFlags.contains(.ferry) != inFlags.contains(.ferry) {
            return outFlags.contains(.ferry) ? (.notification, modifier) : (.newName, modifier)
        }
        if outFlags.contains(.roundabout) { return (isRotary(outEdge) ? .rotary : .roundabout, nil) }
        if inFlags.contains(.roundabout) { return (isRotary(inEdge) ? .exitRotary : .exitRoundabout, modifier) }

        let inClass = graph.roadClass(ofEdge: inEdge), outClass = graph.roadClass(ofEdge: outEdge)
        let sameRoad = sameName(inEdge, outEdge)
        let options = j.options
        let straightOn = abs(deviation) <= Self.straightTolerance

        if graph.mode == .driving {
            let inLink = inFlags.contains(.link), outLink = outFlags.contains(.link)
            if !inLink && outLink { return (inClass.isHighway ? .offRamp : .onRamp, sideModifier(deviation)) }
            // Joining from the right means turning right a little and merging left into traffic, and vice versa.
            if inLink && !outLink && outClass.isHighway { return (.merge, sideModifier(-deviation)) }
        }
        // A fork: two ways on, both roughly ahead, close to each other, and no road straight on to prefer.
        let ahead = options.filter { abs(Junction.deviation($0.bearing, from: j.inBearing)) < 60 }
        if ahead.count == 2, options.count == 2, straightOn, !sameRoad || ahead.allSatisfy({ sameName($0.edge, inEdge) }) {
            let other = ahead.first { !$0.isOut }!
            let otherDeviation = Junction.deviation(other.bearing, from: j.inBearing)
            if abs(otherDeviation - deviation) < 75 {
                return (.fork, deviation < otherDeviation ? .slightLeft : .slightRight)
            }
        }
        // End of the road: nothing goes on straight ahead, so the road ends in a T.
        let anythingAhead = j.roads.contains { !$0.isIn && abs(Junction.deviation($0.bearing, from: j.inBearing)) < Self.straightTolerance }
        if !anythingAhead && options.count >= 2 && abs(deviation) >= 60 && !sameRoad {
            return (.endOfRoad, modifier)
        }
        if isUnnamed(inEdge) && isUnnamed(outEdge) {
            // Between unnamed paths only real turns are worth saying.
            return straightOn || options.count <= 1 ? nil : (.turn, modifier)
        }
        if sameRoad {
            // Staying on the road: only worth a step where it turns and other roads offer a choice.
            if straightOn || options.count <= 1 { return nil }
            if options.contains(where: { !$0.isOut && abs(Junction.deviation($0.bearing, from: j.inBearing)) < abs(deviation) }) {
                return (.continueOn, modifier)
            }
            return nil
        }
        // Going on with no straighter way to choose is a change of name; otherwise it is a turn.
        let straighter = options.contains { !$0.isOut && abs(Junction.deviation($0.bearing, from: j.inBearing)) < abs(deviation) }
        if straightOn && !straighter {
            // Onto an unnamed path there is no new name to say: the step goes on (as OSRM treats a removed name).
            return isUnnamed(outEdge) ? nil : (.newName, modifier)
        }
        if options.count <= 1 {
            // The only way on: a bend onto an unnamed path is nothing to say; a corner onto a named road is a turn.
            if isUnnamed(outEdge) { return nil }
            return straightOn ? (.newName, modifier) : (.turn, modifier)
        }
        return (.turn, modifier)
    }

    private func sideModifier(_ deviation: Double) -> Modifier {
        if abs(deviation) < 5 { return .straight }
        return deviation < 0 ? .slightLeft : .slightRight
    }

    /// Named roundabouts (and large ones) are rotaries in OSRM's vocabulary.
    private func isRotary(_ edge: Int) -> Bool { !graph.name(ofEdge: edge).isEmpty }

    private func isUnnamed(_ edge: Int) -> Bool { graph.name(ofEdge: edge).isEmpty && graph.ref(ofEdge: edge).isEmpty }

    private func sameName(_ a: Int, _ b: Int) -> Bool {
        let nameA = graph.name(ofEdge: a), nameB = graph.name(ofEdge: b)
        if nameA.isEmpty && nameB.isEmpty {
            let refA = graph.ref(ofEdge: a), refB = graph.ref(ofEdge: b)
            return refA == refB
        }
        return nameA == nameB
    }

    // MARK: Steps

    private func name(of stretch: Stretch) -> String {
        graph.name(ofEdge: graph.edge(ofArc: stretch.arc).edge, language: language)
    }

    private func mode(of stretch: Stretch) -> String {
        let flags = graph.flags(ofEdge: graph.edge(ofArc: stretch.arc).edge)
        return flags.contains(.ferry) ? "ferry" : flags.contains(.train) ? "train" : graph.mode.rawValue
    }

    private func makeStep(type: ManeuverType, modifier: Modifier?, at k: Int, stretches: [Stretch], leg: RouteLeg,
                          junction: Junction?) -> GuidanceStep
    {
        let stretch = stretches[k]
        let line = Array(leg.coordinates[stretch.coordinates])
        let after = bearing(leaving: line)
        var intersections: [Intersection] = []
        if let junction { intersections.append(intersection(junction)) } else {
            intersections.append(Intersection(location: line[0], bearings: [after], entry: [true], inIndex: nil, outIndex: 0))
        }
        let edge = graph.edge(ofArc: stretch.arc).edge
        var step = GuidanceStep(
            maneuver: Maneuver(type: type, modifier: modifier, location: line[0],
                               bearingBefore: junction.map { Int($0.inBearing.rounded()) % 360 } ?? 0, bearingAfter: after),
            name: name(of: stretch), ref: graph.ref(ofEdge: edge), mode: mode(of: stretch), distance: stretch.distance,
            duration: stretch.duration, coordinates: line, intersections: intersections)
        step.weight = stretch.weight
        return step
    }

    private func extend(_ step: inout GuidanceStep, with stretch: Stretch, leg: RouteLeg, junction: Junction) {
        step.coordinates.append(contentsOf: leg.coordinates[stretch.coordinates].dropFirst())
        step.distance += stretch.distance
        step.duration += stretch.duration
        step.weight += stretch.weight
        if junction.roads.count > 2 { step.intersections.append(intersection(junction)) }
    }

    private func intersection(_ j: Junction) -> Intersection {
        let ordered = j.roads.enumerated().sorted { $0.element.bearing < $1.element.bearing }
        return Intersection(
            location: j.location,
            bearings: ordered.map { Int($0.element.bearing.rounded()) % 360 },
            entry: ordered.map { $0.element.allowed || $0.element.isOut },
            inIndex: ordered.firstIndex { $0.element.isIn },
            outIndex: ordered.firstIndex { $0.element.isOut })
    }

    /// Folds short steps between turns into the following one: crossing a divided road is one turn (two lefts
    /// within a few metres are a U-turn), a short connector is part of the turn that follows it.
    func collapse(_ input: [GuidanceStep]) -> [GuidanceStep] {
        var steps = input
        var i = 1
        let foldable: Set<ManeuverType> = [.turn, .newName, .continueOn, .endOfRoad]
        while i + 1 < steps.count {
            let short = steps[i], next = steps[i + 1]
            // A U-turn made at a dead end is a real one: never fold it away.
            guard foldable.contains(short.maneuver.type), foldable.contains(next.maneuver.type),
                  short.maneuver.modifier != .uturn, next.maneuver.modifier != .uturn,
                  short.distance < collapseDistance, short.mode == next.mode
            else { i += 1; continue }
            var merged = next
            let total = ManeuverBuilder.Junction.deviation(Double(next.maneuver.bearingAfter), from: Double(short.maneuver.bearingBefore))
            merged.maneuver.location = short.maneuver.location
            merged.maneuver.bearingBefore = short.maneuver.bearingBefore
            // Back onto the road we were on, the other way (a divided road): a U-turn. Two turns onto other roads
            // that happen to face back are a jog, said as the turn they add up to.
            let previousName = steps[i - 1].name
            if abs(total) > 150 && short.maneuver.modifier != .straight && next.maneuver.modifier != .straight
                && !next.name.isEmpty && next.name == previousName
            {
                merged.maneuver.type = .continueOn
                merged.maneuver.modifier = .uturn
            } else {
                let modifier = Modifier(deviation: total)
                merged.maneuver.modifier = modifier
                merged.maneuver.type = abs(total) <= Self.straightTolerance ? .newName : .turn
                if short.maneuver.type == .endOfRoad { merged.maneuver.type = .endOfRoad }
            }
            merged.coordinates = short.coordinates + next.coordinates.dropFirst()
            merged.distance += short.distance
            merged.duration += short.duration
            merged.weight += short.weight
            merged.intersections = short.intersections + next.intersections
            steps[i] = merged
            steps.remove(at: i + 1)
        }
        // Merging may leave a "new name" onto the name we were already on, or onto no name: that is no step at all.
        var result: [GuidanceStep] = []
        for step in steps {
            if step.maneuver.type == .newName, let previous = result.last, previous.mode == step.mode,
               (previous.name == step.name && previous.ref == step.ref && !step.name.isEmpty)
                || (step.name.isEmpty && step.ref.isEmpty && abs(ManeuverBuilder.Junction.deviation(
                    Double(step.maneuver.bearingAfter), from: Double(step.maneuver.bearingBefore))) <= Self.straightTolerance)
            {
                result[result.count - 1].coordinates += step.coordinates.dropFirst()
                result[result.count - 1].distance += step.distance
                result[result.count - 1].duration += step.duration
                result[result.count - 1].weight += step.weight
                result[result.count - 1].intersections += step.intersections
            } else {
                result.append(step)
            }
        }
        return result
    }

    private func arrival(_ leg: RouteLeg, waypointNumber: Int?, bearingBefore: Int) -> GuidanceStep {
        let end = leg.coordinates.last ?? leg.target.location
        var side: Modifier? = nil
        if leg.target.distance >= 1 {
            let towardsInput = Geo.bearing(from: leg.target.location, to: leg.target.input)
            let d = Junction.deviation(towardsInput, from: Double(bearingBefore))
            side = abs(d) < 20 || abs(d) > 160 ? .straight : d > 0 ? .right : .left
        }
        let lastEdge = leg.stretches.last.map { graph.edge(ofArc: $0.arc).edge }
        return GuidanceStep(
            maneuver: Maneuver(type: .arrive, modifier: side, location: end, bearingBefore: bearingBefore, bearingAfter: 0),
            name: lastEdge.map { graph.name(ofEdge: $0, language: language) } ?? "",
            ref: lastEdge.map { graph.ref(ofEdge: $0) } ?? "", mode: leg.stretches.last.map(mode(of:)) ?? graph.mode.rawValue,
            distance: 0, duration: 0, coordinates: [end, end],
            intersections: [Intersection(location: end, bearings: [(bearingBefore + 180) % 360], entry: [true], inIndex: 0, outIndex: nil)],
            waypointNumber: waypointNumber, arrivalSide: side)
    }

    func bearing(leaving line: [Coordinate]) -> Int {
        for k in 1..<max(1, line.count) where line[k] != line[0] {
            return Int(Geo.bearing(from: line[0], to: line[k]).rounded()) % 360
        }
        return 0
    }

    func bearing(arriving line: [Coordinate]) -> Int {
        let last = line.count - 1
        for k in stride(from: last - 1, through: 0, by: -1) where line[k] != line[last] {
            return Int(Geo.bearing(from: line[k], to: line[last]).rounded()) % 360
        }
        return 0
    }
}
