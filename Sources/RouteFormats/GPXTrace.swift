import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
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
        let reader = Reader()
        let parser = XMLParser(data: data)
        parser.delegate = reader
        parser.shouldResolveExternalEntities = false
        guard parser.parse() else {
            throw Failure.notGPX("not a readable GPX file: \(parser.parserError.map { "\($0.localizedDescription)" } ?? "XML error") at line \(parser.lineNumber)")
        }
        if let problem = reader.problem { throw Failure.notGPX(problem) }
        guard reader.sawGPX else { throw Failure.notGPX("not a GPX file (no <gpx> element)") }
        // The parser forgives a file cut short; a trace that ends mid-way is not one to match.
        guard reader.closedGPX else { throw Failure.notGPX("not a readable GPX file: it ends before </gpx> (truncated?)") }
        return reader.track.isEmpty ? reader.others : reader.track
    }

    final class Reader: NSObject, XMLParserDelegate {
        var track: [Point] = [], others: [Point] = []
        var sawGPX = false, closedGPX = false
        var problem: String?
        private var current: (point: Point, isTrack: Bool)?
        private var text = ""
        private var inTime = false

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            let local = name.split(separator: ":").last.map(String.init) ?? name
            switch local {
            case "gpx": sawGPX = true
            case "trkpt", "rtept", "wpt":
                guard let lat = attributes["lat"].flatMap(Double.init), let lon = attributes["lon"].flatMap(Double.init),
                      lat.isFinite, lon.isFinite, abs(lat) <= 90, abs(lon) <= 180 else {
                    problem = problem ?? "a <\(local)> at line \(parser.lineNumber) has no valid lat and lon"
                    return
                }
                current = (Point(coordinate: Coordinate(latitude: lat, longitude: lon), time: nil), local == "trkpt")
            case "time" where current != nil: inTime = true; text = ""
            default: break
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { if inTime { text += string } }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            let local = name.split(separator: ":").last.map(String.init) ?? name
            switch local {
            case "time" where inTime:
                inTime = false
                guard let seconds = GPXTrace.seconds(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                    problem = problem ?? "a <time> at line \(parser.lineNumber) is not an ISO 8601 time: '\(text)'"
                    return
                }
                current?.point.time = seconds
            case "gpx": closedGPX = true
            case "trkpt", "rtept", "wpt":
                if let c = current { if c.isTrack { track.append(c.point) } else { others.append(c.point) } }
                current = nil
            default: break
            }
        }
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
