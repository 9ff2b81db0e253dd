import Foundation
import RoadGraph

/// How one mode may use a way.
public struct WayRule: Equatable, Sendable {
    public var forward: Bool
    public var backward: Bool
    /// Travel speed, km/h.
    public var speed: Double
    public var roadClass: RoadClass
}

/// Which ways, directions, speeds and barriers a travel mode uses. The rules are documented in PROFILES.md;
/// keep the two in step.
public struct TravelProfile: Sendable {
    public let mode: TravelMode

    public static let driving = TravelProfile(mode: .driving)
    public static let walking = TravelProfile(mode: .walking)
    public static func `for`(_ mode: TravelMode) -> TravelProfile { TravelProfile(mode: mode) }

    /// Turn restrictions apply to driving only.
    public var obeysTurnRestrictions: Bool { mode == .driving }

    /// Seconds added for passing a `highway=traffic_signals` node (driving; OSRM's car profile uses the same).
    public var trafficSignalPenalty: Double { mode == .driving ? 2 : 0 }

    /// Seconds a turn costs a car at an intersection of more than two roads (or any U-turn), by its angle (degrees,
    /// positive to the right): a sigmoid rising to 7.5 s, biased so that right turns cost less than left ones in
    /// right-hand traffic, plus 20 s for a U-turn — the model of OSRM's car profile. Bends of one road, and
    /// walking, cost nothing.
    public func turnPenalty(angle: Double, roads: Int, isUturn: Bool) -> Double {
        guard mode == .driving, roads > 2 || isUturn else { return 0 }
        let maximum = 7.5, bias = 1.075
        let share = abs(angle) / 180
        let exponent = angle >= 0 ? (13 / bias) * share - 6.5 * bias : (13 * bias) * share - 6.5 / bias
        return maximum / (1 + exp(-exponent)) + (isUturn ? 20 : 0)
    }

    static let drivingSpeeds: [String: (RoadClass, Double)] = [
        "motorway": (.motorway, 90), "motorway_link": (.motorway, 45),
        "trunk": (.trunk, 85), "trunk_link": (.trunk, 40),
        "primary": (.primary, 65), "primary_link": (.primary, 30),
        "secondary": (.secondary, 55), "secondary_link": (.secondary, 25),
        "tertiary": (.tertiary, 40), "tertiary_link": (.tertiary, 20),
        "unclassified": (.unclassified, 25), "residential": (.residential, 25),
        "living_street": (.livingStreet, 10), "service": (.service, 15), "road": (.other, 20),
    ]

    static let walkingClasses: [String: RoadClass] = [
        "footway": .footway, "pedestrian": .pedestrian, "path": .path, "steps": .steps, "corridor": .footway,
        "platform": .footway, "living_street": .livingStreet, "residential": .residential, "service": .service,
        "unclassified": .unclassified, "track": .track, "cycleway": .cycleway, "road": .other,
        "tertiary": .tertiary, "tertiary_link": .tertiary, "secondary": .secondary, "secondary_link": .secondary,
        "primary": .primary, "primary_link": .primary, "trunk": .trunk, "trunk_link": .trunk,
        "motorway": .motorway, "motorway_link": .motorway,  // only with explicit foot access, see below
    ]

    static let walkingSpeed = 5.0
    static let stepsSpeed = 3.0

    static let drivingAccessKeys = ["access", "vehicle", "motor_vehicle", "motorcar"]
    static let walkingAccessKeys = ["access", "foot"]
    static let deniedAccess: Set<String> = [
        "no", "private", "agricultural", "forestry", "emergency", "psv", "bus", "delivery", "customers",
        "military", "restricted", "use_sidepath", "discouraged_not_routable", "disabled",
    ]
    static let grantedAccess: Set<String> = ["yes", "permissive", "designated", "destination", "official"]
    static let excludedHighways: Set<String> = [
        "construction", "proposed", "abandoned", "disused", "razed", "planned", "raceway", "bus_guideway",
    ]
    /// Barriers a car can pass unless access tags on the node say otherwise.
    static let drivingPassableBarriers: Set<String> = [
        "cattle_grid", "border_control", "toll_booth", "sally_port", "gate", "lift_gate", "no", "entrance",
        "height_restrictor", "arch", "swing_gate",
    ]
    /// Barriers that block walkers too (as nodes these are odd, but they are mapped).
    static let walkingBlockingBarriers: Set<String> = ["wall", "fence", "hedge", "retaining_wall", "city_wall", "ditch"]

    /// The rule for a way, or nil when the mode may not use it at all.
    public func rule(for tags: Tags) -> WayRule? {
        if tags["route"] == "ferry" && tags["highway"] == nil { return ferryRule(tags) }
        guard let highway = tags["highway"], !Self.excludedHighways.contains(highway) else { return nil }
        if let construction = tags["construction"], construction == "yes" { return nil }
        if tags["impassable"] == "yes" { return nil }
        switch mode {
        case .driving: return drivingRule(highway: highway, tags: tags)
        case .walking: return walkingRule(highway: highway, tags: tags)
        }
    }

    private func drivingRule(highway: String, tags: Tags) -> WayRule? {
        guard let (roadClass, defaultSpeed) = Self.drivingSpeeds[highway] else { return nil }
        if tags["area"] == "yes" { return nil }
        if let access = tags.mostSpecific(Self.drivingAccessKeys), Self.deniedAccess.contains(access) { return nil }
        var speed = defaultSpeed
        if highway == "service", let kind = tags["service"] {
            if kind == "emergency_access" { return nil }
            if ["parking_aisle", "driveway", "drive-through"].contains(kind) { speed = 10 }
        }
        if let limit = (tags["maxspeed"] ?? tags["maxspeed:forward"]).flatMap(Self.parseMaxspeed) {
            // Nobody drives at the limit all the way (junctions, traffic): OSRM uses the same 0.8 factor.
            speed = limit.isInfinite ? max(defaultSpeed, 110) : max(5, limit * 0.8)
        }
        var forward = true, backward = true
        let impliedOneway = tags["junction"] == "roundabout" || tags["junction"] == "circular"
            || highway == "motorway" || highway == "motorway_link"
        switch tags["oneway"] {
        case "yes", "1", "true": backward = false
        case "-1", "reverse": forward = false
        case "reversible", "alternating": return nil  // direction changes over the day: not routable
        case "no", "false", "0": break
        default: if impliedOneway { backward = false }
        }
        return WayRule(forward: forward, backward: backward, speed: speed, roadClass: roadClass)
    }

    private func walkingRule(highway: String, tags: Tags) -> WayRule? {
        guard let roadClass = Self.walkingClasses[highway] else { return nil }
        let access = tags.mostSpecific(Self.walkingAccessKeys)
        if let access, Self.deniedAccess.contains(access) { return nil }
        if roadClass == .motorway && !(access.map(Self.grantedAccess.contains) ?? false) { return nil }
        if tags["foot"] == nil && tags["sidewalk"] == "none" && (highway == "trunk" || highway == "trunk_link") {
            return nil
        }
        var forward = true, backward = true
        switch tags["oneway:foot"] {
        case "yes", "1", "true": backward = false
        case "-1", "reverse": forward = false
        default: break
        }
        // A pedestrian area (area=yes) is walked along its outline: better than no route across a square.
        let speed = highway == "steps" ? Self.stepsSpeed : Self.walkingSpeed
        return WayRule(forward: forward, backward: backward, speed: speed, roadClass: roadClass)
    }

    static let ferrySpeed = 10.0

    /// Ferries carry both modes unless access tags say otherwise, at a flat 10 km/h (boarding and waiting included).
    private func ferryRule(_ tags: Tags) -> WayRule? {
        let keys = mode == .driving ? Self.drivingAccessKeys : Self.walkingAccessKeys
        if let access = tags.mostSpecific(keys), Self.deniedAccess.contains(access) { return nil }
        return WayRule(forward: true, backward: true, speed: Self.ferrySpeed, roadClass: .ferry)
    }

    /// Guidance facts about a way.
    public func flags(for tags: Tags) -> EdgeFlags {
        var flags: EdgeFlags = []
        if tags["junction"] == "roundabout" || tags["junction"] == "circular" { flags.insert(.roundabout) }
        if tags["highway"]?.hasSuffix("_link") == true { flags.insert(.link) }
        if tags["route"] == "ferry" { flags.insert(.ferry) }
        return flags
    }

    /// Whether a barrier (or access tags) on a node stops this mode from passing through it.
    public func isBlocked(byNode tags: Tags) -> Bool {
        guard let barrier = tags["barrier"] else { return false }
        let keys = mode == .driving ? Self.drivingAccessKeys : Self.walkingAccessKeys
        if let access = tags.mostSpecific(keys) {
            if Self.deniedAccess.contains(access) { return true }
            if Self.grantedAccess.contains(access) { return false }
        }
        switch mode {
        case .driving: return !Self.drivingPassableBarriers.contains(barrier)
        case .walking: return Self.walkingBlockingBarriers.contains(barrier)
        }
    }

    /// `maxspeed` in km/h: plain numbers, "mph"/"knots" units, `none` (infinite), `walk`, and zone values such as
    /// `DE:urban`, `FI:rural`, `RU:motorway`, `zone30`, `DE:zone:30`. Several values ("50;30"): the lowest.
    public static func parseMaxspeed(_ raw: String) -> Double? {
        let values = raw.split(separator: ";").compactMap { parseSingleMaxspeed(String($0)) }
        return values.min()
    }

    static let zoneSpeeds: [String: Double] = [
        "urban": 50, "rural": 90, "trunk": 100, "motorway": 120, "living_street": 7, "walk": 7, "bicycle_road": 30,
    ]
    static let countryZoneSpeeds: [String: Double] = [
        "DE:rural": 100, "DE:motorway": .infinity, "AT:rural": 100, "AT:motorway": 130, "FI:rural": 80,
        "FI:motorway": 120, "RU:urban": 60, "RU:motorway": 110, "UK:nsl_single": 96.56, "UK:nsl_dual": 112.65,
        "GB:nsl_single": 96.56, "GB:nsl_dual": 112.65, "UK:motorway": 112.65, "GB:motorway": 112.65,
        "DK:rural": 80, "DK:motorway": 130, "PT:rural": 90, "PT:motorway": 120, "FR:rural": 80, "FR:motorway": 130,
        "IT:rural": 90, "IT:motorway": 130, "ES:rural": 90, "ES:motorway": 120, "CH:rural": 80, "CH:motorway": 120,
        "NL:rural": 80, "NL:motorway": 130, "US:urban": 40.23, "US:rural": 88.51,
    ]

    static func parseSingleMaxspeed(_ raw: String) -> Double? {
        let value = raw.trimmingCharacters(in: .whitespaces).lowercased()
        if value.isEmpty { return nil }
        if value == "none" || value == "unlimited" { return .infinity }
        if value == "walk" { return 7 }
        if value == "signals" || value == "variable" { return nil }
        let original = raw.trimmingCharacters(in: .whitespaces)
        if let known = countryZoneSpeeds[original] { return known }
        // Zone values: "DE:zone30", "zone:30", "DE:zone:30", "DE:urban".
        if let colon = original.firstIndex(of: ":"), original.prefix(upTo: colon).count == 2,
           let known = zoneSpeeds[String(original[original.index(after: colon)...]).lowercased()]
        {
            return known
        }
        let digitsOfZone = value.replacingOccurrences(of: "zone:", with: "").replacingOccurrences(of: "zone", with: "")
        let stripped = digitsOfZone.split(separator: ":").last.map(String.init) ?? digitsOfZone
        var number = ""
        var rest = Substring(stripped)
        while let c = rest.first, c.isNumber || c == "." { number.append(c); rest = rest.dropFirst() }
        guard let speed = Double(number), speed > 0 else { return zoneSpeeds[value] }
        let unit = rest.trimmingCharacters(in: .whitespaces)
        switch unit {
        case "", "km/h", "kmh", "kph", "km/t": return speed
        case "mph": return speed * 1.609344
        case "knots", "kn": return speed * 1.852
        default: return nil
        }
    }
}
