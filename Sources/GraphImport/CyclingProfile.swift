import Foundation
import RoadGraph

/// The cycling rules: OSRM 26.10's `bicycle.lua`, handler by handler, in its order (speed, oneway, cycleway, pushing,
/// speed limits, access per direction, separately mapped cycleways, surface). PROFILES.md lists them.
extension TravelProfile {
    static let cyclingAccessKeys = ["bicycle", "vehicle", "access"]
    static let cyclingAllowed: Set<String> = ["yes", "permissive", "designated"]
    /// `use_sidepath`: a signposted cycleway runs alongside, and the law sends bikes there.
    static let cyclingForbidden: Set<String> = ["no", "private", "agricultural", "forestry", "delivery", "use_sidepath"]
    static let cyclingSpeed = 15.0, pushingSpeed = 4.0
    /// Recreational cyclists ride no faster than this, whatever the road allows.
    static let cyclingMaximumSpeed = 21.0
    static let cyclingSpeeds: [String: Double] = [
        "cycleway": 15, "primary": 15, "primary_link": 15, "secondary": 15, "secondary_link": 15, "tertiary": 15,
        "tertiary_link": 15, "residential": 15, "unclassified": 15, "living_street": 15, "service": 15,
        "track": 12, "path": 13,
    ]
    /// Where the bike is pushed, at walking pace or slower.
    static let pushingSpeeds: [String: Double] = ["footway": 4, "pedestrian": 4, "steps": 2]
    static let bicycleTrainSpeeds: [String: Double] = [
        "train": 10, "railway": 10, "subway": 10, "light_rail": 10, "monorail": 10, "tram": 10,
    ]
    static let cyclingSurfaceSpeeds: [String: Double] = [
        "asphalt": 15, "chipseal": 15, "concrete": 15, "concrete_lanes": 15, "wood": 10, "metal": 10,
        "cobblestone:flattened": 10, "paving_stones": 10, "compacted": 10, "cobblestone": 7, "unpaved": 6,
        "fine_gravel": 10, "gravel": 6, "pebblestone": 6, "grass_paver": 6, "ground": 10, "dirt": 8, "earth": 6,
        "laterite": 5, "grass": 6, "mud": 3, "sand": 3, "woodchips": 3, "sett": 9,
    ]
    /// `cycleway=*` values that give the road a cycle lane in the direction of travel, and against it.
    static let cyclewayKinds: Set<String> = ["track", "lane", "share_busway", "sharrow", "shared", "shared_lane"]
    static let oppositeCyclewayKinds: Set<String> = ["opposite", "opposite_lane", "opposite_track"]

    /// How a direction of a way is travelled by bike (OSRM's travel modes).
    enum CyclingMode { case cycling, pushing, ferry, train, closed }

    func cyclingRule(_ tags: Tags) -> WayRule? {
        var highway = tags["highway"]
        let route = tags["route"], railway = tags["railway"], amenity = tags["amenity"], manMade = tags["man_made"]
        guard highway != nil || route != nil || railway != nil || amenity != nil || manMade != nil
            || tags["public_transport"] != nil || tags["bridge"] != nil else { return nil }
        if isBlockedWay(tags, highway: highway) { return nil }

        // Access: the first key as tagged closes the whole way; per direction, lists read for their best value.
        let access = tags.first(Self.cyclingAccessKeys)
        let raw = tags.forwardBackward(Self.cyclingAccessKeys)
        func resolve(_ value: String?) -> String? {
            guard let value, value.contains(";") else { return value }
            func priority(_ v: String) -> Int { Self.cyclingAllowed.contains(v) ? 3 : Self.cyclingForbidden.contains(v) ? 1 : 0 }
            let parts = value.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            return parts.max { priority($0) < priority($1) } ?? value
        }
        let directed = (forward: resolve(raw.forward), backward: resolve(raw.backward))
        if let access, Self.cyclingForbidden.contains(access) { return nil }
        if let f = directed.forward, let b = directed.backward, Self.cyclingForbidden.contains(f), Self.cyclingForbidden.contains(b) {
            return nil
        }

        // Speed by kind of way; -1 for none yet (a road the bike may only be pushed along, or not used at all).
        var mode = (forward: CyclingMode.cycling, backward: CyclingMode.cycling)
        var speed = (forward: -1.0, backward: -1.0)
        var duration = 0.0
        var allowsPushing = false
        func both(_ s: Double) { speed = (s, s) }
        if tags["bridge"] == "movable" {
            highway = "movable"
            if let d = tags["duration"].flatMap(TagValues.duration) { duration = max(d, 1) }
            both(Self.movableBridgeSpeed)
            allowsPushing = true
        } else if route == "ferry" {
            mode = (.ferry, .ferry)
            if let d = tags["duration"].flatMap(TagValues.duration) { duration = max(d, 1) } else { both(Self.ferrySpeed) }
        } else if railway == "platform" || tags["public_transport"] == "platform" {
            both(Self.pushingSpeed)
            allowsPushing = true
        } else if let railway, let s = Self.bicycleTrainSpeeds[railway], let access, Self.cyclingAllowed.contains(access) {
            mode = (.train, .train)
            both(s)
        } else if amenity == "parking" || amenity == "parking_entrance" {
            both(10)
            allowsPushing = true
        } else if let highway, let s = Self.cyclingSpeeds[highway] {
            both(s)
            allowsPushing = true
        } else if let access, Self.cyclingAllowed.contains(access) {
            both(Self.cyclingSpeed)
            allowsPushing = true
        }

        // Oneways: `oneway:bicycle` first, then `oneway`, then roundabouts and motorways.
        let impliedOneway = tags["junction"] == "roundabout" || tags["junction"] == "circular" || highway == "motorway"
        var reversed = false
        let yes: Set<String> = ["yes", "1", "true"], no: Set<String> = ["no", "0", "false"]
        let onewayBicycle = tags["oneway:bicycle"], oneway = tags["oneway"]
        if let v = onewayBicycle, yes.contains(v) { mode.backward = .closed }
        else if let v = onewayBicycle, no.contains(v) {}
        else if onewayBicycle == "-1" { mode.forward = .closed; reversed = true }
        else if let v = oneway, yes.contains(v) { mode.backward = .closed }
        else if let v = oneway, no.contains(v) {}
        else if oneway == "-1" { mode.forward = .closed; reversed = true }
        else if impliedOneway { mode.backward = .closed }

        // Cycle lanes: ridden at cycleway speed, against a oneway's direction too where they say `opposite`.
        let cycleway = tags["cycleway"] ?? tags["cycleway:both"]
        let left = tags["cycleway:left"], right = tags["cycleway:right"]
        func isLane(_ v: String?) -> Bool { v.map(Self.cyclewayKinds.contains) ?? false }
        func isOpposite(_ v: String?) -> Bool { v.map(Self.oppositeCyclewayKinds.contains) ?? false }
        var lane = (forward: false, backward: false)
        if mode.forward != .closed && mode.backward != .closed && !impliedOneway {
            if isLane(cycleway) { lane = (true, true) }
            if isLane(right) || isOpposite(left) { lane.forward = true }
            if isLane(left) || isOpposite(right) { lane.backward = true }
        } else if isOpposite(cycleway) || isOpposite(right) || isOpposite(left) {
            lane = (true, true)
        } else if isLane(cycleway) || isLane(right) || isLane(left) {
            if reversed { lane.backward = true } else { lane.forward = true }
        }
        if lane.backward { mode.backward = .cycling; speed.backward = Self.cyclingSpeed }
        if lane.forward { mode.forward = .cycling; speed.forward = Self.cyclingSpeed }

        // Pushing, where riding is not allowed or has no speed, unless walkers are kept off too.
        if mode.forward == .closed || mode.backward == .closed || speed.forward == -1 || speed.backward == -1,
           tags["foot"] != "no" {
            var push: (forward: Double?, backward: Double?) = (nil, nil)
            if let highway, let s = Self.pushingSpeeds[highway] {
                push = (s, s)
            } else if manMade == "pier" {
                push = (Self.pushingSpeed, Self.pushingSpeed)
            } else if tags["foot"] == "yes" || (tags["foot:forward"] != "yes" && tags["foot:backward"] != "yes" && allowsPushing) {
                push = (Self.pushingSpeed, impliedOneway ? nil : Self.pushingSpeed)
            } else if tags["foot:forward"] == "yes" {
                push.forward = Self.pushingSpeed
            } else if tags["foot:backward"] == "yes" {
                push.backward = Self.pushingSpeed
            }
            if let s = push.forward, mode.forward == .closed || speed.forward == -1 { mode.forward = .pushing; speed.forward = s }
            if let s = push.backward, mode.backward == .closed || speed.backward == -1 { mode.backward = .pushing; speed.backward = s }
        }
        if tags["bicycle"] == "dismount" {
            mode = (.pushing, .pushing)
            both(Self.pushingSpeed)
        }

        // Signed limits, where lower than the bike's speed (numbers only: "walk" or "DE:zone" say nothing here).
        func limit(_ key: String) -> Double? {
            guard let text = tags[key], let n = TagValues.leadingInteger(text), n > 0 else { return nil }
            return text.contains("mph") || text.contains("mp/h") ? n * 1.609 : n
        }
        let maxspeed = limit("maxspeed")
        if let l = limit("maxspeed:forward") ?? maxspeed { speed.forward = min(speed.forward, l) }
        if let l = limit("maxspeed:backward") ?? maxspeed { speed.backward = min(speed.backward, l) }
        if speed.forward <= 0 && duration <= 0 { mode.forward = .closed }
        if speed.backward <= 0 && duration <= 0 { mode.backward = .closed }
        if let f = directed.forward, Self.cyclingForbidden.contains(f) { mode.forward = .closed; speed.forward = 0 }
        if let b = directed.backward, Self.cyclingForbidden.contains(b) { mode.backward = .closed; speed.backward = 0 }

        // A cycleway mapped as its own way alongside: the road is left to it, unless bikes are explicitly let on.
        let separate = [cycleway, tags["cycleway"], tags["cycleway:both"], left, right].contains { $0 == "separate" }
        if separate && !["yes", "permissive", "designated", "destination"].contains(tags["bicycle"] ?? "") { return nil }

        if let surface = tags["surface"], let cap = Self.cyclingSurfaceSpeeds[surface] {
            speed = (min(cap, speed.forward), min(cap, speed.backward))
        }
        if speed.forward > 0 { speed.forward = min(speed.forward, Self.cyclingMaximumSpeed) }
        if speed.backward > 0 { speed.backward = min(speed.backward, Self.cyclingMaximumSpeed) }
        guard mode.forward != .closed || mode.backward != .closed else { return nil }

        // The rule, with the pushed directions marked so that steps say so.
        var flags = guidanceFlags(tags)
        var roadClass = highway.flatMap { Self.otherClasses[$0] } ?? .other
        if mode.forward == .ferry || mode.backward == .ferry { flags.insert(.ferry); roadClass = .ferry }
        if mode.forward == .train || mode.backward == .train { flags.insert(.train); roadClass = .ferry }
        if (mode.forward == .closed) != (mode.backward == .closed) { flags.insert(.oneway) }
        var common: ArcClasses = route == "ferry" ? [.ferry] : []
        if let tunnel = tags["tunnel"], tunnel != "no" { common.insert(.tunnel) }
        // A ferry with a `duration` has no speed of its own: the duration is spread over it.
        func direction(_ m: CyclingMode, _ s: Double) -> DirectionRule? {
            guard m != .closed else { return nil }
            return DirectionRule(speed: s > 0 ? s : Self.ferrySpeed, classes: m == .pushing ? common.union(.pushing) : common)
        }
        var rule = WayRule(roadClass: roadClass, flags: flags, duration: duration > 0 ? duration : nil)
        rule.unpaved = Self.isUnpaved(tags)
        rule.forward = direction(mode.forward, speed.forward)
        rule.backward = direction(mode.backward, speed.backward)
        let ridden: Set<CyclingMode> = [.cycling, .pushing]
        rule.isStartpoint = ridden.contains(mode.forward) || ridden.contains(mode.backward)
        rule.pronunciation = tags["name:pronunciation"] ?? ""
        rule.exits = Self.list(tags["junction:ref"] ?? "")
        rule.lanes = Self.laneCount(tags, turnLanes: ("", ""))
        return rule
    }
}
