import Foundation

/// A wall-clock moment in the extract's time zone, broken into what time conditions ask about.
public struct LocalTime: Equatable, Sendable, CustomStringConvertible {
    public let year: Int, month: Int, day: Int
    /// 0 for Monday … 6 for Sunday, as opening_hours lists the days.
    public let weekday: Int
    /// Minutes since local midnight.
    public let minute: Int
    /// Seconds since 1970-01-01 00:00 of the local wall clock (not UTC): what the fields above are read from.
    public let wallSeconds: Int64

    public init(wallSeconds: Int64) {
        self.wallSeconds = wallSeconds
        let days = wallSeconds >= 0 ? wallSeconds / 86_400 : (wallSeconds - 86_399) / 86_400
        minute = Int((wallSeconds - days * 86_400) / 60)
        // 1970-01-01 was a Thursday (3 with Monday 0).
        weekday = Int(((days % 7) + 7 + 3) % 7)
        (year, month, day) = Self.civil(fromDays: days)
    }

    /// The same wall clock `seconds` later.
    public func adding(seconds: Int64) -> LocalTime { LocalTime(wallSeconds: wallSeconds + seconds) }

    /// Year, month, day of a day count since 1970-01-01 (the proleptic Gregorian calendar).
    static func civil(fromDays days: Int64) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (Int(yearOfEra + era * 400 + (month <= 2 ? 1 : 0)), Int(month), Int(day))
    }

    /// Days since 1970-01-01 of a date (the inverse of `civil`).
    public static func days(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let m = Int64(month), d = Int64(day)
        let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    public var description: String {
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(year)-\(two(month))-\(two(day))T\(two(minute / 60)):\(two(minute % 60))"
    }
}

/// A time condition of OSM's conditional tags (`no_left_turn @ (Mo-Fr 07:00-09:00)`), in the part of the
/// opening_hours syntax that routing engines read: years, months and dates, weekdays, `PH`/`SH`, times (past midnight
/// too), `24/7`, `off`, rules after `;` that override earlier ones for their days, and rules after `,` or `||`
/// that add to them. Public and school holidays are not in the extract, so `PH` and `SH` never match.
public struct OpeningHours: Equatable, Sendable {
    struct DateRange: Equatable, Sendable {
        /// Month × 32 + day, inclusive; a range may wrap past the end of the year (`Dec 24-Jan 06`).
        var from: Int, to: Int
        func contains(_ month: Int, _ day: Int) -> Bool {
            let key = month * 32 + day
            return from <= to ? (from...to).contains(key) : key >= from || key <= to
        }
    }

    struct Rule: Equatable, Sendable {
        var years: ClosedRange<Int>?
        var dates: [DateRange] = []
        /// Bit d for weekday d (Monday 0); 0 when the rule names no weekday.
        var weekdays: UInt8 = 0
        /// Whether the rule names only holidays, which never match.
        var holidaysOnly = false
        /// Minutes from local midnight; `to` may pass 1440 (`22:00-06:00` is 1320…1800).
        var times: [Range<Int>] = []
        var off = false
        /// After `,` or `||`: adds to the earlier rules instead of replacing them for its days.
        var additional = false

        func matches(day t: LocalTime) -> Bool {
            if holidaysOnly { return false }
            if let years, !years.contains(t.year) { return false }
            if weekdays != 0 && weekdays & (1 << UInt8(t.weekday)) == 0 { return false }
            if !dates.isEmpty && !dates.contains(where: { $0.contains(t.month, t.day) }) { return false }
            return true
        }
    }

    let rules: [Rule]

    /// Parses a condition; nil for anything outside the subset above (a weight, `wet`, sunrise, week numbers).
    public init?(_ text: String) {
        var parser = Parser(text)
        guard let rules = parser.parse() else { return nil }
        self.rules = rules
    }

    /// Whether the condition holds at a local time.
    public func isActive(at t: LocalTime) -> Bool {
        var active = false
        for rule in rules {
            let today = rule.matches(day: t)
            let inTimes = rule.times.isEmpty || rule.times.contains { $0.contains(t.minute) }
            // A span past midnight belongs to the day it starts on.
            let spill = rule.times.contains { $0.upperBound > 1440 && (1440 + t.minute) < $0.upperBound }
                && rule.matches(day: t.adding(seconds: -86_400))
            if rule.off {
                if (today && inTimes) || spill { active = false }
            } else if rule.additional {
                if (today && inTimes) || spill { active = true }
            } else {
                if today { active = inTimes }
                if spill { active = true }
            }
        }
        return active
    }

    private struct Parser {
        enum Token: Equatable {
            case word(String), number(Int), time(Int), dash, comma, semicolon, fallback
        }
        var tokens: [Token] = []
        var position = 0
        var valid = true

        static let weekdays = ["Mo", "Tu", "We", "Th", "Fr", "Sa", "Su"]
        static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

        init(_ text: String) {
            var chars = Array(text.unicodeScalars)
            var i = 0
            if chars.first == "(" && chars.last == ")" { chars = Array(chars.dropFirst().dropLast()) }
            while i < chars.count {
                let c = chars[i]
                if c == " " || c == "\t" { i += 1; continue }
                if c == "\"" {  // a comment: "on school days"
                    guard let close = chars[(i + 1)...].firstIndex(of: "\"") else { valid = false; return }
                    i = close + 1
                    continue
                }
                if c == "-" { tokens.append(.dash); i += 1; continue }
                if c == "," { tokens.append(.comma); i += 1; continue }
                if c == ";" { tokens.append(.semicolon); i += 1; continue }
                if c == "|" && i + 1 < chars.count && chars[i + 1] == "|" { tokens.append(.fallback); i += 2; continue }
                if ("0"..."9").contains(c) {
                    var k = i
                    while k < chars.count && ("0"..."9").contains(chars[k]) { k += 1 }
                    guard let n = Int(String(String.UnicodeScalarView(chars[i..<k]))), k - i <= 4 else { valid = false; return }
                    if k < chars.count && chars[k] == ":" && k + 3 <= chars.count
                        && chars[(k + 1)...(k + 2)].allSatisfy({ ("0"..."9").contains($0) }) && k - i <= 2
                        && (k + 3 == chars.count || !("0"..."9").contains(chars[k + 3])) {
                        let minutes = Int(String(String.UnicodeScalarView(chars[(k + 1)...(k + 2)])))!
                        guard minutes < 60 else { valid = false; return }
                        tokens.append(.time(n * 60 + minutes))
                        i = k + 3
                    } else if k < chars.count && chars[k] == "/" {
                        // 24/7
                        guard n == 24, k + 1 < chars.count, chars[k + 1] == "7" else { valid = false; return }
                        tokens.append(.word("24/7"))
                        i = k + 2
                    } else {
                        tokens.append(.number(n))
                        i = k
                    }
                    continue
                }
                if c.properties.isAlphabetic {
                    var k = i
                    while k < chars.count && chars[k].properties.isAlphabetic { k += 1 }
                    tokens.append(.word(String(String.UnicodeScalarView(chars[i..<k]))))
                    i = k
                    continue
                }
                valid = false
                return
            }
        }

        var current: Token? { position < tokens.count ? tokens[position] : nil }
        func peek(_ offset: Int) -> Token? { position + offset < tokens.count ? tokens[position + offset] : nil }
        mutating func advance() { position += 1 }

        mutating func parse() -> [Rule]? {
            guard valid, !tokens.isEmpty else { return nil }
            var rules: [Rule] = []
            var additional = false
            while true {
                guard var rule = parseRule() else { return nil }
                rule.additional = additional
                rules.append(rule)
                switch current {
                case nil: return rules
                case .semicolon?: additional = false
                case .comma?, .fallback?: additional = true
                default: return nil
                }
                advance()
                if current == nil { return rules }  // a trailing separator
            }
        }

        func weekday(_ token: Token?) -> Int? {
            if case .word(let w)? = token { return Self.weekdays.firstIndex(of: w) }
            return nil
        }
        func month(_ token: Token?) -> Int? {
            if case .word(let w)? = token { return Self.months.firstIndex(of: w).map { $0 + 1 } }
            return nil
        }
        func isHoliday(_ token: Token?) -> Bool { token == .word("PH") || token == .word("SH") }

        mutating func parseRule() -> Rule? {
            var rule = Rule()
            var selected = false
            if current == .word("24/7") { advance(); selected = true }
            // Years: 2026, 2025-2027.
            if case .number(let first)? = current, first >= 1900 {
                advance()
                var last = first
                if current == .dash, case .number(let n)? = peek(1), n >= first { last = n; advance(); advance() }
                rule.years = first...last
                selected = true
            }
            // Dates: Jan, Jan-Mar, Dec 24-Jan 06, Mar 01-15.
            while month(current) != nil {
                guard let range = parseDateRange() else { return nil }
                rule.dates.append(range)
                selected = true
                if current == .comma, month(peek(1)) != nil { advance() } else { break }
            }
            // Weekdays and holidays: Mo-Fr, Sa,Su, PH.
            var holidays = false, days = false
            while weekday(current) != nil || isHoliday(current) {
                if isHoliday(current) {
                    holidays = true
                    advance()
                } else {
                    let first = weekday(current)!
                    advance()
                    var last = first
                    if current == .dash {
                        guard let end = weekday(peek(1)) else { return nil }
                        last = end
                        advance(); advance()
                    }
                    var d = first
                    while true {
                        rule.weekdays |= 1 << UInt8(d)
                        if d == last { break }
                        d = (d + 1) % 7
                    }
                    days = true
                }
                selected = true
                if current == .comma, weekday(peek(1)) != nil || isHoliday(peek(1)) { advance() } else { break }
            }
            rule.holidaysOnly = holidays && !days
            // Times: 07:00-09:00,16:00-18:00; 22:00-06:00 passes midnight.
            while case .time(let start)? = current {
                guard peek(1) == .dash, case .time(var end)? = peek(2) else { return nil }
                advance(); advance(); advance()
                guard start < 1440, end <= 48 * 60 else { return nil }
                if end <= start { end += 1440 }
                rule.times.append(start..<end)
                selected = true
                if current == .comma, case .time? = peek(1) { advance() } else { break }
            }
            if current == .word("off") || current == .word("closed") {
                rule.off = true
                advance()
                selected = true
            } else if current == .word("open") {
                advance()
                selected = true
            }
            return selected ? rule : nil
        }

        mutating func parseDateRange() -> DateRange? {
            guard let m1 = month(current) else { return nil }
            advance()
            var d1 = 1, explicitDay = false
            if case .number(let n)? = current { guard (1...31).contains(n) else { return nil }; d1 = n; explicitDay = true; advance() }
            guard current == .dash else {
                return DateRange(from: m1 * 32 + d1, to: m1 * 32 + (explicitDay ? d1 : 31))
            }
            if let m2 = month(peek(1)) {
                advance(); advance()
                var d2 = 31
                if case .number(let n)? = current { guard (1...31).contains(n) else { return nil }; d2 = n; advance() }
                return DateRange(from: m1 * 32 + d1, to: m2 * 32 + d2)
            }
            if explicitDay, case .number(let n)? = peek(1) {
                guard (1...31).contains(n) else { return nil }
                advance(); advance()
                return DateRange(from: m1 * 32 + d1, to: m1 * 32 + n)
            }
            return nil
        }
    }
}

/// One part of a conditional tag's value: `no @ (Mo-Fr 07:00-09:00)`.
public struct ConditionalValue: Equatable, Sendable {
    public var value: String
    /// The condition as written, without its parentheses.
    public var condition: String

    public init(value: String, condition: String) {
        self.value = value
        self.condition = condition
    }

    /// The parts of a `…:conditional` value (`a @ (x); b @ (y)`); nil where one has no `@`.
    public static func parse(_ text: String) -> [ConditionalValue]? {
        var parts: [String] = []
        var depth = 0, current = ""
        for c in text {
            if c == "(" { depth += 1 } else if c == ")" { depth -= 1 }
            if c == ";" && depth == 0 {
                parts.append(current)
                current = ""
            } else {
                current.append(c)
            }
        }
        parts.append(current)
        var result: [ConditionalValue] = []
        for part in parts where !part.allSatisfy(\.isWhitespace) {
            guard let at = part.firstIndex(of: "@") else { return nil }
            let value = part[..<at].trimmingCharacters(in: .whitespaces)
            var condition = part[part.index(after: at)...].trimmingCharacters(in: .whitespaces)
            if condition.hasPrefix("(") && condition.hasSuffix(")") { condition = String(condition.dropFirst().dropLast()) }
            condition = condition.trimmingCharacters(in: .whitespaces)
            guard !value.isEmpty, !condition.isEmpty else { return nil }
            result.append(ConditionalValue(value: value, condition: condition))
        }
        return result.isEmpty ? nil : result
    }
}
