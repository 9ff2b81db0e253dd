import Foundation

/// One row of a segment speed file (OSRM's `--segment-speed-file`): the segment from one OSM node to the next,
/// in that direction, at `speed` km/h. Its weight, as OSRM 26.10 sets it (measured): the new time without a rate
/// column (the road's penalties are dropped), unchanged with an empty one, and the time at `rate` metres per second
/// with a rate.
public struct SegmentSpeed: Equatable, Sendable {
    public enum Weight: Equatable, Sendable {
        case time, unchanged
        case rate(Double)
    }
    public var from: Int64, to: Int64
    public var speed: Double
    public var weight: Weight
}

/// One row of a turn penalty file (OSRM's `--turn-penalty-file`): the turn from the segment `from` → `via` onto
/// `via` → `to` costs `penalty` seconds, and `weight` in the route choice when given.
public struct TurnPenalty: Equatable, Sendable {
    public var from: Int64, via: Int64, to: Int64
    public var penalty: Double
    public var weight: Double?
}

/// What is wrong with a traffic file: every bad row by its line (the first 20), so the whole file can be fixed at
/// once. Nothing of a file with a bad row is used.
public struct TrafficFileError: Error, CustomStringConvertible {
    public var path: String
    public var problems: [(line: Int, message: String)]
    public var count: Int

    public var description: String {
        var lines = problems.map { "\(path):\($0.line): \($0.message)" }
        if count > problems.count { lines.append("\(path): \(count - problems.count) more bad rows") }
        return lines.joined(separator: "\n")
    }
}

public enum TrafficFiles {
    static let reportedProblems = 20

    /// Reads a segment speed file: `from_osm_node,to_osm_node,speed_kmh[,rate[,…]]` per line. Later rows for the
    /// same segment replace earlier ones.
    public static func segmentSpeeds(path: String) throws -> [SegmentSpeed] {
        try segmentSpeeds(contents(path), name: path)
    }

    /// A segment speed file's bytes; `name` names it in errors.
    public static func segmentSpeeds(_ data: Data, name: String) throws -> [SegmentSpeed] {
        try rows(data, name: name, minimumFields: 3) { fields in
            guard let from = fields[0].int64, let to = fields[1].int64 else { return .failure("node ids must be whole numbers") }
            guard let speed = fields[2].double, speed.isFinite, speed >= 0, speed <= 1000 else {
                return .failure("speed '\(fields[2])' is not a number of km/h from 0 to 1000")
            }
            var weight = SegmentSpeed.Weight.time
            if fields.count > 3 {
                if fields[3].isEmpty {
                    weight = .unchanged
                } else {
                    guard let r = fields[3].double, r.isFinite, r <= 1000 else {
                        return .failure("rate '\(fields[3])' is not a number of metres per second up to 1000")
                    }
                    weight = .rate(r)
                }
            }
            return .success(SegmentSpeed(from: from, to: to, speed: speed, weight: weight))
        }
    }

    /// Reads a turn penalty file: `from_osm_node,via_osm_node,to_osm_node,penalty_s[,weight[,…]]` per line.
    public static func turnPenalties(path: String) throws -> [TurnPenalty] {
        try turnPenalties(contents(path), name: path)
    }

    /// A turn penalty file's bytes; `name` names it in errors.
    public static func turnPenalties(_ data: Data, name: String) throws -> [TurnPenalty] {
        try rows(data, name: name, minimumFields: 4) { fields in
            guard let from = fields[0].int64, let via = fields[1].int64, let to = fields[2].int64 else {
                return .failure("node ids must be whole numbers")
            }
            // Turn costs are bounded so sums of weights cannot overflow (see `RoadGraph.maxTurnWeight`).
            let limit = Double(600)
            guard let penalty = fields[3].double, penalty.isFinite, abs(penalty) <= limit else {
                return .failure("penalty '\(fields[3])' is not a number of seconds from -600 to 600")
            }
            var weight: Double?
            if fields.count > 4, !fields[4].isEmpty {
                guard let w = fields[4].double, w.isFinite, abs(w) <= limit else {
                    return .failure("weight '\(fields[4])' is not a number from -600 to 600")
                }
                weight = w
            }
            return .success(TurnPenalty(from: from, via: via, to: to, penalty: penalty, weight: weight))
        }
    }

    enum Row<T> { case success(T), failure(String) }

    static func contents(_ path: String) throws -> Data {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw TrafficFileError(path: path, problems: [(0, "cannot read the file")], count: 1)
        }
        return data
    }

    static func rows<T>(_ data: Data, name path: String, minimumFields: Int, _ parse: ([Field]) -> Row<T>) throws -> [T] {
        var result: [T] = []
        var problems: [(Int, String)] = []
        var bad = 0
        // Byte by byte: a city's file has tens of thousands of rows, a country's millions.
        let bytes = [UInt8](data)
        var lineNumber = 0
        var lineStart = 0
        var fields: [Field] = []
        while lineStart < bytes.count {
            lineNumber += 1
            var lineEnd = lineStart
            while lineEnd < bytes.count && bytes[lineEnd] != UInt8(ascii: "\n") { lineEnd += 1 }
            defer { lineStart = lineEnd + 1 }
            var end = lineEnd
            if end > lineStart && bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
            fields.removeAll(keepingCapacity: true)
            var fieldStart = lineStart
            for i in lineStart...end where i == end || bytes[i] == UInt8(ascii: ",") {
                fields.append(Field(bytes: bytes[fieldStart..<i]))
                fieldStart = i + 1
            }
            if fields.count == 1 && fields[0].isEmpty { continue }  // a blank line
            let row: Row<T> = fields.count < minimumFields
                ? .failure("expected at least \(minimumFields) comma-separated fields, found \(fields.count)")
                : parse(fields)
            switch row {
            case .success(let value): result.append(value)
            case .failure(let message):
                bad += 1
                if problems.count < reportedProblems { problems.append((lineNumber, message)) }
            }
        }
        if bad > 0 { throw TrafficFileError(path: path, problems: problems, count: bad) }
        return result
    }
}

/// One comma-separated field of a row, spaces and tabs around it left out.
struct Field: CustomStringConvertible {
    let bytes: ArraySlice<UInt8>

    init(bytes: ArraySlice<UInt8>) {
        var lo = bytes.startIndex, hi = bytes.endIndex
        func blank(_ b: UInt8) -> Bool { b == UInt8(ascii: " ") || b == UInt8(ascii: "\t") }
        while lo < hi && blank(bytes[lo]) { lo += 1 }
        while hi > lo && blank(bytes[hi - 1]) { hi -= 1 }
        self.bytes = bytes[lo..<hi]
    }

    var isEmpty: Bool { bytes.isEmpty }
    var description: String { String(decoding: bytes.prefix(40), as: UTF8.self) }

    /// A whole number (an OSM id): digits with an optional sign.
    var int64: Int64? {
        var i = bytes.startIndex
        var negative = false
        if i < bytes.endIndex && (bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+")) {
            negative = bytes[i] == UInt8(ascii: "-")
            i += 1
        }
        guard i < bytes.endIndex, bytes.endIndex - i <= 18 else { return nil }
        var value: Int64 = 0
        while i < bytes.endIndex {
            let digit = bytes[i] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            value = value * 10 + Int64(digit)
            i += 1
        }
        return negative ? -value : value
    }

    /// A number as Swift reads one (`12`, `4.5`, `4.1e1`).
    var double: Double? {
        if let whole = int64 { return Double(whole) }
        guard !bytes.isEmpty, bytes.count < 64 else { return nil }
        return Double(String(decoding: bytes, as: UTF8.self))
    }
}
