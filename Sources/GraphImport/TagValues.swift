import Foundation

/// Numbers in tag values, read as OSRM's profiles read them (`lib/measure.lua`, `lib/maxspeed.lua`, and its
/// `duration` grammar), except where PROFILES.md says otherwise.
public enum TagValues {
    /// The first decimal number anywhere in the text (`,` read as a decimal point).
    static func firstNumber(_ text: String) -> Double? {
        let chars = Array(text.replacingOccurrences(of: ",", with: "."))
        var i = 0
        while i < chars.count && !chars[i].isASCIIDigit { i += 1 }
        guard i < chars.count else { return nil }
        var number = ""
        var seenDot = false
        while i < chars.count, chars[i].isASCIIDigit || (chars[i] == "." && !seenDot) {
            if chars[i] == "." { seenDot = true }
            number.append(chars[i])
            i += 1
        }
        return Double(number)
    }

    /// Metres: "3.5", "3,5 m", and feet and inches as `6'6"`.
    public static func metres(_ text: String) -> Double? {
        if let apostrophe = text.firstIndex(of: "'") {
            guard let feet = Double(text[..<apostrophe].trimmingCharacters(in: .whitespaces)) else { return firstNumber(text) }
            let inches = firstNumber(String(text[text.index(after: apostrophe)...])) ?? 0
            return (feet * 12 + inches) * 0.0254
        }
        return firstNumber(text)
    }

    /// The `maxheight` values that say "no sign, the usual clearance".
    static let defaultHeights: Set<String> = ["default", "none", "no-sign", "unsigned"]

    /// A height limit: metres, or OSRM's 4.5 m for "default", "none", "no-sign" and "unsigned".
    public static func height(_ text: String) -> Double? {
        defaultHeights.contains(text) ? 4.5 : metres(text)
    }

    /// Kilograms: "7.5" and "7.5 t" are tonnes; "kg" and "lbs" as they say.
    public static func kilograms(_ text: String) -> Double? {
        guard let value = firstNumber(text) else { return nil }
        if text.contains("lbs") { return value * 0.45359237 }
        if text.contains("kg") { return value }
        return value * 1000
    }

    /// Country and zone speeds (km/h) for `maxspeed=XX:zone` values, as in OSRM's car profile; a 0 means "no
    /// usable limit here" (the way keeps its usual speed).
    static let zoneSpeeds: [String: Double] = [
        "at:rural": 100, "at:trunk": 100, "be:motorway": 120, "be-bru:rural": 70, "be-bru:urban": 30,
        "be-vlg:rural": 70, "bg:motorway": 140, "by:urban": 60, "by:motorway": 110, "ca-on:rural": 80,
        "ch:rural": 80, "ch:trunk": 100, "ch:motorway": 120, "cz:trunk": 0, "cz:motorway": 0, "de:living_street": 7,
        "de:rural": 100, "de:motorway": 0, "dk:rural": 80, "es:trunk": 90, "fr:rural": 80,
        "gb:nsl_single": 60 * 1.609, "gb:nsl_dual": 70 * 1.609, "gb:motorway": 70 * 1.609, "nl:rural": 80,
        "nl:trunk": 100, "no:rural": 80, "no:motorway": 110, "ph:urban": 40, "ph:rural": 80, "ph:motorway": 100,
        "pl:rural": 100, "pl:expressway": 120, "pl:motorway": 140, "ro:trunk": 100, "ru:living_street": 20,
        "ru:urban": 60, "ru:motorway": 110, "uk:nsl_single": 60 * 1.609, "uk:nsl_dual": 70 * 1.609,
        "uk:motorway": 70 * 1.609, "za:urban": 60, "za:rural": 100, "none": 140,
    ]
    /// Speeds for `XX:kind` values of countries not listed above.
    static let defaultZoneSpeeds: [String: Double] = ["urban": 50, "rural": 90, "trunk": 110, "motorway": 130]

    /// A `maxspeed` value in km/h, or nil for none usable (`walk`, `signals`, `DE:motorway`, nonsense): "50",
    /// "30 mph", "DE:urban", "none", "RU:living_street".
    public static func maxspeed(_ text: String) -> Double? {
        if let number = leadingInteger(text) {
            let speed = text.contains("mph") || text.contains("mp/h") ? number * 1.609 : number
            return speed > 0 ? speed : nil
        }
        let lower = text.lowercased()
        if let known = zoneSpeeds[lower] { return known > 0 ? known : nil }
        // "XX:kind": the kind after a two-letter prefix ("BE-WAL:urban" is read as "al:urban", as OSRM does).
        let chars = Array(lower)
        for i in 0..<max(0, chars.count - 3) where chars[i].isLetter && chars[i + 1].isLetter && chars[i + 2] == ":" {
            let kind = String(chars[(i + 3)...].prefix { $0.isLetter })
            if let speed = defaultZoneSpeeds[kind] { return speed }
            return nil
        }
        return nil
    }

    /// Digits at the very start of the text ("50", "50 mph", "50;70"), as a number.
    static func leadingInteger(_ text: String) -> Double? {
        let digits = text.prefix { $0.isASCIIDigit }
        return digits.isEmpty ? nil : Double(digits)
    }

    /// A `duration` tag in seconds: minutes ("5", "120"), "H:M", "H:M:S", ISO 8601 ("PT1H30M", "P1DT2H", "P2W",
    /// "PT022506"), case-insensitive. Nil when it is none of these.
    public static func duration(_ raw: String) -> Double? {
        let text = raw.uppercased()
        if !text.isEmpty, text.allSatisfy({ $0.isASCIIDigit || $0 == ":" }) {
            let fields = text.split(separator: ":", omittingEmptySubsequences: false)
            guard (1...3).contains(fields.count), fields.allSatisfy({ !$0.isEmpty && $0.count <= 6 }),
                  let values = Optional(fields.compactMap { Double($0) }), values.count == fields.count else { return nil }
            switch values.count {
            case 1: return values[0] * 60
            case 2: return values[0] * 3600 + values[1] * 60
            default: return values[0] * 3600 + values[1] * 60 + values[2]
            }
        }
        guard text.hasPrefix("P") else { return nil }
        var rest = Substring(text.dropFirst())
        if rest.hasSuffix("W"), let weeks = Double(rest.dropLast()) { return weeks * 604_800 }
        var seconds = 0.0
        var inTime = false
        // "PT022506" and "PT02:25:06": hours, minutes and seconds without units.
        if rest.hasPrefix("T") {
            let clock = rest.dropFirst()
            let digits = clock.filter(\.isASCIIDigit)
            if (clock.count == 6 && digits.count == 6) || (clock.count == 8 && clock.filter { $0 == ":" }.count == 2 && digits.count == 6) {
                let d = Array(digits).map { Double(String($0))! }
                let (h, m, s) = (d[0] * 10 + d[1], d[2] * 10 + d[3], d[4] * 10 + d[5])
                guard h < 24, m < 60, s < 60 else { return nil }
                return h * 3600 + m * 60 + s
            }
        }
        var number = ""
        while let c = rest.first {
            rest = rest.dropFirst()
            if c.isASCIIDigit { number.append(c); continue }
            if c == "T" && number.isEmpty && !inTime { inTime = true; continue }
            guard let value = Double(number) else { return nil }
            number = ""
            switch (c, inTime) {
            case ("D", false): seconds += value * 86_400
            case ("H", true): seconds += value * 3600
            case ("M", true): seconds += value * 60
            case ("S", true): seconds += value
            default: return nil
            }
        }
        return number.isEmpty ? seconds : nil
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
