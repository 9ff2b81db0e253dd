import Foundation
import Guidance
import RoadGraph
import Routing
import WayfinderProto

/// Route and Matrix messages of `proto/wayfinder.proto`, encoded by libprotobuf in the WayfinderProto target.
public enum ProtobufOutput {
    public struct EncodingError: Error, CustomStringConvertible {
        public var description: String { "protobuf encoding failed" }
    }

    /// Keeps C strings alive for the duration of one encoding call.
    final class CStrings {
        private var pointers: [UnsafeMutablePointer<CChar>] = []
        func make(_ s: String) -> UnsafePointer<CChar> {
            let p = strdup(s)!
            pointers.append(p)
            return UnsafePointer(p)
        }
        deinit { pointers.forEach { free($0) } }
    }

    static func take(_ call: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, UnsafeMutablePointer<Int>) -> Int32) throws -> [UInt8] {
        var buffer: UnsafeMutablePointer<UInt8>?
        var size = 0
        guard call(&buffer, &size) == 0, let buffer else { throw EncodingError() }
        defer { wf_pb_free(buffer) }
        return Array(UnsafeBufferPointer(start: buffer, count: size))
    }

    static func waypoint(_ snap: Snap, name: String, strings: CStrings) -> wf_pb_waypoint {
        wf_pb_waypoint(latitude: snap.location.latitude, longitude: snap.location.longitude, distance: snap.distance,
                       name: strings.make(name))
    }

    public static func route(_ guided: GuidedRoute, graph: RoadGraph) throws -> [UInt8] {
        let (route, directions) = (guided.route, guided.directions)
        let strings = CStrings()
        let waypoints = route.waypoints.enumerated().map { i, snap in
            waypoint(snap, name: directions.waypointNames[i], strings: strings)
        }
        let stepArrays: [[wf_pb_step]] = directions.legs.map { steps in
            steps.map { s in
                wf_pb_step(instruction: strings.make(s.instruction), type: strings.make(s.maneuver.type.rawValue),
                           modifier: strings.make(s.maneuver.modifier?.rawValue ?? ""), name: strings.make(s.name),
                           distance: s.distance, duration: s.duration, latitude: s.maneuver.location.latitude,
                           longitude: s.maneuver.location.longitude)
            }
        }
        return try withExtendedLifetime(stepArrays) {
            var legs: [wf_pb_leg] = []
            for (i, leg) in route.legs.enumerated() {
                stepArrays[i].withUnsafeBufferPointer { steps in
                    legs.append(wf_pb_leg(distance: leg.distance, duration: leg.duration, steps: steps.baseAddress,
                                          step_count: steps.count))
                }
            }
            let line = Polyline.encode(route.coordinates, precision: 6)
            return try take { out, size in
                wf_pb_encode_route(route.mode.rawValue, route.distance, route.duration, line, waypoints, waypoints.count,
                                   legs, legs.count, out, size)
            }
        }
    }

    /// A point with no road nearby is a waypoint at NaN, NaN with a NaN distance (its cells are NaN too).
    public static func matrixHeader(mode: TravelMode, sources: [Snap?], destinations: [Snap?], graph: RoadGraph) throws -> [UInt8] {
        let strings = CStrings()
        func point(_ snap: Snap?) -> wf_pb_waypoint {
            guard let snap else { return wf_pb_waypoint(latitude: .nan, longitude: .nan, distance: .nan, name: strings.make("")) }
            return waypoint(snap, name: graph.name(ofEdge: snap.edge), strings: strings)
        }
        let s = sources.map(point), d = destinations.map(point)
        return try take { out, size in
            wf_pb_encode_matrix_header(mode.rawValue, s, s.count, d, d.count, UInt32(destinations.count), out, size)
        }
    }

    /// Rows of cells; unreachable cells become NaN.
    public static func matrixRows(_ rows: [[TableCell?]]) throws -> [UInt8] {
        var durations: [Float] = [], distances: [Float] = []
        let cells = rows.reduce(0) { $0 + $1.count }
        durations.reserveCapacity(cells)
        distances.reserveCapacity(cells)
        for row in rows {
            for cell in row {
                durations.append(cell.map { Float(Double($0.duration) / 1000) } ?? .nan)
                distances.append(cell.map { Float($0.distance) } ?? .nan)
            }
        }
        return try take { out, size in wf_pb_encode_matrix_rows(durations, distances, durations.count, out, size) }
    }
}
