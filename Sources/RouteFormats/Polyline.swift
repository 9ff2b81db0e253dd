import RoadGraph

/// Google's encoded polyline format: precision 5 by default, 6 for OSRM's `polyline6`.
public enum Polyline {
    public static func encode(_ coordinates: [Coordinate], precision: Int = 5) -> String {
        var text = JSONText(capacity: coordinates.count * 8)
        encode(coordinates, precision: precision, forJSON: false, to: &text)
        return String(decoding: text.bytes(), as: UTF8.self)
    }

    /// The polyline as a JSON string, quotes included, appended to `output`: the same text as the encoded String
    /// written through `JSON`, without making the String. Of JSON's special characters a polyline can hold only
    /// the backslash.
    static func appendJSON(_ coordinates: [Coordinate], precision: Int, to output: inout JSONText) {
        output.append(UInt8(ascii: "\""))
        encode(coordinates, precision: precision, forJSON: true, to: &output)
        output.append(UInt8(ascii: "\""))
    }

    private static func encode(_ coordinates: [Coordinate], precision: Int, forJSON: Bool, to output: inout JSONText) {
        let factor = precision == 6 ? 1e6 : 1e5
        // A value takes at most 13 characters (a 64-bit delta in 5-bit groups), doubled where a backslash is
        // escaped: room for every point is made once, and the characters are written without a check each.
        let perValue = forJSON ? 26 : 13
        output.append(atMost: coordinates.count * 2 * perValue) { start in
            var end = start
            var previousLatitude = 0, previousLongitude = 0
            coordinates.withUnsafeBufferPointer { points in
                for k in points.indices {
                    let latitude = roundedToInt(points[k].latitude * factor)
                    let longitude = roundedToInt(points[k].longitude * factor)
                    write(latitude &- previousLatitude, forJSON: forJSON, at: &end)
                    write(longitude &- previousLongitude, forJSON: forJSON, at: &end)
                    previousLatitude = latitude
                    previousLongitude = longitude
                }
            }
            return end - start
        }
    }

    /// `Int(x.rounded())`, halves away from zero, without the C library's `round` (a call per value, as much as
    /// the rest of the encoding): truncate, then step by the fraction, which `x - trunc(x)` gives exactly.
    @inline(__always)
    static func roundedToInt(_ x: Double) -> Int {
        let whole = Int(x)
        let fraction = x - Double(whole)
        return fraction >= 0.5 ? whole + 1 : fraction <= -0.5 ? whole - 1 : whole
    }

    @inline(__always)
    private static func write(_ delta: Int, forJSON: Bool, at end: inout UnsafeMutablePointer<UInt8>) {
        var value = UInt(bitPattern: delta < 0 ? ~(delta << 1) : delta << 1)
        while true {
            let byte = UInt8(truncatingIfNeeded: value >= 0x20 ? (0x20 | (value & 0x1f)) + 63 : value + 63)
            if forJSON && byte == UInt8(ascii: "\\") { end.pointee = byte; end += 1 }
            end.pointee = byte
            end += 1
            guard value >= 0x20 else { return }
            value >>= 5
        }
    }

    /// Decodes a polyline; nil for malformed input.
    public static func decode(_ text: String, precision: Int = 5) -> [Coordinate]? {
        let factor = precision == 6 ? 1e6 : 1e5
        let bytes = Array(text.utf8)
        var index = 0
        var latitude = 0, longitude = 0
        var result: [Coordinate] = []
        func next() -> Int? {
            var shift = 0, value = 0
            while true {
                guard index < bytes.count, shift < 60 else { return nil }
                let byte = Int(bytes[index]) - 63
                index += 1
                guard byte >= 0 else { return nil }
                value |= (byte & 0x1f) << shift
                shift += 5
                if byte < 0x20 { break }
            }
            return value & 1 == 1 ? ~(value >> 1) : value >> 1
        }
        while index < bytes.count {
            guard let dLat = next(), let dLon = next() else { return nil }
            latitude += dLat
            longitude += dLon
            result.append(Coordinate(latitude: Double(latitude) / factor, longitude: Double(longitude) / factor))
        }
        return result
    }
}
