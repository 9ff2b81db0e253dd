import Foundation
import RoadGraph

/// How a circle at a junction is announced (OSRM's roundabout types).
enum RingKind: Sendable, Equatable {
    /// `junction=roundabout`: "At the roundabout, take the 3rd exit", then "Exit the roundabout".
    case roundabout
    /// A large named roundabout or a named `junction=circular`: announced by its own name.
    case rotary
    /// A small roundabout crossed like a turn: one "roundabout turn left" step.
    case intersection
}

/// What a junction means for a road taken there, before the steps are assembled: OSRM's turn types, with the
/// silent ones (`noTurn`, `suppressed`, `stayOnRing`) and `sliproad` that post-processing resolves.
enum TurnKind: Sendable, Equatable {
    case invalid, noTurn, suppressed, newName, continueOn, turn, merge, onRamp, offRamp, fork, endOfRoad
    case notification, sliproad, useLane
    case enterRing(RingKind), enterRingAtExit(RingKind), enterAndExitRing(RingKind), exitRing(RingKind), stayOnRing

    var entersRing: Bool {
        switch self {
        case .enterRing, .enterRingAtExit, .enterAndExitRing: return true
        default: return false
        }
    }

    var leavesRing: Bool {
        switch self {
        case .exitRing, .enterAndExitRing: return true
        default: return false
        }
    }

    var staysOnRing: Bool {
        switch self {
        case .stayOnRing, .enterRingAtExit: return true
        default: return false
        }
    }

    var hasRingType: Bool { entersRing || leavesRing || staysOnRing }

    var ring: RingKind? {
        switch self {
        case .enterRing(let k), .enterRingAtExit(let k), .enterAndExitRing(let k), .exitRing(let k): return k
        default: return nil
        }
    }

    /// No step of its own: dropped, or folded into the step before as an intersection passed.
    var isSilent: Bool { self == .noTurn || self == .suppressed || self == .stayOnRing }
}

struct TurnInstruction: Sendable, Equatable {
    var kind: TurnKind
    var modifier: Modifier
    init(_ kind: TurnKind, _ modifier: Modifier) {
        self.kind = kind
        self.modifier = modifier
    }
    static let invalid = TurnInstruction(.invalid, .uturn)

    /// A maneuver relation's type and direction in place of the computed ones, as OSRM applies them.
    mutating func apply(_ override: ManeuverOverride) {
        switch override.kind {
        case .turn: kind = .turn
        case .continueOn: kind = .continueOn
        case .fork: kind = .fork
        case .uturn:
            kind = .turn
            modifier = .uturn
        // A suppressed step is joined to the one before by the passes that follow, which also decide its name.
        case .suppress: kind = .suppressed
        case .unchanged: break
        }
        switch override.direction {
        case .none: break
        case .left: modifier = .left
        case .slightLeft: modifier = .slightLeft
        case .sharpLeft: modifier = .sharpLeft
        case .right: modifier = .right
        case .slightRight: modifier = .slightRight
        case .sharpRight: modifier = .sharpRight
        case .straight: modifier = .straight
        }
    }
}

/// OSRM's turn analysis at one junction, for the route's approach: every road there gets an instruction, by the
/// handlers OSRM runs in its order (suppressed mode, roundabout, driveway or motorway or the general turn handler,
/// then sliproads), and the route reads the one for the road it takes. The roads are those of a `GuidanceJunction`:
/// `roads[0]` is the approach seen backwards (angle 0), the others by increasing angle.
struct TurnAnalysis {
    /// The junction's roads, read through a buffer: the handlers test roads thousands of times a route, and
    /// each test through the array paid its bounds and ownership checks. Valid only inside `analyse`.
    let roads: UnsafeBufferPointer<JunctionRoad>
    let via: JunctionRoad
    /// The leg's labels, which the roads name by id.
    let labels: LegLabels
    let ring: RingKind?
    /// One per road, on the stack of `analyse`.
    let instructions: UnsafeMutableBufferPointer<TurnInstruction>
    /// `findObviousTurn`, once worked out (the general handler and the sliproad test both ask).
    private var obvious: Int?
    var size: Int { roads.count }

    private init(roads: UnsafeBufferPointer<JunctionRoad>, labels: LegLabels, ring: RingKind?, classes: ArcClasses, mode: StepMode,
                 instructions: UnsafeMutableBufferPointer<TurnInstruction>) {
        self.roads = roads
        self.labels = labels
        var via = roads[0]
        // The approach as travelled: its own classes and mode, not those of the way back.
        via.classes = classes
        via.mode = mode
        self.via = via
        self.ring = ring
        instructions.initialize(repeating: .invalid)
        self.instructions = instructions
    }

    /// The instruction for each road, as OSRM's extractor assigns them, and the obvious road where more than two
    /// roads meet (0 for none). `arrivingClasses` and `arrivingMode` are the stretch the route arrives on.
    static func analyse(_ junction: GuidanceJunction, labels: LegLabels, arrivingClasses: ArcClasses, arrivingMode: StepMode)
        -> (instructions: [TurnInstruction], obvious: Int)
    {
        junction.roads.withUnsafeBufferPointer { roads in
            withUnsafeTemporaryAllocation(of: TurnInstruction.self, capacity: roads.count) { scratch in
                var analysis = TurnAnalysis(roads: roads, labels: labels, ring: junction.ring, classes: arrivingClasses,
                                            mode: arrivingMode, instructions: scratch)
                analysis.run()
                return (Array(scratch), roads.count > 2 ? analysis.obviousTurn() : 0)
            }
        }
    }

    mutating func run() {
        if suppressMode() { return }
        if canHandleRing() {
            handleRing()
        } else {
            setDefaultTypes()
            if canHandleDriveway() {
                handleDriveway()
            } else if canHandleMotorway() {
                handleMotorway()
            } else {
                handleTurns()
            }
        }
        if via.isMotorway {
            for i in instructions.indices where instructions[i].kind == .onRamp { instructions[i].kind = .offRamp }
        }
    }

    // MARK: Road facts

    func dev(_ a: Double, _ b: Double) -> Double { Geo.deviation(a, b) }
    func direction(_ i: Int) -> Modifier { i == 0 ? .uturn : Modifier(angle: roads[i].angle) }
    @inline(__always) func announce(_ a: JunctionRoad, _ b: JunctionRoad) -> Bool { labels.announce(from: a.label, to: b.label) }
    var enterableCount: Int { roads.count(where: \.entryAllowed) }

    /// OSRM's `findBasicTurnType`: onto a ramp, on along the same name, or a turn.
    @inline(__always) func basicType(_ r: JunctionRoad) -> TurnKind {
        if !via.isRamp && r.isRamp { return .onRamp }
        if !labels.isUnnamed(via.label) && !labels.isUnnamed(r.label) && !announce(via, r) { return .continueOn }
        return .turn
    }

    @inline(__always) func strictlyLess(_ a: JunctionRoad, _ b: JunctionRoad) -> Bool {
        if !a.lowPriority && b.lowPriority { return false }
        if a.lowPriority && !b.lowPriority { return true }
        return RoadPriority.group(a.priority) > RoadPriority.group(b.priority)
    }

    @inline(__always) func isLinkTo(_ link: JunctionRoad, _ road: JunctionRoad) -> Bool {
        guard link.isLink, !road.isLink, link.roadClass == road.roadClass else { return false }
        switch link.roadClass {
        case .motorway, .trunk, .primary, .secondary, .tertiary: return true
        default: return false
        }
    }

    @inline(__always) func sameClassification(_ a: JunctionRoad, _ b: JunctionRoad) -> Bool {
        a.priority == b.priority && a.lowPriority == b.lowPriority
    }

    @inline(__always) func obviousByRoadClass(_ approach: JunctionRoad, _ candidate: JunctionRoad, _ compare: JunctionRoad) -> Bool {
        let highPriority = 1.75 * Double(candidate.priority) < Double(compare.priority)
        return (highPriority && sameClassification(approach, candidate))
            || (!candidate.lowPriority && !approach.lowPriority && compare.lowPriority)
    }

    @inline(__always) func roadHasLowerClass(_ from: JunctionRoad, _ to: JunctionRoad, _ compare: JunctionRoad) -> Bool {
        (strictlyLess(compare, from) && strictlyLess(compare, to) && compare.laneCount > 0
            && compare.laneCount + 1 < from.laneCount)
            || (isLinkTo(compare, from) && isLinkTo(compare, to))
    }

    /// The road turned onto goes on at the far side of the junction under the same name and class.
    func isThroughStreet(_ index: Int) -> Bool {
        let r = roads[index]
        guard !labels.isEmpty(r.label) else { return false }
        return roads.indices.contains { j in
            j != index && j >= 1 && dev(roads[j].angle, r.angle) > 155
                && labels.identical(roads[j].label, r.label) && sameClassification(roads[j], r)
        }
    }

    /// The road closest to straight on among those `keep` accepts (never the way back).
    func straightest(_ keep: (JunctionRoad) -> Bool) -> Int? {
        var best: Int?
        for i in 1..<size where keep(roads[i]) {
            if best == nil || dev(roads[i].angle, 180) < dev(roads[best!].angle, 180) { best = i }
        }
        return best
    }

    // MARK: Obvious turn

    /// OSRM's `getInstructionForObvious`: what to say (often nothing) for the road one would follow anyway.
    func obviousInstruction(_ roadCount: Int, _ i: Int, throughStreet: Bool) -> TurnInstruction {
        let r = roads[i]
        let type = basicType(r)
        let dir = direction(i)
        if type == .onRamp { return .init(.onRamp, dir) }
        if i == 0 || dev(r.angle, 0) < 0.01 { return .init(.continueOn, .uturn) }
        let modeChanges = via.mode != r.mode
        if type == .turn {
            if announce(via, r) {
                if throughStreet {
                    if r.isMotorway { return .init(.merge, r.angle > 180 ? .slightRight : .slightLeft) }
                    if via.isRamp && r.isRamp { return .init(modeChanges ? .notification : .suppressed, dir) }
                    return .init(.turn, dev(r.angle, 180) < 40 && r.reach > 60 ? .straight : dir)
                }
                return .init(modeChanges ? .notification : .newName, dir)
            }
            if modeChanges { return .init(.notification, dir) }
            return .init(roadCount == 2 && via.classes == r.classes ? .noTurn : .suppressed, dir)
        }
        if modeChanges { return .init(.notification, dir) }
        if roadCount > 2 || via.classes != r.classes { return .init(.suppressed, dir) }
        return .init(.noTurn, dir)
    }

    /// `findObviousTurn`, worked out once.
    mutating func obviousTurn() -> Int {
        if let obvious { return obvious }
        let found = findObviousTurn()
        obvious = found
        return found
    }

    /// OSRM's `findObviousTurn`: the road a driver follows without being told, or 0 for none.
    func findObviousTurn() -> Int {
        if size == 1 { return 0 }
        if size == 2 { return 1 }
        func result(_ i: Int) -> Int { via.roundabout != roads[i].roundabout ? 0 : i }
        let viaEmpty = labels.isEmpty(via.label)
        // 1. The road that keeps the name, of the same or a higher class.
        if let c = straightest({ r in
            r.entryAllowed && !(viaEmpty && !via.lowPriority) && !(labels.isEmpty(r.label) && !r.lowPriority)
                && viaEmpty == labels.isEmpty(r.label) && !strictlyLess(r, via) && !isLinkTo(r, via) && !announce(via, r)
        }), isDistinctTurn(c) {
            return result(c)
        }
        // 2. The straightest road of the same or a higher class.
        let s = straightest { r in r.entryAllowed && !strictlyLess(r, via) && !isLinkTo(r, via) }
        if let s, isDistinctTurn(s) { return result(s) }
        // 3. The straightest road, if it is narrow enough.
        guard let v = straightest(\.entryAllowed) else { return 0 }
        let vd = dev(roads[v].angle, 180)
        let nonSharp = roads.count(where: { dev($0.angle, 180) <= 90 })
        let onlyNonSharp = vd <= 90 && nonSharp == 1
        if v != s && (vd <= 60 || onlyNonSharp) && !roads[v].lowPriority && isDistinctTurn(v) { return result(v) }
        // 4. A motorway going on with nothing else to take.
        if roads[v].isMotorway && vd <= 60 && enterableCount == 1 { return result(v) }
        // 5. Three roads of one name, one way on.
        if size == 3 && !viaEmpty && roads.allSatisfy({ labels.same($0.label, via.label) }) && enterableCount == 1
            && (dev(roads[1].angle, 90) > 40 || dev(roads[2].angle, 270) > 40)
        {
            return result(v)
        }
        return 0
    }

    func isDistinctTurn(_ c: Int) -> Bool {
        dev(roads[c].angle, 180) < 60 ? isDistinctNarrowTurn(c) : isDistinctWideTurn(c)
    }

    /// No other road looks like a candidate that goes almost straight on.
    func isDistinctNarrowTurn(_ c: Int) -> Bool {
        let candidate = roads[c]
        let cd = dev(candidate.angle, 180)
        for i in 1..<size where i != c {
            let r = roads[i]
            let rd = dev(r.angle, 180)
            if cd < 40 && !r.entryAllowed { continue }
            let isLaneFork = r.laneCount > 0 && candidate.laneCount == r.laneCount
                && via.laneCount == candidate.laneCount + r.laneCount && dev(candidate.angle, r.angle) < 60
            let distinct = rd > 2 * cd && abs(rd - cd) > 12.5
            let slightlyDistinct = rd > 1.4 * cd
            if !via.classes.contains(.restricted) && !candidate.classes.contains(.restricted)
                && r.classes.contains(.restricted) && distinct { continue }
            if via.roundabout == candidate.roundabout && via.roundabout != r.roundabout && cd < rd { continue }
            let keepsNameToCandidate = !announce(via, candidate), nameChangesToR = announce(via, r)
            if (keepsNameToCandidate || nameChangesToR) && !isLaneFork && distinct { continue }
            let reverse = Geo.remainder360(r.bearing + 180)
            let opposite = roads.indices.min { dev(roads[$0].bearing, reverse) < dev(roads[$1].bearing, reverse) }!
            let fourOrMore = size >= 4
            let oppositeKeepsName = !announce(roads[opposite], r)
            let oppositeAngle = dev(r.angle, roads[opposite].angle)
            if fourOrMore && (oppositeKeepsName || oppositeAngle > 140) && distinct { continue }
            if fourOrMore && keepsNameToCandidate && nameChangesToR && slightlyDistinct && oppositeKeepsName
                && oppositeAngle > 155 { continue }
            if !fourOrMore && keepsNameToCandidate && nameChangesToR && distinct && !isLaneFork && oppositeAngle > 120 {
                continue
            }
            if via.priority > 6 && distinct { continue }
            if candidate.laneCount > 0 && candidate.laneCount == via.laneCount && cd < 25 && distinct { continue }
            let samePriority = via.priority == candidate.priority
            if samePriority && candidate.priority < r.priority && keepsNameToCandidate && slightlyDistinct { continue }
            if samePriority && candidate.priority > r.priority + 4 && keepsNameToCandidate && slightlyDistinct { continue }
            if roadHasLowerClass(via, candidate, r) { continue }
            if samePriority && RoadPriority.group(via.priority) < RoadPriority.group(r.priority)
                && announce(candidate, r) && nameChangesToR { continue }
            if samePriority && r.isLink { continue }
            return false
        }
        return true
    }

    /// A real turn is distinct when every other road is at least twice as far from straight on: as perceived, or,
    /// where the approach bends at once, as the first 2 m of each road point (OSRM's initial bearings).
    func isDistinctWideTurn(_ c: Int) -> Bool {
        let candidate = roads[c]
        let cd = dev(candidate.angle, 180)
        let bends = dev(via.initialBearing, via.bearing) > 25
        let arriving = Geo.remainder360(via.initialBearing + 180)
        for i in 1..<size where i != c {
            let r = roads[i]
            if direction(i) != .straight && roadHasLowerClass(via, candidate, r) { continue }
            if dev(r.angle, 180) > 2 * cd { continue }
            if bends {
                let candidateInitial = dev(Geo.osrmAngleBetween(arriving, candidate.initialBearing), 180)
                let roadInitial = dev(Geo.osrmAngleBetween(arriving, r.initialBearing), 180)
                let roadToCandidate = Geo.osrmAngleBetween(Geo.remainder360(r.initialBearing + 180), candidate.initialBearing)
                if dev(roadToCandidate, 180) > 20 && roadInitial > 2 * candidateInitial { continue }
            }
            return false
        }
        return true
    }

    // MARK: Defaults and the general turn handler

    mutating func setDefaultTypes() {
        for i in roads.indices where roads[i].entryAllowed {
            instructions[i] = i == 0 ? .init(.continueOn, .uturn) : .init(.turn, direction(i))
        }
    }

    mutating func handleTurns() {
        if size == 1 { return }
        if roads[0].entryAllowed { instructions[0] = .init(basicType(roads[0]), .uturn) }
        if size == 2 {
            instructions[1] = obviousInstruction(2, 1, throughStreet: false)
        } else if size == 3 {
            handleThreeWay()
        } else {
            handleComplex()
        }
    }

    mutating func handleThreeWay() {
        let obvious = obviousTurn()
        let allLinks = roads.allSatisfy(\.isLink)
        let fork = findFork()
        let d1 = direction(1), d2 = direction(2)
        if let fork, fork.count == 2, allLinks || obvious == 0 {
            assignFork(left: fork[1], right: fork[0])
        } else if isEndOfRoad() && obvious == 0 {
            if roads[1].entryAllowed { instructions[1] = .init(basicType(roads[1]) == .onRamp ? .onRamp : .endOfRoad, .right) }
            if roads[2].entryAllowed { instructions[2] = .init(basicType(roads[2]) == .onRamp ? .onRamp : .endOfRoad, .left) }
        } else if obvious == 1 {
            instructions[1] = obviousInstruction(3, 1, throughStreet: isThroughStreet(1))
            if roads[2].entryAllowed { instructions[2] = .init(basicType(roads[2]), d1 == .straight && d2 == .straight ? .slightLeft : d2) }
        } else if obvious == 2 {
            instructions[2] = obviousInstruction(3, 2, throughStreet: isThroughStreet(2))
            if roads[1].entryAllowed { instructions[1] = .init(basicType(roads[1]), d1 == .straight && d2 == .straight ? .slightRight : d1) }
        } else {
            for i in 1...2 where roads[i].entryAllowed { instructions[i] = .init(basicType(roads[i]), direction(i)) }
        }
    }

    /// A T: one road within 40° of a right angle to each side, and nothing ahead.
    func isEndOfRoad() -> Bool {
        dev(roads[1].angle, 90) < 40 && dev(roads[2].angle, 270) < 40 && dev(roads[1].angle, roads[2].angle) > 80
    }

    mutating func handleComplex() {
        let obvious = obviousTurn()
        let fork = findFork()
        let straightmost = straightest { _ in true }!
        let sdev = dev(roads[straightmost].angle, 180)
        if obvious != 0 {
            instructions[obvious] = obviousInstruction(size, obvious, throughStreet: isThroughStreet(obvious))
            assignLeftTurns(startingAt: obvious)
            assignRightTurns(upTo: obvious)
        } else if let fork {
            if fork.count == 2 {
                let left = fork[1], right = fork[0]
                if abs(roads[left].priority - roads[right].priority) <= 1 {
                    assignFork(left: left, right: right)
                } else if roads[left].priority > roads[right].priority {
                    instructions[right] = obviousInstruction(size, right, throughStreet: false)
                    instructions[left] = .init(basicType(roads[left]), .slightLeft)
                } else {
                    instructions[left] = obviousInstruction(size, left, throughStreet: false)
                    instructions[right] = .init(basicType(roads[right]), .slightRight)
                }
            } else {
                assignFork(left: fork[2], center: fork[1], right: fork[0])
            }
            assignLeftTurns(startingAt: fork.last!)
            assignRightTurns(upTo: fork.first!)
        } else if sdev < 25 && !roads[straightmost].entryAllowed {
            assignLeftTurns(startingAt: straightmost)
            assignRightTurns(upTo: straightmost)
        } else if roads[straightmost].angle > 180 {
            assignLeftTurns(startingAt: straightmost - 1)
            assignRightTurns(upTo: straightmost)
        } else if roads[straightmost].angle < 180 {
            assignLeftTurns(startingAt: straightmost)
            assignRightTurns(upTo: straightmost + 1)
        } else {
            for i in 1..<size where roads[i].entryAllowed { instructions[i] = .init(basicType(roads[i]), direction(i)) }
        }
    }

    /// Roads `1..<upTo` (right turns), told apart where two would get the same modifier.
    mutating func assignRightTurns(upTo: Int) {
        guard upTo > 1 else { return }
        assignTurns(Array(1..<min(upTo, size)), mirrored: false)
    }

    /// Roads after `startingAt` (left turns), handled as right turns in a mirror.
    mutating func assignLeftTurns(startingAt: Int) {
        guard startingAt + 1 < size else { return }
        assignTurns(Array((startingAt + 1..<size).reversed()), mirrored: true)
    }

    /// OSRM's `assignTrivialTurns`/`handleDistinctConflict` over roads ordered from the sharpest turn towards
    /// straight on; `mirrored` reads left turns as right ones.
    mutating func assignTurns(_ index: [Int], mirrored: Bool) {
        guard !index.isEmpty, index.contains(where: { roads[$0].entryAllowed }) else { return }
        func angle(_ k: Int) -> Double {
            let a = roads[index[k]].angle
            return mirrored && a != 0 ? 360 - a : a
        }
        func allowed(_ k: Int) -> Bool { roads[index[k]].entryAllowed }
        func dir(_ k: Int) -> Modifier { Modifier(angle: angle(k)) }
        func set(_ k: Int, _ m: Modifier) {
            instructions[index[k]] = .init(basicType(roads[index[k]]), mirrored ? m.mirrored : m)
        }
        func trivial() { for k in index.indices where allowed(k) { set(k, dir(k)) } }
        func conflict(left l: Int, right r: Int) {
            let la = angle(l), ra = angle(r)
            if !allowed(l) || !allowed(r) || la == ra {
                if allowed(l) { set(l, dir(l)) }
                if allowed(r) { set(r, dir(r)) }
                return
            }
            if dir(l) == .straight || dir(l) == .slightLeft || dir(r) == .slightRight {
                if roads[index[l]].priority > roads[index[r]].priority {
                    instructions[index[r]] = obviousInstruction(4, index[r], throughStreet: false)
                    set(l, .slightLeft)
                } else {
                    instructions[index[l]] = obviousInstruction(4, index[l], throughStreet: false)
                    set(r, .slightRight)
                }
                return
            }
            if dev(la, 90) < 3 { set(l, .right); set(r, .sharpRight); return }
            if dev(ra, 90) < 3 { set(l, .slightRight); set(r, .right); return }
            if dev(la, 270) < 3 { set(l, .left); set(r, .slightLeft); return }
            if dev(ra, 270) < 3 { set(l, .sharpLeft); set(r, .left); return }
            if dir(l) == .sharpLeft { set(l, .sharpLeft); set(r, .left); return }
            if dir(r) == .sharpRight { set(l, .right); set(r, .sharpRight); return }
            if dev(la, 85) >= dev(ra, 85) { set(l, .slightRight); set(r, .right) } else { set(l, .right); set(r, .sharpRight) }
        }
        switch index.count {
        case 1: trivial()
        case 2: if dir(0) == dir(1) { conflict(left: 1, right: 0) } else { trivial() }
        case 3:
            let d1 = dir(0), d2 = dir(1), d3 = dir(2)
            let a1 = angle(0), a2 = angle(1), a3 = angle(2)
            if d1 != d2 && d2 != d3 {
                trivial()
            } else if index.indices.count(where: allowed) <= 2 {
                if !allowed(2) { conflict(left: 1, right: 0) } else if !allowed(0) { conflict(left: 2, right: 1) } else { conflict(left: 2, right: 0) }
            } else if dev(a1, a2) >= 40 && dev(a2, a3) >= 40 {
                set(0, .sharpRight); set(1, .right); set(2, .slightRight)
            } else if (d1 == d2 && d2 == d3) || (d1 == d2 && dev(a2, a3) < 60) || (d2 == d3 && dev(a1, a2) < 60) {
                trivial()
            } else if (d1 == d2 && dev(a2, a3) >= 60) || (d2 == d3 && dev(a1, a2) >= 60) {
                if dev(a2, a3) >= 60 {
                    conflict(left: 1, right: 0)
                    set(2, d3)
                } else {
                    set(0, d1)
                    conflict(left: 2, right: 1)
                }
            } else {
                trivial()
            }
        default: trivial()
        }
    }

    // MARK: Forks

    /// Two or three roads ahead close together, apart from the others, none more obvious than its neighbour:
    /// their indices from right to left.
    func findFork() -> [Int]? {
        guard size >= 3, let s = straightest({ _ in true }), dev(roads[s].angle, 180) <= 40 else { return nil }
        func outermost(_ r1: Int, _ r2: Int) -> Bool {
            dev(roads[r2].angle, 180) > 40 && (dev(roads[r1].angle, roads[r2].angle) > 40 || dev(roads[r1].angle, 180) > 60)
        }
        var right = s
        while right > 0 && !outermost(right, right - 1) { right -= 1 }
        var left = s
        while left < size - 1 && !outermost(left, left + 1) { left += 1 }
        guard right < left, left - right < 3, right >= 1 else { return nil }
        let fork = Array(right...left)
        let after = left == size - 1 ? 0 : left + 1
        guard dev(roads[left].angle, roads[after].angle) >= 60, dev(roads[right].angle, roads[right - 1].angle) >= 60 else {
            return nil
        }
        func obviousOfTwo(_ road: JunctionRoad, _ other: JunctionRoad) -> Bool {
            if obviousByRoadClass(via, road, other) { return true }
            if obviousByRoadClass(via, other, road) { return false }
            if !labels.isUnnamed(via.label) && dev(road.angle, 180) == 0 && !announce(via, road) { return true }
            let rd = dev(road.angle, 180), od = dev(other.angle, 180)
            return od / rd > 1.4 && abs(od - rd) > 25
        }
        for (a, b) in zip(fork, fork.dropFirst()) where obviousOfTwo(roads[a], roads[b]) || obviousOfTwo(roads[b], roads[a]) {
            return nil
        }
        guard fork.allSatisfy({ roads[$0].isLink == roads[right].isLink }) else { return nil }
        for a in fork { for b in fork where a != b && obviousByRoadClass(via, roads[a], roads[b]) { return nil } }
        guard fork.allSatisfy({ roads[$0].entryAllowed && roads[$0].mode == via.mode }) else { return nil }
        return fork
    }

    /// OSRM's two-way fork (its effective behaviour): a low-priority branch is a slight turn and the other one
    /// silent; otherwise both are forks.
    mutating func assignFork(left: Int, right: Int) {
        let lowLeft = roads[left].lowPriority, lowRight = roads[right].lowPriority
        let silentLeft: TurnKind = roads[left].mode == via.mode ? .suppressed : .notification
        let silentRight: TurnKind = roads[right].mode == via.mode ? .suppressed : .notification
        instructions[left] = .init(lowRight && !lowLeft ? silentLeft : (lowLeft && !lowRight ? .turn : .fork), .slightLeft)
        instructions[right] = .init(lowLeft && !lowRight ? silentRight : (lowRight && !lowLeft ? .turn : .fork), .slightRight)
    }

    mutating func assignFork(left: Int, center: Int, right: Int) {
        let l = roads[left].entryAllowed, c = roads[center].entryAllowed, r = roads[right].entryAllowed
        if l && c && r {
            instructions[left] = .init(.fork, .slightLeft)
            instructions[right] = .init(.fork, .slightRight)
            if dev(roads[center].angle, 180) < 3 {
                let changes = via.oneway != roads[center].oneway || via.classes != roads[center].classes
                    || !labels.same(via.label, roads[center].label) || via.mode != roads[center].mode
                instructions[center] = changes ? .init(.fork, .straight)
                    : .init(roads[center].mode == via.mode ? .suppressed : .notification, .straight)
            } else {
                instructions[center] = .init(.fork, .straight)
            }
        } else if l {
            if r { assignFork(left: left, right: right) } else if c { assignFork(left: left, right: center) } else {
                instructions[left] = .init(basicType(roads[left]), direction(left))
            }
        } else if r {
            if c { assignFork(left: center, right: right) } else { instructions[right] = .init(basicType(roads[right]), direction(right)) }
        } else if c {
            instructions[center] = .init(basicType(roads[center]), direction(center))
        }
    }

    // MARK: Ferries and trains

    /// On a ferry or train, nothing is said until it lands.
    mutating func suppressMode() -> Bool {
        guard via.mode == .ferry || via.mode == .train, roads.allSatisfy({ $0.mode == via.mode }) else { return false }
        for i in roads.indices { instructions[i] = .init(.noTurn, direction(i)) }
        return true
    }

    // MARK: Driveways

    /// A road passing driveways and service roads: they do not make a junction.
    func canHandleDriveway() -> Bool {
        size > 2 && !via.lowPriority && roads.count(where: \.lowPriority) == size - 2
    }

    mutating func handleDriveway() {
        guard let road = (1..<size).first(where: { !roads[$0].lowPriority }), instructions[road].kind != .invalid else { return }
        let sameName = !labels.isUnnamed(via.label) && !labels.isUnnamed(roads[road].label) && !announce(via, roads[road])
        instructions[road].kind = sameName ? .noTurn : .newName
        guard instructions[road].modifier == .straight else { return }
        for i in 1..<size where i != road && instructions[i].kind != .invalid && instructions[i].modifier == .straight {
            instructions[i].modifier = i < road ? .slightRight : .slightLeft
        }
    }

    // MARK: Motorways

    func isRampClass(_ r: JunctionRoad, fromMotorway: Bool) -> Bool { r.isRamp || (fromMotorway && r.isLink) }

    /// Only motorways and ramps here, none turning off sharply.
    func canHandleMotorway() -> Bool {
        let fromMotorway = via.isMotorway
        var hasMotorway = false, hasNormalRoads = false
        for (i, r) in roads.enumerated() {
            if r.entryAllowed && dev(r.angle, 180) > 60 && i != 0 { return false }
            if r.isMotorway {
                if r.entryAllowed && i != 0 { hasMotorway = true }
            } else if !isRampClass(r, fromMotorway: fromMotorway) {
                hasNormalRoads = true
            }
        }
        if hasNormalRoads { return false }
        return hasMotorway || fromMotorway
    }

    mutating func handleMotorway() {
        if via.isMotorway { handleFromMotorway() } else { handleFromRamp() }
    }

    /// The first of the motorways straightest on, found in one pass with no list of candidates.
    func straightestMotorway() -> Int? {
        var best: Int?
        for i in 1..<size where roads[i].isMotorway && dev(roads[i].angle, 180) < 180 {
            if best == nil || dev(roads[i].angle, 180) < dev(roads[best!].angle, 180) { best = i }
        }
        return best
    }

    mutating func handleFromMotorway() {
        let continueAngle: Double
        if let i = (1..<size).first(where: { i in
            let r = roads[i]
            return r.entryAllowed && r.angle != 0 && !labels.isUnnamed(r.label) && !announce(via, r) && r.isMotorway
        }) {
            continueAngle = roads[i].angle
        } else if let i = straightestMotorway() {
            continueAngle = roads[i].angle
        } else {
            continueAngle = roads[0].angle
        }
        if continueAngle == roads[0].angle {
            // The motorway ends: its ramps go on without a word, or fork.
            if size == 2 {
                instructions[1] = .init(.noTurn, direction(1))
            } else if size == 3 {
                if roads[1].entryAllowed && roads[2].entryAllowed {
                    assignFork(left: 2, right: 1)
                } else if roads[1].entryAllowed {
                    instructions[1] = .init(.noTurn, direction(1))
                } else if roads[2].entryAllowed {
                    instructions[2] = .init(.noTurn, direction(2))
                }
            } else if size == 4 && roads[1].priority == roads[2].priority && roads[2].priority == roads[3].priority {
                assignFork(left: 3, center: 2, right: 1)
            } else {
                motorwayFallback()
            }
            return
        }
        // Counted first: along a motorway most junctions are a ramp or none, and need no list of them.
        var validCount = 0, motorwayCount = 0
        for i in 1..<size where roads[i].entryAllowed {
            validCount += 1
            if roads[i].isMotorway { motorwayCount += 1 }
        }
        if motorwayCount == 0 {
            for i in 1..<size where roads[i].entryAllowed { instructions[i] = .init(.suppressed, direction(i)) }
        } else if motorwayCount == 1 || motorwayCount != validCount {
            if size == 2 {
                instructions[1] = obviousInstruction(2, 1, throughStreet: isThroughStreet(1))
            } else {
                for i in 1..<size where roads[i].entryAllowed {
                    let a = roads[i].angle
                    let ramp = isRampClass(roads[i], fromMotorway: true)
                    if a == continueAngle {
                        instructions[i] = obviousInstruction(size, i, throughStreet: isThroughStreet(1))
                    } else if a < continueAngle {
                        instructions[i] = .init(ramp ? .offRamp : .turn, a < 145 ? .right : .slightRight)
                    } else {
                        instructions[i] = .init(ramp ? .offRamp : .turn, a > 215 ? .left : .slightLeft)
                    }
                }
            }
        } else if motorwayCount == 2 || motorwayCount == 3 {
            let motorways = (1..<size).filter { roads[$0].entryAllowed && roads[$0].isMotorway }
            if motorwayCount == 2 {
                assignFork(left: motorways[1], right: motorways[0])
            } else {
                assignFork(left: motorways[2], center: motorways[1], right: motorways[0])
            }
        } else {
            motorwayFallback()
        }
    }

    mutating func handleFromRamp() {
        let enterable = (1..<size).count(where: { roads[$0].entryAllowed })
        if size == 2 && enterable == 1 {
            instructions[1] = obviousInstruction(2, 1, throughStreet: isThroughStreet(1))
        } else if size == 3 {
            let same = !announce(roads[2], roads[1])
            let named = !labels.isUnnamed(roads[1].label) && !labels.isUnnamed(roads[2].label)
            if enterable == 1 {
                if roads[1].entryAllowed {
                    instructions[1] = roads[1].isMotorway && named && same
                        ? .init(.merge, dev(roads[1].angle, 180) < 80 ? .slightLeft : direction(1))
                        : obviousInstruction(3, 1, throughStreet: isThroughStreet(1))
                } else if roads[2].entryAllowed {
                    instructions[2] = roads[2].isMotorway && named && same
                        ? .init(.merge, dev(roads[2].angle, 180) < 80 ? .slightRight : direction(2))
                        : obviousInstruction(3, 2, throughStreet: isThroughStreet(2))
                }
            } else if roads[1].isMotorway && roads[2].isMotorway {
                assignFork(left: 2, right: 1)
            } else if roads[1].isMotorway {
                instructions[1] = .init(.turn, .slightRight)
                instructions[2] = .init(.continueOn, .slightLeft)
            } else {
                assignFork(left: 2, right: 1)
            }
        } else if size == 4 {
            var passedEntry = false
            for i in 1..<size {
                if !roads[i].entryAllowed && roads[i].isMotorway {
                    passedEntry = true
                } else if roads[i].isMotorway {
                    instructions[i] = .init(.merge, passedEntry ? .slightRight : .slightLeft)
                } else if roads[i].entryAllowed {
                    instructions[i] = .init(.offRamp, direction(i))
                }
            }
        } else {
            motorwayFallback()
        }
    }

    mutating func motorwayFallback() {
        for i in 1..<size where roads[i].entryAllowed {
            let a = roads[i].angle
            if roads[i].isMotorway {
                instructions[i] = .init(.merge, a < 180 ? .slightLeft : .slightRight)
            } else {
                instructions[i] = .init(.turn, dev(a, 180) < 25 ? .straight : (a > 180 ? .slightLeft : .slightRight))
            }
        }
    }

    // MARK: Roundabouts

    func canHandleRing() -> Bool {
        guard ring != nil else { return false }
        return via.onRing || roads.contains { $0.onRing && !$0.incomingOnly && $0.entryAllowed }
    }

    /// OSRM's roundabout handler: entering (at an exit or not), passing an exit, leaving, or touching the
    /// circle at one node.
    mutating func handleRing() {
        guard let ring else { return }
        var canEnter = false, canExitSeparately = false
        for i in 1..<size where !roads[i].incomingOnly && roads[i].entryAllowed {
            if roads[i].onRing { canEnter = true } else if !canEnter { canExitSeparately = true }
        }
        if via.onRing {
            let drivableOut = roads.count(where: { !$0.incomingOnly })
            let realExit = roads.contains { !$0.incomingOnly && !$0.onRing && !$0.lowPriority }
            for i in roads.indices where i != 0 {
                let r = roads[i]
                if r.onRing {
                    if drivableOut == 1 {
                        instructions[i] = size == 2 ? .init(.noTurn, direction(i)) : .init(.suppressed, direction(i))
                    } else if r.lowPriority || realExit {
                        instructions[i] = .init(.stayOnRing, direction(i))
                    } else {
                        instructions[i] = .init(.suppressed, direction(i))
                    }
                } else if r.entryAllowed {
                    instructions[i] = .init(.exitRing(ring), direction(i))
                }
            }
            return
        }
        var crossing = false
        for i in roads.indices where i != 0 {
            let r = roads[i]
            if r.onRing { crossing.toggle() }
            guard r.entryAllowed else { continue }
            if r.onRing {
                instructions[i] = .init(canExitSeparately ? .enterRingAtExit(ring) : .enterRing(ring), direction(i))
            } else if dev(r.angle, 180) < 25 && crossing {
                instructions[i] = obviousInstruction(size, i, throughStreet: isThroughStreet(i))
            } else {
                instructions[i] = .init(.enterAndExitRing(ring), direction(i))
            }
        }
    }
}
