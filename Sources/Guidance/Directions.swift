import RoadGraph
import Routing

public struct DirectionsOptions: Sendable {
    public var language = "en"
    public var units = Units.metric
    /// False for answers without steps (OSRM's `steps=false`): guidance is not run at all, and the directions
    /// carry only the waypoint names. Guidance is most of a route request's time.
    public var steps = true
    /// `.osrm`: OSRM's guidance rules only, without the deviations GUIDANCE.md lists.
    public var compatibility = Compatibility.wayfinder
    /// Which of our own rules apply when `compatibility` is `.wayfinder` (all by default): each can be turned off
    /// alone, to see what it changes.
    public var deviations = GuidanceDeviations.all
    /// Mapbox Directions' `voice_instructions`, `banner_instructions` and `voice_units`: announcements and banners
    /// on each step, for an app that guides as the car moves.
    public var voiceInstructions = false
    public var bannerInstructions = false
    public var voiceUnits = Units.metric
    public init(language: String = "en", units: Units = .metric, steps: Bool = true,
                compatibility: Compatibility = .wayfinder, deviations: GuidanceDeviations = .all) {
        self.language = language
        self.units = units
        self.steps = steps
        self.compatibility = compatibility
        self.deviations = deviations
    }

    /// The deviations in force: none under `compat=osrm`.
    public var activeDeviations: GuidanceDeviations { compatibility == .osrm ? [] : deviations }
}

/// Our own guidance rules, where we decide otherwise than OSRM (GUIDANCE.md, "Where we decide otherwise"), as
/// switches. Those that change maneuvers are here; the rest change only words.
public struct GuidanceDeviations: OptionSet, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Steps under 10 m folded into the next or the one before.
    public static let foldShortSteps = GuidanceDeviations(rawValue: 1 << 0)
    /// `use lane` steps kept.
    public static let laneSteps = GuidanceDeviations(rawValue: 1 << 1)
    /// Names and refs compared as a person reads them.
    public static let readableNames = GuidanceDeviations(rawValue: 1 << 2)
    /// Repeated names tidied: a turn back onto the street is a continue, a new name to it no step.
    public static let tidyNames = GuidanceDeviations(rawValue: 1 << 3)
    public static let all: GuidanceDeviations = [.foldShortSteps, .laneSteps, .readableNames, .tidyNames]

    /// The names requests use (`deviations=fold_short_steps,names`), in GUIDANCE.md's order.
    public static let names: [(name: String, deviation: GuidanceDeviations)] = [
        ("fold_short_steps", .foldShortSteps), ("use_lane", .laneSteps), ("names", .readableNames), ("tidy_names", .tidyNames),
    ]

    /// From a comma-separated list of names, `all`, or `none`; nil for a name not known.
    public init?(list: String) {
        if list == "all" { self = .all; return }
        self = []
        if list == "none" { return }
        for name in list.split(separator: ",", omittingEmptySubsequences: false) {
            guard let known = Self.names.first(where: { $0.name == name }) else { return nil }
            formUnion(known.deviation)
        }
    }
}

/// A route's turn-by-turn steps, leg by leg, with instructions in the requested language. Each leg's facts are read
/// from the graph once, into a `GuidanceLeg`; the steps and every output format read only those.
public struct Directions: Sendable {
    public private(set) var legs: [[GuidanceStep]]
    public private(set) var guidanceLegs: [GuidanceLeg]
    public let phrases: PhraseBook
    public let options: DirectionsOptions
    /// The name of the road at each of the route's waypoints, in the requested language (OSRM's
    /// `waypoints[].name`): one per waypoint, for every format to read.
    public private(set) var waypointNames: [String]
    /// Each leg's distance and time point by point, which announcements are timed by (when asked for).
    private var clocks: [LegClock] = []

    /// `labels`: the graph's label store, where the caller keeps one across requests.
    public init(route: Route, graph: RoadGraph, options: DirectionsOptions = DirectionsOptions(),
                labels: RoadLabelStore? = nil) throws {
        // Street names follow any language the data has (name:xx); instructions fall back to English where no
        // phrase file exists for it.
        let phrases = try (try? PhraseBook.load(language: options.language)) ?? PhraseBook.load(language: "en")
        self.phrases = phrases
        self.options = options
        guard options.steps else {
            guidanceLegs = []
            legs = route.legs.map { _ in [] }
            let language = options.language
            waypointNames = Self.waypointNames(route, graph: graph, language: language, legEnds: route.legs.first.map { first in
                [graph.waypointName(of: first.source, language: language)]
                    + route.legs.map { graph.waypointName(of: $0.target, language: language) }
            } ?? [])
            return
        }
        // Names are compared by the request's rules all through the leg's reading and its steps.
        let compatibility = options.compatibility, language = options.language, legCount = route.legs.count
        let deviations = options.activeDeviations
        let nameRules: Compatibility = deviations.contains(.readableNames) ? .wayfinder : .osrm
        let (guidanceLegs, legs) = RoadNames.$compatibility.withValue(nameRules) {
            let guidanceLegs = route.legs.map { GuidanceLeg(leg: $0, graph: graph, language: language, labels: labels) }
            let legs = guidanceLegs.indices.map { index in
                var steps = Directions.steps(for: guidanceLegs[index], waypointNumber: index == legCount - 1 ? nil : index + 1,
                                             deviations: deviations)
                // Worded in place: copying each step to set its text retained its dozen strings and arrays.
                steps.withUnsafeMutableBufferPointer { s in
                    for i in s.indices {
                        // Cyclists' words are Wayfinder's (GUIDANCE.md): osrm-text-instructions' under compat=osrm.
                        if compatibility == .osrm { s[i].onCyclePath = false }
                        s[i].instruction = phrases.instruction(at: s.baseAddress! + i)
                        // The bike is pushed from the start, from here on, or ridden again.
                        let pushing = StepMode.pushingBike.rawValue, riding = StepMode.cycling.rawValue
                        let changesMode = i == 0 && s[i].mode == pushing
                            || i > 0 && s[i].maneuver.type != .arrive && [pushing, riding].contains(s[i - 1].mode)
                            && [pushing, riding].contains(s[i].mode) && s[i - 1].mode != s[i].mode
                        if changesMode && compatibility != .osrm {
                            s[i].instruction = phrases.modeChange(s[i].instruction, at: s.baseAddress! + i, dismount: s[i].mode == pushing)
                        }
                        // OSRM's car profile gives its shuttle trains the ferry's mode.
                        if compatibility == .osrm && route.mode == .driving && s[i].mode == StepMode.train.rawValue {
                            s[i].mode = StepMode.ferry.rawValue
                        }
                    }
                }
                return steps
            }
            return (guidanceLegs, legs)
        }
        self.guidanceLegs = guidanceLegs
        self.legs = legs
        if options.voiceInstructions { clocks = route.legs.map { LegClock(leg: $0, graph: graph) } }
        waypointNames = Self.waypointNames(route, graph: graph, language: language,
                                           legEnds: guidanceLegs.first.map { [$0.sourceName] + guidanceLegs.map(\.targetName) } ?? [])
        for i in legs.indices { addNavigationInstructions(leg: i) }
    }

    /// The legs' end names, and for a waypoint no leg ends at (a route with no leg) the graph's name of its road.
    private static func waypointNames(_ route: Route, graph: RoadGraph, language: String?, legEnds: [String]) -> [String] {
        route.waypoints.indices.map { i in
            i < legEnds.count ? legEnds[i] : graph.waypointName(of: route.waypoints[i], language: language)
        }
    }

    /// Goes on from the last leg's arrival with the steps of a walk (its own directions, one leg): the arrival
    /// becomes the step that says to leave the car, in walking mode, and the walk's arrival ends the leg.
    public mutating func continueOnFoot(_ walk: Directions) {
        if let name = walk.waypointNames.last, !waypointNames.isEmpty { waypointNames[waypointNames.count - 1] = name }
        guard var last = legs.last, let walkSteps = walk.legs.first, walkSteps.count >= 2, let walkLeg = walk.guidanceLegs.first,
              let walkStart = walkSteps[0].coordinates.first, let arrive = last.popLast() else { return }
        var leave = walkSteps[0]
        leave.maneuver.type = .notification
        leave.maneuver.modifier = .straight
        leave.maneuver.bearingBefore = arrive.maneuver.bearingBefore
        leave.arrivalSide = nil
        // On along the street the drive ended on: the name was said already.
        leave.staysOn = !leave.name.isEmpty && last.last?.name == leave.name
        leave.instruction = phrases.onFoot(leave)
        // The walk starts where the drive ends (see Route.continueOnFoot).
        let connector = Geo.distance(arrive.maneuver.location, walkStart)
        if connector > 0.01 {
            leave.coordinates.insert(arrive.maneuver.location, at: 0)
            leave.distance += connector
        }
        leave.maneuver.location = arrive.maneuver.location
        last.append(leave)
        last.append(contentsOf: walkSteps.dropFirst())
        legs[legs.count - 1] = last
        guidanceLegs[guidanceLegs.count - 1].targetName = walkLeg.targetName
        if let walkClock = walk.clocks.first, !clocks.isEmpty { clocks[clocks.count - 1].append(walkClock) }
        addNavigationInstructions(leg: legs.count - 1)
    }

    /// The leg's announcements and banners, where the request asks for them.
    private mutating func addNavigationInstructions(leg i: Int) {
        guard options.voiceInstructions || options.bannerInstructions else { return }
        let voice = options.voiceInstructions ? VoicePlanner(phrases: phrases, units: options.voiceUnits).announcements(for: legs[i], clock: i < clocks.count ? clocks[i] : nil) : []
        let banners = options.bannerInstructions ? BannerPlanner(phrases: phrases).banners(for: legs[i]) : []
        for k in legs[i].indices {
            if !voice.isEmpty { legs[i][k].voiceInstructions = voice[k] }
            if !banners.isEmpty { legs[i][k].bannerInstructions = banners[k] }
        }
    }

    static func steps(for leg: GuidanceLeg, waypointNumber: Int?, deviations: GuidanceDeviations) -> [GuidanceStep] {
        guard !leg.stretches.isEmpty else { return [] }
        // The leg's points, not the leg: a closure that used the leg would copy it for every step.
        let coordinates = leg.coordinates
        return StepAssembly.steps(for: leg, deviations: deviations).map { GuidanceStep(draft: $0, coordinates: coordinates, waypointNumber: waypointNumber) }
    }
}

extension ManeuverType {
    init(_ draft: DraftStep) {
        switch draft.waypoint {
        case .depart: self = .depart; return
        case .arrive: self = .arrive; return
        case .none: break
        }
        switch draft.kind {
        case .newName, .suppressed, .noTurn, .invalid, .stayOnRing: self = .newName
        case .continueOn: self = .continueOn
        case .turn, .sliproad: self = .turn
        case .merge: self = .merge
        case .onRamp: self = .onRamp
        case .offRamp: self = .offRamp
        case .fork: self = .fork
        case .endOfRoad: self = .endOfRoad
        case .notification: self = .notification
        case .useLane: self = .useLane
        case .enterRing(let k), .enterRingAtExit(let k):
            self = k == .roundabout ? .roundabout : k == .rotary ? .rotary : .roundaboutTurn
        case .enterAndExitRing(let k):
            self = k == .roundabout ? .exitRoundabout : k == .rotary ? .exitRotary : .roundaboutTurn
        case .exitRing(let k):
            self = k == .rotary ? .exitRotary : .exitRoundabout
        }
    }
}

extension GuidanceStep {
    /// `coordinates`: the leg's, which the draft's `first...last` index.
    init(draft: DraftStep, coordinates legCoordinates: [Coordinate], waypointNumber: Int?) {
        let type = ManeuverType(draft)
        let isWaypoint = type == .depart || type == .arrive
        let modifier: Modifier? = isWaypoint && draft.modifier == .uturn ? nil : draft.modifier
        let location = legCoordinates[type == .arrive ? draft.last : draft.first]
        let maneuver = Maneuver(type: type, modifier: modifier, location: location,
                                bearingBefore: type == .depart ? 0 : Int(draft.bearingBefore.rounded()) % 360,
                                bearingAfter: type == .arrive ? 0 : Int(draft.bearingAfter.rounded()) % 360,
                                exit: draft.exit > 0 ? draft.exit : nil)
        let coordinates = type == .arrive ? [location, location] : Array(legCoordinates[draft.first...draft.last])
        self.init(maneuver: maneuver, name: draft.name, ref: draft.label.ref, mode: draft.mode.rawValue, distance: draft.distance,
                  duration: draft.duration, coordinates: coordinates,
                  intersections: draft.intersections.dropFirst().contains(where: \.joinsOneRoad)
                      ? draft.intersections.enumerated().filter { $0.offset == 0 || !$0.element.joinsOneRoad }.map(\.element)
                      : draft.intersections)
        pronunciation = draft.label.pronunciation
        onCyclePath = draft.signs.isCyclePath
        destinations = draft.destinations
        exits = draft.label.exits
        weight = draft.weight
        rotaryName = type == .rotary ? draft.rotaryName : nil
        rotaryPronunciation = type == .rotary ? draft.rotaryPronunciation : nil
        staysOn = draft.staysOn
        if type == .arrive {
            self.waypointNumber = waypointNumber
            arrivalSide = modifier
        }
        if let then = draft.then {
            var follow = draft
            follow.kind = then.kind
            follow.waypoint = .none
            following = FollowingManeuver(type: ManeuverType(follow), modifier: then.modifier)
        }
    }
}
