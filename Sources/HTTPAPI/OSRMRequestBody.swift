import Engine
import Foundation
import RoadGraph

/// OSRM's POST form: `/{service}/v1/{profile}` with the coordinates and options in a JSON object (OSRM 26.10,
/// `Content-Type: application/json`). For requests too long for a URL: a 1,000-point table with bearings and
/// radiuses. Each option is type-checked as OSRM checks it, in OSRM's order, with its messages; then it is written
/// as the GET option it stands for, so that both forms go through the same checks and give the same answer.
extension OSRMRequest {
    /// The services that take a body: OSRM refuses one for trips (and tiles); isochrones are Wayfinder's own GET.
    static let bodyServices: Set<String> = ["route", "table", "nearest", "match"]

    public init(path: String, body: [UInt8], compatibility: Compatibility = .wayfinder) throws {
        var parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        // "/route/v1/driving" and "/route/v1/driving/" alike; nothing after the profile (OSRM: InvalidUrl).
        if parts.last == "" { parts.removeLast() }
        guard parts.count == 4, parts[0].isEmpty, !parts[3].isEmpty else {
            throw EngineError(.invalidURL, "a POST goes to /{service}/v1/{profile}, with the coordinates in the JSON body")
        }
        guard Self.services.contains(parts[1]) else {
            throw EngineError(.invalidService, "service '\(parts[1])' is not supported (route, table, nearest, isochrone, trip, match)")
        }
        guard parts[2] == "v1" else { throw EngineError(.invalidVersion, "version '\(parts[2])' is not supported (v1)") }
        guard Self.bodyServices.contains(parts[1]) else {
            throw EngineError(.notImplemented, "\(parts[1]) takes GET only, not a JSON body (as in OSRM)")
        }
        // OSRM reads a suffix on the profile as part of its name and answers JSON whatever it says.
        var profile = parts[3]
        for suffix in [".json", ".flatbuffers"] where profile.hasSuffix(suffix) { profile.removeLast(suffix.count) }
        guard let mode = TravelMode(profileName: profile) else {
            throw EngineError(.invalidValue, "unknown profile '\(profile)' (driving, car, walking, foot)")
        }
        let object = try Self.jsonObject(body)
        var reader = BodyReader(object: object, service: parts[1])
        let coordinates = try reader.coordinates()
        let options = try reader.options()
        var compat = compatibility
        if let name = options.compat {
            guard let chosen = Compatibility(name: name) else {
                throw EngineError(.invalidValue, "compat must be osrm or wayfinder, not '\(name)'")
            }
            compat = chosen
        }
        // OSRM ignores members it does not know; Wayfinder names them, so that a typo is not a silent default
        // (GUIDANCE.md's list of deviations; compat=osrm ignores them as OSRM does).
        if compat == .wayfinder, let unknown = reader.unread.sorted().first {
            throw EngineError(.invalidQuery, "unknown option '\(unknown)' for the \(parts[1]) service")
        }
        self.service = parts[1]
        self.mode = mode
        self.coordinates = try coordinates.map(Self.checked)
        self.options = options.values
        self.compatibility = compat
        self.wantsNoTableMatrix = options.noTableMatrix
    }

    static func jsonObject(_ body: [UInt8]) throws -> [String: Any] {
        let value: Any
        do {
            value = try JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed])
        } catch {
            throw EngineError(.invalidQuery, body.allSatisfy({ [9, 10, 13, 32].contains($0) })
                ? "the body is empty: a JSON object is expected" : "the body is not valid JSON")
        }
        guard let object = value as? [String: Any] else {
            throw EngineError(.invalidQuery, "the body must be one JSON object, {…}")
        }
        return object
    }
}

/// Reads a request body's members as OSRM types them, each at most once; what is left unread is unknown.
private struct BodyReader {
    let object: [String: Any]
    let service: String
    private(set) var unread: Set<String>

    init(object: [String: Any], service: String) {
        self.object = object
        self.service = service
        unread = Set(object.keys)
    }

    struct Options {
        var values: [String: String] = [:]
        var compat: String?
        var noTableMatrix = false
    }

    mutating func coordinates() throws -> [Coordinate] {
        guard let value = take("coordinates") else { throw EngineError(.invalidQuery, "the body has no coordinates") }
        if let text = value as? String {
            guard text.hasPrefix("polyline(") || text.hasPrefix("polyline6(") else {
                throw EngineError(.invalidQuery, "coordinates given as text must be polyline(…) or polyline6(…)")
            }
            return try OSRMRequest.parseCoordinates(text)
        }
        guard let list = value as? [Any] else {
            throw EngineError(.invalidQuery, "coordinates must be a list of [lon, lat] pairs")
        }
        return try list.map { item in
            guard let pair = item as? [Any], pair.count == 2, let lon = JSONMember.number(pair[0]), let lat = JSONMember.number(pair[1]) else {
                throw EngineError(.invalidQuery, "a coordinate is two numbers, [lon, lat]")
            }
            // OSRM keeps coordinates as 32-bit millionths of a degree.
            guard abs(lon) < 2147, abs(lat) < 2147 else { throw EngineError(.invalidQuery, "a coordinate is far outside ±180 degrees") }
            return Coordinate(latitude: lat, longitude: lon)
        }
    }

    /// Every option, in OSRM's order of checks: the common ones, then the service's own.
    mutating func options() throws -> Options {
        var out = Options()
        func set(_ key: String, _ text: String?) { if let text { out.values[key] = text } }
        set("bearings", try perPoint("bearings", "a bearing is null or [degrees, range], whole numbers") { item in
            guard let pair = item as? [Any], pair.count == 2, let value = JSONMember.integer(pair[0]), let range = JSONMember.integer(pair[1]) else {
                return nil
            }
            guard abs(value) < 32768, abs(range) < 32768 else {
                throw EngineError(.invalidQuery, "a bearing and its range are degrees below 32768")
            }
            return "\(value),\(range)"
        })
        set("radiuses", try perPoint("radiuses", #"a radius is null, metres, or "unlimited""#) { item in
            if let text = item as? String { return text == "unlimited" ? text : nil }
            return JSONMember.number(item).map { "\($0)" }
        })
        // Type-checked only: OSRM does not read a body's hints (26.10 answers the same with or without them).
        _ = try perPoint("hints", "a hint is null or text") { $0 as? String }
        set("approaches", try perPoint("approaches", "an approach is null or a name") { item in
            guard let text = item as? String else { return nil }
            guard ["curb", "unrestricted", "opposite"].contains(text) else { throw EngineError(.invalidQuery, "an approach is curb, opposite or unrestricted") }
            return text
        })
        if let value = take("exclude") {
            guard let list = value as? [Any] else { throw EngineError(.invalidQuery, "exclude must be a list of class names") }
            let names = try list.map { item -> String in
                guard let text = item as? String else { throw EngineError(.invalidQuery, "each class to exclude is a name (toll, motorway, ferry)") }
                return text
            }
            if !names.isEmpty { out.values["exclude"] = names.joined(separator: ",") }
        }
        set("generate_hints", try boolean("generate_hints"))
        set("skip_waypoints", try boolean("skip_waypoints"))
        set("snapping", try choice("snapping", ["default", "any"]))
        if try choice("format", ["json", "flatbuffers"]) == "flatbuffers" {
            throw EngineError(.notImplemented, "answers in FlatBuffers are not implemented; ask for JSON")
        }
        switch service {
        case "route", "match":
            set("steps", try boolean("steps"))
            if let value = take("alternatives") {
                if let flag = JSONMember.bool(value) { out.values["alternatives"] = flag ? "true" : "false" } else {
                    guard let n = JSONMember.integer(value), n >= 0, n < 1 << 32 else {
                        throw EngineError(.invalidQuery, "alternatives is true, false or a whole number from 0")
                    }
                    // OSRM checks a match's alternatives and has no use for them.
                    if service == "route" { out.values["alternatives"] = "\(n)" }
                }
                if service == "match" { out.values["alternatives"] = nil }
            }
            if let value = take("continue_straight") {
                if let flag = JSONMember.bool(value) {
                    if service == "route" { out.values["continue_straight"] = flag ? "true" : "false" }
                } else if value as? String != "default" {
                    throw EngineError(.invalidQuery, #"continue_straight is true, false or "default""#)
                }
            }
            set("geometries", try choice("geometries", ["polyline", "polyline6", "geojson"]))
            set("overview", try choice("overview", ["simplified", "full", "false"]))
            set("annotations", try annotations(["nodes", "distance", "duration", "datasources", "weight", "speed"]))
            set("waypoints", try indices("waypoints"))
            if service == "match" {
                set("timestamps", try indices("timestamps", what: "a list of whole seconds"))
                set("gaps", try choice("gaps", ["split", "ignore"]))
                set("tidy", try boolean("tidy"))
            }
        case "table":
            set("sources", try indices("sources"))
            set("destinations", try indices("destinations"))
            let wanted = try annotations(["duration", "distance"])
            if wanted == "" { out.noTableMatrix = true } else { set("annotations", wanted) }
            set("fallback_speed", try number("fallback_speed"))
            set("fallback_coordinate", try choice("fallback_coordinate", ["input", "snapped"]))
            set("scale_factor", try number("scale_factor"))
        default:  // nearest
            if let value = take("number") {
                guard let n = JSONMember.integer(value), n >= 0, n < 1 << 32 else {
                    throw EngineError(.invalidQuery, "number is a whole number")
                }
                out.values["number"] = "\(n)"
            }
        }
        // Wayfinder's own: the answer's language and whose answer it is.
        if service != "table" && service != "nearest", let value = take("language") {
            guard let text = value as? String else { throw EngineError(.invalidQuery, "language must be a string") }
            out.values["language"] = text
        }
        if service != "table" && service != "nearest" {
            // Mapbox Directions' extensions.
            set("voice_instructions", try boolean("voice_instructions"))
            set("banner_instructions", try boolean("banner_instructions"))
            set("voice_units", try choice("voice_units", ["metric", "imperial"]))
        }
        // Mapbox Directions' times (the service's query checks which it takes).
        for key in ["depart_at", "arrive_by"] where service != "nearest" {
            guard let value = take(key) else { continue }
            guard let text = value as? String else { throw EngineError(.invalidQuery, "\(key) must be a string (YYYY-MM-DDTHH:MM)") }
            out.values[key] = text
        }
        if service != "table" && service != "nearest", let value = take("deviations") {
            guard let text = value as? String else { throw EngineError(.invalidQuery, "deviations must be a string") }
            out.values["deviations"] = text
        }
        if let value = take("compat") {
            guard let text = value as? String else { throw EngineError(.invalidQuery, "compat must be a string") }
            out.compat = text
        }
        return out
    }

    // MARK: Members by type

    private mutating func take(_ key: String) -> Any? {
        unread.remove(key)
        return object[key]
    }

    private mutating func boolean(_ key: String) throws -> String? {
        guard let value = take(key) else { return nil }
        guard let flag = JSONMember.bool(value) else { throw EngineError(.invalidQuery, "\(key) is true or false (JSON, not a string)") }
        return flag ? "true" : "false"
    }

    private mutating func choice(_ key: String, _ allowed: Set<String>) throws -> String? {
        guard let value = take(key) else { return nil }
        guard let text = value as? String else { throw EngineError(.invalidQuery, "\(key) is given as a string") }
        guard allowed.contains(text) else { throw EngineError(.invalidQuery, "\(key) is one of \(allowed.sorted().joined(separator: ", "))") }
        return text
    }

    private mutating func number(_ key: String) throws -> String? {
        guard let value = take(key) else { return nil }
        guard let n = JSONMember.number(value) else { throw EngineError(.invalidQuery, "\(key) is a JSON number") }
        return "\(n)"
    }

    /// An array of non-negative integers, `;`-joined; nil when absent or empty (OSRM: as if not given).
    private mutating func indices(_ key: String, what: String = "a list of point indices") throws -> String? {
        guard let value = take(key) else { return nil }
        guard let list = value as? [Any] else { throw EngineError(.invalidQuery, "\(key) is \(what)") }
        let numbers = try list.map { item -> String in
            guard let n = JSONMember.integer(item), n >= 0, n < 1 << 32 else {
                throw EngineError(.invalidQuery, "each of \(key) is a whole number from 0")
            }
            return "\(n)"
        }
        return numbers.isEmpty ? nil : numbers.joined(separator: ";")
    }

    /// `true` (all), `false` or `[]` (none: ""), or a list of the allowed names.
    private mutating func annotations(_ allowed: [String]) throws -> String? {
        guard let value = take("annotations") else { return nil }
        if let flag = JSONMember.bool(value) { return flag ? (service == "table" ? allowed.joined(separator: ",") : "true") : "" }
        guard let list = value as? [Any] else {
            throw EngineError(.invalidQuery, "annotations is true, false or a list of names")
        }
        let names = try list.map { item -> String in
            guard let text = item as? String else { throw EngineError(.invalidQuery, "each annotation is a name") }
            guard allowed.contains(text) else { throw EngineError(.invalidQuery, "an annotation is one of \(allowed.joined(separator: ", "))") }
            return text
        }
        var seen = Set<String>()
        return names.filter { seen.insert($0).inserted }.joined(separator: ",")
    }

    /// One entry per coordinate, `null` for the default; `;`-joined as the GET option. `entry` gives an entry's text,
    /// or nil for a wrong type (then `message`).
    private mutating func perPoint(_ key: String, _ message: String, _ entry: (Any) throws -> String?) throws -> String? {
        guard let value = take(key) else { return nil }
        guard let list = value as? [Any] else { throw EngineError(.invalidQuery, "\(key) is a list with an entry (or null) per point") }
        if list.isEmpty { return nil }
        return try list.map { item -> String in
            if item is NSNull { return "" }
            guard let text = try entry(item) else { throw EngineError(.invalidQuery, message) }
            return text
        }.joined(separator: ";")
    }
}

/// JSON's types as Foundation's parser gives them: a Boolean and a number are both NSNumber there, and an integer
/// is told from a fraction only by how it was written.
public enum JSONMember {
    /// `true`/`false` only (Foundation gives them as NSNumber too: told apart by their class).
    public static func bool(_ value: Any) -> Bool? {
        guard let number = value as? NSNumber, type(of: number) == type(of: NSNumber(value: true)) else { return nil }
        return number.boolValue
    }

    /// A number written without a fraction or an exponent, as OSRM's integers must be.
    public static func integer(_ value: Any) -> Int64? {
        guard bool(value) == nil, let number = value as? NSNumber else { return nil }
        let type = String(cString: number.objCType)
        guard type != "d", type != "f" else { return nil }
        return type == "Q" ? (number.uint64Value <= UInt64(Int64.max) ? Int64(number.uint64Value) : nil) : number.int64Value
    }

    public static func number(_ value: Any) -> Double? {
        guard bool(value) == nil, let number = value as? NSNumber else { return nil }
        let n = number.doubleValue
        return n.isFinite ? n : nil
    }
}
