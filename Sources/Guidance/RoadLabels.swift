import Foundation

// Road labels: what is read of a road (names, ref, signs) and the per-graph store that decodes them once.

/// The names, ref, pronunciation and exit number of a road: what decides whether a change is announced. A class:
/// a leg's roads, junctions and steps pass labels around by the thousand, and a leg reads each distinct label
/// once (`GuidanceLegReader`), so one reference beats six strings copied, and the same label is the same object.
final class RoadLabel: Equatable, Sendable {
    let name: String
    let ref: String
    let pronunciation: String
    let exits: String
    /// `name` and `ref` as compared, worked out once: a leg's guidance compares each label many times.
    let nameKey: [String]
    let strippedKeys: [[String]]
    let plainRef: String

    init(name: String, ref: String, pronunciation: String, exits: String) {
        self.name = name
        self.ref = ref
        self.pronunciation = pronunciation
        self.exits = exits
        nameKey = RoadNames.key(name)
        strippedKeys = RoadNames.stripped(nameKey)
        plainRef = RoadNames.plain(ref: ref)
    }

    var isEmpty: Bool { name.isEmpty && ref.isEmpty }

    static func == (a: RoadLabel, b: RoadLabel) -> Bool {
        a === b || (a.name == b.name && a.ref == b.ref && a.pronunciation == b.pronunciation && a.exits == b.exits)
    }
}

/// A label's place in its leg's `LegLabels`. Within a leg one label has one id, so equal ids are the same label.
struct LabelID: Hashable, Sendable {
    let index: UInt32
}

/// The labels one leg read, each once, by id: the leg owns them, and its roads carry ids (plain bytes) instead
/// of references.
struct LegLabels: Sendable {
    private(set) var all: [RoadLabel] = []

    subscript(id: LabelID) -> RoadLabel { all[Int(id.index)] }

    mutating func add(_ label: RoadLabel) -> LabelID {
        all.append(label)
        return LabelID(index: UInt32(all.count - 1))
    }

    /// `RoadNames.requiresAnnouncement` between two labels; one label says no without a look.
    func announce(from a: LabelID, to b: LabelID) -> Bool {
        a != b && RoadNames.requiresAnnouncement(from: self[a], to: self[b])
    }

    /// `RoadNames.identical` between two labels.
    func identical(_ a: LabelID, _ b: LabelID) -> Bool {
        a == b ? !self[a].isEmpty : RoadNames.identical(self[a], self[b])
    }

    /// Whether two labels say the same (`RoadLabel ==`).
    func same(_ a: LabelID, _ b: LabelID) -> Bool { a == b || self[a] == self[b] }

    func isEmpty(_ id: LabelID) -> Bool { self[id].isEmpty }

    func isUnnamed(_ id: LabelID) -> Bool { self[id].name.isEmpty }
}

/// What a driver reads of a road along the leg: its label, its name in the requested language and the
/// destinations signed in this direction. One shared object: steps take it on from one another many times over.
final class RoadSigns: Sendable {
    let label: RoadLabel
    let name: String
    let destinations: String
    /// An unnamed cycleway, to a cyclist: said as "the cycle path" (its `name` stays empty, as OSRM's).
    let isCyclePath: Bool

    init(label: RoadLabel, name: String, destinations: String, isCyclePath: Bool = false) {
        self.label = label
        self.name = name
        self.destinations = destinations
        self.isCyclePath = isCyclePath
    }
}

/// One graph's road labels, decoded and keyed once for all the legs of all requests (a server's routes meet the
/// same streets again and again, and keying a name with accents folds it through Foundation), and the walks round
/// its circles (each reads every road at every vertex of a roundabout). Both are facts of the graph alone.
/// Thread-safe; the engine keeps one per graph it serves.
public final class RoadLabelStore: @unchecked Sendable {
    private let lock = NSLock()
    private var byIDs: [GuidanceLegReader.LabelIDs: RoadLabel] = [:]
    /// By the vertex a walk started from: what it found and every vertex it passed.
    private var rings: [UInt32: (kind: RingKind?, visited: [UInt32])] = [:]
    /// Beyond this many labels (or walks) new ones are made per leg instead (a bound on memory, far above a
    /// country's).
    static let capacity = 2_000_000

    public init() {}

    func label(_ ids: GuidanceLegReader.LabelIDs, _ make: () -> RoadLabel) -> RoadLabel {
        if let known = lock.withLock({ byIDs[ids] }) { return known }
        let label = make()
        lock.withLock { if byIDs.count < Self.capacity { byIDs[ids] = label } }
        return label
    }

    /// What a walk round the circle from `v` found and passed, if a leg has made it. Kept by the vertex the walk
    /// started from only, so that a leg reads from here exactly what its own walk would have told it.
    func ringWalk(from v: UInt32) -> (kind: RingKind?, visited: [UInt32])? { lock.withLock { rings[v] } }

    func keepRingWalk(from v: UInt32, kind: RingKind?, visited: [UInt32]) {
        lock.withLock { if rings.count < Self.capacity { rings[v] = (kind, visited) } }
    }
}
