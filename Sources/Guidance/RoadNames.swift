import Foundation
import RoadGraph

/// Whether a change of road is a change of name a driver should hear, after OSRM's `requiresNameAnnounced`, with
/// names compared as a person reads them: case, accents, abbreviations (`St`/`Street`, `Av.`/`Avenida`,
/// `Dr.`/`Doutor`), little words (`do`, `de`, `of`, `von`) and compass words at either end (`N Main St`) do not
/// make another road. So "Rua Doutor Alfredo Magalhães" and "Rua do Doutor Alfredo de Magalhães" are one street.
public enum RoadNames {
    /// Words that carry no identity in street names, in the languages of the extracts at hand.
    static let fillers: Set<String> = [
        "de", "do", "da", "dos", "das", "del", "della", "delle", "di", "du", "des", "la", "le", "les", "el", "los",
        "las", "van", "von", "der", "den", "dem", "the", "of", "y", "e", "i", "und", "and", "et",
    ]
    /// Abbreviations and full words with one canonical form each.
    static let canonical: [String: String] = [
        "street": "st", "str": "st", "strasse": "st", "straße": "st", "st": "st",
        "avenue": "av", "ave": "av", "av": "av", "avenida": "av", "avda": "av",
        "road": "rd", "rd": "rd", "rua": "r", "r": "r", "boulevard": "blvd", "blvd": "blvd", "lane": "ln", "ln": "ln",
        "drive": "dr", "doutor": "dr", "doutora": "dra", "doktor": "dr", "dr": "dr", "dra": "dra",
        "engenheiro": "eng", "eng": "eng", "professor": "prof", "prof": "prof", "santo": "s", "santa": "s",
        "sao": "s", "saint": "s", "sankt": "s", "praca": "pc", "pc": "pc", "largo": "lg", "lg": "lg",
        "travessa": "tv", "tv": "tv", "estrada": "estr", "estr": "estr", "place": "pl", "pl": "pl",
        "square": "sq", "sq": "sq", "court": "ct", "ct": "ct", "highway": "hwy", "hwy": "hwy",
    ]
    /// Compass words that prefix or suffix a name without making another road (OSRM's suffix list, and more).
    static let compass: Set<String> = [
        "n", "ne", "e", "se", "s", "sw", "w", "nw", "north", "south", "east", "west", "nor", "sou", "we", "ea",
        "nord", "sud", "ost", "norte", "sul", "este", "oeste",
    ]

    /// The rules names are compared by while one request's guidance runs: with `.osrm`, names are the same only
    /// as OSRM compares them (`OSRMNames.same`) and refs as written. Task-local, because the comparisons are static and
    /// run deep inside the turn analysis.
    @TaskLocal static var compatibility = Compatibility.wayfinder

    /// The words of a name that identify the road.
    static func key(_ name: String) -> [String] {
        if name.isEmpty { return [] }
        // Most names are plain ASCII: split and lowercase their bytes without Foundation's folding (10× dearer).
        if name.utf8.allSatisfy({ $0 < 0x80 }) {
            var words: [String] = []
            for word in name.utf8.split(whereSeparator: { !(($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x7A) && !($0 >= 0x30 && $0 <= 0x39) }) {
                let lower = String(decoding: word.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
                if !fillers.contains(lower) { words.append(canonical[lower] ?? lower) }
            }
            return words
        }
        let folded = name.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil).lowercased()
        var words: [String] = []
        var word = ""
        for c in folded {
            if c.isLetter || c.isNumber { word.append(c) } else if !word.isEmpty { words.append(word); word = "" }
        }
        if !word.isEmpty { words.append(word) }
        return words.filter { !fillers.contains($0) }.map { canonical[$0] ?? $0 }
    }

    /// A key without one compass word at its start or its end, as OSRM's suffix test strips it from one name
    /// only: "N Main St" is "Main St", but "South Road" is not "East Road".
    static func stripped(_ key: [String]) -> [[String]] {
        guard key.count > 1 else { return [] }
        var variants: [[String]] = []
        if compass.contains(key[0]) { variants.append(Array(key.dropFirst())) }
        if compass.contains(key[key.count - 1]) { variants.append(Array(key.dropLast())) }
        return variants
    }

    /// Whether two names stand for one road: the same words, one with a compass word the other lacks, or a
    /// one-word name that the other's first word extends (a bridge named after its street: "Hauptstraße",
    /// "Hauptstraßenbrücke").
    public static func same(_ a: String, _ b: String) -> Bool {
        if a == b { return true }
        if a.isEmpty || b.isEmpty { return a.isEmpty && b.isEmpty }
        return sameKeys(key(a), key(b))
    }

    /// `same` on names' keys.
    static func sameKeys(_ ka: [String], _ kb: [String], stripped sa: [[String]]? = nil, _ sb: [[String]]? = nil) -> Bool {
        if ka.isEmpty || kb.isEmpty { return ka == kb }
        if ka == kb || (sa ?? stripped(ka)).contains(kb) || (sb ?? stripped(kb)).contains(ka) { return true }
        let (short, long) = ka.count <= kb.count ? (ka, kb) : (kb, ka)
        return short.count == 1 && short[0].count >= 5 && long[0] != short[0] && long[0].hasPrefix(short[0])
    }

    /// Refs compared without spaces or case: "IP1" and "IP 1" are one road (OSRM compares them as written).
    static func plain(ref: String) -> String { ref.uppercased().filter { !$0.isWhitespace } }

    /// Whether `whole` contains `part`, byte by byte (refs are short; Foundation's search is far dearer).
    static func contains(_ whole: String, _ part: String) -> Bool {
        if whole == part { return true }
        var whole = whole, part = part
        // In place: no arrays per comparison.
        return whole.withUTF8 { w in
            part.withUTF8 { p in
                guard !p.isEmpty, w.count > p.count else { return p.isEmpty }
                for start in 0...(w.count - p.count) where w[start] == p[0] {
                    if UnsafeBufferPointer(rebasing: w[start..<start + p.count]).elementsEqual(p) { return true }
                }
                return false
            }
        }
    }

    /// `same` on labels, with their keys worked out already.
    static func same(_ a: RoadLabel, _ b: RoadLabel) -> Bool {
        if a.name == b.name { return true }
        if a.name.isEmpty || b.name.isEmpty { return false }
        if compatibility == .osrm { return OSRMNames.same(a.name, b.name) }
        return sameKeys(a.nameKey, b.nameKey, stripped: a.strippedKeys, b.strippedKeys)
    }

    /// OSRM's `requiresNameAnnounced`, names compared with `same`.
    static func requiresAnnouncement(from: RoadLabel, to: RoadLabel) -> Bool {
        if from === to { return false }  // what the rules below say of a label and itself
        if from.isEmpty && !to.isEmpty { return true }
        let namesEmpty = from.name.isEmpty && to.name.isEmpty
        // An empty name is contained in every name (OSRM's prefix test): a name that goes is no news.
        let sameNames = same(from, to)
        let namesEqual = sameNames || from.name.isEmpty || to.name.isEmpty
        let nameRemoved = !from.name.isEmpty && to.name.isEmpty
        let refsEmpty = from.ref.isEmpty && to.ref.isEmpty
        let osrm = compatibility == .osrm
        let fromRef = osrm ? from.ref : from.plainRef, toRef = osrm ? to.ref : to.plainRef
        let refContained = fromRef.isEmpty || toRef.isEmpty || contains(fromRef, toRef) || contains(toRef, fromRef)
        let refRemoved = !from.ref.isEmpty && to.ref.isEmpty
        // A named street whose ref changes (a road renumbered along the way) is still that street, to a driver and
        // to OSRM, whose suffix test passes whatever the refs (and for two names that differ in compass words only).
        let sameNamedStreet = osrm ? OSRMNames.suffixChange(from.name, to.name) : !from.name.isEmpty && sameNames
        let obvious = (namesEmpty && refsEmpty) || (namesEqual && refContained) || (namesEqual && refsEmpty)
            || (refContained && nameRemoved) || (namesEqual && refRemoved) || sameNamedStreet
        let needs = (from.name.isEmpty && !from.ref.isEmpty && !to.name.isEmpty && to.ref.isEmpty)
            || (!from.name.isEmpty && from.ref.isEmpty && to.name.isEmpty && !to.ref.isEmpty)
            || (namesEmpty && !refContained)
        let losesExit = namesEqual && !from.exits.isEmpty && to.exits.isEmpty
        return !obvious || needs || from.pronunciation != to.pronunciation || (from.exits != to.exits && !losesExit)
    }

    /// Symmetric, and never for two empty labels: the same road by name.
    static func identical(_ a: RoadLabel, _ b: RoadLabel) -> Bool {
        !a.isEmpty && !b.isEmpty && !requiresAnnouncement(from: a, to: b) && !requiresAnnouncement(from: b, to: a)
    }
}
