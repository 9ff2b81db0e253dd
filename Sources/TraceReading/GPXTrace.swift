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
        case tooManyPoints(String)
        public var description: String {
            switch self { case .notGPX(let why), .tooManyPoints(let why): return why }
        }
    }

    /// The points, at most `maxPoints` of them: a file with more is refused as soon as the reader meets one too
    /// many, so a huge file costs no more than the limit.
    public static func read(_ data: Data, maxPoints: Int = Int.max) throws -> [Point] {
        var gpx = wf_gpx()
        defer { wf_gpx_free(&gpx) }
        let status = data.withUnsafeBytes {
            wf_gpx_read($0.baseAddress?.assumingMemoryBound(to: CChar.self), $0.count, max(0, maxPoints), &gpx)
        }
        let error = withUnsafeBytes(of: gpx.error) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if status != 0 {
            if gpx.tooMany != 0 { throw Failure.tooManyPoints(error) }
            if error.hasPrefix("a point") || error.hasPrefix("a <time>") { throw Failure.notGPX(error) }
            throw Failure.notGPX("not a readable GPX file: \(error)")
        }
        guard gpx.sawGPX != 0 else { throw Failure.notGPX("not a GPX file (no <gpx> element)") }
        guard gpx.closedGPX != 0 else { throw Failure.notGPX("not a readable GPX file: it ends before </gpx> (truncated?)") }
        return (0..<gpx.count).map { k in
            let p = gpx.points[k]
            return Point(coordinate: Coordinate(latitude: p.latitude, longitude: p.longitude), time: p.hasTime != 0 ? p.time : nil)
        }
    }

    /// An ISO 8601 time as GPX writes it, in seconds since 1970 (see `wf_iso8601_seconds`): a few hundredths of
    /// a microsecond, where a date formatter took some 170 µs.
    public static func seconds(_ text: String) -> Double? {
        var text = text
        var seconds = 0.0
        let ok = text.withUTF8 { wf_iso8601_seconds(UnsafeRawPointer($0.baseAddress)?.assumingMemoryBound(to: CChar.self), $0.count, &seconds) }
        return ok != 0 ? seconds : nil
    }

    /// Whether `data` looks like XML rather than CSV: its first character, after a byte-order mark (UTF-8 or
    /// UTF-16) and white space, is `<`; UTF-16 without a mark is recognised by its zero bytes.
    public static func looksLikeXML(_ data: Data) -> Bool {
        let head = [UInt8](data.prefix(4096))
        if head.starts(with: [0xFE, 0xFF]) || head.starts(with: [0xFF, 0xFE]) { return true }
        if head.count >= 2 && ((head[0] == 0x3C && head[1] == 0) || (head[0] == 0 && head[1] == 0x3C)) { return true }
        let body = head.starts(with: [0xEF, 0xBB, 0xBF]) ? head.dropFirst(3) : head[...]
        return body.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) } == 0x3C
    }
}
