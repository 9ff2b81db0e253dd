import Foundation
import RoadGraph
import Routing

/// One spoken announcement, as Mapbox Directions' `voiceInstructions` hold them. It sits on the step before the
/// maneuver it announces and is said when the distance left to that step's end falls to `distanceAlongGeometry`.
public struct VoiceInstruction: Sendable, Equatable {
    public var distanceAlongGeometry: Double
    public var announcement: String
    /// The same words in SSML, names and refs marked as addresses so that a speech engine reads "N1" as a road.
    public var ssmlAnnouncement: String

    public init(distanceAlongGeometry: Double, announcement: String, ssmlAnnouncement: String) {
        self.distanceAlongGeometry = distanceAlongGeometry
        self.announcement = announcement
        self.ssmlAnnouncement = ssmlAnnouncement
    }
}

/// Distance and time along a leg, point by point, at the roads' speeds (the annotations' times): the turns and
/// the delays at nodes a route counts are left out, as a car slows for them at the node and not along the road.
/// Announcements are timed by it, as a drive would meet them.
public struct LegClock: Sendable {
    private(set) var distances: [Double] = [0]
    private(set) var times: [Double] = [0]

    init(leg: RouteLeg, graph: RoadGraph) {
        for (k, seconds) in graph.segmentValues(along: leg).enumerated() {
            distances.append(distances.last! + Geo.osrmRulerDistance(leg.coordinates[k], leg.coordinates[k + 1]))
            times.append(times.last! + max(0, seconds))
        }
    }

    /// From the steps alone, at each step's own average speed.
    init(steps: [GuidanceStep]) {
        for step in steps {
            distances.append(distances.last! + max(0, step.distance))
            times.append(times.last! + max(0, step.duration))
        }
    }

    var length: Double { distances.last! }

    /// A walk appended to a drive: its clock goes on from this one's end.
    mutating func append(_ other: LegClock) {
        let (d, t) = (length, times.last!)
        distances += other.distances.dropFirst().map { $0 + d }
        times += other.times.dropFirst().map { $0 + t }
    }

    func time(at distance: Double) -> Double { Self.interpolate(distance, distances, times) }
    func distance(at time: Double) -> Double { Self.interpolate(time, times, distances) }

    /// `y` at `x` on the piecewise-linear line through (`xs`, `ys`), `xs` ascending and not empty.
    public static func interpolate(_ x: Double, _ xs: [Double], _ ys: [Double]) -> Double {
        guard x > xs[0] else { return ys[0] }
        guard x < xs[xs.count - 1] else { return ys[ys.count - 1] }
        var lo = 0, hi = xs.count - 1
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if xs[mid] <= x { lo = mid } else { hi = mid }
        }
        let span = xs[hi] - xs[lo]
        return ys[lo] + (span > 0 ? (x - xs[lo]) / span : 0) * (ys[hi] - ys[lo])
    }
}

/// When to say what along a leg (GUIDANCE.md, "Voice instructions"). Each maneuver gets a last announcement about
/// 7 s before it, and earlier ones where its step leaves room: 2 km and 500 m ahead on fast roads, 400 m and 200 m
/// in town, and at the start of a step that takes half a minute or more. Announcements never overlap at the roads' speeds, and a
/// maneuver that follows within a few seconds is said with the one before ("…, then turn left"). A roundabout's
/// exit is said with its entry ("take the 2nd exit"); it gets words of its own only where the ring is long.
struct VoicePlanner {
    let phrases: PhraseBook
    let units: Units

    /// Seconds before a maneuver at which its last announcement starts.
    static let finalLead = 7.0
    /// The last announcement comes at least this far ahead (metres), however slow the road: a fix is that
    /// uncertain.
    static let finalDistance = (driving: 30.0, walking: 12.0)
    /// But never more seconds ahead than this: in the middle of 3–15 s, where a slow road (a fix 5 m off is 2 s
    /// off at 2.5 m/s) fires it either way of the plan.
    static let finalLeadMost = 9.0
    /// A maneuver at most this many seconds after the one before is said with it.
    static let mergeWithin = 8.0
    /// A first maneuver at most this many seconds after the departure is said with it: the departure is said as
    /// the drive starts, on time, where words of its own would wait for a fix, late by a second and the GPS error.
    static let mergeWithDepartureWithin = 12.0
    /// A merged announcement is said at most this many seconds before its last maneuver; one that starts with the
    /// departure, said as the drive starts and not when a fix falls, needs no room for an early fix.
    static let mergedLeadLimit = (fired: 13.0, departure: 14.5)
    /// A maneuver whose own announcement would start less than this many seconds before it, the words before
    /// still being said, is said with them: a fix a second and 5 m of GPS error may fire it 1.5 s late.
    static let ownLeadLeast = 5.0
    /// A merged announcement says at most this many maneuvers ("…, then …, then …"); one that starts with the
    /// departure, one more: it is said before the car moves, so a maneuver it leaves out gets no room of its own.
    static let mergedMost = (fired: 4, departure: 5)
    /// Seconds of silence between two announcements: a fix a second, 5 m off, may fire one a second early, and
    /// on foot 5 m is 3 s.
    static let pause = (driving: 1.5, walking: 3.0)
    /// Faster than this (m/s, 70 km/h) a road is fast: its announcements come earlier.
    static let fastRoad = 19.4

    /// An announcement as planned: when it starts (seconds from the leg's start), on which step, and its words.
    private struct Planned {
        var carrier: Int
        var time: Double
        var text: String
        /// The steps whose maneuvers it says (one, or two when merged).
        var subjects: [Int]
    }

    /// The announcements of each step of a leg (the arrive step has none). `clock`: the leg's, where the steps
    /// cover it.
    func announcements(for steps: [GuidanceStep], clock legClock: LegClock?) -> [[VoiceInstruction]] {
        var out = Array(repeating: [VoiceInstruction](), count: steps.count)
        guard steps.count >= 2 else { return out }
        let legOnFoot = steps.contains { $0.mode == StepMode.walking.rawValue }
        let pause = legOnFoot ? Self.pause.walking : Self.pause.driving
        let stepClock = LegClock(steps: steps)
        // The leg's clock where it and the steps measure the same line, the steps' own otherwise.
        let clock = legClock.flatMap { abs($0.length - stepClock.length) <= 0.05 * max(stepClock.length, 20) ? $0 : nil } ?? stepClock
        let scale = stepClock.length > 0 ? clock.length / stepClock.length : 1
        var starts = [0.0]
        for step in steps { starts.append(starts.last! + max(0, step.distance) * scale) }
        let start = starts.map(clock.time(at:))
        // When the next words may start after `text` said at `time`: after a pause, and on a slow road (a car
        // setting off, a service road) not before the car is 10 m on, or a fix 5 m ahead fires them too soon.
        func quiet(after time: Double, saying text: String) -> Double {
            let end = time + Self.speakingTime(text)
            guard !legOnFoot else { return end + pause }
            return max(end + pause, clock.time(at: clock.distance(at: end) + 10 * scale))
        }

        // The last announcement of each maneuver, in order; the depart's is at the start.
        var plan = [Planned(carrier: 0, time: 0, text: steps[0].instruction, subjects: [0])]
        var busyUntil = quiet(after: 0, saying: steps[0].instruction)
        var exitSaidOnEntry: Int?
        for k in 1..<steps.count {
            var carrier = k - 1, text = spokenText(steps[k]), subjects = [k]
            // Leaving a ring was said on entering it ("take the 2nd exit"), unless the ring is long enough for
            // words of its own.
            if [.exitRoundabout, .exitRotary].contains(steps[k].maneuver.type),
               [.roundabout, .rotary].contains(steps[carrier].maneuver.type),
               start[k] - max(start[carrier], busyUntil) < Self.finalLead + 2 {
                exitSaidOnEntry = k
                continue
            }
            // Said with the maneuver before when it follows within a few seconds, or when the words before would
            // leave it less than 5 s of its own; where maneuvers crowd, a chain of them is said at once. A chain
            // that would start too early for a maneuver with no room of its own starts later, where that leaves its
            // first maneuver 4.5 s and keeps off its step's last 1.5 s.
            let crowded = start[k] - max(start[carrier], busyUntil) < Self.ownLeadLeast
            let afterDeparture = plan.last?.subjects.first == 0
            if let last = plan.last,
               last.subjects.count == 1 && start[k] - start[carrier] < (afterDeparture ? Self.mergeWithDepartureWithin : Self.mergeWithin)
                   || crowded && last.subjects.count < (afterDeparture ? Self.mergedMost.departure : Self.mergedMost.fired),
               last.subjects.allSatisfy({ steps[$0].following == nil }), steps[k].following == nil,
               case let time = max(last.time, start[k] - (afterDeparture ? Self.mergedLeadLimit.departure : Self.mergedLeadLimit.fired)),
               time == last.time || crowded && time <= start[last.subjects[0]] - Self.ownLeadLeast + 0.5
                   && time <= start[last.carrier + 1] - 1.5
            {
                let shortened = phrases.withoutStayingOn(phrases.withoutLaneAdvice(text, lanes: steps[k].lanes),
                                                         names: spokenNames(steps[k]), saidIn: last.text)
                let merged = phrases.spokenThen(last.text, shortened)
                plan[plan.count - 1].text = merged
                plan[plan.count - 1].time = time
                plan[plan.count - 1].subjects.append(k)
                busyUntil = quiet(after: time, saying: merged)
                continue
            }
            // A maneuver just after leaving a ring, too far from the entry to be said with it, is said on the
            // ring with the exit ("Leave the roundabout, then turn right …").
            if exitSaidOnEntry == k - 1, start[k] - start[carrier] < Self.finalLead {
                carrier = k - 2
                text = phrases.spokenThen(spokenText(steps[k - 1]), text)
                subjects = [k - 1, k]
            }
            // The third of three maneuvers in a few seconds, where its own step is too short to say it on: said
            // after the two, before the second is made ("Then turn right …"); where its own step is shorter than
            // a fix's interval, a fix may never fall on it, and then sooner is better than not at all.
            if plan.last?.subjects.count ?? 0 >= 2, plan.last?.subjects.last == k - 1,
               start[k] - max(start[carrier], busyUntil) < Self.ownLeadLeast,
               start[k] - busyUntil >= (start[k] - start[k - 1] < 1.5 ? 2 : 4) {
                carrier = k - 2
                text = phrases.spokenAfter(text)
            }
            let walking = steps[carrier].mode == StepMode.walking.rawValue
            // At the least distance where 7 s are less, but never more than 9 s ahead (a slow step, or one with
            // a long wait on it).
            let nearest = max(start[k] - Self.finalLeadMost, clock.time(at: max(starts[carrier], starts[k] - (walking ? Self.finalDistance.walking : Self.finalDistance.driving) * scale)))
            // Not before the step starts, nor over the announcement before; where the two meet, the maneuver is
            // still said a second before it comes.
            var time = min(max(start[carrier], min(start[k] - Self.finalLead, nearest), busyUntil), max(start[carrier], start[k] - 1))
            // On the step the time falls in (a ring's exit step, where the ring is short), and not in a step's last
            // second and a half, where a fix may already place the car on the next. Where the next step would leave
            // the maneuver less than 5 s, the words come that much sooner, into the pause after the words before.
            if carrier + 1 < k, case let latest = start[carrier + 1] - 1.5, latest <= time, latest >= start[carrier],
               latest >= busyUntil - pause / 2, start[k] - max(time, start[carrier + 1]) < Self.ownLeadLeast {
                time = latest
            }
            while carrier + 1 < k && start[carrier + 1] - 1.5 < time { carrier += 1 }
            time = max(time, start[carrier])
            plan.append(Planned(carrier: carrier, time: time, text: text, subjects: subjects))
            busyUntil = quiet(after: time, saying: text)
        }

        // Earlier announcements, in the room each step leaves before its maneuver's last one.
        var all: [Planned] = []
        var freeFrom = 0.0
        for planned in plan {
            let k = planned.subjects[0], carrier = planned.carrier
            if k > 0 {
                let walking = steps[carrier].mode == StepMode.walking.rawValue
                let from = max(start[carrier], freeFrom)
                // The road's speed over the stretch before the maneuver picks its distances.
                let span = min(starts[k] - starts[carrier], 500 * scale)
                let speed = span / max(0.1, start[k] - clock.time(at: starts[k] - span))
                all += earlier(announcing: k, of: steps, at: starts[k], on: carrier, from: from, before: planned.time,
                               tiers: walking ? [] : speed >= Self.fastRoad ? [500, 2000] : [200, 400],
                               clock: clock, scale: scale, quiet: quiet)
            }
            all.append(planned)
            freeFrom = quiet(after: planned.time, saying: planned.text)
        }
        for planned in all {
            let remaining = max(0, min(steps[planned.carrier].distance, (starts[planned.carrier + 1] - clock.distance(at: planned.time)) / scale))
            let names = planned.subjects.flatMap { spokenNames(steps[$0]) }
            out[planned.carrier].append(VoiceInstruction(distanceAlongGeometry: (remaining * 10).rounded() / 10,
                                                         announcement: planned.text,
                                                         ssmlAnnouncement: Self.ssml(planned.text, names: names)))
        }
        return out
    }

    /// "In 400 metres, turn right into …" at the tiers' distances before the maneuver (at `maneuver` along the
    /// leg) that fit between `from` and its last announcement at `before` (seconds), each with room to be said.
    private func earlier(announcing k: Int, of steps: [GuidanceStep], at maneuver: Double, on carrier: Int, from: Double,
                         before: Double, tiers: [Double], clock: LegClock, scale: Double,
                         quiet: (Double, String) -> Double) -> [Planned] {
        let text = spokenText(steps[k]), maneuverTime = clock.time(at: maneuver)
        var accepted: [Planned] = []
        var next = before, nextDistance = (maneuver - clock.distance(at: before)) / scale
        func fits(_ distance: Double) -> Planned? {
            let said = phrases.spokenIn(phrases.spokenDistance(distance, units: units).text, text)
            let time = clock.time(at: maneuver - distance * scale)
            guard time >= from, distance >= 1.8 * nextDistance, maneuverTime - time >= 12,
                  quiet(time, said) <= next else { return nil }
            return Planned(carrier: carrier, time: time, text: said, subjects: [k])
        }
        for tier in tiers {
            if let planned = fits(phrases.spokenDistance(tier, units: units).metres) {
                accepted.insert(planned, at: 0)
                next = planned.time
                nextDistance = tier
            }
        }
        // A step too short for its road's first tier, or much longer than its last, still says what comes as it
        // starts, if that is half a minute ahead or more.
        if accepted.isEmpty || accepted[0].time - from > 30 {
            let available = (maneuver - clock.distance(at: from)) / scale
            if let planned = fits(phrases.spokenDistance(available, units: units).metres), maneuverTime - planned.time >= 30 {
                accepted.insert(planned, at: 0)
            }
        }
        return accepted
    }

    /// The words for a maneuver: its instruction, or for an arrival what is ahead rather than what has happened.
    private func spokenText(_ step: GuidanceStep) -> String {
        step.maneuver.type == .arrive ? phrases.arrivalAhead(step) : step.instruction
    }

    /// The names a step's words may say, longest first: they are read as addresses.
    private func spokenNames(_ step: GuidanceStep) -> [String] {
        var names = [phrases.wayName(step.name, ref: step.ref, motorway: true), phrases.wayName(step.name, ref: step.ref),
                     step.name, PhraseBook.firstEntry(step.ref), phrases.destination(step.destinations), step.rotaryName ?? ""]
        names = names.filter { !$0.isEmpty }
        return names.sorted { $0.count > $1.count }
    }

    /// How long a speech engine takes to say a text: about 14 letters a second, 4 Chinese characters.
    static func speakingTime(_ text: String) -> Double {
        // Characters counted by their first UTF-8 byte; from U+3000 on (CJK) they are wide.
        var narrow = 0, wide = 0
        for byte in text.utf8 where byte & 0xC0 != 0x80 {
            if byte >= 0xE3 { wide += 1 } else { narrow += 1 }
        }
        return Double(narrow) / 14 + Double(wide) / 4 + 0.3
    }

    /// `<speak>` around the text, XML-escaped, each name said marked as an address (the first place it occurs).
    static func ssml(_ text: String, names: [String]) -> String {
        // In UTF-8 bytes: a name found byte for byte is found whole (no character starts inside another).
        var body = Array(xmlEscaped(text).utf8)
        var marked: [[UInt8]] = []
        for name in names.map({ Array(xmlEscaped($0).utf8) })
        where !name.isEmpty && !marked.contains(where: { firstIndex(of: name, in: $0) != nil }) {
            guard let at = firstIndex(of: name, in: body) else { continue }
            body.replaceSubrange(at..<at + name.count, with: Array(#"<say-as interpret-as="address">"#.utf8) + name + Array("</say-as>".utf8))
            marked.append(name)
        }
        return "<speak>" + String(decoding: body, as: UTF8.self) + "</speak>"
    }

    private static func firstIndex(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard !needle.isEmpty, needle.count <= haystack.count else { return nil }
        for i in 0...(haystack.count - needle.count) where haystack[i] == needle[0] {
            if haystack[i..<(i + needle.count)].elementsEqual(needle) { return i }
        }
        return nil
    }

    static func xmlEscaped(_ text: String) -> String {
        // Most texts have nothing to escape (& < > " '): looked for byte by byte, not character by character.
        guard text.utf8.contains(where: { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 || $0 == 0x27 }) else { return text }
        var out = ""
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.append(c)
            }
        }
        return out
    }
}
