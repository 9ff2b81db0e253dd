import Foundation
import Guidance
import RoadGraph
import RouteFormats
import Routing

/// A route as a moving client follows it: one line from start to end, each point's distance and time along it, and
/// the steps with their announcements and banners placed on that line. Made from a route just computed, or read
/// back from the OSRM JSON (with Mapbox Directions' extensions) a client got earlier.
public struct NavigationRoute: Sendable {
    /// One step, where it lies on the line.
    public struct Step: Sendable {
        public var leg: Int
        /// Index within its leg.
        public var index: Int
        public var start: Double, end: Double
        public var startTime: Double, endTime: Double
        public var maneuverType: String
        public var modifier: String?
        public var instruction: String
        public var voice: [VoiceInstruction]
        public var banners: [BannerInstruction]
    }

    public private(set) var points: [Coordinate] = []
    /// Distance and time along the line at each point.
    public private(set) var distances: [Double] = []
    public private(set) var times: [Double] = []
    public private(set) var steps: [Step] = []
    /// Where each leg ends (metres along the line), and its waypoint.
    public private(set) var legEnds: [Double] = []
    public private(set) var waypoints: [Coordinate] = []
    /// The waypoints' places on the graph, for a route computed in this process (empty for one read from JSON): a
    /// reroute to the waypoints ahead need not look for them again, and keeps the approach they were found with.
    public private(set) var waypointPlaces: [Snap] = []

    public var length: Double { distances.last ?? 0 }
    public var duration: Double { times.last ?? 0 }

    /// A route computed in this process.
    public init(_ guided: GuidedRoute) {
        waypoints = guided.route.waypoints.map(\.location)
        for (l, legSteps) in guided.directions.legs.enumerated() {
            append(leg: l, legSteps.map {
                RawStep(geometry: $0.coordinates, distance: $0.distance, duration: $0.duration, type: $0.maneuver.type.rawValue,
                        modifier: $0.maneuver.type == .arrive ? $0.arrivalSide?.rawValue : $0.maneuver.modifier?.rawValue,
                        instruction: $0.instruction, voice: $0.voiceInstructions, banners: $0.bannerInstructions)
            })
        }
        if waypoints.count != legEnds.count + 1 { waypoints = [points.first ?? Coordinate(latitude: 0, longitude: 0)] + legEndPoints }
        else { waypointPlaces = guided.route.waypoints }
    }

    public enum ReadError: Error, CustomStringConvertible {
        case invalid(String)
        public var description: String {
            switch self { case .invalid(let why): why }
        }
    }

    /// The longest a route read from JSON may last, seconds (about four months).
    public static let longestDuration = 1e7

    /// A route object of an OSRM v5 answer (`routes[i]`), with steps; `geometries` as the request asked.
    public init(json route: [String: Any], geometries: GeometryEncoding) throws {
        guard let legs = route["legs"] as? [[String: Any]], !legs.isEmpty else { throw ReadError.invalid("the route has no legs") }
        for (l, leg) in legs.enumerated() {
            guard let steps = leg["steps"] as? [[String: Any]], steps.count >= 2 else {
                throw ReadError.invalid("leg \(l) has no steps: ask for the route with steps=true")
            }
            append(leg: l, try steps.enumerated().map { k, step in try Self.rawStep(step, geometries, where: "leg \(l) step \(k)") })
        }
        // A client's numbers, summed: a reroute moves a departure time on by them, in whole seconds.
        guard duration <= Self.longestDuration else {
            throw ReadError.invalid("the route lasts more than \(Int(Self.longestDuration)) s: its steps' durations are not a route's")
        }
        waypoints = [points[0]] + legEndPoints
    }

    // MARK: Building

    private struct RawStep {
        var geometry: [Coordinate]
        var distance: Double, duration: Double
        var type: String, modifier: String?, instruction: String
        var voice: [VoiceInstruction], banners: [BannerInstruction]
    }

    private var legEndPoints: [Coordinate] = []

    private mutating func append(leg: Int, _ raw: [RawStep]) {
        for (k, step) in raw.enumerated() {
            let start = distances.last ?? 0, startTime = times.last ?? 0
            // Points under half a metre from the one kept before them are dropped: a segment that short has no
            // direction to compare a heading with (a step's line starts where the last ended, and the arrival's
            // line is its one place twice).
            var line: [Coordinate] = [], lengths: [Double] = []
            var previous = points.last
            for p in step.geometry {
                let length = previous.map { Geo.distance($0, p) } ?? 0
                guard previous == nil || length >= 0.5 else { continue }
                line.append(p)
                lengths.append(length)
                previous = p
            }
            let total = lengths.reduce(0, +)
            for (p, length) in zip(line, lengths) {
                points.append(p)
                distances.append((distances.last ?? 0) + length)
                times.append((times.last ?? 0) + (total > 0 ? step.duration * length / total : 0))
            }
            if points.isEmpty, let p = step.geometry.first {
                points.append(p)
                distances.append(0)
                times.append(0)
            }
            if total == 0, let last = times.indices.last { times[last] += step.duration }
            steps.append(Step(leg: leg, index: k, start: start, end: distances.last ?? start, startTime: startTime,
                              endTime: times.last ?? startTime, maneuverType: step.type, modifier: step.modifier,
                              instruction: step.instruction, voice: step.voice, banners: step.banners))
        }
        legEnds.append(distances.last ?? 0)
        legEndPoints.append(points.last ?? Coordinate(latitude: 0, longitude: 0))
    }

    private static func rawStep(_ step: [String: Any], _ geometries: GeometryEncoding, where place: String) throws -> RawStep {
        let line: [Coordinate]?
        switch (geometries, step["geometry"]) {
        case (.polyline, let text as String): line = Polyline.decode(text, precision: 5)
        case (.polyline6, let text as String): line = Polyline.decode(text, precision: 6)
        case (.geojson, let object as [String: Any]):
            line = (object["coordinates"] as? [[Double]])?.compactMap { $0.count >= 2 ? Coordinate(latitude: $0[1], longitude: $0[0]) : nil }
        default: line = nil
        }
        guard let line, !line.isEmpty, line.allSatisfy({ abs($0.latitude) <= 90 && abs($0.longitude) <= 180 }) else {
            throw ReadError.invalid("\(place): its geometry is not a \(geometries.rawValue) line")
        }
        guard let maneuver = step["maneuver"] as? [String: Any], let type = maneuver["type"] as? String,
              let distance = number(step["distance"]), let duration = number(step["duration"]), distance >= 0, duration >= 0
        else { throw ReadError.invalid("\(place): a step needs maneuver.type, distance and duration") }
        let voice = try (step["voiceInstructions"] as? [[String: Any]] ?? []).map { v -> VoiceInstruction in
            guard let d = number(v["distanceAlongGeometry"]), let text = v["announcement"] as? String else {
                throw ReadError.invalid("\(place): a voice instruction needs distanceAlongGeometry and announcement")
            }
            return VoiceInstruction(distanceAlongGeometry: d, announcement: text, ssmlAnnouncement: v["ssmlAnnouncement"] as? String ?? "")
        }
        let banners = try (step["bannerInstructions"] as? [[String: Any]] ?? []).map { b -> BannerInstruction in
            guard let d = number(b["distanceAlongGeometry"]), let primary = b["primary"] as? [String: Any] else {
                throw ReadError.invalid("\(place): a banner instruction needs distanceAlongGeometry and primary")
            }
            return BannerInstruction(distanceAlongGeometry: d, primary: bannerText(primary),
                                     secondary: (b["secondary"] as? [String: Any]).map(bannerText),
                                     sub: (b["sub"] as? [String: Any]).map(bannerText))
        }
        return RawStep(geometry: line, distance: distance, duration: duration, type: type, modifier: maneuver["modifier"] as? String,
                       instruction: maneuver["instruction"] as? String ?? "", voice: voice, banners: banners)
    }

    private static func bannerText(_ object: [String: Any]) -> BannerText {
        let components = (object["components"] as? [[String: Any]] ?? []).map { c -> BannerComponent in
            var component = BannerComponent(BannerComponent.Kind(rawValue: c["type"] as? String ?? "") ?? .text, c["text"] as? String ?? "")
            component.directions = c["directions"] as? [String] ?? []
            component.active = c["active"] as? Bool
            component.activeDirection = c["active_direction"] as? String
            return component
        }
        return BannerText(text: object["text"] as? String ?? "", type: (object["type"] as? String).flatMap(ManeuverType.init(rawValue:)),
                          modifier: (object["modifier"] as? String).flatMap(Modifier.init(rawValue:)),
                          degrees: (object["degrees"] as? NSNumber)?.intValue, components: components)
    }

    private static func number(_ value: Any?) -> Double? {
        guard let n = value as? NSNumber, n.doubleValue.isFinite else { return nil }
        return n.doubleValue
    }

    // MARK: Reading

    /// The time at a distance along the line.
    public func time(at distance: Double) -> Double {
        distances.isEmpty ? 0 : LegClock.interpolate(distance, distances, times)
    }

    /// The step a distance along the line falls in: the last one starting at or before it, an arrival (which has
    /// no length) counting as the step before it.
    public func stepIndex(at distance: Double) -> Int {
        var lo = 0, hi = steps.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if steps[mid].start <= distance { lo = mid } else { hi = mid - 1 }
        }
        while lo > 0 && steps[lo].maneuverType == "arrive" { lo -= 1 }
        return lo
    }
}
