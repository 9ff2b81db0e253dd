import Foundation
import RoadGraph

/// How one mode may travel one direction of a way.
public struct DirectionRule: Equatable, Sendable {
    /// Travel speed, km/h: what durations are computed from.
    public var speed: Double
    /// The share of that speed the route choice counts (1: none taken off), for roads that are slower to use
    /// than to drive: narrow, one lane for both directions, service roads, alternating oneways (OSRM's rates).
    public var penalty = 1.0
    /// A road a route may start or end on but never pass through (`access=private`, `destination`, HOV lanes).
    public var restricted = false
    public var classes: ArcClasses = []
    /// `destination` / `destination:ref` signs, "A1: Porto, Lisboa".
    public var destinations = ""
    /// `turn:lanes` for this direction, left to right ("left|through|through;right"); "" for none.
    public var turnLanes = ""
}

/// How one mode may use a way; nil directions are closed to it.
public struct WayRule: Equatable, Sendable {
    public var forward: DirectionRule?
    public var backward: DirectionRule?
    public var roadClass: RoadClass
    public var flags: EdgeFlags = []
    /// Seconds for the whole way where it says (`duration` on ferries and movable bridges); spread by length.
    public var duration: Double?
    /// Whether a route may start or end here (not on a ferry, not on a car's private service road).
    public var isStartpoint = true
    public var pronunciation = ""
    /// `junction:ref`: the exit number a ramp carries.
    public var exits = ""
    /// Lanes of the whole way (`lanes`, else `lanes:forward` + `lanes:backward`), 0 when not tagged.
    public var lanes = 0
    /// Not paved (`Profiles.isUnpaved`): what `avoid=unpaved` weighs. No mode's speed reads it.
    public var unpaved = false
}

/// A node that stops a mode, or costs it time.
public struct NodeRule: Equatable, Sendable {
    public var blocked = false
    public var obstacles: [Obstacle] = []
}

/// Something at a node that costs time to pass: traffic signals, a stop sign, a give-way sign.
public struct Obstacle: Equatable, Sendable {
    public enum Kind: Sendable { case signals, stop, minorStop, giveWay, gate }
    public enum Direction: Sendable { case any, forward, backward }
    public var kind: Kind
    /// Which direction of the ways through the node it faces (`direction=forward`, `traffic_signals:direction`).
    public var direction: Direction
    public var seconds: Double

    public init(kind: Kind, direction: Direction, seconds: Double) {
        self.kind = kind
        self.direction = direction
        self.seconds = seconds
    }
}

/// Which ways, directions, speeds, barriers and delays a travel mode uses: OSRM v6's car and foot profiles,
/// handler by handler, with the deviations PROFILES.md lists and explains. Keep the two in step.
public struct TravelProfile: Sendable {
    public let mode: TravelMode
    /// `osrm` (`import --compat osrm`): the rules PROFILES.md marks as deviations are OSRM's instead, so that a
    /// graph answers as OSRM's would on the same data.
    public let compatibility: Compatibility

    public init(mode: TravelMode, compatibility: Compatibility = .wayfinder) {
        self.mode = mode
        self.compatibility = compatibility
    }

    public static let driving = TravelProfile(mode: .driving)
    public static let walking = TravelProfile(mode: .walking)
    public static func `for`(_ mode: TravelMode, compatibility: Compatibility = .wayfinder) -> TravelProfile {
        TravelProfile(mode: mode, compatibility: compatibility)
    }

    /// OSRM's rules where Wayfinder decides otherwise at import.
    var asOSRM: Bool { compatibility == .osrm }

    /// Whether OSRM's profile gives ways classes (ferry, tunnel…), which then tell pieces of a road apart: the car
    /// and bicycle profiles do, the foot profile not.
    public var hasClasses: Bool { mode != .walking }

    /// Turn restrictions bind cars and bikes; walkers may cross anywhere.
    public var obeysTurnRestrictions: Bool { mode != .walking }

    /// Seconds a turn costs at a junction (milliseconds in the graph). Cars: at an intersection of more than two
    /// roads, any U-turn, or a change of mode (boarding a ferry), a sigmoid of the angle (positive to the right)
    /// rising to 7.5 s, biased so right turns cost less than left ones in right-hand traffic, plus 20 s for a
    /// U-turn. Walkers: 2 s to turn round. Cyclists: at every junction, the square of the angle's share of a right
    /// angle times 6 s, dearer to the left and cheaper to the right by 1.4 (bicycle.lua), plus 20 s for a U-turn.
    /// `angle`: positive to the right, negative to the left (`turnAngle`). `onRoundabout`: either road is part of a
    /// roundabout. `after`: seconds already counted at the node (car.lua adds the turn to its delays). The terms are
    /// summed in the profiles' order and each written as they write it, so that a sum on a tenth's edge is cut as
    /// OSRM cuts it.
    public func turnPenalty(angle: Double, roads: Int, isUturn: Bool, modeChanges: Bool = false,
                            onRoundabout: Bool = false, after delays: Double = 0) -> Double {
        switch mode {
        case .walking:
            return isUturn ? 2 : 0
        case .cycling:
            let share = angle / 90, penalty = 6.0, bias = 1.4
            return (angle >= 0 ? share * share * penalty / bias : share * share * penalty * bias) + (isUturn ? 20 : 0)
        case .driving:
            guard roads > 2 || isUturn || modeChanges else { return delays }
            let maximum = 7.5, bias = 1.075
            var seconds = delays
            seconds += angle >= 0 ? maximum / (1 + exp(-((13 / bias) * angle / 180 - 6.5 * bias)))
                : maximum / (1 + exp(-((13 * bias) * -angle / 180 - 6.5 / bias)))
            if isUturn { seconds += 20 }
            // Turning left across oncoming traffic at a junction costs up to 2 s more (car.lua's
            // oncoming_turn_penalty; measured against OSRM 26.10: a 90° left is 7.3 s, a 90° right 2.1 s).
            if angle < 0 && roads > 2 && !isUturn && !onRoundabout {
                seconds += 2 / (1 + exp(-(13 * abs(angle) / 180 - 3.25)))
            }
            return seconds
        }
    }

    /// OSRM's turn angle for its profiles, from the bearing of travel arriving at a node and the bearing of the road
    /// leaving it: 180° less the angle on its turn circle, held to 1e-8 degrees as OSRM holds it (so a right angle
    /// drawn on a grid is exactly 90°). Positive to the right, in (−180, 180].
    public static func turnAngle(arriving: Double, leaving: Double) -> Double {
        180 - Geo.osrmTurnAngle(arriving, leaving)
    }

    // MARK: Tables (OSRM v6 car.lua and foot.lua)

    static let drivingSpeeds: [String: (RoadClass, Double)] = [
        "motorway": (.motorway, 90), "motorway_link": (.motorway, 45),
        "trunk": (.trunk, 85), "trunk_link": (.trunk, 40),
        "primary": (.primary, 65), "primary_link": (.primary, 30),
        "secondary": (.secondary, 55), "secondary_link": (.secondary, 25),
        "tertiary": (.tertiary, 40), "tertiary_link": (.tertiary, 20),
        "unclassified": (.unclassified, 25), "residential": (.residential, 25),
        "living_street": (.livingStreet, 10), "service": (.service, 15),
    ]
    /// Road classes of highways without a speed of their own, for those a mode may use with explicit access.
    static let otherClasses: [String: RoadClass] = [
        "track": .track, "pedestrian": .pedestrian, "footway": .footway, "path": .path, "steps": .steps,
        "cycleway": .cycleway, "bridleway": .path, "corridor": .footway, "platform": .footway, "road": .other,
        "living_street": .livingStreet, "residential": .residential, "service": .service,
        "unclassified": .unclassified, "tertiary": .tertiary, "tertiary_link": .tertiary,
        "secondary": .secondary, "secondary_link": .secondary, "primary": .primary, "primary_link": .primary,
        "trunk": .trunk, "trunk_link": .trunk, "motorway": .motorway, "motorway_link": .motorway,
    ]
    /// foot.lua's own highways (26.10 lists no `road`: a road of unknown kind is walked only with explicit access).
    static let walkingHighways: Set<String> = [
        "primary", "primary_link", "secondary", "secondary_link", "tertiary", "tertiary_link", "unclassified",
        "residential", "living_street", "service", "track", "path", "steps", "pedestrian", "platform",
        "footway", "pier",
    ]
    static let walkingSpeed = 5.0

    static let drivingAccessKeys = ["motorcar", "motor_vehicle", "vehicle", "access"]
    static let walkingAccessKeys = ["foot", "access"]
    static let drivingAllowed: Set<String> = ["yes", "motorcar", "motor_vehicle", "vehicle", "permissive", "designated", "hov"]
    static let drivingForbidden: Set<String> = [
        "no", "agricultural", "forestry", "emergency", "psv", "customers", "private", "delivery", "destination",
    ]
    static let walkingAllowed: Set<String> = ["yes", "foot", "permissive", "designated"]
    static let walkingForbidden: Set<String> = ["no", "agricultural", "forestry", "private", "delivery"]
    /// Forbidden values that still let a car start or end a route on the road (on the highways below).
    static let restrictedAccess: Set<String> = ["private", "delivery", "destination", "customers"]
    static let restrictedHighways: Set<String> = [
        "motorway", "motorway_link", "trunk", "trunk_link", "primary", "primary_link", "secondary", "secondary_link",
        "tertiary", "tertiary_link", "residential", "living_street", "unclassified", "service",
    ]
    /// Highway values a car never uses, whatever their access tags say.
    static let drivingAvoidedHighways: Set<String> = [
        "area", "reversible", "impassable", "hov_lanes", "steps", "construction", "proposed",
    ]
    static let passableConstruction: Set<String> = ["no", "widening", "minor"]
    static let drivingPassableBarriers: Set<String> = [
        "cattle_grid", "border_control", "toll_booth", "sally_port", "gate", "lift_gate", "no", "entrance",
        "height_restrictor", "arch",
    ]
    /// Barriers that stop walkers: OSRM's `yes`, `wall` and `fence`, and other things nobody walks through.
    static let walkingBlockingBarriers: Set<String> = ["yes", "wall", "fence", "hedge", "retaining_wall", "city_wall", "ditch"]
    static let osrmWalkingBlockingBarriers: Set<String> = ["yes", "wall", "fence"]
    static let servicePenalties: [String: Double] = [
        "alley": 0.5, "parking": 0.5, "parking_aisle": 0.5, "driveway": 0.5, "drive-through": 0.5, "drive-thru": 0.5,
    ]
    static let drivingSurfaceSpeeds: [String: Double] = [
        "cement": 80, "compacted": 80, "fine_gravel": 80, "paving_stones": 60, "metal": 60, "bricks": 60,
        "grass": 40, "wood": 40, "sett": 40, "grass_paver": 40, "gravel": 40, "unpaved": 40, "ground": 40,
        "dirt": 40, "pebblestone": 40, "tartan": 40, "cobblestone": 30, "clay": 30, "earth": 20, "stone": 20,
        "rocky": 20, "sand": 20, "mud": 10,
    ]
    static let walkingSurfaceSpeeds: [String: Double] = [
        "fine_gravel": 3.75, "gravel": 3.75, "pebblestone": 3.75, "mud": 2.5, "sand": 2.5,
    ]
    static let tracktypeSpeeds: [String: Double] = ["grade1": 60, "grade2": 40, "grade3": 30, "grade4": 25, "grade5": 20]
    static let smoothnessSpeeds: [String: Double] = [
        "intermediate": 80, "bad": 40, "very_bad": 20, "horrible": 10, "very_horrible": 5, "impassable": 0,
    ]
    /// Surfaces that are not paved, and track grades without a hard surface.
    static let unpavedSurfaces: Set<String> = [
        "unpaved", "compacted", "fine_gravel", "gravel", "pebblestone", "rock", "ground", "dirt", "earth", "grass",
        "grass_paver", "mud", "sand", "woodchips", "snow", "ice", "salt", "clay",
    ]
    static let unpavedTracktypes: Set<String> = ["grade2", "grade3", "grade4", "grade5"]

    /// Whether a way is unpaved: its `surface` says so, or, without one, its `tracktype` is grade 2 to 5.
    static func isUnpaved(_ tags: Tags) -> Bool {
        if let surface = tags["surface"] { return unpavedSurfaces.contains(surface) }
        return tags["tracktype"].map(unpavedTracktypes.contains) ?? false
    }

    /// The car the profile routes (metres, kilograms): ways whose physical limits are below these are closed.
    static let vehicleHeight = 2.0, vehicleWidth = 1.9, vehicleLength = 4.8, vehicleWeight = 2000.0
    /// Share of a signed or zone speed limit a car is assumed to drive at.
    static let speedReduction = 0.8
    static let ferrySpeed = 5.0, shuttleTrainSpeed = 10.0, movableBridgeSpeed = 5.0

    // MARK: Ways

    /// The rule for a way, or nil when the mode may not use it at all.
    public func rule(for tags: Tags) -> WayRule? {
        switch mode {
        case .driving: return drivingRule(tags)
        case .walking: return walkingRule(tags)
        case .cycling: return cyclingRule(tags)
        }
    }

    /// Whether any of the values (`destination;agricultural`) is usable, choosing the most permissive part:
    /// allowed over restricted over forbidden over anything else. As OSRM 26.10 (`asOSRM`), the whole list is one
    /// value, which no table knows: open.
    func resolvedAccess(_ raw: String?, allowed: Set<String>, restricted: Set<String>, forbidden: Set<String>) -> String? {
        guard let raw, raw.contains(";"), !asOSRM else { return raw }
        func priority(_ value: String) -> Int {
            allowed.contains(value) ? 3 : restricted.contains(value) ? 2 : forbidden.contains(value) ? 1 : 0
        }
        let parts = raw.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return parts.max { priority($0) < priority($1) } ?? raw
    }

    /// Ways nobody routes on: areas to cars, closed or unbuilt roads, impassable ones.
    func isBlockedWay(_ tags: Tags, highway: String?) -> Bool {
        if let proposed = tags["proposed"], proposed.isEmpty == false, highway == nil || highway == "proposed" { return true }
        if tags["impassable"] == "yes" || tags["status"] == "impassable" { return true }
        guard mode != .walking else { return false }
        if highway == "construction" || tags["railway"] == "construction" { return true }
        if let construction = tags["construction"], !Self.passableConstruction.contains(construction) { return true }
        // bicycle.lua avoids motorroads too, but not areas or reversible oneways.
        if mode == .cycling { return tags["motorroad"] == "yes" }
        if tags["area"] == "yes" { return true }
        if tags["oneway"] == "reversible" { return true }
        if let highway, Self.drivingAvoidedHighways.contains(highway) { return true }
        return false
    }

    private func drivingRule(_ tags: Tags) -> WayRule? {
        let highway = tags["highway"], route = tags["route"]
        guard highway != nil || route != nil else { return nil }
        if isBlockedWay(tags, highway: highway) { return nil }
        var forward = true, backward = true

        // Physical limits against the profile's car.
        let heights = tags.forwardBackward(["maxheight:physical", "maxheight"])
        if let h = heights.forward.flatMap(TagValues.height), h < Self.vehicleHeight { forward = false }
        if let h = heights.backward.flatMap(TagValues.height), h < Self.vehicleHeight { backward = false }
        let widths = tags.forwardBackward(["maxwidth:physical", "maxwidth", "width", "est_width"])
        if let w = widths.forward.flatMap(TagValues.metres), w <= Self.vehicleWidth { forward = false }
        if let w = widths.backward.flatMap(TagValues.metres), w <= Self.vehicleWidth { backward = false }
        let lengths = tags.forwardBackward(["maxlength"])
        if let l = lengths.forward.flatMap(TagValues.metres), l < Self.vehicleLength { forward = false }
        if let l = lengths.backward.flatMap(TagValues.metres), l < Self.vehicleLength { backward = false }
        let weights = tags.forwardBackward(["maxweight:physical", "maxweight"])
        if let w = weights.forward.flatMap(TagValues.kilograms), w < Self.vehicleWeight { forward = false }
        if let w = weights.backward.flatMap(TagValues.kilograms), w < Self.vehicleWeight { backward = false }

        // Access: the most specific key per direction; forbidden closes, restricted keeps it for starts and ends.
        let raw = tags.forwardBackward(Self.drivingAccessKeys)
        let resolve = { resolvedAccess($0, allowed: Self.drivingAllowed, restricted: Self.restrictedAccess, forbidden: Self.drivingForbidden) }
        let access = (forward: resolve(raw.forward), backward: resolve(raw.backward))
        let canBeRestricted = highway.map(Self.restrictedHighways.contains) ?? false
        var restricted = (forward: false, backward: false)
        if canBeRestricted {
            restricted.forward = access.forward.map(Self.restrictedAccess.contains) ?? false
            restricted.backward = access.backward.map(Self.restrictedAccess.contains) ?? false
        }
        if let a = access.forward, Self.drivingForbidden.contains(a), !restricted.forward { forward = false }
        if let a = access.backward, Self.drivingForbidden.contains(a), !restricted.backward { backward = false }
        guard forward || backward else { return nil }

        // Direction.
        var oneway = Oneway.none
        let onewayTag = tags.first(["oneway:motorcar", "oneway:motor_vehicle", "oneway:vehicle", "oneway"])
        let isRoundabout = tags["junction"] == "roundabout" || tags["junction"] == "circular"
        switch onewayTag {
        case "-1": oneway = .backward; forward = false
        case "yes", "1", "true": oneway = .forward; backward = false
        default:
            if (highway == "motorway" || isRoundabout) && onewayTag != "no" { oneway = .forward; backward = false }
        }
        guard forward || backward else { return nil }

        if tags["service"] == "emergency_access" { return nil }

        // Speeds: ferries, shuttle trains and movable bridges first, then the highway's speed, else a speed for
        // roads open to cars only by explicit access.
        var speed: (forward: Double?, backward: Double?) = (nil, nil)
        var flags: EdgeFlags = []
        var duration: Double?
        var roadClass = highway.flatMap { Self.drivingSpeeds[$0]?.0 ?? Self.otherClasses[$0] } ?? .other
        if route == "ferry" || route == "shuttle_train" {
            let s = route == "ferry" ? Self.ferrySpeed : Self.shuttleTrainSpeed
            speed = (s, s)
            flags.insert(route == "ferry" ? .ferry : .train)
            roadClass = .ferry
            duration = tags["duration"].flatMap(TagValues.duration).map { max($0, 1) }
        } else if tags["bridge"] == "movable" {
            duration = tags["duration"].flatMap(TagValues.duration).map { max($0, 1) }
            speed = (Self.movableBridgeSpeed, Self.movableBridgeSpeed)
        } else if let highway, let (_, s) = Self.drivingSpeeds[highway] {
            speed = (s, s)
        } else {
            guard highway != nil else { return nil }
            // A highway without a car speed (track, path, runway, …) only with access explicitly granted.
            let fallback = 10.0
            for (isForward, value, other) in [(true, access.forward, access.backward), (false, access.backward, access.forward)] {
                if let value, Self.drivingAllowed.contains(value) || !Self.drivingForbidden.contains(value) {
                    if isForward { speed.forward = fallback } else { speed.backward = fallback }
                } else if value == nil && other != nil {
                    if isForward { forward = false } else { backward = false }
                }
            }
        }
        if speed.forward == nil { forward = false }
        if speed.backward == nil { backward = false }
        guard forward || backward else { return nil }

        // Signed limits replace the road's speed (at 80 %): the advisory first, then zone forms.
        if !flags.contains(.ferry) && !flags.contains(.train) {
            let limits = tags.forwardBackward(["maxspeed:advisory", "maxspeed", "source:maxspeed", "maxspeed:type"])
            if let v = limits.forward.flatMap(TagValues.maxspeed) { speed.forward = v * Self.speedReduction }
            if let v = limits.backward.flatMap(TagValues.maxspeed) { speed.backward = v * Self.speedReduction }
        }
        // Surfaces cap it.
        for (key, table) in [("surface", Self.drivingSurfaceSpeeds), ("tracktype", Self.tracktypeSpeeds),
                             ("smoothness", Self.smoothnessSpeeds)] {
            guard let value = tags[key], let cap = table[value] else { continue }
            speed.forward = speed.forward.map { min($0, cap) }
            speed.backward = speed.backward.map { min($0, cap) }
        }
        if (speed.forward ?? 0) <= 0 { forward = false }
        if (speed.backward ?? 0) <= 0 { backward = false }
        guard forward || backward else { return nil }

        // What the route choice takes off: narrow roads, one lane both ways, service kinds, alternating traffic.
        let width = tags["width"].flatMap(TagValues.firstNumber) ?? .infinity
        let lanes = tags["lanes"].flatMap(TagValues.leadingInteger) ?? .infinity
        let bothWays = forward && backward
        var penalty = Self.servicePenalties[tags["service"] ?? ""] ?? 1
        // OSRM 26.10's car.lua: only roads open both ways, the narrower the dearer; no lane markings; one lane.
        var widthPenalty = 1.0
        if tags["lane_markings"] == "no" && bothWays { widthPenalty = 0.75 }
        if width.isFinite && bothWays {
            widthPenalty = width <= 3 ? 0.5 : width < 4 ? 0.6 : width < 5 ? 0.75 : width < 6 ? 0.8 : widthPenalty
        }
        if lanes <= 1 && bothWays { widthPenalty = 0.5 }
        penalty = min(penalty, widthPenalty)
        if onewayTag == "alternating" { penalty = min(penalty, 0.4) }
        if tags["side_road"] == "yes" || tags["side_road"] == "rotary" { penalty = min(penalty, 0.8) }
        // `priority=forward`: the other direction gives way, and is chosen less (car.lua's priority_penalty).
        let priority = (forward: tags["priority"] == "backward" ? 0.7 : 1.0, backward: tags["priority"] == "forward" ? 0.7 : 1.0)

        // HOV: only for cars with passengers, so restricted like a private road.
        if tags["hov"] == "designated" { restricted = (true, true) }
        let hovLanes = tags.forwardBackward("hov:lanes", oneway: oneway)
        func allDesignated(_ lanes: String?) -> Bool {
            guard let lanes else { return false }
            return lanes.split(separator: "|", omittingEmptySubsequences: false).allSatisfy { $0 == "designated" }
        }
        if allDesignated(hovLanes.forward) { restricted.forward = true }
        if allDesignated(hovLanes.backward) { restricted.backward = true }

        // Classes, per direction: what `exclude` avoids and intersections report.
        let tolls = tags.forwardBackward("toll", oneway: oneway)
        var common: ArcClasses = []
        if let tunnel = tags["tunnel"], tunnel != "no" { common.insert(.tunnel) }
        if highway == "motorway" || highway == "motorway_link" { common.insert(.motorway) }
        if route == "ferry" { common.insert(.ferry) }
        func classes(toll: String?, restricted: Bool) -> ArcClasses {
            var c = common
            if toll == "yes" { c.insert(.toll) }
            if restricted { c.insert(.restricted) }
            return c
        }

        var rule = WayRule(roadClass: roadClass, flags: flags.union(guidanceFlags(tags)), duration: duration)
        rule.unpaved = Self.isUnpaved(tags)
        if forward {
            rule.forward = DirectionRule(speed: speed.forward!, penalty: min(penalty, priority.forward), restricted: restricted.forward,
                                         classes: classes(toll: tolls.forward, restricted: restricted.forward),
                                         destinations: oneway == .forward ? Self.destinations(tags, suffix: ":forward") : "")
        }
        if backward {
            rule.backward = DirectionRule(speed: speed.backward!, penalty: min(penalty, priority.backward), restricted: restricted.backward,
                                          classes: classes(toll: tolls.backward, restricted: restricted.backward),
                                          destinations: oneway == .backward ? Self.destinations(tags, suffix: ":backward") : "")
        }
        if oneway != .none { rule.flags.insert(.oneway) }
        let turnLanes = Self.turnLanes(tags, oneway: oneway)
        rule.forward?.turnLanes = turnLanes.forward
        rule.backward?.turnLanes = turnLanes.backward
        rule.lanes = Self.laneCount(tags, turnLanes: turnLanes)
        // Never a start on a ferry, or on a private service road (a car park, a driveway).
        rule.isStartpoint = !flags.contains(.ferry) && !flags.contains(.train)
            && !(highway == "service" && access.forward == "private")
        rule.pronunciation = tags["name:pronunciation"] ?? ""
        rule.exits = Self.list(tags["junction:ref"] ?? "")
        return rule
    }

    private func walkingRule(_ tags: Tags) -> WayRule? {
        let highway = tags["highway"], route = tags["route"]
        let keys = ["highway", "bridge", "route", "leisure", "man_made", "railway", "platform", "amenity", "public_transport"]
        guard keys.contains(where: { tags[$0] != nil }) else { return nil }
        if isBlockedWay(tags, highway: highway) { return nil }
        var forward = true, backward = true
        let raw = tags.forwardBackward(Self.walkingAccessKeys)
        // `destination` and `customers` are no reason to keep walkers off ("destination;agricultural" is open).
        let resolve = { resolvedAccess($0, allowed: Self.walkingAllowed, restricted: ["destination", "customers"],
                                            forbidden: Self.walkingForbidden) }
        let access = (forward: resolve(raw.forward), backward: resolve(raw.backward))
        if let a = access.forward, Self.walkingForbidden.contains(a) { forward = false }
        if let a = access.backward, Self.walkingForbidden.contains(a) { backward = false }
        guard forward || backward else { return nil }
        // Only `oneway:foot` binds walkers: a oneway street is walked both ways.
        switch tags["oneway:foot"] {
        case "-1": forward = false
        case "yes", "1", "true": backward = false
        default: break
        }
        guard forward || backward else { return nil }

        var speed: (forward: Double?, backward: Double?) = (nil, nil)
        var flags: EdgeFlags = []
        var duration: Double?
        var roadClass = highway.flatMap { Self.otherClasses[$0] } ?? .footway
        // A platform tagged `public_transport=platform` alone (a bus stop's kerb, most often) is walked, though
        // OSRM's foot profile gives it no speed (PROFILES.md, section 1).
        let walkable = highway.map(Self.walkingHighways.contains) ?? false
            || tags["railway"] == "platform" || (tags["public_transport"] == "platform" && !asOSRM)
            || tags["man_made"] == "pier" || tags["leisure"] == "track"
            || tags["amenity"] == "parking" || tags["amenity"] == "parking_entrance"
        // Trunk roads with a sidewalk (OSRM's foot profile reads no sidewalk tags; see PROFILES.md).
        let trunkWithSidewalk = (highway == "trunk" || highway == "trunk_link") && Self.hasSidewalk(tags) && !asOSRM
        if route == "ferry" {
            speed = (Self.ferrySpeed, Self.ferrySpeed)
            flags.insert(.ferry)
            roadClass = .ferry
            duration = tags["duration"].flatMap(TagValues.duration).map { max($0, 1) }
        } else if walkable || trunkWithSidewalk {
            speed = (Self.walkingSpeed, Self.walkingSpeed)
        } else {
            guard highway != nil || tags["railway"] != nil || tags["public_transport"] != nil else { return nil }
            for (isForward, value, other) in [(true, access.forward, access.backward), (false, access.backward, access.forward)] {
                if let value, !Self.walkingForbidden.contains(value) {
                    if isForward { speed.forward = Self.walkingSpeed } else { speed.backward = Self.walkingSpeed }
                } else if value == nil && other != nil {
                    if isForward { forward = false } else { backward = false }
                }
            }
        }
        if speed.forward == nil { forward = false }
        if speed.backward == nil { backward = false }
        guard forward || backward else { return nil }
        if let value = tags["surface"], let cap = Self.walkingSurfaceSpeeds[value] {
            speed.forward = speed.forward.map { min($0, cap) }
            speed.backward = speed.backward.map { min($0, cap) }
        }
        if tags["railway"] == "platform" || tags["public_transport"] == "platform" { roadClass = .footway }
        var rule = WayRule(roadClass: roadClass, flags: flags.union(guidanceFlags(tags)), duration: duration)
        rule.unpaved = Self.isUnpaved(tags)
        if forward != backward { rule.flags.insert(.oneway) }
        var common: ArcClasses = route == "ferry" ? [.ferry] : []
        if let tunnel = tags["tunnel"], tunnel != "no" { common.insert(.tunnel) }
        if forward { rule.forward = DirectionRule(speed: speed.forward!, classes: common) }
        if backward { rule.backward = DirectionRule(speed: speed.backward!, classes: common) }
        rule.isStartpoint = !flags.contains(.ferry)
        rule.pronunciation = tags["name:pronunciation"] ?? ""
        rule.exits = Self.list(tags["junction:ref"] ?? "")
        rule.lanes = Self.laneCount(tags, turnLanes: ("", ""))
        return rule
    }

    static func hasSidewalk(_ tags: Tags) -> Bool {
        if let sidewalk = tags["sidewalk"], ["both", "left", "right", "yes"].contains(sidewalk) { return true }
        return ["sidewalk:both", "sidewalk:left", "sidewalk:right"].contains { tags[$0] == "yes" }
    }

    /// Guidance facts about a way.
    func guidanceFlags(_ tags: Tags) -> EdgeFlags {
        var flags: EdgeFlags = []
        if tags["junction"] == "roundabout" { flags.insert(.roundabout) }
        if tags["junction"] == "circular" { flags.insert(.circular) }
        if tags["highway"]?.hasSuffix("_link") == true { flags.insert(.link) }
        if let bridge = tags["bridge"], bridge != "no" { flags.insert(.bridge) }
        return flags
    }

    /// The words `turn:lanes` may use; a value with any other discards the whole description (as OSRM does).
    static let laneWords: Set<String> = [
        "none", "through", "sharp_left", "left", "slight_left", "slight_right", "right", "sharp_right", "reverse",
        "merge_to_left", "merge_to_right", "",
    ]

    /// `turn:lanes` per direction (`turn:lanes:forward`/`:backward`, else `turn:lanes` for the directions of
    /// travel), keeping only the lanes `vehicle:lanes` opens to cars, or trimming the empty lanes `lanes:psv`
    /// reserves for buses at the edges.
    static func turnLanes(_ tags: Tags, oneway: Oneway) -> (forward: String, backward: String) {
        let raw = tags.forwardBackward("turn:lanes", oneway: oneway)
        let vehicle = tags.forwardBackward("vehicle:lanes", oneway: oneway)
        let psv = tags.forwardBackward("lanes:psv", oneway: oneway)
        func process(_ lanes: String?, _ access: String?, left: Int, right: Int) -> String {
            guard let lanes else { return "" }
            var parts = lanes.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            guard parts.allSatisfy({ $0.split(separator: ";", omittingEmptySubsequences: false).allSatisfy { laneWords.contains(String($0)) } })
            else { return "" }
            if let access {
                let open = access.split(separator: "|", omittingEmptySubsequences: false)
                if open.count == parts.count { parts = zip(parts, open).filter { $1 == "yes" }.map(\.0) }
            } else {
                if left > 0 && left < parts.count && parts.prefix(left).allSatisfy(\.isEmpty) { parts.removeFirst(left) }
                if right > 0 && right < parts.count && parts.suffix(right).allSatisfy(\.isEmpty) { parts.removeLast(right) }
            }
            return parts.joined(separator: "|")
        }
        let psvForward = psv.forward.flatMap { Int($0) } ?? 0, psvBackward = psv.backward.flatMap { Int($0) } ?? 0
        return (process(raw.forward, vehicle.forward, left: psvBackward, right: psvForward),
                process(raw.backward, vehicle.backward, left: psvForward, right: psvBackward))
    }

    /// The way's lane count: `lanes`, else `lanes:forward` + `lanes:backward`, raised to the turn lanes mapped.
    static func laneCount(_ tags: Tags, turnLanes: (forward: String, backward: String)) -> Int {
        var count = 0
        if let lanes = tags["lanes"] { count = Int(lanes) ?? 0 } else {
            count = (tags["lanes:forward"].flatMap { Int($0) } ?? 0) + (tags["lanes:backward"].flatMap { Int($0) } ?? 0)
        }
        func lanesIn(_ s: String) -> Int { s.isEmpty ? 0 : s.split(separator: "|", omittingEmptySubsequences: false).count }
        return min(255, max(count, lanesIn(turnLanes.forward) + lanesIn(turnLanes.backward)))
    }

    /// A way's `ref` as OSRM answers it: a list (`A 1;E 1`) joined with "; ".
    public static func ref(_ tags: Tags) -> String {
        guard let ref = tags["ref"] else { return "" }
        guard ref.contains(";") else { return ref }
        return ref.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            .joined(separator: "; ")
    }

    /// The signs on a oneway: "ref: destination", with `;` lists as ", " (OSRM's `destinations`).
    static func destinations(_ tags: Tags, suffix: String) -> String {
        func tag(_ key: String) -> String? { (tags[key + suffix] ?? tags[key]).map { list($0.replacingOccurrences(of: ";", with: ",")) } }
        let ref = tag("destination:ref"), destination = tag("destination"), street = tag("destination:street")
        if let ref, let destination { return ref + ": " + destination }
        return ref ?? destination ?? street ?? ""
    }

    /// "A1;A2" → "A1; A2", "Porto,Lisboa" → "Porto, Lisboa": a separator followed by one space.
    static func list(_ text: String) -> String {
        var out = ""
        var lastWasSpace = false
        for c in text {
            if c == ";" || c == "," {
                out.append(c); out.append(" ")
                lastWasSpace = true
                continue
            }
            if c.isWhitespace { if !lastWasSpace { out.append(" ") }; lastWasSpace = true; continue }
            out.append(c)
            lastWasSpace = false
        }
        return out.trimmingCharacters(in: .whitespaces)
    }

    // MARK: Nodes

    /// What a node means to this mode: a barrier it cannot pass (only turn round at), and delays.
    public func rule(forNode tags: Tags) -> NodeRule {
        var rule = NodeRule()
        switch mode {
        case .driving:
            let access = resolvedAccess(tags.first(Self.drivingAccessKeys), allowed: Self.drivingAllowed,
                                             restricted: Self.restrictedAccess, forbidden: Self.drivingForbidden)
            if let access {
                // An access tag decides, whatever the barrier: a gate open to all, a closed bollard line.
                rule.blocked = Self.drivingForbidden.contains(access) && !Self.restrictedAccess.contains(access)
            } else if let barrier = tags["barrier"] {
                let risingBollard = tags["bollard"] == "rising"
                let flatKerb = tags["kerb"] == "lowered" || tags["kerb"] == "flush"
                let crossingKerb = barrier == "kerb" && tags["highway"] == "crossing"
                // A virtual livestock fence (a wire that beeps) is no barrier to a car.
                let audibleFence = barrier == "fence" && ["audible", "audio"].contains(tags["sensory"] ?? "")
                rule.blocked = !Self.drivingPassableBarriers.contains(barrier) && !risingBollard && !flatKerb && !crossingKerb
                    && !audibleFence
                // A gate must be opened (and closed again): a minute, both ways (car.lua's barrier_penalties).
                if barrier == "gate" || barrier == "lift_gate" {
                    rule.obstacles.append(Obstacle(kind: .gate, direction: .any, seconds: 60))
                }
            }
            // A height restrictor lower than the car stops it whatever the access tags say (a physical limit).
            // (OSRM lets an access tag on the node hide it.)
            if tags["barrier"] == "height_restrictor", let h = tags["maxheight"].flatMap(TagValues.height),
               h < Self.vehicleHeight, !(asOSRM && access != nil) { rule.blocked = true }
            rule.obstacles += Self.obstacles(tags)
        case .cycling:
            // The first access key decides as tagged, lists not read; a crossing's access is about the road crossed.
            if let access = tags.first(Self.cyclingAccessKeys) {
                rule.blocked = Self.cyclingForbidden.contains(access) && tags["highway"] != "crossing"
            } else if let barrier = tags["barrier"] {
                let audibleFence = barrier == "fence" && ["audible", "audio"].contains(tags["sensory"] ?? "")
                rule.blocked = Self.osrmWalkingBlockingBarriers.contains(barrier) && !audibleFence
            }
            if tags["highway"] == "traffic_signals" {
                let facing = tags["traffic_signals:direction"]
                let direction: Obstacle.Direction = facing == "forward" ? .forward : facing == "backward" ? .backward : .any
                rule.obstacles = [Obstacle(kind: .signals, direction: direction, seconds: 2)]
            }
        case .walking:
            let access = resolvedAccess(tags.first(Self.walkingAccessKeys), allowed: Self.walkingAllowed,
                                             restricted: [], forbidden: Self.walkingForbidden)
            if let access {
                rule.blocked = Self.walkingForbidden.contains(access)
            } else if let barrier = tags["barrier"] {
                let blocking = asOSRM ? Self.osrmWalkingBlockingBarriers : Self.walkingBlockingBarriers
                rule.blocked = blocking.contains(barrier) && tags["bollard"] != "rising"
            }
            if tags["highway"] == "traffic_signals" {
                rule.obstacles = [Obstacle(kind: .signals, direction: .any, seconds: 2)]
            }
        }
        return rule
    }

    /// Signals (2 s), stop signs (2 s) and give-way signs (1 s) on a node, with the direction they face.
    static func obstacles(_ tags: Tags) -> [Obstacle] {
        guard let highway = tags["highway"] else { return [] }
        func direction(_ value: String?) -> Obstacle.Direction {
            switch value {
            case "forward": return .forward
            case "backward": return .backward
            default: return .any
            }
        }
        switch highway {
        case "traffic_signals":
            return [Obstacle(kind: .signals, direction: direction(tags["traffic_signals:direction"] ?? tags["direction"]), seconds: 2)]
        case "stop":
            return [Obstacle(kind: tags["stop"] == "minor" ? .minorStop : .stop, direction: direction(tags["direction"]), seconds: 2)]
        case "give_way":
            return [Obstacle(kind: .giveWay, direction: direction(tags["direction"]), seconds: 1)]
        default:
            return []
        }
    }
}
