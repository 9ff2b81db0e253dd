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

    /// Exact powers of ten for the decimals the formats use (`pow` was a call per number).
    private static let scales: [Double] = [1, 10, 100, 1000, 10_000, 100_000, 1_000_000]

    static func rounded(_ value: Double, decimals: Int) -> Double {
        let scale = decimals >= 0 && decimals < scales.count ? scales[decimals] : pow(10, Double(decimals))
        return (value * scale).rounded() / scale
    }

    public func serialized() -> String { String(decoding: bytes(), as: UTF8.self) }

    /// The UTF-8 text, written straight into bytes (a route with steps is a few thousand values: appending to a
    /// String and formatting each number through `description` was a seventh of a route request).
    public func bytes() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(4096)
        write(to: &out)
        return out
    }

    private func write(to out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let n): JSON.append(n, to: &out)
        case .string(let s): JSON.append(s, to: &out)
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
                JSON.append(key, to: &out)
                out.append(UInt8(ascii: ":"))
                value.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        case .fragment(let text): out.append(contentsOf: text)
        }
    }

    /// `format(n)`'s text, without making a String: whole numbers and numbers of up to six decimals (what the
    /// formats round to) digit by digit, which is the same shortest text (below 10⁹, six decimals are at most 15
    /// significant digits, so no shorter decimal reads back as the same number); anything else as `description`.
    static func append(_ n: Double, to out: inout [UInt8]) {
        guard n.isFinite else { out.append(contentsOf: "null".utf8); return }
        let magnitude = abs(n)
        if magnitude < 1e9 {
            let scaled = (magnitude * 1_000_000).rounded()
            if scaled / 1_000_000 == magnitude {
                var units = UInt64(scaled)
                if n < 0 && units != 0 { out.append(UInt8(ascii: "-")) }
                var fraction = units % 1_000_000
                units /= 1_000_000
                appendDigits(units, to: &out)
                if fraction != 0 {
                    var decimals = 6
                    while fraction % 10 == 0 { fraction /= 10; decimals -= 1 }
                    out.append(UInt8(ascii: "."))
                    appendDigits(fraction, width: decimals, to: &out)
                }
                return
            }
        }
        out.append(contentsOf: format(n).utf8)
    }

    /// `value` in decimal, zero-padded to `width` digits (at most 20), written from a buffer on the stack.
    static func appendDigits(_ value: UInt64, width: Int = 1, to out: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { buffer in
            var k = 24
            var v = value
            repeat {
                k -= 1
                buffer[k] = UInt8(ascii: "0") + UInt8(v % 10)
                v /= 10
            } while v > 0
            while 24 - k < min(width, 24) { k -= 1; buffer[k] = UInt8(ascii: "0") }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[k..<24]))
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    static func append(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { bytes in
            // Runs that need no escaping are copied whole; polylines are full of backslashes, names are not.
            var run = 0
            for i in 0..<bytes.count {
                let b = bytes[i]
                if b >= 0x20 && b != UInt8(ascii: "\"") && b != UInt8(ascii: "\\") { continue }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<i]))
                run = i + 1
                switch b {
                case UInt8(ascii: "\""): out.append(UInt8(ascii: "\\")); out.append(b)
                case UInt8(ascii: "\\"): out.append(b); out.append(b)
                case UInt8(ascii: "\n"): out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "n"))
                case UInt8(ascii: "\r"): out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "r"))
                case UInt8(ascii: "\t"): out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "t"))
                default:
                    out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                            hexDigits[Int(b >> 4)], hexDigits[Int(b & 15)]])
                }
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<bytes.count]))
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Integers without a fraction; others in Swift's shortest round-trip form (valid JSON, exponent included).
    public static func format(_ n: Double) -> String {
        guard n.isFinite else { return "null" }
        if n == n.rounded(), abs(n) < 1e15 { return String(Int64(n)) }
        return n.description
    }
}

/// Writes JSON text straight into bytes, for the parts of an answer that are too many values to build as a tree
/// first (a route's steps: building their `JSON` values and freeing them again was a fifth of a request). Writes
/// exactly what the same values serialised through `JSON` would.
public struct JSONWriter {
    public private(set) var bytes: [UInt8] = []
    /// Nothing written yet in the innermost object or array (no comma before the next member).
    private var first = true

    public init(capacity: Int = 4096) { bytes.reserveCapacity(capacity) }

    private mutating func separate() {
        if !first { bytes.append(UInt8(ascii: ",")) }
        first = false
    }

    public mutating func beginObject() { separate(); bytes.append(UInt8(ascii: "{")); first = true }
    public mutating func endObject() { bytes.append(UInt8(ascii: "}")); first = false }
    public mutating func beginArray() { separate(); bytes.append(UInt8(ascii: "[")); first = true }
    public mutating func endArray() { bytes.append(UInt8(ascii: "]")); first = false }

    /// An object member's key; its value comes next.
    public mutating func key(_ key: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        key.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        first = true
    }

    public mutating func string(_ value: String) { separate(); JSON.append(value, to: &bytes) }
    public mutating func number(_ value: Double) { separate(); JSON.append(value, to: &bytes) }
    /// What `number(Double(value))` writes, without the detour through a Double.
    public mutating func number(_ value: Int) {
        separate()
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        JSON.appendDigits(UInt64(value.magnitude), to: &bytes)
    }
    /// Rounded as `JSON.number(_:decimals:)` rounds.
    public mutating func number(_ value: Double, decimals: Int) { number(JSON.rounded(value, decimals: decimals)) }
    /// A line as an encoded polyline string.
    mutating func polyline(_ coordinates: [Coordinate], precision: Int) {
        separate()
        Polyline.appendJSON(coordinates, precision: precision, to: &bytes)
    }

    public mutating func bool(_ value: Bool) { separate(); bytes.append(contentsOf: (value ? "true" : "false").utf8) }
}
