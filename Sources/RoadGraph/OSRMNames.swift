import Foundation

/// OSRM's rules for when a change of road needs its name said (`requiresNameAnnounced`), which its extractor also
/// uses to tell whether two roads are one (the mergeable-road detector) and its guidance to name steps. Names
/// are compared as OSRM compares them: as written, with compass words at either end not making another road.
public enum OSRMNames {
    /// What OSRM compares of a road's signs.
    public struct Fields: Equatable, Sendable {
        public var name: String, ref: String, pronunciation: String, exits: String

        public init(name: String, ref: String, pronunciation: String = "", exits: String = "") {
            (self.name, self.ref, self.pronunciation, self.exits) = (name, ref, pronunciation, exits)
        }

        /// No name and no ref.
        public var isEmpty: Bool { name.isEmpty && ref.isEmpty }
    }

    /// The compass words of OSRM's car profile (`suffix_list`), lowercased as OSRM keeps them.
    static let compass: Set<String> = ["n", "ne", "nw", "s", "se", "sw", "e", "w", "north", "south", "west",
                                       "east", "nor", "sou", "we", "ea"]

    /// OSRM's name test: equal, one the start of the other, or differing only in compass words (`suffixChange`).
    public static func same(_ a: String, _ b: String) -> Bool {
        a == b || a.hasPrefix(b) || b.hasPrefix(a) || suffixChange(a, b)
    }

    /// OSRM's suffix test, on the names' bytes: take their longest common substring out of both, and what is left
    /// before and after it in each (spaces trimmed, lowercased) must be nothing or a compass word. Two equal names
    /// pass (nothing is left), and so do "42 N" and "42 S", "West 42" and "East 42".
    public static func suffixChange(_ a: String, _ b: String) -> Bool {
        if a == b { return true }  // the whole name is the common part: nothing is left
        let x = Array(a.utf8), y = Array(b.utf8)
        func fits(_ part: ArraySlice<UInt8>) -> Bool {
            let trimmed = part.drop { $0 == 0x20 }.reversed().drop { $0 == 0x20 }.reversed()
            if trimmed.isEmpty { return true }
            let lowered = trimmed.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
            return compass.contains(String(decoding: lowered, as: UTF8.self))
        }
        guard !x.isEmpty, !y.isEmpty else { return fits(x[...]) && fits(y[...]) }
        // The longest common substring, the first of its length along `x` (as OSRM's table finds it).
        var previous = [Int](repeating: 0, count: y.count), current = previous
        var best = 0, end = 0
        for i in x.indices {
            for j in y.indices {
                current[j] = x[i] == y[j] ? (j == 0 ? 1 : previous[j - 1] + 1) : 0
                if current[j] > best { best = current[j]; end = i + 1 }
            }
            swap(&previous, &current)
        }
        guard best > 0 else { return fits(x[...]) && fits(y[...]) }
        let common = x[(end - best)..<end]
        func firstIndex(of part: ArraySlice<UInt8>, in bytes: [UInt8]) -> Int {
            (0...(bytes.count - part.count)).first { bytes[$0..<($0 + part.count)].elementsEqual(part) }!
        }
        let i = firstIndex(of: common, in: x), j = firstIndex(of: common, in: y)
        return fits(x[..<i]) && fits(x[(i + best)...]) && fits(y[..<j]) && fits(y[(j + best)...])
    }

    /// OSRM's `requiresNameAnnounced`: whether going from one road onto the other is news to a driver.
    public static func requiresAnnouncement(from: Fields, to: Fields) -> Bool {
        if from.isEmpty && !to.isEmpty { return true }
        let namesEmpty = from.name.isEmpty && to.name.isEmpty
        let sameNames = from.name == to.name || (!from.name.isEmpty && !to.name.isEmpty && same(from.name, to.name))
        // An empty name is contained in every name (OSRM's prefix test): a name that goes is no news.
        let namesEqual = sameNames || from.name.isEmpty || to.name.isEmpty
        let nameRemoved = !from.name.isEmpty && to.name.isEmpty
        let refsEmpty = from.ref.isEmpty && to.ref.isEmpty
        let refContained = from.ref.isEmpty || to.ref.isEmpty || from.ref.contains(to.ref) || to.ref.contains(from.ref)
        let refRemoved = !from.ref.isEmpty && to.ref.isEmpty
        // OSRM's suffix test passes whatever the refs.
        let obvious = (namesEmpty && refsEmpty) || (namesEqual && refContained) || (namesEqual && refsEmpty)
            || (refContained && nameRemoved) || (namesEqual && refRemoved) || suffixChange(from.name, to.name)
        let needs = (from.name.isEmpty && !from.ref.isEmpty && !to.name.isEmpty && to.ref.isEmpty)
            || (!from.name.isEmpty && from.ref.isEmpty && to.name.isEmpty && !to.ref.isEmpty)
            || (namesEmpty && !refContained)
        let losesExit = namesEqual && !from.exits.isEmpty && to.exits.isEmpty
        return !obvious || needs || from.pronunciation != to.pronunciation || (from.exits != to.exits && !losesExit)
    }

    /// OSRM's `HaveIdenticalNames`: neither road is without signs, and going either way is no news.
    public static func identical(_ a: Fields, _ b: Fields) -> Bool {
        !a.isEmpty && !b.isEmpty && !requiresAnnouncement(from: a, to: b) && !requiresAnnouncement(from: b, to: a)
    }
}
