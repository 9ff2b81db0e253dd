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
public struct TrafficFileError: Error, CustomStringConvertible, Equatable {
    public var path: String
    public var problems: [(line: Int, message: String)]
    public var count: Int

    public static func == (a: Self, b: Self) -> Bool {
        a.path == b.path && a.count == b.count && a.problems.map(\.line) == b.problems.map(\.line)
    }

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
        try rows(path: path, minimumFields: 3) { fields in
            guard let from = Int64(fields[0]), let to = Int64(fields[1]) else { return .failure("node ids must be whole numbers") }
            guard let speed = Double(fields[2]), speed.isFinite, speed >= 0, speed <= 1000 else {
                return .failure("speed '\(fields[2])' is not a number of km/h from 0 to 1000")
            }
            var weight = SegmentSpeed.Weight.time
            if fields.count > 3 {
                if fields[3].isEmpty {
                    weight = .unchanged
                } else {
                    guard let r = Double(fields[3]), r.isFinite, r <= 1000 else {
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
        try rows(path: path, minimumFields: 4) { fields in
            guard let from = Int64(fields[0]), let via = Int64(fields[1]), let to = Int64(fields[2]) else {
                return .failure("node ids must be whole numbers")
            }
            // Turn costs are bounded so sums of weights cannot overflow (see `RoadGraph.maxTurnWeight`).
            let limit = Double(600)
            guard let penalty = Double(fields[3]), penalty.isFinite, abs(penalty) <= limit else {
                return .failure("penalty '\(fields[3])' is not a number of seconds from -600 to 600")
            }
            var weight: Double?
            if fields.count > 4, !fields[4].isEmpty {
                guard let w = Double(fields[4]), w.isFinite, abs(w) <= limit else {
                    return .failure("weight '\(fields[4])' is not a number from -600 to 600")
                }
                weight = w
            }
            return .success(TurnPenalty(from: from, via: via, to: to, penalty: penalty, weight: weight))
        }
    }

    enum Row<T> { case success(T), failure(String) }

    static func rows<T>(path: String, minimumFields: Int, _ parse: ([Substring]) -> Row<T>) throws -> [T] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw TrafficFileError(path: path, problems: [(0, "cannot read the file")], count: 1)
        }
        var result: [T] = []
        var problems: [(Int, String)] = []
        var bad = 0
        var lineNumber = 0
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            let text = line.hasSuffix("\r") ? line.dropLast() : line
            if text.allSatisfy({ $0 == " " || $0 == "\t" }) { continue }
            let fields = text.split(separator: ",", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)[...]
            }
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
