import Foundation
import RoadGraph

/// A step while guidance is being worked out: OSRM's `RouteStep` with its internal turn type, before the
/// post-processing passes merge, collapse and drop steps.
struct DraftStep {
    enum Waypoint { case none, depart, arrive }

    var kind: TurnKind
    var modifier: Modifier
    var waypoint: Waypoint = .none
    /// The road's signs after the maneuver, and for a rotary, the circle's (its name is said): shared with the
    /// leg's stretches.
    var signs: RoadSigns
    var mode: StepMode
    var rotary: RoadSigns?
    var distance: Double
    var duration: Double
    var weight: Double
    /// The step's line: leg coordinates `first...last`.
    var first: Int
    var last: Int
    var intersections: [Intersection]
    var bearingBefore: Double
    var bearingAfter: Double
    /// The step starts on a connector inside a divided-road junction.
    var isSegregated: Bool
    var exit = 0
    var invalid = false
    /// Lane anticipation's reading of a straight maneuver: towards which side the next one pulls.
    var anticipatedSide: Modifier?
    /// A maneuver said together with this one because it follows within a few metres ("…, then turn right").
    var then: TurnInstruction?
    /// The road after the maneuver is the one the step before was on: said as staying on it.
    var staysOn = false
    /// A maneuver relation gave the step's type or direction: our own passes keep them as mapped.
    var mapped = false

    var label: RoadLabel { signs.label }
    var name: String { signs.name }
    var destinations: String { signs.destinations }
    var rotaryName: String? { rotary.flatMap { $0.name.isEmpty ? nil : $0.name } }
    var rotaryPronunciation: String? { rotary.flatMap { $0.label.pronunciation.isEmpty ? nil : $0.label.pronunciation } }

    var isWaypoint: Bool { waypoint != .none }
    var hasTurnType: Bool { kind != .noTurn }

    /// The turn at the step's first intersection (OSRM's angle: 0 back, 180 straight on).
    var turnAngle: Double {
        // Read in place: a copy of the intersection would retain its arrays.
        guard let inIndex = intersections[0].inIndex, let out = intersections[0].outIndex else { return 180 }
        return Geo.turnAngle(arriving: Double((intersections[0].roads[inIndex].bearing + 180) % 360),
                             leaving: Double(intersections[0].roads[out].bearing))
    }

    // Through the stored array: a computed property of the intersection would copy it out of the list first.
    var allowedTurns: Int { intersections[0].roads.count(where: \.entry) }
    var noIntermediaryIntersections: Bool { intersections.dropFirst().allSatisfy { $0.roads.count == 2 } }
    /// At most the collapse distance long (the profile's: 10 m on foot, 30 m by car) and passing no junction.
    func isShortAndUndisturbed(within d: Double) -> Bool { distance <= d && noIntermediaryIntersections }

    mutating func invalidate() {
        kind = .noTurn
        modifier = .uturn
        waypoint = .none
        invalid = true
    }

    /// Takes on a later step's length, time and intersections.
    mutating func elongate(by other: DraftStep) {
        distance += other.distance
        duration += other.duration
        weight += other.weight
        last = max(last, other.last)
        first = min(first, other.first)
        intersections += other.intersections
    }

    /// The names and signs of the road after another step's maneuver (OSRM's `AdaptStepSignage`).
    mutating func adoptSignage(of other: DraftStep) {
        signs = other.signs
    }
}

/// Builds a leg's steps: the turn analysis at each junction, then one step per instruction that is not silent,
/// then OSRM's post-processing in its order, then our own last passes.
struct StepAssembly {
    let leg: GuidanceLeg
    /// Our own passes and rules that apply (GUIDANCE.md, "Where we decide otherwise"); none for OSRM's steps.
    var deviations = GuidanceDeviations.all
    var steps: [DraftStep] = []

    static func steps(for leg: GuidanceLeg, deviations: GuidanceDeviations = .all) -> [DraftStep] {
        var assembly = StepAssembly(leg: leg, deviations: deviations)
        assembly.assemble()
        assembly.postProcess()
        return assembly.steps
    }

    // MARK: Assembly

    /// The instruction for the road the route takes at each junction, and the lanes for it.
    func analyseJunctions() -> [(TurnInstruction, [Lane])] {
        // Every junction's analysis first: the sliproad test asks for the obvious road of junctions further on.
        let analyses = leg.junctions.indices.map { k in
            TurnAnalysis.analyse(leg.junctions[k], labels: leg.labels, arrivingClasses: leg.stretches[k].classes,
                                 arrivingMode: leg.stretches[k].mode)
        }
        let obvious = analyses.map(\.obvious)
        return leg.junctions.indices.map { k in
            let junction = leg.junctions[k], here = analyses[k].instructions
            var instruction = here[junction.taken]
            if instruction.kind == .invalid {
                // No handler spoke for the road taken (the transition table allowed what the view did not). OSRM's
                // fallback types: a U-turn is `continue uturn` (as at a dead end), anything else a turn.
                instruction = junction.taken == 0 ? TurnInstruction(.continueOn, .uturn)
                    : TurnInstruction(.turn, Modifier(angle: junction.takenRoad.angle))
            }
            // A slip road leaves only where more than two roads meet and the route turns off; lanes only where mapped.
            if junction.roads.count > 2 && junction.taken != 0
                && Sliproads.isSliproad(leg, junction: k, instructions: here, obvious: obvious) {
                instruction.kind = .sliproad
            }
            let lanes = instruction.kind.hasRingType || leg.stretches[k].roundabout || junction.approachLanes.isEmpty
                ? [] : Lanes.lanes(at: junction, instructions: here, next: leg.stretches[k + 1])
            return (instruction, lanes)
        }
    }

    static func bearing(_ coordinates: [Coordinate], from: Int, to: Int) -> Double {
        let start = coordinates[from]
        var k = to
        if from <= to {
            for i in (from + 1)...max(from + 1, to) where i < coordinates.count && Geo.distance(start, coordinates[i]) > 0.1 {
                k = i
                break
            }
        } else {
            for i in stride(from: from - 1, through: to, by: -1) where Geo.distance(start, coordinates[i]) > 0.1 {
                k = i
                break
            }
        }
        return Geo.bearing(from: start, to: coordinates[min(max(k, 0), coordinates.count - 1)])
    }

    func draft(kind: TurnKind, modifier: Modifier, stretch k: Int) -> DraftStep {
        // Fields read in place: a copy of the stretch would retain and release its signs and lanes.
        DraftStep(kind: kind, modifier: modifier, signs: leg.stretches[k].signs, mode: leg.stretches[k].mode,
                  distance: leg.stretches[k].distance, duration: leg.stretches[k].duration, weight: leg.stretches[k].weight,
                  first: leg.stretches[k].coordinates.lowerBound, last: leg.stretches[k].coordinates.upperBound,
                  intersections: [], bearingBefore: 0, bearingAfter: 0, isSegregated: leg.stretches[k].isSegregated)
    }

    mutating func assemble() {
        let coordinates = leg.coordinates
        guard !leg.stretches.isEmpty else { return }
        let departBearing = Self.bearing(coordinates, from: 0, to: coordinates.count - 1)
        var current = draft(kind: .noTurn, modifier: .uturn, stretch: 0)
        current.waypoint = .depart
        current.bearingAfter = departBearing
        current.intersections = [Intersection(location: coordinates[0], onlyRoad: Int(departBearing.rounded()) % 360,
                                              isApproach: false, classes: leg.stretches[0].classes)]
        for (k, (computed, lanes)) in analyseJunctions().enumerated() {
            var instruction = computed
            // A maneuver relation's type and direction, before any other post-processing, as OSRM applies them.
            if let override = leg.junctions[k].override, instruction.kind != .noTurn { instruction.apply(override) }
            if instruction.kind == .noTurn {
                current.distance += leg.stretches[k + 1].distance
                current.duration += leg.stretches[k + 1].duration
                current.weight += leg.stretches[k + 1].weight
                current.last = leg.stretches[k + 1].coordinates.upperBound
                continue
            }
            // OSRM counts a turn's time in the step that leads to it (its edge-based edge ends past the turn).
            let turn = leg.stretches[k + 1].turnDuration, turnWeight = turn + leg.stretches[k + 1].entryWeight
            current.duration += turn
            current.weight += turnWeight
            steps.append(current)
            current = draft(kind: instruction.kind, modifier: instruction.modifier, stretch: k + 1)
            current.duration -= turn
            current.weight -= turnWeight
            current.mapped = leg.junctions[k].override != nil
            current.bearingBefore = leg.junctions[k].approachBearing
            current.bearingAfter = leg.junctions[k].takenRoad.bearing
            current.intersections = [Self.intersection(leg.junctions[k], lanes: lanes, classes: leg.stretches[k + 1].classes)]
        }
        steps.append(current)
        let last = coordinates.count - 1
        let arriveBearing = Geo.remainder360(Self.bearing(coordinates, from: last, to: 0) + 180)
        var arrive = draft(kind: .noTurn, modifier: .uturn, stretch: leg.stretches.count - 1)
        arrive.waypoint = .arrive
        arrive.distance = 0
        arrive.duration = 0
        arrive.weight = 0
        arrive.first = last
        arrive.last = last
        arrive.isSegregated = false
        arrive.bearingBefore = arriveBearing
        arrive.intersections = [Intersection(location: coordinates[last], onlyRoad: (Int(arriveBearing.rounded()) + 180) % 360,
                                             isApproach: true)]
        steps.append(arrive)
    }

    /// A junction as OSRM lists it: every road's bearing (on 15° steps where that keeps them apart), which may be
    /// entered, the approach (`in`) and the road taken (`out`).
    static func intersection(_ j: GuidanceJunction, lanes: [Lane], classes: ArcClasses) -> Intersection {
        let roads = j.roads, count = roads.count
        // Worked out on the stack: a route has an intersection for every junction, and its published bearings and
        // their order would be two more arrays each.
        var inIndex: Int?
        var outIndex: Int?
        let ordered: [IntersectionRoad] = withUnsafeTemporaryAllocation(of: Int.self, capacity: 2 * count) { scratch in
            // First each road's 15° bucket; then what is published: the buckets' bearings where they keep the roads
            // apart, else the rounded bearings.
            let published = UnsafeMutableBufferPointer(rebasing: scratch[..<count])
            let order = UnsafeMutableBufferPointer(rebasing: scratch[count...])
            for i in 0..<count { published[i] = Int((Geo.remainder360(roads[i].bearing.rounded() + 7.5)) / 15) }
            // A handful of roads: distinct by comparing pairs, not by hashing them into a set.
            let distinct = (0..<count).allSatisfy { i in !published[(i + 1)...].contains(published[i]) }
            for i in 0..<count {
                published[i] = distinct ? published[i] * 15 % 360 : Int(roads[i].bearing.rounded()) % 360
            }
            stableOrder(into: order) { published[$0] < published[$1] }
            inIndex = order.firstIndex(of: 0)
            outIndex = order.firstIndex(of: j.taken)
            return order.map { IntersectionRoad(bearing: published[$0], entry: $0 == j.taken || roads[$0].entryAllowed) }
        }
        return Intersection(location: j.location, roads: ordered, inIndex: inIndex, outIndex: outIndex,
                            lanes: lanes, classes: classes, joinsOneRoad: j.joinsOneRoad)
    }

    // MARK: Post-processing

    mutating func postProcess() {
        guard steps.count >= 2 else { return }
        collapseSegregated()
        trimShortSegments()
        handleRoundabouts()
        collapseTurns()
        anticipateLanes()
        buildIntersections()
        suppressShortNameSegments()
        if deviations.contains(.foldShortSteps) { foldStepsUnder(10) }
        if deviations.contains(.tidyNames) { tidyNames() }
        assignRelativeLocations()
    }

    mutating func removeInvalid() {
        // The valid steps moved forward in order by swaps, the rest dropped from the end: `removeAll(where:)` would
        // copy each step to test it.
        let kept = steps.withUnsafeMutableBufferPointer { s -> Int in
            var w = 0
            for i in s.indices where !s[i].invalid {
                if i != w { s.swapAt(i, w) }
                w += 1
            }
            return w
        }
        if kept < steps.count { steps.removeLast(steps.count - kept) }
    }

    func nextTurn(after i: Int) -> Int { steps.withUnsafeBufferPointer { Self.nextTurn($0, after: i) } }

    func previousTurn(before i: Int) -> Int { steps.withUnsafeBufferPointer { Self.previousTurn($0, before: i) } }

    static func nextTurn(_ s: UnsafeBufferPointer<DraftStep>, after i: Int) -> Int {
        var j = i + 1
        while j < s.count - 1 && !s[j].isWaypoint && !s[j].hasTurnType { j += 1 }
        return min(j, s.count - 1)
    }

    static func previousTurn(_ s: UnsafeBufferPointer<DraftStep>, before i: Int) -> Int {
        var j = i - 1
        while j > 0 && !s[j].isWaypoint && !s[j].hasTurnType { j -= 1 }
        return max(j, 0)
    }

    /// OSRM's `haveSameName` for steps: never for two unnamed roads.
    static func haveSameName(_ a: DraftStep, _ b: DraftStep) -> Bool {
        if a.label.isEmpty || b.label.isEmpty { return false }
        if a.label == b.label { return true }
        return !RoadNames.requiresAnnouncement(from: a.label, to: b.label)
    }

    /// The turn from `entry`'s approach to `exit`'s road out, where the two make one turn (OSRM's
    /// `findTotalTurnAngle`).
    /// The angle turned from entering the first step's junction to leaving the second's (180 = straight on).
    static func combinedAngle(_ a: DraftStep, _ b: DraftStep) -> Double {
        // In route order, without copying the steps into a tuple.
        a.first <= b.first ? combinedAngle(entry: a, exit: b) : combinedAngle(entry: b, exit: a)
    }

    private static func combinedAngle(entry: DraftStep, exit: DraftStep) -> Double {
        Geo.turnAngle(arriving: entryBearing(entry), leaving: exitBearing(exit))
    }

    /// The combined angle where the two make one turn: the entry step is shorter than the collapse distance `d`,
    /// or both turn the same way; else the first turn's angle.
    static func totalTurnAngle(_ a: DraftStep, _ b: DraftStep, within d: Double) -> Double {
        a.first <= b.first ? totalTurnAngle(entry: a, exit: b, within: d) : totalTurnAngle(entry: b, exit: a, within: d)
    }

    private static func totalTurnAngle(entry: DraftStep, exit: DraftStep, within d: Double) -> Double {
        let entryAngle = entry.turnAngle, exitAngle = exit.turnAngle
        let total = combinedAngle(entry: entry, exit: exit)
        let useTotal = Geo.deviation(total, 180) >= 20
            && (entry.distance < d || (entryAngle <= 185 && exitAngle <= 185) || (entryAngle >= 175 && exitAngle >= 175))
        return useTotal ? total : entryAngle
    }

    /// OSRM's `AdjustToCombinedTurnStrategy`: the step at the turn takes the combined angle, and a type that
    /// says it (a name change that turns is a turn; a turn back onto the road one was on is a continue).
    static func adjustedToCombinedTurn(_ at: DraftStep, from: DraftStep, prior: DraftStep, within d: Double) -> DraftStep {
        var at = at
        let angle = Self.totalTurnAngle(at, from, within: d)
        let newModifier = at.kind == .fork || at.kind == .merge ? at.modifier : Modifier(angle: angle)
        func nonTurn(_ s: DraftStep) -> Bool {
            s.kind == .newName || ((s.kind == .turn || s.kind == .continueOn) && s.modifier == .straight)
        }
        if nonTurn(from) || nonTurn(at) || at.kind == .suppressed {
            if at.kind == .suppressed {
                at.kind = newModifier == .straight ? .newName : (Self.haveSameName(prior, from) ? .continueOn : .turn)
            } else if at.kind == .newName && from.kind == .suppressed && newModifier != .straight {
                at.kind = .turn
            } else if at.kind == .continueOn && !Self.haveSameName(prior, from) {
                at.kind = .turn
            } else if at.kind == .turn && from.kind != .suppressed && Self.haveSameName(prior, from) {
                at.kind = .continueOn
            }
        } else if from.kind == .onRamp {
            at.kind = .onRamp
        } else if at.kind == .turn && from.kind == .turn && Self.haveSameName(prior, from) {
            at.kind = .continueOn
        } else if at.kind == .continueOn && from.kind == .turn && !Self.haveSameName(prior, from) {
            at.kind = .turn
        }
        at.modifier = newModifier
        return at
    }

    enum LaneTransfer { case keep, take }

    /// Merges step `j` into step `i` (OSRM's `combineRouteSteps`): `i` takes `j`'s signs and, if asked, its lanes,
    /// and `j`'s length and intersections.
    mutating func combine(_ i: Int, _ j: Int, lanes: LaneTransfer = .keep, turn: (inout DraftStep, DraftStep) -> Void) {
        var at = steps[i]
        let from = steps[j]
        turn(&at, from)
        at.adoptSignage(of: from)
        at.rotary = from.rotary
        if lanes == .take { at.intersections[0].lanes = from.intersections[0].lanes }
        at.elongate(by: from)
        steps[i] = at
        steps[j].invalidate()
    }

    /// Merges step `j` into `i` with nothing changed but the length (OSRM's `suppressStep`).
    mutating func suppress(_ j: Int, into i: Int) {
        steps[i].elongate(by: steps[j])
        steps[j].invalidate()
    }

    static func bearingsAreReversed(_ inBearing: Double, _ outBearing: Double) -> Bool {
        let leftTurnAngle = (0 <= outBearing && outBearing <= inBearing) ? inBearing - outBearing : inBearing + 360 - outBearing
        return Geo.deviation(leftTurnAngle, 180) <= 35
    }

    static func entryBearing(_ s: DraftStep) -> Double {
        guard let inIndex = s.intersections[0].inIndex else { return s.bearingBefore }
        return Double((s.intersections[0].roads[inIndex].bearing + 180) % 360)
    }

    static func exitBearing(_ s: DraftStep) -> Double {
        guard let out = s.intersections[0].outIndex else { return s.bearingAfter }
        return Double(s.intersections[0].roads[out].bearing)
    }

    // MARK: Divided roads

    /// The turns on and off a connector inside a divided-road junction are one maneuver.
    mutating func collapseSegregated() {
        guard steps.count > 2 else { return }
        var cur = 1, next = 2
        let last = steps.count - 1
        while next < last {
            if steps[cur].isSegregated && steps[next].isSegregated {
                combine(cur, next, lanes: .take) { at, from in
                    if at.kind == .endOfRoad || from.kind == .endOfRoad { at.kind = .endOfRoad }
                }
                next += 1
            } else if steps[cur].isSegregated && !steps[next].isSegregated && !steps[cur].kind.hasRingType
                        && !steps[next].kind.hasRingType
            {
                if Self.bearingsAreReversed(Self.entryBearing(steps[cur]), Self.exitBearing(steps[next])) {
                    combine(cur, next) { at, _ in at.kind = .continueOn; at.modifier = .uturn }
                } else {
                    let prior = steps[previousTurn(before: cur)]
                    combine(cur, next) { at, from in Self.segregatedTurn(&at, from: from, prior: prior) }
                }
                steps[cur].isSegregated = false
                next += 1
            } else {
                cur = next
                next += 1
            }
        }
        removeInvalid()
    }

    /// OSRM's `SegregatedTurnStrategy`.
    static func segregatedTurn(_ at: inout DraftStep, from: DraftStep, prior: DraftStep) {
        let angle = Geo.turnAngle(arriving: at.bearingBefore, leaving: from.bearingAfter)
        let direction = Modifier(angle: angle)
        let straightish: Set<Modifier> = [.straight, .slightLeft, .slightRight]
        let isStraightStep = [.newName, .continueOn, .suppressed, .turn].contains(from.kind) && straightish.contains(from.modifier)
        let isTurnStep = [.turn, .continueOn, .newName, .suppressed].contains(from.kind)
        var update = true
        if at.kind == .endOfRoad || from.kind == .endOfRoad {
            at.kind = .endOfRoad
        } else if at.kind == .fork {
            update = false
        } else if direction == .straight && isStraightStep {
            at.kind = Self.haveSameName(prior, from) ? .suppressed : .newName
        } else if angle >= 125 && angle <= 235 && at.intersections.count == 1 && Self.hasStraightestTurn(at) && Self.hasStraightestTurn(from) {
            at.kind = Self.haveSameName(prior, from) ? .suppressed : .newName
            at.modifier = .straight
            update = false
        } else if direction != .straight && isTurnStep {
            at.kind = .turn
        } else {
            at.kind = from.kind
        }
        if update { at.modifier = direction }
    }

    /// The route's turn at the step's first intersection is (about) the straightest one could take there.
    static func hasStraightestTurn(_ s: DraftStep) -> Bool {
        let i = s.intersections[0]
        guard let inIndex = i.inIndex, let out = i.outIndex else { return false }
        let arriving = Double((i.roads[inIndex].bearing + 180) % 360)
        let pathTurn = Geo.turnAngle(arriving: arriving, leaving: Double(i.roads[out].bearing))
        guard pathTurn >= 125 && pathTurn <= 235 else { return false }
        let pathDeviation = Geo.deviation(pathTurn, 180)
        let others = i.roads.indices.filter { $0 != inIndex && $0 != out && i.roads[$0].entry }
            .map { Geo.deviation(Geo.turnAngle(arriving: arriving, leaving: Double(i.roads[$0].bearing)), 180) }
        guard let straightest = others.min() else { return true }
        return abs(pathDeviation - straightest) <= 10 || pathDeviation <= straightest
    }

    // MARK: Ends of the leg

    /// Snapping onto a junction leaves a zero-length first or last step: the next one departs, the one before
    /// arrives.
    mutating func trimShortSegments() {
        guard steps.count >= 2, leg.coordinates.count > 2 else { return }
        if steps[0].distance <= 1 && steps.count > 2 {
            var next = steps[1]
            next.waypoint = .depart
            next.kind = .noTurn
            next.modifier = .uturn
            next.duration += steps[0].duration
            next.weight += steps[0].weight
            next.distance += steps[0].distance
            next.first = steps[0].first
            next.bearingBefore = 0
            let i = next.intersections[0]
            let out = i.outIndex.map { i.roads[$0].bearing } ?? Int(next.bearingAfter.rounded()) % 360
            next.intersections[0] = Intersection(location: i.location, onlyRoad: out, isApproach: false, classes: i.classes)
            steps[0] = next
            steps.remove(at: 1)
        }
        let n = steps.count
        if n > 2 && steps[n - 2].distance <= 1 {
            // Arriving just past a junction: the arrival is on the road before it; the turn is never made.
            var arrive = steps[n - 1]
            let before = steps[n - 3]
            arrive.first = steps[n - 2].first
            arrive.signs = before.signs
            arrive.mode = before.mode
            arrive.distance = steps[n - 2].distance
            arrive.duration = steps[n - 2].duration
            arrive.weight = steps[n - 2].weight
            steps[n - 3].distance += arrive.distance
            steps[n - 3].duration += arrive.duration
            steps[n - 3].weight += arrive.weight
            steps[n - 3].last = steps[n - 2].last
            arrive.distance = 0
            arrive.duration = 0
            arrive.weight = 0
            arrive.bearingBefore = steps[n - 2].bearingBefore
            arrive.intersections[0] = Intersection(location: arrive.intersections[0].location,
                                                   onlyRoad: (Int(arrive.bearingBefore.rounded()) + 180) % 360,
                                                   isApproach: true)
            steps.remove(at: n - 2)
            steps[steps.count - 1] = arrive
        }
    }

    // MARK: Roundabouts

    /// OSRM's `handleRoundabouts`: the entry step carries the exit number and the road taken, the passes round
    /// the circle fold into it, and a roundabout crossed like a turn is one step.
    mutating func handleRoundabouts() {
        // The kinds read in place: most legs pass no circle, and should learn so without copying each step.
        let kinds = steps.withUnsafeBufferPointer { s in s.indices.map { s[$0].kind } }
        guard let firstRing = kinds.firstIndex(where: \.hasRingType) else { return }
        var onRing = !kinds[firstRing].entersRing
        // Which steps belong to a pass round a circle.
        var member = [Bool](repeating: false, count: steps.count)
        for i in steps.indices {
            let kind = kinds[i]
            if onRing {
                if kind.leavesRing { onRing = false }
                member[i] = true
            } else {
                onRing = kind.entersRing
                member[i] = onRing
                if onRing { onRing = !kind.leavesRing }
            }
        }
        var i = 0
        while i < steps.count {
            guard member[i] else { i += 1; continue }
            var end = i
            while end + 1 < steps.count && member[end + 1] { end += 1 }
            // Split the group after each step that leaves a circle.
            var begin = i
            for k in i...end where steps[k].kind.leavesRing || k == end {
                processRing(begin, k + 1)
                begin = k + 1
            }
            i = end + 1
        }
        removeInvalid()
    }

    mutating func processRing(_ begin: Int, _ end: Int) {
        guard begin < end else { return }
        let last = end - 1
        func compress(_ from: Int, _ to: Int) {
            var k = from + 1
            while k < to {
                if !steps[k].isWaypoint { suppress(k, into: from) }
                k += 1
            }
        }
        let beginKind = steps[begin].kind
        if !steps[last].kind.leavesRing {
            // The route ends on the circle: no exit to count.
            if case .enterRing(.rotary) = beginKind { nameRotary(begin) }
            if case .enterRingAtExit(.rotary) = beginKind { nameRotary(begin) }
            if case .enterRing(.intersection) = beginKind { steps[begin].kind = .enterRing(.roundabout) }
            if case .enterRingAtExit(.intersection) = beginKind { steps[begin].kind = .enterRing(.roundabout) }
            compress(begin, end)
            return
        }
        let exit = (begin..<end).count(where: { steps[$0].kind.staysOnRing || steps[$0].kind.leavesRing })
        steps[last].exit = exit
        let isTurn: Bool
        switch beginKind {
        case .enterRing(.intersection), .enterRingAtExit(.intersection): isTurn = true
        default: isTurn = false
        }
        if beginKind.entersRing {
            steps[begin].exit = exit
            switch beginKind {
            case .enterRing(.rotary), .enterRingAtExit(.rotary): nameRotary(begin)
            default: break
            }
            if isTurn {
                let angle = Geo.turnAngle(arriving: Self.entryBearing(steps[begin]), leaving: Self.exitBearing(steps[last]))
                steps[begin].modifier = Modifier(angle: angle)
            }
            if begin != last { steps[begin].adoptSignage(of: steps[last]) }
        }
        if isTurn && steps[begin].mode == steps[last].mode {
            compress(begin, end)
        } else {
            compress(begin, last)
        }
    }

    /// A rotary is announced by its own name: the circle's, which the entry step still carries.
    mutating func nameRotary(_ i: Int) {
        steps[i].rotary = steps[i].signs
    }
}
