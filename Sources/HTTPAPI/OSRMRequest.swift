import Engine
import Foundation
import Guidance
import Routing
import RoadGraph
import RouteFormats

extension EngineError {
    /// OSRM's error body, `{"code": …, "message": …}`, with the error's HTTP status.
    var response: HTTPResponse {
        .json(OSRMRouteResponse.error(code: code, message: message), status: status)
    }
}

/// OSRM's `fallback_coordinate`, checked where no `fallback_speed` uses it.
enum FallbackCoordinate: String { case input, snapped }

/// `/{service}/v1/{profile}/{coordinates}?…` taken apart and checked, and turned into the engine's queries. All
/// of OSRM's URL grammar lives here, so it can be tested (and fuzzed) without a graph.
public struct OSRMRequest {
    public var service: String
    public var mode: TravelMode
    /// As the client gave them: OSRM URLs say `lon,lat`.
    public var coordinates: [Coordinate]
    public var options: [String: String]
    /// `compat=osrm|wayfinder`, else the server's default (`serve --compat`).
    public var compatibility: Compatibility
    /// A table asked in a JSON body for no matrix at all (`"annotations": false` or `[]`): OSRM answers with its
    /// sources and destinations only.
    public var wantsNoTableMatrix = false

    static let services: Set<String> = ["route", "table", "nearest", "isochrone", "trip", "match"]

    /// From a request target as sent (`/route/v1/driving/…?steps=true`): path and arguments percent-decoded as
    /// the HTTP server decodes them.
    public init(target: String, compatibility: Compatibility = .wayfinder) throws {
        let request = HTTPRequest(target: target)
        try self.init(path: request.path, query: request.query, compatibility: compatibility)
    }

    public init(path: String, query: [(key: String, value: String)], compatibility: Compatibility = .wayfinder) throws {
        var parts = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard parts.count == 4 else {
            throw EngineError(.invalidURL, "URL must look like /{service}/v1/{profile}/{coordinates}")
        }
        guard Self.services.contains(parts[0]) else {
            throw EngineError(.invalidService, "service '\(parts[0])' is not supported (route, table, nearest, isochrone, trip, match)")
        }
        guard parts[1] == "v1" else { throw EngineError(.invalidVersion, "version '\(parts[1])' is not supported (v1)") }
        guard let mode = TravelMode(profileName: parts[2]) else {
            throw EngineError(.invalidValue, "unknown profile '\(parts[2])' (driving, car, walking, foot)")
        }
        if parts[3].hasSuffix(".json") { parts[3].removeLast(5) }
        if parts[3].hasSuffix(".flatbuffers") {
            throw EngineError(.notImplemented, "answers in FlatBuffers are not implemented; ask for JSON (.json or no suffix)")
        }
        service = parts[0]
        self.mode = mode
        coordinates = try Self.parseCoordinates(parts[3])
        var options: [String: String] = [:]
        for (key, value) in query {
            guard options[key] == nil else { throw EngineError(.invalidOptions, "option '\(key)' is given twice") }
            options[key] = value
        }
        if let name = options.removeValue(forKey: "compat") {
            guard let chosen = Compatibility(name: name) else {
                throw EngineError(.invalidValue, "compat must be osrm or wayfinder, not '\(name)'")
            }
            self.compatibility = chosen
        } else {
            self.compatibility = compatibility
        }
        self.options = options
    }

    /// `lon,lat;lon,lat`, `polyline(…)` or `polyline6(…)`.
    static func parseCoordinates(_ text: String) throws -> [Coordinate] {
        if text.hasPrefix("polyline(") || text.hasPrefix("polyline6("), text.hasSuffix(")") {
            let precision = text.hasPrefix("polyline6(") ? 6 : 5
            let encoded = String(text.drop { $0 != "(" }.dropFirst().dropLast())
            guard let decoded = Polyline.decode(encoded, precision: precision), !decoded.isEmpty else {
                throw EngineError(.invalidURL, "the polyline of coordinates does not decode")
            }
            return try decoded.map(checked)
        }
        return try text.split(separator: ";", omittingEmptySubsequences: false).map { pair in
            let numbers = pair.split(separator: ",", omittingEmptySubsequences: false)
            guard numbers.count == 2, let lon = Double(decimal: numbers[0]), let lat = Double(decimal: numbers[1]) else {
                throw EngineError(.invalidURL, "'\(pair)' is not a coordinate: expected lon,lat")
            }
            return try checked(Coordinate(latitude: lat, longitude: lon))
        }
    }

    static func checked(_ c: Coordinate) throws -> Coordinate {
        guard c.latitude.isFinite, c.longitude.isFinite, abs(c.latitude) <= 90, abs(c.longitude) <= 180 else {
            throw EngineError(.invalidValue, "coordinate \(c.longitude),\(c.latitude) is out of range (lon ±180, lat ±90)")
        }
        return c
    }

    /// The options OSRM takes on every service. Each is applied (`filters`, `includesWaypoints`) or checked as
    /// OSRM checks it (`hints`, `generate_hints`: OSRM 26.10 answers the same with or without them).
    static let common: Set<String> = ["bearings", "radiuses", "approaches", "exclude", "snapping", "hints",
                                      "generate_hints", "skip_waypoints"]

    /// Rejects options the service does not know, as OSRM does (`InvalidQuery`): a typo should not be silently
    /// ignored. `keys` are the service's own options besides the common ones.
    func allowOnly(_ keys: Set<String>, common: Set<String> = OSRMRequest.common) throws {
        for key in options.keys where !keys.contains(key) && !common.contains(key) {
            throw EngineError(.invalidQuery, "unknown option '\(key)' for the \(service) service")
        }
        _ = try bool("generate_hints", default: true)
        if let hints = try perCoordinate("hints") {
            // OSRM's hints are base64url tokens of 112 characters (several may be joined for one point).
            let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
            for hint in hints where hint.count % 112 != 0 || !hint.allSatisfy(alphabet.contains) {
                throw EngineError(.invalidQuery, "hint '\(hint.prefix(20))…' is not a hint this API gave")
            }
        }
    }

    /// OSRM's `waypoints` (points passed without a leg of their own) is not implemented: refused, not ignored.
    func refuseSilentWaypoints() throws {
        if options["waypoints"] != nil {
            throw EngineError(.notImplemented, "waypoints= (points passed without a leg of their own) is not implemented")
        }
    }

    /// `skip_waypoints=true` leaves the waypoints out of the answer.
    public func includesWaypoints() throws -> Bool { !(try bool("skip_waypoints", default: false)) }

    func bool(_ key: String, default value: Bool) throws -> Bool {
        switch options[key] {
        case nil: return value
        case "true": return true
        case "false": return false
        case let other?: throw EngineError(.invalidQuery, "\(key) must be true or false, not '\(other)'")
        }
    }

    func choice<T: RawRepresentable>(_ key: String, default value: T) throws -> T where T.RawValue == String {
        guard let text = options[key] else { return value }
        guard let parsed = T(rawValue: text) else { throw EngineError(.invalidQuery, "invalid value '\(text)' for \(key)") }
        return parsed
    }

    /// A `;`-separated list with one entry per coordinate (entries may be empty).
    func perCoordinate(_ key: String) throws -> [String]? {
        guard let text = options[key] else { return nil }
        let items = text.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
        guard items.count == coordinates.count else {
            throw EngineError(.invalidOptions, "\(key) has \(items.count) entries for \(coordinates.count) coordinates")
        }
        return items
    }

    /// `sources=`/`destinations=`: `all` or indices into the coordinates.
    func indices(_ key: String) throws -> [Int] {
        guard let text = options[key], text != "all" else { return Array(coordinates.indices) }
        return try text.split(separator: ";", omittingEmptySubsequences: false).map {
            guard let i = Int($0), coordinates.indices.contains(i) else {
                throw EngineError(.invalidOptions, "\(key) must list coordinate indices from 0 to \(coordinates.count - 1)")
            }
            return i
        }
    }

    /// Route, table, trip and match take two points or more (OSRM's check, before the options').
    func requireTwoCoordinates() throws {
        guard coordinates.count >= 2 else {
            throw EngineError(.invalidOptions, "\(service) needs two points or more")
        }
    }

    /// `depart_at` or `arrive_by` (Mapbox Directions' names), at most one.
    func travelTime() throws -> TravelTime? {
        if options["depart_at"] != nil && options["arrive_by"] != nil {
            throw EngineError(.invalidOptions, "give depart_at or arrive_by, not both")
        }
        if let text = options["arrive_by"] { return .arrival(try ClockTime(iso8601: text)) }
        return try departureTime().map(TravelTime.departure)
    }

    /// `depart_at`: where only a departure makes sense (a table, a trip).
    func departureTime() throws -> ClockTime? {
        try options["depart_at"].map { try ClockTime(iso8601: $0) }
    }

    /// The route service's query, and how its answer is to be written.
    public func routeQuery() throws -> (RouteQuery, OSRMRouteResponse.Options) {
        try requireTwoCoordinates()
        try allowOnly(["steps", "overview", "geometries", "annotations", "continue_straight", "alternatives", "language",
                       "waypoints", "deviations", "voice_instructions", "banner_instructions", "voice_units", "depart_at", "arrive_by",
                       "avoid", "prefer"])
        try refuseSilentWaypoints()
        var query = RouteQuery(mode: mode, points: coordinates)
        query.time = try travelTime()
        query.weightFactors = try weightFactors()
        query.excluding = try exclusion()
        // OSRM: true asks for one alternative, a number for up to that many (here at most 3); only between two points.
        switch options["alternatives"] {
        case nil, "false": break
        case "true": query.alternatives = 1
        case let text?:
            guard let n = Int(text), n >= 0 else {
                throw EngineError(.invalidQuery, "alternatives must be true, false or a number from 0 to \(Engine.maxAlternatives)")
            }
            guard n <= Engine.maxAlternatives else {
                throw EngineError(.tooBig, "at most \(Engine.maxAlternatives) alternatives")
            }
            query.alternatives = n
        }
        let output = try routeOutput()
        query.directions = try directionsOptions(steps: output.steps)
        query.filters = try filters()
        // OSRM's "default" leaves it to the profile: on for driving, off for walking.
        if ![nil, "default"].contains(options["continue_straight"]) {
            query.continueStraight = try bool("continue_straight", default: true)
        }
        return (query, output)
    }

    /// The trip service's query (OSRM's `roundtrip`, `source`, `destination`) and how its answer is written.
    public func tripQuery() throws -> (TripQuery, OSRMRouteResponse.Options) {
        try requireTwoCoordinates()
        try allowOnly(["roundtrip", "source", "destination", "steps", "overview", "geometries", "annotations", "language",
                       "deviations", "voice_instructions", "banner_instructions", "voice_units", "depart_at", "avoid", "prefer"])
        var query = TripQuery(mode: mode, points: coordinates)
        query.departure = try departureTime()
        query.weightFactors = try weightFactors()
        query.roundtrip = try bool("roundtrip", default: true)
        switch options["source"] ?? "any" {
        case "any": break
        case "first": query.fixedStart = true
        case let other: throw EngineError(.invalidQuery, "source must be any or first, not '\(other)'")
        }
        switch options["destination"] ?? "any" {
        case "any": break
        case "last": query.fixedEnd = true
        case let other: throw EngineError(.invalidQuery, "destination must be any or last, not '\(other)'")
        }
        // Wayfinder also plans open trips with a free start or end; OSRM does not (PROFILES.md).
        if compatibility == .osrm && !query.roundtrip && !(query.fixedStart && query.fixedEnd) {
            throw EngineError(.notImplemented, "an open trip needs source=first and destination=last")
        }
        query.excluding = try exclusion()
        query.filters = try filters()
        let output = try routeOutput()
        query.directions = try directionsOptions(steps: output.steps)
        return (query, output)
    }

    /// The match service's query (OSRM's `timestamps`, `radiuses`, `gaps`, `tidy`) and how its answer is written.
    public func matchQuery() throws -> (MatchQuery, OSRMRouteResponse.Options) {
        // OSRM takes bearings and approaches on a match and does not use them; so does Wayfinder (a trace's
        // fixes are candidates on every road around them), after checking them.
        try requireTwoCoordinates()
        try allowOnly(["timestamps", "gaps", "tidy", "steps", "overview", "geometries", "annotations", "language",
                       "waypoints", "deviations", "voice_instructions", "banner_instructions", "voice_units"])
        try refuseSilentWaypoints()
        _ = try filters()
        var query = MatchQuery(mode: mode, points: coordinates)
        if let text = options["timestamps"] {
            query.timestamps = try text.split(separator: ";", omittingEmptySubsequences: false).map {
                guard let t = Double(decimal: $0), t.isFinite else { throw EngineError(.invalidValue, "timestamp '\($0)' is not a number of seconds") }
                return t
            }
        }
        if let items = try perCoordinate("radiuses") {
            query.accuracies = try items.map { r in
                if r.isEmpty { return nil }
                guard let metres = Double(decimal: r), metres.isFinite, metres > 0 else {
                    throw EngineError(.invalidValue, "radius '\(r)' must be a positive number of metres")
                }
                return metres
            }
        }
        switch options["gaps"] ?? "split" {
        case "split": query.splitGaps = true
        case "ignore": query.splitGaps = false
        case let other: throw EngineError(.invalidQuery, "gaps must be split or ignore, not '\(other)'")
        }
        query.tidy = try bool("tidy", default: false)
        query.excluding = try exclusion()
        let output = try routeOutput()
        query.directions = try directionsOptions(steps: output.steps)
        return (query, output)
    }

    /// The guidance a route, trip or match answer asks for: language, deviations, and Mapbox Directions'
    /// announcements and banners (which need steps, as in Mapbox's API).
    func directionsOptions(steps: Bool) throws -> DirectionsOptions {
        var directions = DirectionsOptions(language: options["language"] ?? "en", steps: steps,
                                           compatibility: compatibility, deviations: try deviations())
        directions.voiceInstructions = try bool("voice_instructions", default: false)
        directions.bannerInstructions = try bool("banner_instructions", default: false)
        directions.voiceUnits = try choice("voice_units", default: Units.metric)
        for key in ["voice_instructions", "banner_instructions"] where options[key] == "true" && !steps {
            throw EngineError(.invalidOptions, "\(key)=true needs steps=true")
        }
        // Units only shape announcements: without them the option would be taken and do nothing.
        if options["voice_units"] != nil && !directions.voiceInstructions {
            throw EngineError(.invalidOptions, "voice_units words the announcements: it needs voice_instructions=true")
        }
        // Guidance rules change steps: without steps they would be taken and do nothing.
        if options["deviations"] != nil && !steps {
            throw EngineError(.invalidOptions, "deviations changes the steps: it needs steps=true")
        }
        return directions
    }

    /// Wayfinder's `deviations=`: which of its own guidance rules apply (all by default; none with `compat=osrm`).
    func deviations() throws -> GuidanceDeviations {
        guard let list = options["deviations"] else { return .all }
        guard let deviations = GuidanceDeviations(list: list) else {
            let known = GuidanceDeviations.names.map(\.name).joined(separator: ", ")
            throw EngineError(.invalidValue, "deviations is all, none or a list of \(known), not '\(list)'")
        }
        return deviations
    }

    func routeOutput() throws -> OSRMRouteResponse.Options {
        var output = OSRMRouteResponse.Options()
        output.steps = try bool("steps", default: false)
        output.overview = try choice("overview", default: .simplified)
        output.geometries = try choice("geometries", default: .polyline)
        output.includeWaypoints = try includesWaypoints()
        output.summaryWithoutSteps = compatibility != .osrm
        switch options["annotations"] {
        case nil, "false": break
        case "true": output.annotations = OSRMRouteResponse.Annotation.allCases
        case let list?:
            output.annotations = try list.split(separator: ",").compactMap {
                guard let kind = OSRMRouteResponse.Annotation(rawValue: String($0)) else {
                    throw EngineError(.invalidQuery, "unknown annotation '\($0)'")
                }
                return kind
            }
        }
        return output
    }

    /// The table service's query, and the annotations asked for (`duration`, `distance`).
    public func tableQuery() throws -> (TableQuery, Set<String>) {
        try requireTwoCoordinates()
        try allowOnly(["sources", "destinations", "annotations", "fallback_speed", "fallback_coordinate", "scale_factor", "depart_at",
                       "avoid", "prefer"])
        var query = TableQuery(mode: mode, points: coordinates, sources: try indices("sources"),
                               destinations: try indices("destinations"))
        query.departure = try departureTime()
        query.weightFactors = try weightFactors()
        query.excluding = try exclusion()
        query.compatibility = compatibility
        func positive(_ key: String) throws -> Double? {
            guard let text = options[key] else { return nil }
            guard let n = Double(decimal: text), n.isFinite else { throw EngineError(.invalidQuery, "\(key) must be a number") }
            guard n > 0 else { throw EngineError(.invalidOptions, "\(key) must be > 0") }
            return n
        }
        query.scaleFactor = try positive("scale_factor") ?? 1
        if let speed = try positive("fallback_speed") {
            var fallback = TableFallback(speed: speed)
            switch options["fallback_coordinate"] ?? "input" {
            case "input": break
            case "snapped": fallback.fromSnappedPoints = true
            case let other: throw EngineError(.invalidQuery, "fallback_coordinate must be input or snapped, not '\(other)'")
            }
            query.fallback = fallback
        } else if options["fallback_coordinate"] != nil {
            _ = try choice("fallback_coordinate", default: FallbackCoordinate.input)
        }
        let wanted = wantsNoTableMatrix ? [] : Set((options["annotations"] ?? "duration").split(separator: ",").map(String.init))
        guard !wanted.isEmpty || wantsNoTableMatrix, wanted.isSubset(of: ["duration", "distance"]) else {
            throw EngineError(.invalidQuery, "annotations for a table are duration, distance or both")
        }
        query.filters = try filters()
        return (query, wanted)
    }

    /// The isochrone service (Mapbox's isochrone API's parameters): the query, whether to answer polygons, and the
    /// contours' colours.
    public func isochroneQuery() throws -> (IsochroneQuery, polygons: Bool, colors: [String]?) {
        try allowOnly(["contours_minutes", "contours_meters", "contours_colors", "polygons", "denoise", "generalize",
                       "resolution", "exclude", "radiuses"], common: [])
        guard coordinates.count == 1 else { throw EngineError(.invalidQuery, "an isochrone takes exactly one coordinate") }
        let metric: ReachMetric, list: String
        switch (options["contours_minutes"], options["contours_meters"]) {
        case (let m?, nil): (metric, list) = (.duration, m)
        case (nil, let m?): (metric, list) = (.distance, m)
        case (nil, nil): throw EngineError(.invalidQuery, "an isochrone needs contours_minutes or contours_meters")
        default: throw EngineError(.invalidQuery, "give contours_minutes or contours_meters, not both")
        }
        let values = try list.split(separator: ",", omittingEmptySubsequences: false).map { item -> Double in
            guard let n = Double(decimal: item) else { throw EngineError(.invalidValue, "'\(item)' is not a number of \(metric == .duration ? "minutes" : "metres")") }
            return metric == .duration ? n * 60 : n
        }
        var query = IsochroneQuery(mode: mode, point: coordinates[0], metric: metric, limits: values)
        func number(_ key: String) throws -> Double? {
            guard let text = options[key] else { return nil }
            guard let n = Double(decimal: text), n.isFinite else { throw EngineError(.invalidValue, "\(key) must be a number") }
            return n
        }
        query.denoise = try number("denoise") ?? 1
        query.generalize = try number("generalize") ?? 0
        query.resolution = try number("resolution")
        query.excluding = try exclusion()
        query.snapRadius = try filters()?.first?.radius
        var colors: [String]?
        if let text = options["contours_colors"] {
            let list = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard list.count == values.count, list.allSatisfy({ $0.count == 6 && $0.allSatisfy(\.isHexDigit) }) else {
                throw EngineError(.invalidValue, "contours_colors needs one hex colour (rrggbb) per contour")
            }
            colors = list
        }
        return (query, try bool("polygons", default: false), colors)
    }

    /// Most points of one nearest request (OSRM 26's default).
    public static let maxNearestPoints = 10

    /// The nearest service's points, how many roads to return for each, and their filters (radius, bearing,
    /// approach).
    public func nearestQuery() throws -> (points: [Coordinate], count: Int, filters: [WaypointFilter]) {
        try allowOnly(["number"])
        guard !coordinates.isEmpty else { throw EngineError(.invalidOptions, "nearest needs a point") }
        guard coordinates.count <= Self.maxNearestPoints else {
            throw EngineError(.tooBig, "nearest takes at most \(Self.maxNearestPoints) points, not \(coordinates.count)")
        }
        guard let number = Int(options["number"] ?? "1") else {
            throw EngineError(.invalidQuery, "number must be a whole number")
        }
        let excluding = try exclusion()
        let filters = try (filters() ?? Array(repeating: WaypointFilter(), count: coordinates.count)).map { filter in
            var filter = filter
            filter.excluding = excluding
            // OSRM's nearest never lists a road a route may not start on, whatever `snapping` says.
            filter.snapsAnywhere = false
            return filter
        }
        return (coordinates, number, filters)
    }

    /// `avoid=unpaved,toll:4` and `prefer=major_roads:1.5`: weights by kind of road (PROFILES.md, section 15).
    func weightFactors() throws -> WeightFactors? {
        switch WeightFactors.reading(avoid: options["avoid"], prefer: options["prefer"]) {
        case .success(let factors): return factors
        case .failure(let problem): throw EngineError(.invalidValue, "\(problem.option.rawValue): \(problem.message)")
        }
    }

    /// `exclude=toll,motorway`: the classes of road to avoid.
    func exclusion() throws -> ArcClasses {
        guard let text = options["exclude"], !text.isEmpty else { return [] }
        guard let classes = ArcClasses(names: text.split(separator: ",").map(String.init)) else {
            throw EngineError(.invalidValue, "exclude takes toll, motorway and ferry, separated by commas")
        }
        return classes
    }

    /// `radiuses`, `bearings` and `approaches`, one entry per coordinate, and `snapping`.
    func filters() throws -> [WaypointFilter]? {
        let radiuses = try perCoordinate("radiuses")
        let bearings = try perCoordinate("bearings")
        let approaches = try perCoordinate("approaches")
        let snapsAnywhere: Bool
        switch options["snapping"] {
        case nil, "default": snapsAnywhere = false
        case "any": snapsAnywhere = true
        case let other?: throw EngineError(.invalidQuery, "snapping must be default or any, not '\(other)'")
        }
        if radiuses == nil && bearings == nil && approaches == nil && !snapsAnywhere { return nil }
        return try coordinates.indices.map { i in
            var filter = WaypointFilter()
            filter.snapsAnywhere = snapsAnywhere
            if let a = approaches?[i], !a.isEmpty {
                guard let approach = Approach(rawValue: a) else {
                    throw EngineError(.invalidQuery, "approach '\(a)' must be curb, opposite or unrestricted")
                }
                filter.approach = approach
            }
            // OSRM reads -1 as unlimited too.
            if let r = radiuses?[i], !r.isEmpty, r != "unlimited", r != "-1" {
                guard let metres = Double(decimal: r), metres >= 0, metres.isFinite else {
                    throw EngineError(.invalidValue, "radius '\(r)' must be a non-negative number or 'unlimited'")
                }
                filter.radius = metres
            }
            if let b = bearings?[i], !b.isEmpty {
                let parts = b.split(separator: ",").compactMap { Double(decimal: $0) }
                guard parts.count == 2, (0...360).contains(parts[0]), (0...180).contains(parts[1]) else {
                    throw EngineError(.invalidOptions, "bearing '\(b)' must be value,range with value 0-360 and range 0-180")
                }
                filter.bearing = (parts[0], parts[1])
            }
            return filter
        }
    }
}
