import Foundation
import Guidance
import RoadGraph
import RouteFormats
import Routing

/// A position report from a moving client.
public struct Fix: Sendable {
    public var location: Coordinate
    /// Direction of travel, degrees clockwise from north; speed, m/s; horizontal accuracy, metres; time, seconds.
    public var bearing: Double?
    public var speed: Double?
    public var accuracy: Double?
    public var time: Double?

    public init(location: Coordinate, bearing: Double? = nil, speed: Double? = nil, accuracy: Double? = nil, time: Double? = nil) {
        self.location = location
        self.bearing = bearing
        self.speed = speed
        self.accuracy = accuracy
        self.time = time
    }
}

/// What a client carries from one fix to the next: where it was on the route, which of the last fixes were away
/// from it, and which announcements it has made. A short text over HTTP, so the server keeps nothing per client.
public struct NavigationState: Sendable, Equatable {
    /// Metres along the route at the last fix, and that fix's time.
    public var offset: Double?
    public var time: Double?
    /// The last fixes' distances from the route, metres, newest last; and which went against it, newest in bit 0.
    public var distances: [Double] = []
    public var againstRoute: UInt8 = 0
    /// How many of the route's announcements have been made, and which banner is showing.
    public var spoken = 0
    public var banner = -1
    /// Where the last fix fell on the line (metres along it, even when away from it), and which of the last fixes
    /// moved the client on along it much less than it drove, newest in bit 0.
    public var projected: Double?
    public var stalled: UInt8 = 0
    /// The last fixes, newest last: where a client that left its route is, they tell the road it drives on from
    /// a road beside it that one noisy fix lies nearer.
    public var recent: [Coordinate] = []
    /// Which of the last fixes moved the client along a heading well off the route's where they were placed, newest
    /// in bit 0.
    public var askew: UInt8 = 0
    /// The last fix's heading, where it was moving.
    public var heading: Double?

    public init() {}

    /// `offset,time,d1;d2;d3;d4,against,spoken,banner,projected,stalled,lat:lon;…,askew,heading` (the fixes in
    /// millionths of a degree), empty fields for what is unknown (a state without the last fields, as servers
    /// before them wrote, is read too).
    public var text: String {
        func f(_ x: Double?) -> String { x.map { String(format: "%.1f", $0) } ?? "" }
        return "\(f(offset)),\(f(time)),\(distances.map { String(format: "%.0f", $0) }.joined(separator: ";")),\(againstRoute),"
            + "\(spoken),\(banner),\(f(projected)),\(stalled),"
            + recent.map { "\(Int(($0.latitude * 1e6).rounded())):\(Int(($0.longitude * 1e6).rounded()))" }.joined(separator: ";")
            + ",\(askew),\(f(heading))"
    }

    public init?(text: String) {
        let fields = text.split(separator: ",", omittingEmptySubsequences: false)
        guard [8, 9, 11].contains(fields.count) else { return nil }
        func optional(_ s: Substring) -> Double?? { s.isEmpty ? .some(nil) : Double(s).flatMap { $0.isFinite ? .some($0) : nil } }
        let distances = fields[2].isEmpty ? [] : fields[2].split(separator: ";", omittingEmptySubsequences: false).map { Double($0) }
        guard let offset = optional(fields[0]), let time = optional(fields[1]), distances.count <= ProgressTracker.fixesToLeave,
              distances.allSatisfy({ $0 != nil && $0! >= 0 && $0!.isFinite }),
              let against = UInt8(fields[3]), let spoken = Int(fields[4]), let banner = Int(fields[5]), spoken >= 0, banner >= -1,
              let projected = optional(fields[6]), let stalled = UInt8(fields[7])
        else { return nil }
        self.projected = projected
        self.stalled = stalled
        self.offset = offset
        self.time = time
        self.distances = distances.map { $0! }
        self.againstRoute = against
        self.spoken = spoken
        self.banner = banner
        if fields.count >= 9, !fields[8].isEmpty {
            let places = fields[8].split(separator: ";", omittingEmptySubsequences: false).map { place -> Coordinate? in
                let parts = place.split(separator: ":", omittingEmptySubsequences: false)
                guard parts.count == 2, let lat = Int(parts[0]), let lon = Int(parts[1]),
                      (-90_000_000...90_000_000).contains(lat), (-180_000_000...180_000_000).contains(lon) else { return nil }
                return Coordinate(latitude: Double(lat) / 1e6, longitude: Double(lon) / 1e6)
            }
            guard places.count <= ProgressTracker.fixesToLeave, places.allSatisfy({ $0 != nil }) else { return nil }
            recent = places.map { $0! }
        }
        if fields.count == 11 {
            guard let askew = UInt8(fields[9]), let heading = optional(fields[10]) else { return nil }
            self.askew = askew
            self.heading = heading
        }
    }
}

/// Where a client is on its route and what it should hear and see now.
public struct RouteProgress: Sendable {
    public var legIndex: Int
    /// Within the leg.
    public var stepIndex: Int
    public var distanceToManeuver: Double, durationToManeuver: Double
    public var distanceRemainingOnLeg: Double, durationRemainingOnLeg: Double
    public var distanceRemaining: Double, durationRemaining: Double
    /// The fix placed on the route, and how far it was from it.
    public var location: Coordinate
    public var distanceFromRoute: Double
    /// The announcement to make now, if one is due; the banner to show, and whether it just changed.
    public var voice: VoiceInstruction?
    public var banner: BannerInstruction?
    public var bannerChanged: Bool
    public var offRoute: Bool
    /// Why: "distance" (the last fixes were all away from the route) or "heading" (all going against it).
    public var offRouteReason: String?
    public var arrived: Bool
    public var state: NavigationState
}

/// Follows a client along a route (issue 30): places each fix on the route near where the last one was, says
/// which announcement is due, and decides over the last three fixes that the client has left the route.
public struct ProgressTracker: Sendable {
    public let route: NavigationRoute
    /// The route's announcements and banners in the order they come, with their step and where each starts
    /// (metres along).
    private let voice: [(step: Int, at: Double, instruction: VoiceInstruction)]
    private let banners: [(step: Int, at: Double, instruction: BannerInstruction)]

    /// The last four fixes farther than this from the route (metres; 2.5 times the fixes' accuracy where that is
    /// more), the last three farther than 1.2 times it, the last two farther than 1.6 times it, or the last three
    /// farther than it while the route's nearest place stalls, have left it: at 10 m of noise, three fixes beyond
    /// 25 m by chance come once in a million fixes, and noise does not stall the nearest place.
    public static let awayDistance = 25.0
    /// A fix moving faster than this (m/s) against the route's direction (by more than 120°) goes against it.
    public static let againstSpeed = 3.0
    /// A moving fix whose heading is more than this (degrees) off the route's where it is placed goes askew of it:
    /// on the route that lasts a second or two at a bend, where a client that drove on past a turn keeps it.
    public static let askewAngle = 25.0
    /// A fix whose heading is within this (degrees) of the last one's keeps a steady heading: on a bend of the
    /// route it turns with the road.
    public static let steadyTurn = 6.0
    /// How many of the last fixes are kept to judge whether the client is away from the route; three in a row going
    /// against it leave it.
    public static let fixesToLeave = 4
    public static let fixesAgainst = 3

    public init(route: NavigationRoute) {
        self.route = route
        var voice: [(Int, Double, VoiceInstruction)] = [], banners: [(Int, Double, BannerInstruction)] = []
        for (k, step) in route.steps.enumerated() {
            // Each list in the order it is met along the step (Mapbox's order: farthest from the maneuver first).
            for v in step.voice.sorted(by: { $0.distanceAlongGeometry > $1.distanceAlongGeometry }) {
                voice.append((k, max(step.start, step.end - v.distanceAlongGeometry), v))
            }
            for b in step.banners.sorted(by: { $0.distanceAlongGeometry > $1.distanceAlongGeometry }) {
                banners.append((k, max(step.start, step.end - b.distanceAlongGeometry), b))
            }
        }
        self.voice = voice
        self.banners = banners
    }

    public func progress(at fix: Fix, state previous: NavigationState = NavigationState()) -> RouteProgress {
        // A route without steps (asked for with steps=false) has nothing to follow.
        guard !route.steps.isEmpty, !route.points.isEmpty else {
            return RouteProgress(legIndex: 0, stepIndex: 0, distanceToManeuver: 0, durationToManeuver: 0, distanceRemainingOnLeg: 0,
                                 durationRemainingOnLeg: 0, distanceRemaining: 0, durationRemaining: 0, location: fix.location,
                                 distanceFromRoute: 0, voice: nil, banner: nil, bannerChanged: false, offRoute: false,
                                 offRouteReason: nil, arrived: false, state: previous)
        }
        var state = previous
        let points = route.points, distances = route.distances
        // Where to look: near the last place, as far on as the client can have gone; everywhere at the start.
        var from = 0, to = max(0, points.count - 2)
        if let offset = previous.offset {
            let elapsed = (fix.time != nil && previous.time != nil) ? max(0, fix.time! - previous.time!) : 30
            let reach = max(200, (fix.speed ?? 40) * elapsed * 2 + 50)
            from = segment(at: offset - 60)
            to = segment(at: offset + reach)
        }
        // The nearest place on the line, but where the line passes twice (a turn back, a loop, the two sides of a
        // divided road), the one going the fix's way and nearest where the client should be by now.
        let moving = fix.bearing != nil && (fix.speed ?? 0) >= Self.againstSpeed
        let expected = previous.offset.map { offset -> Double in
            let elapsed = (fix.time != nil && previous.time != nil) ? max(0, fix.time! - previous.time!) : 0
            return offset + (fix.speed ?? 0) * elapsed
        }
        var best = (score: Double.infinity, distance: Double.infinity, offset: 0.0, position: points.first ?? fix.location, segment: 0)
        let scale = cos(fix.location.latitude * Double.pi / 180)
        // How far the fix is from the line, whichever part is nearest (the place chosen may be a little farther).
        var nearest = Double.infinity
        func search(_ range: ClosedRange<Int>, expected: Double?, fromStart: Bool, turnedAway: Double = 90) {
            for k in range {
                let (fraction, position) = Geo.project(fix.location, ontoSegmentFrom: points[k], to: points[k + 1], cosLatitude: scale)
                let d = Geo.distance(fix.location, position)
                nearest = min(nearest, d)
                guard d < best.score else { continue }
                let offset = distances[k] + fraction * (distances[k + 1] - distances[k])
                var score = d
                if moving, Geo.deviation(fix.bearing!, Geo.bearing(from: points[k], to: points[k + 1])) > turnedAway { score += 40 }
                // Near where the client should be by now; at the start, nearer the start (a route that comes back
                // past it).
                score += expected.map { 0.1 * abs(offset - $0) } ?? (fromStart ? 0.01 * offset : 0)
                if score < best.score { best = (score, d, offset, position, k) }
            }
        }
        if points.count >= 2 {
            search(from...to, expected: expected, fromStart: true)
            // Lost (away, or going against the line there): looked for along the whole route again.
            if previous.offset != nil && best.score > Self.awayDistance {
                let windowed = best
                best.score = .infinity
                search(0...(points.count - 2), expected: nil, fromStart: false, turnedAway: 45)
                if best.score >= windowed.score { best = windowed }
            }
        } else {
            best.distance = Geo.distance(fix.location, best.position)
        }
        let distance = min(nearest, best.distance)

        // Away, or against the route, over the last fixes.
        let limit = max(Self.awayDistance, 2.5 * (fix.accuracy ?? 0))
        let isAway = distance > limit
        var isAgainst = false, isAskew = false
        if let bearing = fix.bearing, (fix.speed ?? 0) >= Self.againstSpeed, points.count >= 2 {
            let deviation = Geo.deviation(bearing, Geo.bearing(from: points[best.segment], to: points[best.segment + 1]))
            isAgainst = deviation > 120
            let steady = previous.heading.map { Geo.deviation(bearing, $0) <= Self.steadyTurn } ?? false
            // The way the route goes on from the place: at a vertex, the segment after it.
            let ahead = segment(at: best.offset + 1)
            let turned = Geo.deviation(bearing, Geo.bearing(from: points[ahead], to: points[ahead + 1]))
            // Askew where no part of the line near the place goes the fix's way with the fix beside it: a fix placed
            // a little short of a bend of the route, or past it, while the client is on the road before it, is not;
            // one that drove on past the end of the road the route turns off is.
            if steady && turned > Self.askewAngle {
                isAskew = true
                for k in segment(at: best.offset - distance - 10)...segment(at: best.offset + distance + 10) where isAskew {
                    let a = points[k], b = points[k + 1]
                    guard Geo.deviation(bearing, Geo.bearing(from: a, to: b)) <= Self.askewAngle else { continue }
                    let length = distances[k + 1] - distances[k]
                    let along = Geo.distance(a, fix.location) * cos(Geo.deviation(Geo.bearing(from: a, to: fix.location), Geo.bearing(from: a, to: b)) * Double.pi / 180)
                    if along <= length + 0.5 * distance { isAskew = false }
                }
            }
        }
        let mask: UInt8 = (1 << Self.fixesAgainst) - 1
        state.distances = Array((previous.distances + [distance]).suffix(Self.fixesToLeave))
        // Only a place on the globe: the state's text writes it as whole millionths of a degree.
        if fix.location.isValid {
            state.recent = Array((previous.recent + [fix.location]).suffix(Self.fixesToLeave))
        }
        // Stalled: the line's nearest place moved on much less than the client drove (it goes on past a turn of
        // the route, or off along another road), where noise moves it on with the client.
        var stalled = false
        if let projected = previous.projected, let speed = fix.speed, let now = fix.time, let then = previous.time, now > then {
            let driven = speed * (now - then)
            stalled = driven > 5 && best.offset - projected < 0.3 * driven
        }
        state.projected = best.offset
        state.stalled = ((previous.stalled << 1) | (stalled ? 1 : 0)) & 0b11
        state.againstRoute = ((previous.againstRoute << 1) | (isAgainst ? 1 : 0)) & mask
        state.askew = ((previous.askew << 1) | (isAskew ? 1 : 0)) & mask
        state.heading = moving ? fix.bearing : nil
        // Four fixes in a row beyond the limit, three farther, two far beyond it, three beyond it going nowhere
        // along the route, or a vehicle's last three far beyond it on average: one fix off by four times its noise
        // (one in ten thousand) is not enough, nor are three but a little off while the client goes on along the
        // route. The average is for vehicles only: a walker gives ten times the fixes per metre, so ten times the
        // chances of three noisy ones in a row.
        let recent = state.distances
        func lastOff(_ n: Int, _ beyond: Double) -> Bool { recent.count >= n && recent.suffix(n).allSatisfy { $0 > beyond } }
        // Each fix counted to twice the limit at most, so that one far glitch does not make the average.
        let meanOfThree = recent.count >= 3 ? recent.suffix(3).reduce(0) { $0 + min($1, 2 * limit) } / 3 : 0
        let awayFromRoute = lastOff(Self.fixesToLeave, limit) || lastOff(3, 1.2 * limit) || lastOff(2, 1.6 * limit)
            || (lastOff(3, limit) && state.stalled == 0b11)
            || (moving && meanOfThree > 1.28 * limit && (recent.last ?? 0) > 0.72 * limit)
            || (moving && state.askew == mask && meanOfThree > 0.8 * limit && (recent.last ?? 0) > 0.5 * limit)
        let offRoute = awayFromRoute || state.againstRoute == mask
        // A fix away from the route does not move the client along it, and one a few metres behind the last is
        // noise, not a client going back (the step and its banner would flicker at every maneuver).
        var offset = isAway ? (previous.offset ?? best.offset) : best.offset
        if let last = previous.offset, offset < last, last - offset < 2 * Self.awayDistance { offset = last }
        state.offset = offset
        state.time = fix.time ?? previous.time

        let k = route.stepIndex(at: offset)
        let step = route.steps[k]
        let leg = step.leg
        let legEnd = route.legEnds[leg]
        let now = route.time(at: offset)
        let arrived = !offRoute && leg == route.legEnds.count - 1 && route.length - offset <= max(15, fix.accuracy ?? 0)

        // The announcement due: the nearest passed on this step and not yet made (any before it are skipped).
        var due: VoiceInstruction?
        if !offRoute, let last = voice.lastIndex(where: { $0.step == k && $0.at <= offset + 0.5 }), last >= state.spoken {
            due = voice[last].instruction
            state.spoken = last + 1
        }
        // The banner to show: the last one passed on this step.
        var banner: BannerInstruction?
        var changed = false
        if let shown = banners.lastIndex(where: { $0.step == k && $0.at <= offset + 0.5 }) {
            banner = banners[shown].instruction
            changed = shown != previous.banner
            state.banner = shown
        }
        return RouteProgress(
            legIndex: leg, stepIndex: step.index,
            distanceToManeuver: max(0, step.end - offset), durationToManeuver: max(0, step.endTime - now),
            distanceRemainingOnLeg: max(0, legEnd - offset), durationRemainingOnLeg: max(0, route.time(at: legEnd) - now),
            distanceRemaining: max(0, route.length - offset), durationRemaining: max(0, route.duration - now),
            location: best.position, distanceFromRoute: distance, voice: due, banner: banner, bannerChanged: changed,
            offRoute: offRoute, offRouteReason: offRoute ? (awayFromRoute ? "distance" : "heading") : nil,
            arrived: arrived, state: state)
    }

    /// The segment of the line a distance along it falls on.
    private func segment(at distance: Double) -> Int {
        let d = route.distances
        guard d.count >= 2 else { return 0 }
        var lo = 0, hi = d.count - 1
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if d[mid] <= distance { lo = mid } else { hi = mid }
        }
        return min(lo, d.count - 2)
    }

    /// Where to route again from, for a client off its route: the fix, in its direction of travel where it is
    /// moving, and the waypoints still ahead, with their places on the graph where the route has them.
    public func reroutePoints(from fix: Fix, progress: RouteProgress) -> (points: [Coordinate], places: [Snap?], bearing: Double?) {
        let ahead = Array(route.waypoints.dropFirst(progress.legIndex + 1))
        let places: [Snap?] = route.waypointPlaces.count == route.waypoints.count
            ? [nil] + route.waypointPlaces.dropFirst(progress.legIndex + 1).map { $0 } : Array(repeating: nil, count: ahead.count + 1)
        let moving = (fix.speed ?? 0) >= 1.5 || fix.speed == nil
        return ([fix.location] + ahead, places, moving ? fix.bearing : nil)
    }
}

extension RouteProgress {
    /// The answer's `progress` member.
    public var json: JSON {
        var members: [(String, JSON)] = [
            ("leg_index", .number(Double(legIndex))),
            ("step_index", .number(Double(stepIndex))),
            ("distance_to_maneuver", .number(distanceToManeuver, decimals: 1)),
            ("duration_to_maneuver", .number(durationToManeuver, decimals: 1)),
            ("distance_remaining_leg", .number(distanceRemainingOnLeg, decimals: 1)),
            ("duration_remaining_leg", .number(durationRemainingOnLeg, decimals: 1)),
            ("distance_remaining", .number(distanceRemaining, decimals: 1)),
            ("duration_remaining", .number(durationRemaining, decimals: 1)),
            ("location", OSRMRouteResponse.location(location)),
            ("distance_from_route", .number(distanceFromRoute, decimals: 1)),
            ("off_route", .bool(offRoute)),
        ]
        if let reason = offRouteReason { members.append(("off_route_reason", .string(reason))) }
        members += [
            ("arrived", .bool(arrived)),
            ("voice_instruction", voice.map(OSRMRouteResponse.json) ?? .null),
            ("banner_instruction", banner.map(OSRMRouteResponse.json) ?? .null),
            ("banner_changed", .bool(bannerChanged)),
        ]
        return .object(members)
    }
}
