import Foundation
import RoadGraph

public enum Units: String, Sendable {
    case metric, imperial
}

public enum GuidanceError: Error, CustomStringConvertible {
    case unknownLanguage(String, available: [String])
    case damagedPhraseFile(String)

    public var description: String {
        switch self {
        case .unknownLanguage(let l, let available):
            return "no instructions for language '\(l)' (available: \(available.joined(separator: ", ")))"
        case .damagedPhraseFile(let file): return "phrase file \(file) is not valid"
        }
    }
}

/// The words of one language, read from `Phrases/<language>.json`: adding a language is adding a file. The
/// instruction table is keyed as osrm-text-instructions chooses (type → modifier → form), so a step gets the kind of
/// phrase OSRM's clients would pick; the sentences themselves are Wayfinder's own.
public struct PhraseBook: Sendable {
    public let language: String
    /// Shared by the book's copies through one reference: a book is copied with each step it words.
    private let tables: Tables

    private final class Tables: Sendable {
        /// Flat sections (directions, ordinals, modifiers, sides, units, summary, lanes, counts): key → word or
        /// template.
        let words: [String: [String: String]]
        /// instructions[type][modifier or "default"][form].
        let instructions: [String: [String: [String: String]]]
        /// The templates `compile` chooses among, looked up once at load: per maneuver type and modifier (the last
        /// modifier slot is none), then per mode in `modeNames`, each `templatesPerTable` long by prefix and form, so
        /// that wording a step looks nothing up by string.
        let templates: [String?]
        /// The modes worded as such (a ferry or a train step), from the file's `modes`.
        let modeNames: [String]

        init(words: [String: [String: String]], instructions: [String: [String: [String: String]]],
             templates: [String?], modeNames: [String]) {
            self.words = words
            self.instructions = instructions
            self.templates = templates
            self.modeNames = modeNames
        }
    }

    private var words: [String: [String: String]] { tables.words }
    private var instructions: [String: [String: [String: String]]] { tables.instructions }

    nonisolated(unsafe) private static var cache: [String: PhraseBook] = [:]
    private static let lock = NSLock()

    /// The phrase books' directory, or nil where this binary was copied without its resources.
    public static var directory: URL? { ResourceDirectory.url(module: "Guidance", resource: "Phrases", sourceFile: #filePath) }

    public static var availableLanguages: [String] {
        guard let directory, let files = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return [] }
        return files.filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.sorted()
    }

    /// `zh-Hans` falls back to `zh`, `en-GB` to `en`.
    public static func load(language: String) throws -> PhraseBook {
        lock.lock()
        defer { lock.unlock() }
        if let cached = cache[language] { return cached }
        let candidates = [language, String(language.split(separator: "-").first ?? ""), String(language.split(separator: "_").first ?? "")]
        for candidate in candidates where !candidate.isEmpty {
            guard let url = directory?.appendingPathComponent("\(candidate).json"),
                  let data = try? Data(contentsOf: url) else { continue }
            guard let table = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                  let instructions = table["instructions"] as? [String: [String: [String: String]]],
                  let modes = table["modes"] as? [String: [String: String]]
            else {
                throw GuidanceError.damagedPhraseFile(url.lastPathComponent)
            }
            var words: [String: [String: String]] = [:]
            for (key, value) in table where key != "modes" { if let section = value as? [String: String] { words[key] = section } }
            let book = PhraseBook(language: candidate, tables: Tables(
                words: words, instructions: instructions, templates: templateTable(instructions, modes),
                modeNames: Array(modes.keys)))
            cache[language] = book
            return book
        }
        throw GuidanceError.unknownLanguage(language, available: availableLanguages)
    }

    private func section(_ key: String) -> [String: String] { words[key] ?? [:] }
    private func word(_ section: String, _ key: String) -> String { words[section]?[key] ?? key }

    /// Replaces each `{name}` in a template by its value (unknown names are left as they are), then tidies the
    /// spaces an empty value leaves.
    private func fill(_ template: String, _ values: [String: String]) -> String {
        fill(template) { values[$0] }
    }

    /// `fill` with each value worked out only if the template asks for it.
    private func fill(_ template: String, _ value: (String) -> String?) -> String {
        guard template.utf8.contains(UInt8(ascii: "{")) else { return template }
        // Byte by byte, tidying as it goes (a space is one byte in UTF-8, and never part of another character),
        // not a scalar at a time.
        let bytes = Array(template.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 48)
        var afterSpace = true
        func emit(_ b: UInt8) {
            let space = b == UInt8(ascii: " ")
            if !(space && afterSpace) { out.append(b) }
            afterSpace = space
        }
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "{"), let close = bytes[(i + 1)...].firstIndex(of: UInt8(ascii: "}")) {
                if let value = value(String(decoding: bytes[(i + 1)..<close], as: UTF8.self)) {
                    for b in value.utf8 { emit(b) }
                } else {
                    for b in bytes[i...close] { emit(b) }
                }
                i = close + 1
            } else {
                emit(bytes[i])
                i += 1
            }
        }
        if out.last == UInt8(ascii: " ") { out.removeLast() }
        return String(decoding: out, as: UTF8.self)
    }

    public func ordinal(_ n: Int) -> String {
        let ordinals = section("ordinals")
        return fill(ordinals[String(n)] ?? ordinals["default"] ?? "\(n)", ["n": String(n)])
    }

    /// One of eight compass points for a bearing, with osrm-text-instructions' sector bounds.
    public func direction(_ bearing: Int) -> String {
        let b = Double(bearing)
        let name: String
        switch b {
        case 0...20, 340...360: name = "north"
        case 20..<70: name = "northeast"
        case 70...110: name = "east"
        case 110..<160: name = "southeast"
        case 160...200: name = "south"
        case 200..<250: name = "southwest"
        case 250...290: name = "west"
        default: name = "northwest"
        }
        return word("directions", name)
    }

    /// "Name (Ref)", the ref alone on a motorway that is known by its number, or whichever of the two exists.
    public func wayName(_ name: String, ref: String, motorway: Bool = false) -> String {
        if ref.isEmpty { return name }
        let firstRef = Self.firstEntry(ref)
        var name = name == ref ? "" : name
        // " (ref)" can only be in a name with a parenthesis.
        if !firstRef.isEmpty && name.utf8.contains(UInt8(ascii: "(")) {
            name = name.replacingOccurrences(of: " (\(firstRef))", with: "")
        }
        if !name.isEmpty && !firstRef.isEmpty && name != firstRef {
            if motorway && firstRef.contains(where: \.isNumber) { return firstRef }
            return fill(word("names", "name and ref"), ["name": name, "ref": firstRef])
        }
        return name.isEmpty ? firstRef : name
    }

    /// The first entry of a `;` list, trimmed ("A1" from "A1; A3"). Most lists are one plain ASCII entry, which is
    /// its own first entry without Foundation's splitting and trimming.
    static func firstEntry(_ list: String) -> String {
        let plain = list.utf8.allSatisfy { $0 < 0x80 && $0 != UInt8(ascii: ";") }
            && list.utf8.first != UInt8(ascii: " ") && list.utf8.first != UInt8(ascii: "\t")
            && list.utf8.last != UInt8(ascii: " ") && list.utf8.last != UInt8(ascii: "\t")
        return plain ? list : list.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
    }

    /// The first sign of a step's destinations: "A1: Porto" from "A1, A3: Porto, Lisboa".
    func destination(_ destinations: String) -> String {
        guard !destinations.isEmpty else { return "" }
        let parts = destinations.components(separatedBy: ": ")
        let refs = parts.count > 1 ? parts[0] : "", names = parts.count > 1 ? parts[1...].joined(separator: ": ") : parts[0]
        let ref = refs.split(separator: ",").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        let name = names.split(separator: ",").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        if !ref.isEmpty && !name.isEmpty { return "\(ref): \(name)" }
        return ref.isEmpty ? name : ref
    }

    public func instruction(for step: GuidanceStep) -> String {
        withUnsafePointer(to: step) { instruction(at: $0) }
    }

    /// Through a pointer, because a step read from its array and passed by value, even `borrowing`, is copied whole.
    func instruction(at step: UnsafePointer<GuidanceStep>) -> String {
        let base: String
        if let then = step.pointee.following {
            // The step's own maneuver without a road, then the following one onto the road both lead to.
            var first = step.pointee
            first.name = ""
            first.ref = ""
            first.destinations = ""
            first.exits = ""
            var second = step.pointee
            second.maneuver.type = then.type
            second.maneuver.modifier = then.modifier
            second.following = nil
            let firstText = withUnsafePointer(to: first) { compile($0) }
            let secondText = withUnsafePointer(to: second) { compile($0) }
            base = fill(word("linking", "then"), ["first": firstText, "second": lowercasedFirst(secondText)])
        } else {
            base = compile(step)
        }
        guard step.pointee.maneuver.type != .depart, step.pointee.maneuver.type != .arrive,
              let lanes = lanePhrase(step.pointee.lanes) else {
            return base
        }
        return capitalisedFirst(fill(word("lanes", "use"), ["lanes": lanes, "instruction": lowercasedFirst(base)]))
    }

    /// A cyclist's step where the bike is pushed from here on (`dismount`), or ridden again: the step's own words
    /// with the change said first; going straight into a pushed stretch, the change alone, with the way's name; a
    /// ride that starts pushed says so after the departure.
    func modeChange(_ text: String, at step: UnsafePointer<GuidanceStep>, dismount: Bool) -> String {
        let m = step.pointee.maneuver
        if m.type == .depart { return fill(word("cycling", "depart pushing"), ["instruction": text]) }
        if dismount && (m.modifier == nil || m.modifier == .straight) {
            let way = wayName(step.pointee.name, ref: step.pointee.ref)
            return way.isEmpty ? word("cycling", "walk") : fill(word("cycling", "walk along"), ["way_name": way])
        }
        return capitalisedFirst(fill(word("cycling", dismount ? "dismount" : "remount"), ["instruction": lowercasedFirst(text)]))
    }

    /// The step where a driver leaves the car to walk where the car may not go.
    public func onFoot(_ step: GuidanceStep) -> String {
        let forms = instructions["on foot"]?["default"] ?? [:]
        let way = step.staysOn ? "" : wayName(step.name, ref: step.ref)
        let template = (way.isEmpty ? nil : forms["name"]) ?? forms["default"] ?? ""
        return capitalisedFirst(fill(template, ["way_name": way]))
    }

    /// A step's forms of words, most particular first.
    private static let forms = ["waypoint", "stay", "exit_destination", "destination", "exit", "name", "default"]
    /// Prefixes of a roundabout's or rotary's forms (none first): a step tries those that apply, in this order.
    private static let prefixes = ["rotary_numbered", "rotary", "numbered", ""]
    private static let templatesPerTable = prefixes.count * forms.count
    private static let types = ManeuverType.allCases, modifiers = Modifier.allCases
    private static let modifierSlots = modifiers.count + 1

    private static func formTemplates(_ forms: [String: String]) -> [String?] {
        prefixes.flatMap { prefix in
            Self.forms.map { form in forms[prefix.isEmpty ? form : (form == "default" ? prefix : prefix + "_" + form)] }
        }
    }

    /// `templates`: what `compile` read from the instruction table for each type and modifier, and for each mode.
    private static func templateTable(_ instructions: [String: [String: [String: String]]],
                                      _ modes: [String: [String: String]]) -> [String?] {
        var table: [String?] = []
        for type in types {
            let variants = instructions[type.rawValue] ?? instructions["turn"] ?? [:]
            for modifier in modifiers.map(\.rawValue) + ["default"] {
                // Off the motorway on the side one drives on goes without saying.
                let omitSide = type == .offRamp && modifier.contains("right")
                table += formTemplates((omitSide ? nil : variants[modifier]) ?? variants["default"] ?? [:])
            }
        }
        for forms in modes.values { table += formTemplates(forms) }
        return table
    }

    /// The words of one step, as osrm-text-instructions compiles them.
    func compile(_ step: UnsafePointer<GuidanceStep>) -> String {
        let m = step.pointee.maneuver
        // The table for the step's mode, else for its type and modifier (an arrival's side is its modifier).
        let tableStart: Int
        if m.type != .depart, m.type != .arrive, let k = tables.modeNames.firstIndex(of: step.pointee.mode) {
            tableStart = (Self.types.count * Self.modifierSlots + k) * Self.templatesPerTable
        } else {
            let modifier = m.type == .arrive ? step.pointee.arrivalSide : m.modifier
            let slot = modifier.flatMap { Self.modifiers.firstIndex(of: $0) } ?? Self.modifierSlots - 1
            tableStart = (Self.types.firstIndex(of: m.type)! * Self.modifierSlots + slot) * Self.templatesPerTable
        }
        // Which prefixes apply, by bit in `prefixes` order (the last, none, always).
        var prefixes: UInt8 = 1 << 3
        if m.type == .roundabout || m.type == .rotary {
            let named = step.pointee.rotaryName != nil && m.type == .rotary
            let numbered = m.exit != nil
            if named && numbered { prefixes |= 1 }
            if named { prefixes |= 1 << 1 }
            if numbered { prefixes |= 1 << 2 }
        }
        // Read in place: `first` would copy the intersection with its arrays.
        let motorway = step.pointee.intersections.withUnsafeBufferPointer { !$0.isEmpty && $0[0].classes.contains(.motorway) }
        var way = wayName(step.pointee.name, ref: step.pointee.ref, motorway: motorway)
        if way.isEmpty && step.pointee.onCyclePath { way = word("cycling", "cycle path") }
        let destination = destination(step.pointee.destinations)
        let exit = Self.firstEntry(step.pointee.exits)
        // Which of `forms` apply, by bit: no list per step.
        var wanted: UInt8 = 1 << 6
        // A route that ends on the circle has no exit: the step says only that it goes onto it (the road it names
        // is the circle's own).
        let endsOnRing = (m.type == .roundabout || m.type == .rotary) && m.exit == nil
        if !endsOnRing {
            if m.type == .arrive && step.pointee.waypointNumber != nil { wanted |= 1 }
            if step.pointee.staysOn { wanted |= 1 << 1 }
            if !destination.isEmpty && !exit.isEmpty { wanted |= 1 << 2 }
            if !destination.isEmpty { wanted |= 1 << 3 }
            if !exit.isEmpty { wanted |= 1 << 4 }
            if !way.isEmpty && !step.pointee.staysOn { wanted |= 1 << 5 }
        }
        var template = ""
        search: for p in 0..<Self.prefixes.count where prefixes & (1 << p) != 0 {
            for k in 0..<Self.forms.count where wanted & (1 << k) != 0 {
                if let t = tables.templates[tableStart + p * Self.forms.count + k] { template = t; break search }
            }
        }
        // The step's values taken out first: a closure that read the step would copy it whole.
        let rotaryName = step.pointee.rotaryName ?? "", waypointNumber = step.pointee.waypointNumber
        let text = fill(template) { name in
            switch name {
            case "way_name": way
            case "destination": destination
            case "exit": exit
            case "exit_number": ordinal(m.exit ?? 1)
            case "rotary_name": rotaryName
            case "modifier": word("modifiers", m.modifier?.rawValue ?? "straight")
            case "direction": direction(m.bearingAfter)
            case "nth": waypointNumber.map(ordinal) ?? ""
            default: nil
            }
        }
        return capitalisedFirst(text)
    }

    /// "the left two lanes", where the lanes to use are a run at one side or in the middle and not all of them.
    func lanePhrase(_ lanes: [Lane]) -> String? {
        guard let position = Lanes.position(lanes) else { return nil }
        let lanesWords = section("lanes")
        func count(_ n: Int) -> String { section("counts")[String(n)] ?? String(n) }
        switch position {
        case .all: return nil
        case .left(let n), .right(let n):
            let side = word("sides", { if case .left = position { return "left" } else { return "right" } }())
            return fill(n == 1 ? lanesWords["one"] ?? "" : lanesWords["many"] ?? "", ["side": side, "count": count(n)])
        case .middle(let n):
            return fill(n == 1 ? lanesWords["middle one"] ?? "" : lanesWords["middle many"] ?? "", ["count": count(n)])
        }
    }

    private func capitalisedFirst(_ s: String) -> String {
        // Where the first two bytes are ASCII, the first character is the first byte: most texts start with a
        // capital already, and a small letter is one byte to change (uppercasing a substring made three strings).
        let utf8 = s.utf8
        if let first = utf8.first, first < 0x80, utf8.dropFirst().first.map({ $0 < 0x80 }) ?? true {
            guard first >= UInt8(ascii: "a") && first <= UInt8(ascii: "z") else { return s }
            var bytes = Array(utf8)
            bytes[0] -= 0x20
            return String(decoding: bytes, as: UTF8.self)
        }
        return s.prefix(1).uppercased() + s.dropFirst()
    }

    /// "Turn left onto X" → "turn left onto X", to follow "Use the left lane to" or ", then".
    private func lowercasedFirst(_ s: String) -> String {
        guard let first = s.first, first.isUppercase, s.dropFirst().first?.isUppercase != true else { return s }
        return first.lowercased() + s.dropFirst()
    }

    /// A distance as a person reads it: rounded to what matters at that length.
    public func distance(_ metres: Double, units: Units) -> String {
        let units_ = section("units")
        func format(_ key: String, _ n: String) -> String { fill(units_[key] ?? "{n}", ["n": n]) }
        switch units {
        case .metric:
            if metres < 100 { return format("metres", String(Int((metres / 5).rounded() * 5))) }
            if metres < 1000 { return format("metres", String(Int((metres / 10).rounded() * 10))) }
            if metres < 10_000 { return format("kilometres", String(format: "%.1f", metres / 1000)) }
            return format("kilometres", String(Int((metres / 1000).rounded())))
        case .imperial:
            let miles = metres / 1609.344
            if miles < 0.1 { return format("feet", String(Int((metres * 3.28084 / 10).rounded() * 10))) }
            if miles < 10 { return format("miles", String(format: "%.1f", miles)) }
            return format("miles", String(Int(miles.rounded())))
        }
    }

    // MARK: Spoken

    /// A distance as it is said, rounded down to what a voice says at that length ("400 metres", "1.5 miles"), and
    /// the metres it stands for: an announcement is made where its distance is true.
    public func spokenDistance(_ metres: Double, units: Units) -> (text: String, metres: Double) {
        let words = section("spoken units")
        func say(_ key: String, _ n: String) -> String { fill(words[key] ?? "{n}", ["n": n]) }
        func decimal(_ x: Double) -> String { x == x.rounded() ? String(Int(x)) : String(format: "%.1f", x) }
        switch units {
        case .metric:
            if metres < 1000 {
                let step = metres < 100 ? 10.0 : metres < 500 ? 50 : 100
                let n = max(step, (metres / step).rounded(.down) * step)
                return (say("metres", String(Int(n))), n)
            }
            let km = metres < 5000 ? (metres / 500).rounded(.down) / 2 : (metres / 1000).rounded(.down)
            return (say(km == 1 ? "kilometre" : "kilometres", decimal(km)), km * 1000)
        case .imperial:
            let mile = 1609.344, foot = 0.3048
            if metres < 0.2 * mile {
                let step = metres < 100 * foot * 3 ? 50.0 : 100
                let n = max(step, (metres / foot / step).rounded(.down) * step)
                return (say("feet", String(Int(n))), n * foot)
            }
            let miles = metres < mile ? (metres / mile * 10).rounded(.down) / 10 : (metres / mile * 2).rounded(.down) / 2
            return (say(miles == 1 ? "mile" : "miles", decimal(miles)), miles * mile)
        }
    }

    /// "In 400 metres, turn right into …".
    func spokenIn(_ distance: String, _ instruction: String) -> String {
        capitalisedFirst(fill(word("voice", "in"), ["distance": distance, "instruction": lowercasedFirst(instruction)]))
    }

    /// Two maneuvers said as one announcement: "Turn right, then turn left into …".
    func spokenThen(_ first: String, _ second: String) -> String {
        fill(word("voice", "then"), ["first": first, "second": lowercasedFirst(second)])
    }

    /// An instruction without the lane advice before it ("Get in the left lane and turn left" → "Turn left"): a
    /// later maneuver of a chain is said without it, which the banner shows, so that the chain fits its seconds.
    func withoutLaneAdvice(_ instruction: String, lanes: [Lane]) -> String {
        guard let phrase = lanePhrase(lanes) else { return instruction }
        let advice = capitalisedFirst(fill(word("lanes", "use"), ["lanes": phrase, "instruction": ""]))
        guard instruction.count > advice.count, instruction.hasPrefix(advice) else { return instruction }
        return capitalisedFirst(String(instruction.dropFirst(advice.count)))
    }

    /// An instruction without its closing "…, still on Rua X" where the words before it in a chain named the road
    /// already ("Turn right into Rua X, then take the right fork"): a chain has the seconds its maneuvers leave.
    func withoutStayingOn(_ instruction: String, names: [String], saidIn chain: String) -> String {
        for name in names where chain.contains(name) {
            let suffix = fill(word("voice", "still on"), ["way_name": name])
            if instruction.count > suffix.count, instruction.hasSuffix(suffix) {
                return String(instruction.dropLast(suffix.count))
            }
        }
        return instruction
    }

    /// The word on a motorway exit's sign before its number.
    var exitWord: String { word("voice", "exit") }

    /// A maneuver said after the two before it: "Then turn right into …".
    func spokenAfter(_ instruction: String) -> String {
        capitalisedFirst(fill(word("voice", "after"), ["instruction": lowercasedFirst(instruction)]))
    }

    /// An arrival said before it comes: "Your destination will be on the right".
    func arrivalAhead(_ step: GuidanceStep) -> String {
        let voice = section("voice")
        let place = step.waypointNumber.map { fill(voice["waypoint"] ?? "", ["nth": ordinal($0)]) } ?? voice["destination"] ?? ""
        let side = step.arrivalSide.flatMap { ["left", "right", "straight"].contains($0.rawValue) ? $0.rawValue : nil }
        let template = side.flatMap { voice["arrive " + $0] } ?? voice["arrive"] ?? ""
        return capitalisedFirst(fill(template, ["place": place]))
    }

    public func duration(_ seconds: Double) -> String {
        let units_ = section("units")
        if seconds < 60 { return fill(units_["seconds"] ?? "{n} s", ["n": String(Int(seconds.rounded()))]) }
        let minutes = Int((seconds / 60).rounded())
        if minutes < 60 { return fill(units_["minutes"] ?? "{n} min", ["n": String(minutes)]) }
        return fill(units_["hours"] ?? "{h} h {m} min", ["h": String(minutes / 60), "m": String(minutes % 60)])
    }

    /// "1.6 km, 5 min by car".
    public func summary(distance metres: Double, duration seconds: Double, mode: TravelMode, units: Units) -> String {
        fill(word("summary", "route"), ["distance": distance(metres, units: units), "duration": duration(seconds),
                                        "mode": word("summary", mode.rawValue)])
    }
}
