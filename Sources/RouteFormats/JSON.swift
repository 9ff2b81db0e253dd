import Foundation
import RoadGraph

/// A JSON value with ordered object keys (stable, readable output; Foundation's serializer reorders keys).
public enum JSON: Equatable, Sendable {  // not indirect: arrays box the nesting already
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSON])
    case object([(String, JSON)])
    /// A value already written as JSON text (by a `JSONWriter`), copied into the output as it is.
    case fragment([UInt8])

    public static func == (a: JSON, b: JSON) -> Bool { a.serialized() == b.serialized() }

    /// A number rounded to `decimals` places (OSRM prints distances and durations with one decimal).
    public static func number(_ value: Double, decimals: Int) -> JSON {
        .number(rounded(value, decimals: decimals))
    }

    /// The exact power of ten for the decimals the formats use, 0 to 6, without a call to `pow` or a lazy global's
    /// check per number; nil for others.
    @inline(__always) static func scale(decimals: Int) -> Double? {
        switch decimals {
        case 0: 1
        case 1: 10
        case 2: 100
        case 3: 1_000
        case 4: 10_000
        case 5: 100_000
        case 6: 1_000_000
        default: nil
        }
    }

    static func rounded(_ value: Double, decimals: Int) -> Double {
        let scale = scale(decimals: decimals) ?? pow(10, Double(decimals))
        return (value * scale).rounded() / scale
    }

    public func serialized() -> String { String(decoding: bytes(), as: UTF8.self) }

    /// The UTF-8 text, written straight into bytes: a route with steps is a few thousand values, too many to append
    /// to a String and format through `description`.
    public func bytes() -> [UInt8] {
        // A route with steps is tens of kilobytes: room for one at once, not four doublings and their copies.
        var out = JSONText(capacity: 64 * 1024)
        write(to: &out)
        return out.bytes()
    }

    func write(to out: inout JSONText) {
        switch self {
        case .null: out.append("null")
        case .bool(let b): out.append(b ? "true" : "false")
        case .number(let n): out.append(number: n)
        case .string(let s): out.append(string: s)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                item.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (i, (key, value)) in members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                out.append(string: key)
                out.append(UInt8(ascii: ":"))
                value.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        case .fragment(let text): text.withUnsafeBufferPointer { out.append($0) }
        }
    }

    /// Integers without a fraction; others in Swift's shortest round-trip form (valid JSON, exponent included).
    public static func format(_ n: Double) -> String {
        guard n.isFinite else { return "null" }
        if n == n.rounded(), abs(n) < 1e15 { return String(Int64(n)) }
        return n.description
    }
}

/// JSON text as it is written: a growable buffer of its own, because appending to an Array checks its uniqueness
/// and capacity byte by byte. Numbers and strings are written as `JSON` serialises them: this is where it does.
struct JSONText: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var count = 0
    private var capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 64)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    consuming func bytes() -> [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }

    @inline(__always) private mutating func reserve(_ n: Int) {
        if count + n > capacity { grow(to: count + n) }
    }

    private mutating func grow(to needed: Int) {
        let larger = max(needed, capacity * 2)
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
        moved.moveInitialize(from: base, count: count)
        base.deallocate()
        base = moved
        capacity = larger
    }

    mutating func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count)
        (base + count).initialize(from: source, count: bytes.count)
        count += bytes.count
    }

    /// Up to `n` bytes written straight through a pointer by `body`, which returns how many it wrote: one capacity
    /// check for a run of bytes whose length is bounded in advance.
    @inline(__always) mutating func append(atMost n: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        reserve(n)
        count += body(base + count)
    }

    /// Text as it is, unescaped (keys, literals, numbers' text).
    mutating func append(_ text: StaticString) {
        append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    mutating func append(raw text: String) {
        var text = text
        text.withUTF8 { append($0) }
    }

    /// `JSON.format(n)`'s text, without making a String: whole numbers and numbers of up to six decimals (what
    /// the formats round to) digit by digit, which is the same shortest text (below 10⁹, six decimals are at most
    /// 15 significant digits, so no shorter decimal reads back as the same number); anything else as
    /// `description`.
    mutating func append(number n: Double) {
        guard n.isFinite else { append("null"); return }
        let magnitude = abs(n)
        if magnitude < 1e9 && (magnitude * 1_000_000).rounded() / 1_000_000 == magnitude {
            // Six decimals hold it exactly: rounding to them changes nothing.
            append(number: n, decimals: 6)
            return
        }
        append(raw: JSON.format(n))
    }

    /// What `append(number: JSON.rounded(value, decimals: decimals))` writes, from the rounded integer itself:
    /// below 10⁹ that text is its digits with the point put back and the fraction's trailing zeros dropped. One
    /// pass right to left, two digits at a time (rounding twice, dividing and writing the two parts separately
    /// took some 300 instructions a number, and a route's steps have thousands).
    mutating func append(number value: Double, decimals: Int) {
        guard let scale = JSON.scale(decimals: decimals) else { append(number: JSON.rounded(value, decimals: decimals)); return }
        let scaled = (value * scale).rounded()
        let rounded = scaled / scale
        guard rounded.isFinite && abs(rounded) < 1e9 else { append(number: rounded); return }
        var m = UInt64(abs(scaled))  // below 10¹⁵
        let negative = scaled < 0 && m != 0
        // At least one digit before the point.
        var digits = 1, limit: UInt64 = 10
        while m >= limit { digits += 1; limit &*= 10 }
        digits = max(digits, decimals + 1)
        reserve(digits + 2)
        var p = base + count
        if negative { p.pointee = UInt8(ascii: "-"); p += 1 }
        // The digits go to p[1...digits], zero-padded on the left; the whole part then moves left onto p[0...].
        var i = digits
        while i >= 2 {
            let pair = Int(m % 100) * 2
            m /= 100
            p[i - 1] = Self.digitPairs.utf8Start[pair]
            p[i] = Self.digitPairs.utf8Start[pair + 1]
            i -= 2
        }
        if i == 1 { p[1] = UInt8(ascii: "0") + UInt8(m) }
        let whole = digits - decimals
        var fraction = decimals
        while fraction > 0 && p[whole + fraction] == UInt8(ascii: "0") { fraction -= 1 }
        for k in 0..<whole { p[k] = p[k + 1] }
        var length = whole
        if fraction > 0 {
            p[whole] = UInt8(ascii: ".")
            length += 1 + fraction
        }
        count = p - base + length
    }

    /// `value` in decimal, zero-padded to `width` digits (at most 20), written in place: its length counted up
    /// (most values are a few digits), then two digits at a time from a table, not a division per digit.
    mutating func append(digits value: UInt64, width: Int = 1) {
        var digits = 1, limit: UInt64 = 10
        while digits < 20 && value >= limit { digits += 1; limit &*= 10 }
        let length = max(digits, min(width, 20))
        reserve(length)
        var v = value
        var k = count + length
        while v >= 100 {
            let pair = Int(v % 100) * 2
            v /= 100
            k -= 2
            base[k] = Self.digitPairs.utf8Start[pair]
            base[k + 1] = Self.digitPairs.utf8Start[pair + 1]
        }
        if v >= 10 {
            k -= 2
            base[k] = Self.digitPairs.utf8Start[Int(v) * 2]
            base[k + 1] = Self.digitPairs.utf8Start[Int(v) * 2 + 1]
        } else {
            k -= 1
            base[k] = UInt8(ascii: "0") + UInt8(v)
        }
        while k > count {
            k -= 1
            base[k] = UInt8(ascii: "0")
        }
        count += length
    }

    private static let digitPairs: StaticString = """
        0001020304050607080910111213141516171819202122232425262728293031323334353637383940414243444546474849\
        5051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899
        """

    /// `"key":`, the key as it is (plain ASCII).
    mutating func append(key: StaticString) {
        let n = key.utf8CodeUnitCount
        reserve(n + 3)
        base[count] = UInt8(ascii: "\"")
        (base + count + 1).initialize(from: key.utf8Start, count: n)
        base[count + n + 1] = UInt8(ascii: "\"")
        base[count + n + 2] = UInt8(ascii: ":")
        count += n + 3
    }

    private static let hexDigits: StaticString = "0123456789abcdef"

    /// A string in quotes, escaped.
    mutating func append(string s: String) {
        append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { bytes in
            // Runs that need no escaping are copied whole; polylines are full of backslashes, names are not.
            var run = 0
            for i in 0..<bytes.count {
                let b = bytes[i]
                if b >= 0x20 && b != UInt8(ascii: "\"") && b != UInt8(ascii: "\\") { continue }
                append(UnsafeBufferPointer(rebasing: bytes[run..<i]))
                run = i + 1
                switch b {
                case UInt8(ascii: "\""): append(UInt8(ascii: "\\")); append(b)
                case UInt8(ascii: "\\"): append(b); append(b)
                case UInt8(ascii: "\n"): append("\\n")
                case UInt8(ascii: "\r"): append("\\r")
                case UInt8(ascii: "\t"): append("\\t")
                default:
                    append("\\u00")
                    append(Self.hexDigits.utf8Start[Int(b >> 4)])
                    append(Self.hexDigits.utf8Start[Int(b & 15)])
                }
            }
            append(UnsafeBufferPointer(rebasing: bytes[run..<bytes.count]))
        }
        append(UInt8(ascii: "\""))
    }
}

/// Writes JSON text straight into bytes, for the parts of an answer that are too many values to build as a tree
/// first and free again (a route's steps, a table's cells). Writes exactly what the same values serialised
/// through `JSON` would.
public struct JSONWriter: ~Copyable {
    private var text: JSONText
    /// Nothing written yet in the innermost object or array (no comma before the next member).
    private var first = true

    public init(capacity: Int = 4096) { text = JSONText(capacity: capacity) }

    /// A writer that goes on from text written before it (a streamed answer's next block): `afterValue` says
    /// whether a value came before in the innermost object or array, so that the next one needs a comma.
    init(capacity: Int, afterValue: Bool) {
        text = JSONText(capacity: capacity)
        first = !afterValue
    }

    /// The text written.
    public consuming func bytes() -> [UInt8] { text.bytes() }

    private mutating func separate() {
        if !first { text.append(UInt8(ascii: ",")) }
        first = false
    }

    public mutating func beginObject() { separate(); text.append(UInt8(ascii: "{")); first = true }
    public mutating func endObject() { text.append(UInt8(ascii: "}")); first = false }
    public mutating func beginArray() { separate(); text.append(UInt8(ascii: "[")); first = true }
    public mutating func endArray() { text.append(UInt8(ascii: "]")); first = false }

    /// An object member's key (plain ASCII, nothing to escape); its value comes next.
    public mutating func key(_ key: StaticString) {
        separate()
        text.append(key: key)
        first = true
    }

    public mutating func string(_ value: String) { separate(); text.append(string: value) }
    public mutating func number(_ value: Double) { separate(); text.append(number: value) }
    /// What `number(Double(value))` writes, without the detour through a Double.
    public mutating func number(_ value: Int) {
        separate()
        if value < 0 { text.append(UInt8(ascii: "-")) }
        text.append(digits: UInt64(value.magnitude))
    }
    /// Rounded as `JSON.number(_:decimals:)` rounds.
    public mutating func number(_ value: Double, decimals: Int) { separate(); text.append(number: value, decimals: decimals) }
    public mutating func bool(_ value: Bool) { separate(); text.append(value ? "true" : "false") }
    public mutating func null() { separate(); text.append("null") }
    /// A value built as a tree.
    public mutating func value(_ json: JSON) { separate(); json.write(to: &text) }

    /// A line as an encoded polyline string.
    mutating func polyline(_ coordinates: [Coordinate], precision: Int) {
        separate()
        Polyline.appendJSON(coordinates, precision: precision, to: &text)
    }
}
