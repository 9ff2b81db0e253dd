import Foundation
import GPXReader
import RoadGraph

/// The track points of a GPX 1.1 (or 1.0) file, in order: `trkpt` (and `rtept`/`wpt` when there is no track),
/// with their `time` where given.
public enum GPXTrace {
    public struct Point: Sendable {
        public var coordinate: Coordinate
        /// Seconds since 1970.
        public var time: Double?

        public init(coordinate: Coordinate, time: Double?) {
            self.coordinate = coordinate
            self.time = time
        }
    }

    public enum Failure: Error, CustomStringConvertible {
        case notGPX(String)
        public var description: String { switch self { case .notGPX(let why): return why } }
    }

    public static func read(_ data: Data) throws -> [Point] {
        var gpx = wf_gpx()
        defer { wf_gpx_free(&gpx) }
        let status = data.withUnsafeBytes { wf_gpx_read($0.baseAddress?.assumingMemoryBound(to: CChar.self), $0.count, &gpx) }
        let error = withUnsafeBytes(of: gpx.error) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if status != 0 {
            if error.hasPrefix("a point") { throw Failure.notGPX(error) }
            throw Failure.notGPX("not a readable GPX file: \(error)")
        }
        guard gpx.sawGPX != 0 else { throw Failure.notGPX("not a GPX file (no <gpx> element)") }
        guard gpx.closedGPX != 0 else { throw Failure.notGPX("not a readable GPX file: it ends before </gpx> (truncated?)") }
        var track: [Point] = [], others: [Point] = []
        for k in 0..<gpx.count {
            let p = gpx.points[k]
            var time: Double?
            if p.time >= 0 {
                let text = String(cString: gpx.text + Int(p.time)).trimmingCharacters(in: .whitespacesAndNewlines)
                guard let seconds = seconds(text) else { throw Failure.notGPX("a <time> is not an ISO 8601 time: '\(text)'") }
                time = seconds
            }
            let point = Point(coordinate: Coordinate(latitude: p.latitude, longitude: p.longitude), time: time)
            if p.kind == 0 { track.append(point) } else { others.append(point) }
        }
        return track.isEmpty ? others : track
    }

    /// ISO 8601 with or without fractional seconds.
    static func seconds(_ text: String) -> Double? {
        let plain = ISO8601DateFormatter()
        if let date = plain.date(from: text) { return date.timeIntervalSince1970 }
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return fractional.date(from: text)?.timeIntervalSince1970
    }
}
