import Foundation
import RoadGraph

/// OSRM's query-time passes after the roundabouts: close maneuvers collapsed into the one a driver perceives,
/// lanes anticipated, silent steps turned into intersections, short name changes dropped; then our own passes.
extension StepAssembly {
    /// Steps closer than this collapse into one maneuver: OSRM's profile setting, 30 m by car and 10 m on foot
    /// (measured with osrm-routed: a name change 16 m after a turn is its own step on foot, one at 45 m is not by car).
    var collapseDistance: Double { leg.travelMode == .walking ? 10 : 30 }

    // MARK: Collapsing

    static func noBadUTurnCombination(_ a: DraftStep, _ b: DraftStep) -> Bool {
        let hasUTurn = a.modifier == .uturn || b.modifier == .uturn
        return !hasUTurn || (a.kind == .newName && b.modifier == .uturn) || (b.kind == .newName && a.modifier == .uturn)
    }

    static func preconditions(_ a: DraftStep, _ b: DraftStep) -> Bool {
        !a.kind.hasRingType && !b.kind.hasRingType && !a.isWaypoint && !b.isWaypoint && a.mode == b.mode
            && noBadUTurnCombination(a, b)
    }

    static func preconditions(_ a: DraftStep, _ b: DraftStep, _ c: DraftStep) -> Bool {
        !a.kind.hasRingType && !b.kind.hasRingType && !c.kind.hasRingType && a.mode == b.mode && b.mode == c.mode
            && !(!noBadUTurnCombination(a, b) && !noBadUTurnCombination(b, c))
    }

    static func isNameChange(_ s: DraftStep) -> Bool {
        s.kind == .newName || ((s.kind == .turn || s.kind == .continueOn) && s.modifier == .straight)
    }

    static func isStaggered(_ prior: DraftStep, _ cur: DraftStep, _ next: DraftStep) -> Bool {
        guard !cur.kind.entersRing, !next.kind.entersRing else { return false }
        func isRight(_ a: Double) -> Bool { a > 45 && a < 135 }
        func isLeft(_ a: Double) -> Bool { a > 225 && a < 315 }
        let a = cur.turnAngle, b = next.turnAngle
        let intermediaryModeChange = prior.mode == next.mode && cur.mode != next.mode
        return cur.distance < 3 && ((isLeft(a) && isRight(b)) || (isRight(a) && isLeft(b))) && !intermediaryModeChange
            && prior.mode == cur.mode && cur.noIntermediaryIntersections
    }

    static func isUTurn(_ prior: DraftStep, _ cur: DraftStep, _ next: DraftStep, within d: Double) -> Bool {
        guard preconditions(prior, cur, next), [.turn, .continueOn, .endOfRoad].contains(cur.kind),
              Self.bearingsAreReversed(Self.entryBearing(cur), Self.exitBearing(next)), Self.haveSameName(prior, next) else { return false }
        let linkRoad = cur.distance <= 2 * d && cur.name.isEmpty && cur.label.isEmpty
            && !prior.label.name.isEmpty && !next.label.name.isEmpty && cur.noIntermediaryIntersections
        return cur.isShortAndUndisturbed(within: d) || linkRoad || (next.allowedTurns == 1 && cur.noIntermediaryIntersections)
    }

    static func isNameOscillation(_ prior: DraftStep, _ cur: DraftStep, _ next: DraftStep) -> Bool {
        guard preconditions(prior, cur, next) else { return false }
        let changes = (cur.kind == .newName || (cur.kind == .turn && cur.modifier == .straight))
            && (next.kind == .newName || (next.kind == .suppressed && next.label.isEmpty)
                || (next.kind == .turn && next.modifier == .straight))
        return changes && (prior.label == next.label || Self.haveSameName(prior, next))
    }

    /// One turn left and the other right (neither straight on).
    static func areOpposite(_ a: DraftStep, _ b: DraftStep) -> Bool {
        (a.modifier.isLeft && b.modifier.isRight) || (a.modifier.isRight && b.modifier.isLeft)
    }

    static func areSameSide(_ a: DraftStep, _ b: DraftStep) -> Bool {
        func left(_ s: DraftStep) -> Bool { s.modifier == .straight || s.modifier.isLeft }
        func right(_ s: DraftStep) -> Bool { s.modifier == .straight || s.modifier.isRight }
        return (left(a) && left(b)) || (right(a) && right(b))
    }

    /// What collapsing does at a turn, from the turns before and after it.
    enum Collapse {
        case none, staggered, uTurn, nameOscillation, turnAfterNameChange, combinedTurn, suppressedStraight
    }

    /// The collapse for the turn `c` between the turns `p` and `n` (one step of OSRM's `collapseTurnInstructions`).
    static func collapse(_ p: borrowing DraftStep, _ c: borrowing DraftStep, _ n: borrowing DraftStep, within d: Double) -> Collapse {
        if isStaggered(p, c, n) { return .staggered }
        if isUTurn(p, c, n, within: d) { return .uTurn }
        if isNameOscillation(p, c, n) { return .nameOscillation }
        if (preconditions(p, c, n) && c.isShortAndUndisturbed(within: d) && isNameChange(c) && n.hasTurnType && n.kind != .suppressed)
            || (preconditions(c, n) && c.isShortAndUndisturbed(within: d) && c.allowedTurns > 1 && c.kind == .suppressed
                && c.modifier != .straight && n.hasTurnType && n.kind != .suppressed && areSameSide(c, n))
        {
            return .turnAfterNameChange
        }
        if succeededByNameChange(c, n, d) || (preconditions(c, n) && c.distance < 0.25 * d && c.kind == .suppressed && n.kind == .newName)
            || (preconditions(c, n) && c.isShortAndUndisturbed(within: d) && n.kind == .suppressed && n.modifier != .straight
                && c.hasTurnType && c.kind != .suppressed && areSameSide(c, n))
            || (preconditions(c, n) && c.isShortAndUndisturbed(within: d) && c.modifier != .straight && n.allowedTurns == 1
                && n.kind != .suppressed)
            || (preconditions(c, n) && c.distance <= 2 * d && (c.kind == .continueOn || c.kind == .turn)
                && c.modifier == .straight && n.allowedTurns == 1 && c.noIntermediaryIntersections)
        {
            return .combinedTurn
        }
        if suppressedStraightBetweenTurns(p, c, n, within: d) { return .suppressedStraight }
        return .none
    }

    /// What the pass does at one step, read off the steps in place.
    enum CollapseVisit {
        case skip, sliproad, stop
        case turn(prev: Int, next: Int, Collapse)
    }

    /// Reading `steps[i].field` on the array copies the whole step out first, references and all; the pass reads
    /// through a buffer pointer and copies a step only to act.
    static func visit(_ s: UnsafeBufferPointer<DraftStep>, _ cur: Int, within d: Double) -> CollapseVisit {
        let kind = s[cur].kind
        if kind.entersRing || kind.staysOnRing { return .skip }
        guard s[cur].hasTurnType, !s[cur].isWaypoint else { return .skip }
        if kind == .sliproad { return .sliproad }
        let next = nextTurn(s, after: cur)
        if s[next].isWaypoint { return .stop }
        let prev = previousTurn(s, before: cur)
        if s[cur].mode != s[next].mode { return .skip }
        // Most turns are silent passes far from the next one, where no case can apply: each case needs the step
        // to be a turn, a continue, an end of road or a name change (u-turns, oscillations), or at most twice the
        // collapse distance long (all others). Such a step is let be without copying three steps to ask.
        if s[cur].distance > 2 * d && !Self.mayCollapseAtAnyLength(kind) {
            return .turn(prev: prev, next: next, .none)
        }
        return .turn(prev: prev, next: next, collapse(s[prev], s[cur], s[next], within: d))
    }

    /// The kinds a step of any length may collapse as (`isUTurn`, `isNameOscillation`).
    static func mayCollapseAtAnyLength(_ kind: TurnKind) -> Bool {
        kind == .turn || kind == .continueOn || kind == .endOfRoad || kind == .newName
    }

    mutating func collapseTurns() {
        guard steps.count > 2 else { return }
        let d = collapseDistance
        var cur = 1
        turns: while cur + 1 < steps.count {
            defer { cur += 1 }
            let prev: Int, next: Int, collapse: Collapse
            switch steps.withUnsafeBufferPointer({ Self.visit($0, cur, within: d) }) {
            case .skip: continue
            case .stop: break turns
            case .sliproad:
                handleSliproad(cur)
                continue
            case .turn(let p, let n, let c): (prev, next, collapse) = (p, n, c)
            }
            // Each action below reads `steps[prev]` before anything at or before `prev` changes.
            switch collapse {
            case .none:
                break
            case .staggered:
                let p = steps[prev]
                combine(cur, next) { at, from in
                    at.modifier = .straight
                    at.kind = Self.haveSameName(p, from) ? .suppressed : .newName
                }
            case .uTurn:
                combine(cur, next) { at, _ in at.kind = .continueOn; at.modifier = .uturn }
            case .nameOscillation:
                suppress(next, into: cur)
                suppress(cur, into: prev)
            case .turnAfterNameChange:
                // The real maneuver comes right after a name change: it is said at its own place, the name change
                // folds into the step before.
                steps[next] = Self.adjustedToCombinedTurn(steps[next], from: steps[cur], prior: steps[prev], within: d)
                suppress(cur, into: prev)
            case .combinedTurn:
                let p = steps[prev]
                combine(cur, next) { at, from in at = Self.adjustedToCombinedTurn(at, from: from, prior: p, within: d) }
            case .suppressedStraight:
                let far = steps[previousTurn(before: prev)]
                suppress(cur, into: prev)
                combine(prev, next) { at, from in at = Self.adjustedToCombinedTurn(at, from: from, prior: far, within: d) }
            }
            let (doubleChoiceless, newNext) = steps.withUnsafeBufferPointer { s in
                let newNext = Self.nextTurn(s, after: cur)
                // `doubleChoiceless` needs a step under 1.5 times the collapse distance.
                return (!s[cur].invalid && newNext < s.count && !s[newNext].isWaypoint && s[cur].distance < 1.5 * d
                        && Self.doubleChoiceless(s[cur], s[newNext], within: d), newNext)
            }
            if doubleChoiceless {
                let prior = steps[previousTurn(before: cur)]
                combine(cur, newNext) { at, from in at = Self.adjustedToCombinedTurn(at, from: from, prior: prior, within: d) }
            }
            let (uTurn, prior) = steps.withUnsafeBufferPointer { s in
                let prior = Self.previousTurn(s, before: cur)
                // `isUTurn` needs its middle step to be a turn, a continue or an end of road.
                let kind = s[prior].kind
                guard !s[prior].isWaypoint && !s[cur].invalid && !s[prior].invalid,
                      kind == .turn || kind == .continueOn || kind == .endOfRoad else { return (false, prior) }
                return (Self.isUTurn(s[Self.previousTurn(s, before: prior)], s[prior], s[cur], within: d), prior)
            }
            if uTurn {
                combine(prior, cur) { at, _ in at.kind = .continueOn; at.modifier = .uturn }
            }
        }
        removeInvalid()
    }

    static func succeededByNameChange(_ c: DraftStep, _ n: DraftStep, _ d: Double) -> Bool {
        guard preconditions(c, n) else { return false }
        let strong = n.kind == .newName && n.modifier == .straight && c.distance <= 1.5 * d
        let choiceless = n.kind == .newName && n.allowedTurns == 1 && c.distance <= 1.5 * d
        return (c.isShortAndUndisturbed(within: d) || strong || choiceless) && isNameChange(n) && c.hasTurnType && c.kind != .suppressed
    }

    static func suppressedStraightBetweenTurns(_ p: DraftStep, _ c: DraftStep, _ n: DraftStep, within d: Double) -> Bool {
        guard preconditions(p, c, n), !p.isWaypoint else { return false }
        let shortEnough = p.distance < 0.8 * d && c.distance < 0.8 * d
        let similar = (p.distance < 5 && c.distance < 5) || min(p.distance, c.distance) / max(p.distance, c.distance) > 0.75
        let types = c.kind == .suppressed && c.modifier == .straight && (p.kind == .turn || p.kind == .continueOn)
            && (n.kind == .turn || n.kind == .continueOn || n.kind == .onRamp)
        let total = Self.combinedAngle(p, n)
        return shortEnough && similar && types && total > 40 && total < 320
    }

    static func doubleChoiceless(_ c: DraftStep, _ n: DraftStep, within d: Double) -> Bool {
        guard preconditions(c, n) else { return false }
        return n.allowedTurns == 1 && c.intersections.count == 2 && c.intersections[1].roads.count(where: \.entry) == 1
            && c.distance < 1.5 * d
    }

    /// A slip road and the turn at its end are one turn, said where the slip road leaves.
    mutating func handleSliproad(_ i: Int) {
        let d = collapseDistance
        var next = nextTurn(after: i)
        // Traffic lights on the slip road are no junction.
        while next < steps.count - 1, steps[next].kind == .suppressed, steps[next].intersections[0].roads.count == 2,
              steps[next].allowedTurns == 1
        {
            suppress(next, into: i)
            next = nextTurn(after: next)
        }
        if steps[next].isWaypoint {
            steps[i].kind = .turn
            return
        }
        let prior = steps[previousTurn(before: i)]
        steps[i].kind = Self.haveSameName(prior, steps[next]) ? .continueOn : .turn
        combine(i, next, lanes: .take) { at, from in
            if at.kind != .fork { at.modifier = Modifier(angle: Self.totalTurnAngle(at, from, within: d)) }
        }
    }

    // MARK: Lanes

    /// A step's lanes as OSRM counts them: how many serve the turn and how many lie to their right.
    struct LaneTuple: Equatable {
        var total: Int, inTurn: Int, fromRight: Int
        var toTheRight: Int { fromRight }
        var toTheLeft: Int { total - inTurn - fromRight }
    }

    func laneTuple(_ s: DraftStep) -> LaneTuple? {
        let lanes = s.intersections[0].lanes
        let valid = lanes.indices.filter { lanes[$0].valid }
        guard let leftmost = valid.first, let rightmost = valid.last else { return nil }
        return LaneTuple(total: lanes.count, inTurn: rightmost - leftmost + 1, fromRight: lanes.count - 1 - rightmost)
    }

    mutating func setLanes(_ i: Int, _ t: LaneTuple) {
        for j in steps[i].intersections[0].lanes.indices {
            let id = t.total - 1 - j
            steps[i].intersections[0].lanes[j].valid = id >= t.fromRight && id < t.fromRight + t.inTurn
        }
    }

    /// Turns that count as left or right for lanes; a merge says the side it merges towards, so it counts the
    /// other way.
    func isLeftTurn(_ s: DraftStep) -> Bool { s.kind == .merge ? s.modifier.isRight : s.modifier.isLeft }
    func isRightTurn(_ s: DraftStep) -> Bool { s.kind == .merge ? s.modifier.isLeft : s.modifier.isRight }

    /// OSRM's lane anticipation: maneuvers close together narrow the lanes of the first one to those that lead
    /// into the lanes of the next (200 m per lane to cross).
    mutating func anticipateLanes() {
        let perLane = 200.0
        func shortWithLanes(_ s: DraftStep) -> Bool {
            guard let t = laneTuple(s) else { return false }
            return s.distance < Double(1 + max(t.toTheRight, t.toTheLeft)) * perLane
        }
        var groups: [Range<Int>] = []
        var start = 0
        // Read in place, not copied out of the array to ask; only steps with lanes need a closer look.
        let hasLanes = steps.withUnsafeBufferPointer { s in s.indices.map { !s[$0].intersections[0].lanes.isEmpty } }
        for i in 0...steps.count {
            if i == steps.count || !hasLanes[i] || !shortWithLanes(steps[i]) {
                if i - start > 1 { groups.append(start..<i) }
                start = i + 1
            }
        }
        for group in groups {
            var constrainedDistance = 0.0
            for k in stride(from: group.upperBound - 1, to: group.lowerBound, by: -1) {
                let current = k, previous = k - 1
                guard let c = laneTuple(steps[current]), var p = laneTuple(steps[previous]) else { continue }
                if steps[previous].kind == .suppressed { constrainedDistance += steps[previous].distance } else { constrainedDistance = 0 }
                let delta = p.inTurn - c.inTurn
                guard p.inTurn > 1, p.inTurn > c.inTurn, constrainedDistance <= Double(delta) * perLane else { continue }
                let previousStraight = !isLeftTurn(steps[previous]) && !isRightTurn(steps[previous])
                if previousStraight {
                    if isLeftTurn(steps[current]) || steps[current].anticipatedSide == .left {
                        steps[previous].anticipatedSide = .left
                    } else if isRightTurn(steps[current]) || steps[current].anticipatedSide == .right {
                        steps[previous].anticipatedSide = .right
                    }
                }
                let towardsLeft = isLeftTurn(steps[current])
                    || (!isRightTurn(steps[current]) && steps[current].anticipatedSide == .left)
                if towardsLeft {
                    p = LaneTuple(total: p.total, inTurn: c.inTurn,
                                  fromRight: p.fromRight + p.inTurn - c.inTurn - min(c.toTheLeft, c.inTurn))
                } else {
                    p = LaneTuple(total: p.total, inTurn: c.inTurn, fromRight: p.fromRight + min(c.toTheRight, c.inTurn))
                }
                p.fromRight = max(0, min(p.fromRight, p.total - p.inTurn))
                setLanes(previous, p)
                if steps[previous].kind == .suppressed && steps[current].kind == .suppressed
                    && steps[previous].mode == steps[current].mode && laneTuple(steps[previous]) == laneTuple(steps[current])
                {
                    suppress(current, into: previous)
                }
            }
        }
        removeInvalid()
    }

    // MARK: Intersections

    /// Silent steps become intersections of the step before; an end of road with no junction passed since the
    /// last maneuver is a plain turn. Where going straight on needs a lane that fewer than half the lanes serve,
    /// the silent step stays, as `use lane`.
    mutating func buildIntersections() {
        var last = 0
        for i in steps.indices {
            let (kind, isWaypoint) = steps.withUnsafeBufferPointer { ($0[i].kind, $0[i].isWaypoint) }
            if kind == .suppressed {
                if needsLaneStep(i, after: last) {
                    steps[i].kind = .useLane
                    steps[i].modifier = .straight
                    last = i
                } else {
                    suppress(i, into: last)
                }
            } else if !kind.isSilent || isWaypoint {
                if kind == .endOfRoad && steps[last].intersections.count(where: { !$0.joinsOneRoad }) < 2 {
                    let s = steps[i]
                    let same = !s.label.isEmpty && !RoadNames.requiresAnnouncement(from: steps[last].label, to: s.label)
                    steps[i].kind = same ? .continueOn : .turn
                }
                last = i
            }
        }
        removeInvalid()
    }

    /// A straight-on pass where at most half the lanes go straight, far enough from the maneuvers around it to be
    /// said on its own.
    func needsLaneStep(_ i: Int, after last: Int) -> Bool {
        // OSRM computes `use lane` steps and then drops them in post-processing.
        guard deviations.contains(.laneSteps) else { return false }
        // Without lanes there is no lane tuple (read in place: most steps have none).
        guard steps.withUnsafeBufferPointer({ !$0[i].intersections[0].lanes.isEmpty }) else { return false }
        let s = steps[i]
        guard s.modifier == .straight || s.modifier == .slightLeft || s.modifier == .slightRight,
              s.mode == steps[last].mode, let t = laneTuple(s), t.total >= 3, t.inTurn * 2 <= t.total else { return false }
        let before = steps[last].distance
        return before >= 50 && s.distance >= 50
    }

    /// OSRM drops a name change onto a road shorter than 105 m, and one onto the name already being followed.
    mutating func suppressShortNameSegments() {
        guard steps.count > 2 else { return }
        var prev = 0
        for i in 1..<steps.count {
            if steps[i].isWaypoint { break }
            let s = steps[i]
            if s.kind == .newName && laneTuple(s) == nil && s.mode == steps[prev].mode {
                if Self.haveSameName(steps[prev], s) || s.distance < 105 {
                    suppress(i, into: prev)
                } else {
                    prev = i
                }
            } else {
                prev = i
            }
        }
        removeInvalid()
    }

    // MARK: Our own passes

    /// No step shorter than `metres` but depart and arrive. A maneuver right before another one is said with it:
    /// as the one turn they make together, or, where the first is a decision of its own (a fork, a ramp), as that
    /// decision followed by "then" the second. One right before the arrival or a circle folds into the step
    /// before it.
    mutating func foldStepsUnder(_ metres: Double) {
        let d = collapseDistance
        var i = 1
        while i < steps.count - 1 {
            let s = steps[i]
            guard s.distance < metres, !s.isWaypoint else { i += 1; continue }
            let next = i + 1
            if s.kind.entersRing {
                // Into a circle and out at once: the entry step says it all (as a roundabout turn does).
                if steps[next].kind.leavesRing && !s.kind.leavesRing && steps[next].mode == s.mode {
                    suppress(next, into: i)
                    steps.remove(at: next)
                    continue
                }
                i += 1
                continue
            }
            if steps[next].isWaypoint || steps[next].kind.entersRing || s.kind.leavesRing || s.mode != steps[next].mode {
                guard steps[i - 1].mode == s.mode else { i += 1; continue }
                suppress(i, into: i - 1)
                steps.remove(at: i)
                continue
            }
            let prior = steps[i - 1]
            // A jog of a few metres, one way and back (a staggered crossing wider than OSRM's 3 m): straight on.
            if Self.areOpposite(s, steps[next]), Geo.deviation(Self.combinedAngle(s, steps[next]), 180) < 20 {
                let same = Self.haveSameName(prior, steps[next])
                combine(i, next, lanes: .keep) { at, _ in at.kind = same ? .suppressed : .newName; at.modifier = .straight }
                steps.remove(at: next)
                if same {
                    suppress(i, into: i - 1)
                    steps.remove(at: i)
                }
                continue
            }
            combine(i, next, lanes: .keep) { at, from in
                if [.fork, .merge, .onRamp, .offRamp].contains(at.kind) {
                    if from.modifier != .straight || from.kind == .endOfRoad {
                        at.then = TurnInstruction(from.kind == .endOfRoad ? .turn : from.kind, from.modifier)
                    }
                } else {
                    let kind = at.kind
                    at = Self.adjustedToCombinedTurn(at, from: from, prior: prior, within: d)
                    if kind == .newName && at.modifier != .straight { at.kind = .turn }
                }
            }
            steps.remove(at: next)
        }
    }

    /// No two steps in a row name one street unless the second says to stay on it: a new name to the same street
    /// is dropped, a turn back onto it is a continue.
    mutating func tidyNames() {
        var i = 1
        while i < steps.count - 1 {
            let s = steps[i], before = steps[i - 1]
            // Leaving a ring onto the road its entry step named is said without the name (see the phrase books).
            if Self.haveSameName(before, s) && s.mode == before.mode {
                if s.kind == .newName {
                    suppress(i, into: i - 1)
                    steps.remove(at: i)
                    continue
                }
                if s.kind == .turn && !s.mapped { steps[i].kind = .continueOn }
                steps[i].staysOn = true
            } else if s.kind == .continueOn && s.modifier != .uturn && !s.label.isEmpty && s.mode == before.mode {
                // A `continue` says the road stays the same (worded "still on"); one
                // that collapsing left onto another road is a new name, or a turn.
                steps[i].kind = s.modifier == .straight ? .newName : .turn
            }
            i += 1
        }
    }

    /// Depart and arrive say on which side the requested point lies, when it is 5–300 m from the road.
    mutating func assignRelativeLocations() {
        let c = leg.coordinates
        guard c.count >= 2, let firstIndex = steps.indices.first, let lastIndex = steps.indices.last else { return }
        func side(_ angle: Double) -> Modifier { angle < 135 ? .right : angle <= 225 ? .straight : .left }
        let source = leg.source, target = leg.target
        let departDistance = Geo.distance(source.input, c[0])
        if departDistance >= 5 && departDistance <= 300 {
            let angle = Geo.turnAngle(arriving: Geo.bearing(from: source.input, to: c[0]), leaving: Self.bearing(c, from: 0, to: c.count - 1))
            steps[firstIndex].modifier = side(angle)
        }
        let arriveDistance = Geo.distance(target.input, c[c.count - 1])
        if arriveDistance >= 5 && arriveDistance <= 300 {
            let arriving = Geo.remainder360(Self.bearing(c, from: c.count - 1, to: 0) + 180)
            let angle = Geo.turnAngle(arriving: arriving, leaving: Geo.bearing(from: c[c.count - 1], to: target.input))
            steps[lastIndex].modifier = side(angle)
        }
    }
}
