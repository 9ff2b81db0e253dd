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

/// The words of one language, read from `Phrases/<language>.json`: adding a language is adding a file.
public struct PhraseBook: Sendable {
    public let language: String
    /// Flat sections (directions, ordinals, modifiers, sides, units, summary): key → word or template.
    private let words: [String: [String: String]]
    /// instructions[type][modifier or "default"][form] with form "name", "noname" or "noexit".
    private let instructions: [String: [String: [String: String]]]

    nonisolated(unsafe) private static var cache: [String: PhraseBook] = [:]
    private static let lock = NSLock()

    static var directory: URL? { Bundle.module.url(forResource: "Phrases", withExtension: nil) }

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
                  let instructions = table["instructions"] as? [String: [String: [String: String]]]
            else {
                throw GuidanceError.damagedPhraseFile(url.lastPathComponent)
            }
            var words: [String: [String: String]] = [:]
            for (key, value) in table { if let section = value as? [String: String] { words[key] = section } }
            let book = PhraseBook(language: candidate, words: words, instructions: instructions)
            cache[language] = book
            return book
        }
        throw GuidanceError.unknownLanguage(language, available: availableLanguages)
    }

    private func section(_ key: String) -> [String: String] { words[key] ?? [:] }
    private func word(_ section: String, _ key: String) -> String { words[section]?[key] ?? key }

    /// Replaces each `{name}` in a template by its value (unknown names are left as they are).
    private func fill(_ template: String, _ values: [String: String]) -> String {
        guard template.contains("{") else { return template }
        var result = ""
        var rest = template[...]
        while let open = rest.firstIndex(of: "{") {
            result += rest[..<open]
            guard let close = rest[open...].firstIndex(of: "}") else { break }
            let key = String(rest[rest.index(after: open)..<close])
            result += values[key] ?? String(rest[open...close])
            rest = rest[rest.index(after: close)...]
        }
        result += rest
        return result
    }

    public func ordinal(_ n: Int) -> String {
        let ordinals = section("ordinals")
        return fill(ordinals[String(n)] ?? ordinals["default"] ?? "\(n)", ["n": String(n)])
    }

    /// One of eight compass points for a bearing.
    public func direction(_ bearing: Int) -> String {
        let names = ["north", "northeast", "east", "southeast", "south", "southwest", "west", "northwest"]
        return word("directions", names[Int((Double(bearing) / 45).rounded()) % 8])
    }

    /// "Name (Ref)", or whichever of the two exists.
    public func wayName(_ name: String, ref: String) -> String {
        switch (name.isEmpty, ref.isEmpty) {
        case (false, false): return name == ref ? name : "\(name) (\(ref))"
        case (false, true): return name
        case (true, false): return ref
        case (true, true): return ""
        }
    }

    public func instruction(for step: GuidanceStep) -> String {
        let m = step.maneuver
        var type = m.type.rawValue
        if m.type == .arrive && step.waypointNumber != nil { type = "arrive waypoint" }
        let variants = instructions[type] ?? [:]
        let modifierKey = (m.type == .arrive ? step.arrivalSide : m.modifier)?.rawValue ?? "default"
        let forms = variants[modifierKey] ?? variants["default"] ?? [:]
        let way = wayName(step.name, ref: step.ref)
        let template: String
        if (m.type == .roundabout || m.type == .rotary) && m.exit == nil {
            template = forms["noexit"] ?? forms["noname"] ?? ""
        } else {
            template = (way.isEmpty ? forms["noname"] : forms["name"]) ?? forms["noname"] ?? ""
        }
        let side = m.modifier.map { $0.rawValue.contains("left") ? "left" : "right" } ?? "right"
        return fill(template, [
            "way_name": way,
            "modifier": word("modifiers", m.modifier?.rawValue ?? "straight"),
            "direction": direction(m.bearingAfter),
            "exit": m.exit.map(ordinal) ?? "",
            "rotary_name": step.rotaryName ?? "",
            "nth": step.waypointNumber.map(ordinal) ?? "",
            "side": word("sides", side),
        ])
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
