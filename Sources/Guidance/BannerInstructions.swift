import Foundation

/// What a maps app's banner shows for the next maneuver (Mapbox Directions' `bannerInstructions`). It sits on the
/// step before the maneuver and is shown from where the distance left to that step's end falls to
/// `distanceAlongGeometry`.
public struct BannerInstruction: Sendable {
    public var distanceAlongGeometry: Double
    /// The maneuver and the road it leads to.
    public var primary: BannerText
    /// The signs' destinations, where the primary text names the road.
    public var secondary: BannerText?
    /// The lanes to be in, or else the maneuver after, when it comes soon.
    public var sub: BannerText?

    public init(distanceAlongGeometry: Double, primary: BannerText, secondary: BannerText? = nil, sub: BannerText? = nil) {
        self.distanceAlongGeometry = distanceAlongGeometry
        self.primary = primary
        self.secondary = secondary
        self.sub = sub
    }
}

/// One line of a banner.
public struct BannerText: Sendable {
    public var text: String
    public var type: ManeuverType?
    public var modifier: Modifier?
    /// For a roundabout: how far round the exit is, in degrees (180 straight on, 90 the first right).
    public var degrees: Int?
    public var components: [BannerComponent]

    public init(text: String, type: ManeuverType? = nil, modifier: Modifier? = nil, degrees: Int? = nil,
                components: [BannerComponent]) {
        self.text = text
        self.type = type
        self.modifier = modifier
        self.degrees = degrees
        self.components = components
    }
}

/// A piece of a banner line: words, a road number to draw as a shield, a separator, an exit number, or a lane.
public struct BannerComponent: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case text, icon, delimiter, exit, exitNumber = "exit-number", lane
    }

    public var kind: Kind
    public var text: String
    /// For a lane: its arrows, in the words Mapbox's clients draw.
    public var directions: [String] = []
    /// For a lane: whether it serves the maneuver, and then the arrow that does.
    public var active: Bool?
    public var activeDirection: String?

    public init(_ kind: Kind, _ text: String) {
        self.kind = kind
        self.text = text
    }
}

/// The banners of a leg: one per step, shown from its start, for the maneuver at its end. Where the maneuver has
/// lanes to choose, they are the banner's `sub`, from 400 m before on a longer step; otherwise the `sub` shows the
/// maneuver after, when it comes within 15 s.
struct BannerPlanner {
    let phrases: PhraseBook

    /// Lanes are shown from this far before the maneuver (metres), or from the step's start if it is shorter.
    static let lanesFrom = 400.0
    /// The maneuver after the next is shown when the step between them takes less than this (seconds).
    static let nextSoon = 15.0

    func banners(for steps: [GuidanceStep]) -> [[BannerInstruction]] {
        var out = Array(repeating: [BannerInstruction](), count: steps.count)
        guard steps.count >= 2 else { return out }
        for k in 1..<steps.count {
            let carrier = k - 1, step = steps[k], length = steps[carrier].distance
            let (primary, secondary) = lines(for: step, after: k + 1 < steps.count ? steps[k + 1] : nil)
            if let lanes = laneLine(step) {
                if length > Self.lanesFrom {
                    out[carrier].append(BannerInstruction(distanceAlongGeometry: length, primary: primary, secondary: secondary))
                }
                out[carrier].append(BannerInstruction(distanceAlongGeometry: min(length, Self.lanesFrom), primary: primary,
                                                      secondary: secondary, sub: lanes))
                continue
            }
            var sub: BannerText?
            if k + 1 < steps.count, step.duration < Self.nextSoon {
                sub = lines(for: steps[k + 1], after: k + 2 < steps.count ? steps[k + 2] : nil).primary
            }
            out[carrier].append(BannerInstruction(distanceAlongGeometry: length, primary: primary, secondary: secondary, sub: sub))
        }
        return out
    }

    /// The primary line (the road the maneuver leads to, else its destination, else its instruction) and the
    /// secondary (the destinations, where the primary names the road).
    private func lines(for step: GuidanceStep, after: GuidanceStep?) -> (primary: BannerText, secondary: BannerText?) {
        let m = step.maneuver
        var components: [BannerComponent] = []
        var secondary: BannerText?
        let destination = phrases.destination(step.destinations)
        if m.type == .arrive {
            components = [BannerComponent(.text, phrases.arrivalAhead(step))]
        } else {
            let exit = PhraseBook.firstEntry(step.exits)
            if !exit.isEmpty {
                components += [BannerComponent(.exit, phrases.exitWord), BannerComponent(.exitNumber, exit)]
            }
            let refs = step.ref.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            for (i, ref) in refs.enumerated() {
                if i > 0 { components.append(BannerComponent(.delimiter, "/")) }
                components.append(BannerComponent(.icon, ref))
            }
            if !step.name.isEmpty && !refs.contains(step.name) {
                if !refs.isEmpty { components.append(BannerComponent(.delimiter, "/")) }
                components.append(BannerComponent(.text, step.name))
            }
            if components.allSatisfy({ $0.kind == .exit || $0.kind == .exitNumber }) {
                components.append(BannerComponent(.text, destination.isEmpty ? step.instruction : destination))
            } else if !destination.isEmpty {
                secondary = BannerText(text: destination, components: [BannerComponent(.text, destination)])
            }
        }
        let modifier = m.type == .arrive ? step.arrivalSide : m.modifier
        var primary = BannerText(text: components.map(\.text).joined(separator: " "), type: m.type, modifier: modifier,
                                 components: components)
        if [.roundabout, .rotary, .roundaboutTurn].contains(m.type) {
            // From the bearing in to the bearing out of the ring (the step after leaves it).
            let out = after?.maneuver.bearingAfter ?? m.bearingAfter
            var right = Double(out - m.bearingBefore).truncatingRemainder(dividingBy: 360)
            if right > 180 { right -= 360 } else if right <= -180 { right += 360 }
            let degrees = Int((180 - right).rounded())
            primary.degrees = degrees <= 0 ? degrees + 360 : degrees
        }
        return (primary, secondary)
    }

    /// The lanes of the maneuver, where it has lanes and not all of them serve it.
    private func laneLine(_ step: GuidanceStep) -> BannerText? {
        let lanes = step.lanes
        guard !lanes.isEmpty, lanes.contains(where: { !$0.valid }), lanes.contains(where: \.valid) else { return nil }
        let wanted = step.maneuver.modifier?.rawValue ?? "straight"
        let components = lanes.map { lane -> BannerComponent in
            var c = BannerComponent(.lane, "")
            c.directions = lane.indications.map(Self.drawn)
            c.active = lane.valid
            if lane.valid { c.activeDirection = c.directions.contains(wanted) ? wanted : c.directions.first }
            return c
        }
        return BannerText(text: "", components: components)
    }

    /// Mapbox's clients draw the nine arrows of OSRM's indications; a merge is drawn as the slight turn it makes.
    private static func drawn(_ indication: String) -> String {
        switch indication {
        case "merge to left": "slight left"
        case "merge to right": "slight right"
        default: indication
        }
    }
}
