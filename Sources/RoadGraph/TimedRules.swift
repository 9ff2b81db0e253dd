/// A rule that holds only while its condition does: a road direction closed (`access:conditional=no @ (…)`, the
/// closed direction of `oneway:conditional`) or a turn forbidden (`restriction:conditional`). Routes without a
/// time ignore them, as OSRM ignores conditional tags unless told the time; routes with one (`depart_at`) obey
/// them at the time each road or junction is reached. Arcs are the import's (duplicates reach them through
/// `arcBase`), but for a conditional restriction via ways, whose last turn belongs to the copy of its path.
public struct TimedRule: Equatable, Sendable {
    /// The arc closed, or the turn's first arc (a via-way path's copy: see above).
    public var from: UInt32
    /// The turn's second arc; `noIndex` for a closed arc.
    public var to: UInt32
    /// The condition's text, as a string of the graph (`string(_:)`).
    public var condition: UInt32
    /// Zero, so that every byte of a graph file is defined.
    var reserved: UInt32 = 0

    public init(from: UInt32, to: UInt32 = noIndex, condition: UInt32) {
        self.from = from
        self.to = to
        self.condition = condition
    }

    public var isTurn: Bool { to != noIndex }
}

/// When a route leaves, for the timed rules: the local wall clock at its start.
public struct Departure: Sendable, Equatable {
    public var local: LocalTime
    /// Whether conditional access and oneways close roads, as Valhalla has it; OSRM reads only conditional turn
    /// restrictions (`compat=osrm` sets this off).
    public var closesRoads: Bool

    public init(local: LocalTime, closesRoads: Bool = true) {
        self.local = local
        self.closesRoads = closesRoads
    }

    /// The local time `ms` milliseconds after the start (to the second: conditions read minutes).
    public func at(milliseconds ms: UInt64) -> LocalTime { local.adding(seconds: Int64(ms / 1000)) }

    /// The week slot of historical speeds `ms` milliseconds after the start (to the second, as `at`).
    @inlinable public func slot(after ms: UInt64) -> Int {
        Int((UInt64(WeekSlots.secondOfWeek(local)) + ms / 1000) / UInt64(WeekSlots.seconds) % UInt64(WeekSlots.count))
    }
}

/// A graph's timed rules, indexed for searches: a bit per arc says whether any rule starts there, so the common
/// case costs one load.
public struct TimedRules: Sendable {
    private let conditions: [OpeningHours]
    private let arcRules: [UInt32: [Int]]
    private let turnRules: [UInt64: [Int]]
    private let flagged: [UInt64]

    public var isEmpty: Bool { conditions.isEmpty }
    public var count: Int { conditions.count }

    /// Rules whose condition does not parse are dropped (an import writes none such; a damaged file might).
    init(_ rules: UnsafeBufferPointer<TimedRule>, arcCount: Int, text: (UInt32) -> String) {
        var conditions: [OpeningHours] = [], arcRules: [UInt32: [Int]] = [:], turnRules: [UInt64: [Int]] = [:]
        var parsed: [UInt32: OpeningHours?] = [:]
        var flagged = [UInt64](repeating: 0, count: rules.isEmpty ? 0 : (arcCount + 63) / 64)
        for rule in rules {
            let hours: OpeningHours?
            if let known = parsed[rule.condition] { hours = known } else {
                hours = OpeningHours(text(rule.condition))
                parsed[rule.condition] = hours
            }
            guard let hours, Int(rule.from) < arcCount else { continue }
            let k = conditions.count
            conditions.append(hours)
            if rule.isTurn {
                turnRules[UInt64(rule.from) << 32 | UInt64(rule.to), default: []].append(k)
            } else {
                arcRules[rule.from, default: []].append(k)
            }
            flagged[Int(rule.from) / 64] |= 1 << UInt64(rule.from % 64)
        }
        self.conditions = conditions
        self.arcRules = arcRules
        self.turnRules = turnRules
        self.flagged = flagged
    }

    /// Whether some rule starts at this import arc (closes it, or a turn from it).
    @inlinable public func touches(_ arc: UInt32) -> Bool {
        let word = Int(arc) / 64
        return word < flaggedCount && flaggedWord(word) & (1 << UInt64(arc % 64)) != 0
    }
    @usableFromInline var flaggedCount: Int { flagged.count }
    @usableFromInline func flaggedWord(_ k: Int) -> UInt64 { flagged[k] }

    /// Whether the import arc is closed `ms` after the departure.
    public func isClosed(arc: UInt32, _ departure: Departure, after ms: UInt64) -> Bool {
        guard departure.closesRoads, let rules = arcRules[arc] else { return false }
        let t = departure.at(milliseconds: ms)
        return rules.contains { conditions[$0].isActive(at: t) }
    }

    /// Whether turning from one import arc onto another is forbidden `ms` after the departure.
    public func isForbidden(from a: UInt32, to b: UInt32, _ departure: Departure, after ms: UInt64) -> Bool {
        guard let rules = turnRules[UInt64(a) << 32 | UInt64(b)] else { return false }
        let t = departure.at(milliseconds: ms)
        return rules.contains { conditions[$0].isActive(at: t) }
    }
}

extension RoadGraph {
    /// The extract's time zone as the import was told it (an IANA name), if it was.
    public var timeZoneName: String? {
        timeZoneBytes.isEmpty ? nil : String(decoding: timeZoneBytes, as: UTF8.self)
    }

    /// Whether the timed rules keep a search off arc `b` (or a duplicate of it) entered `ms` after the departure,
    /// turning onto it from arc `a` (nil where the search starts on `b`): the turn counts at the same time, once its
    /// delay is over. A turn's rules are those of its first arc as searched (a via-way restriction's copy has its
    /// own) and of the import arc it copies.
    public func isBarred(entering b: UInt32, from a: UInt32?, _ departure: Departure, after ms: UInt64) -> Bool {
        let rules = timedRules, baseB = arcBase[Int(b)]
        if let a {
            let baseA = arcBase[Int(a)]
            if rules.touches(a) && rules.isForbidden(from: a, to: baseB, departure, after: ms) { return true }
            if baseA != a && rules.touches(baseA) && rules.isForbidden(from: baseA, to: baseB, departure, after: ms) { return true }
        }
        return rules.touches(baseB) && rules.isClosed(arc: baseB, departure, after: ms)
    }

    /// What the import could not apply of the conditional tags, one line each.
    public var conditionNoteLines: [String] { conditionNotes.map { string($0) } }
}
