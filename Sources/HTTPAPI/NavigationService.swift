import Engine
import Foundation
import Guidance
import Navigation
import RoadGraph
import RouteFormats
import Routing

/// Routes a server has answered with voice or banner instructions, kept for a while under the answer's `uuid`
/// so that a client can report its progress along one by that id alone. Bounded in number and age: the oldest go
/// first.
final class RouteStore: @unchecked Sendable {
    struct Entry {
        var trackers: [ProgressTracker]
        /// The query the routes answer: a reroute is asked as they were.
        var query: RouteQuery
        var output: OSRMRouteResponse.Options
        var stored: Date
    }

    private let lock = NSLock()
    private var entries: [String: Entry] = [:]
    private var order: [String] = []
    let capacity: Int
    let lifetime: TimeInterval

    init(capacity: Int = 1024, lifetime: TimeInterval = 3600) {
        self.capacity = capacity
        self.lifetime = lifetime
    }

    /// Keeps the routes of an answer for their client to follow, and names them in it (Mapbox's `uuid`).
    func keep(_ routes: [GuidedRoute], query: RouteQuery, output: OSRMRouteResponse.Options, in answer: JSON) -> JSON {
        guard case .object(var members) = answer else { return answer }
        let id = UUID().uuidString.lowercased()
        let entry = Entry(trackers: routes.map { ProgressTracker(route: NavigationRoute($0)) }, query: query, output: output,
                          stored: Date())
        lock.withLock {
            entries[id] = entry
            order.append(id)
            while order.count > capacity { entries[order.removeFirst()] = nil }
        }
        members.append(("uuid", .string(id)))
        return .object(members)
    }

    func entry(_ id: String) -> Entry? {
        lock.withLock {
            guard let entry = entries[id] else { return nil }
            guard Date().timeIntervalSince(entry.stored) <= lifetime else {
                entries[id] = nil
                order.removeAll { $0 == id }
                return nil
            }
            return entry
        }
    }
}

/// `/navigation/v1/progress`: where a client is on a route it follows, what to say and show now, and, when it has
/// left the route, a new one from where it is, the way it is going (issue 30).
///
///     GET  /navigation/v1/progress/{uuid}?location=lon,lat&bearing=&speed=&accuracy=&time=&route=0&state=
///     POST /navigation/v1/progress   {"route": {...}, "profile": "driving", "geometries": "polyline",
///                                     "location": [lon, lat], "bearing": …, "speed": …, "accuracy": …, "time": …,
///                                     "state": "…", "request": "/route/v1/driving/…?…"}
struct NavigationService {
    let engine: Engine
    let routes: RouteStore
    let compatibility: Compatibility

    func progress(_ request: HTTPRequest) throws -> HTTPResponse {
        let parts = request.path.split(separator: "/").map(String.init)
        guard parts.count >= 3, parts[0] == "navigation", parts[1] == "v1", parts[2] == "progress", parts.count <= 4 else {
            throw EngineError(.invalidURL, "navigation takes /navigation/v1/progress/{uuid} (GET) or /navigation/v1/progress (POST)")
        }
        if request.method == "POST" {
            guard parts.count == 3 else { throw EngineError(.invalidURL, "a POST names no route in its path: the body has it") }
            return try post(request.body)
        }
        guard parts.count == 4 else { throw EngineError(.invalidURL, "GET /navigation/v1/progress/{uuid}: the route's uuid is missing") }
        var query: [String: String] = [:]
        for (key, value) in request.query {
            guard ["location", "bearing", "speed", "accuracy", "time", "route", "state"].contains(key) else {
                throw EngineError(.invalidQuery, "unknown option '\(key)' for navigation progress")
            }
            query[key] = value
        }
        guard let entry = routes.entry(parts[3]) else {
            throw EngineError(.notFound, "no route \(parts[3]): routes are kept for \(Int(routes.lifetime)) s, the last \(routes.capacity)", status: 404)
        }
        let index = try query["route"].map { text -> Int in
            guard let i = Int(text), entry.trackers.indices.contains(i) else {
                throw EngineError(.invalidValue, "route must be an index from 0 to \(entry.trackers.count - 1)")
            }
            return i
        } ?? 0
        guard let location = query["location"] else { throw EngineError(.invalidQuery, "location=lon,lat is missing") }
        let coordinates = try OSRMRequest.parseCoordinates(location)
        guard coordinates.count == 1 else { throw EngineError(.invalidValue, "location is one lon,lat pair") }
        func number(_ key: String, _ range: ClosedRange<Double>) throws -> Double? {
            guard let text = query[key] else { return nil }
            guard let x = Double(text), range.contains(x) else { throw EngineError(.invalidValue, "\(key) must be a number in \(range)") }
            return x
        }
        let fix = Fix(location: coordinates[0], bearing: try number("bearing", 0...360), speed: try number("speed", 0...150),
                      accuracy: try number("accuracy", 0...10_000), time: try number("time", -1e12...1e12))
        return try answer(tracker: entry.trackers[index], fix: fix, state: try state(query["state"]), query: entry.query,
                          output: entry.output)
    }

    private func state(_ text: String?) throws -> NavigationState {
        guard let text, !text.isEmpty else { return NavigationState() }
        guard let state = NavigationState(text: text) else {
            throw EngineError(.invalidValue, "state is not one this server gave: send back the last answer's state, or none")
        }
        return state
    }

    /// A route sent whole, as the client got it (OSRM JSON with steps), and the fix; with `request`, the URL the
    /// route was asked with, so that a reroute is asked as it was (as for a route the server keeps).
    private func post(_ body: [UInt8]) throws -> HTTPResponse {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else {
            throw EngineError(.invalidQuery, "the body is not a JSON object")
        }
        let known: Set<String> = ["route", "profile", "geometries", "location", "bearing", "speed", "accuracy", "time", "state", "language",
                                  "voice_units", "request"]
        if let unknown = object.keys.first(where: { !known.contains($0) }) {
            throw EngineError(.invalidQuery, "unknown member '\(unknown)' for navigation progress")
        }
        guard let routeObject = object["route"] as? [String: Any] else { throw EngineError(.invalidQuery, "the body has no route object") }
        func text(_ key: String) throws -> String? {
            guard let value = object[key], !(value is NSNull) else { return nil }
            guard let text = value as? String else { throw EngineError(.invalidValue, "\(key) must be a string") }
            return text
        }
        let request = try text("request").map { target -> OSRMRequest in
            let request = try OSRMRequest(target: target, compatibility: compatibility)
            guard request.service == "route" else {
                throw EngineError(.invalidValue, "request is the URL the route was asked with, /route/v1/{profile}/{coordinates}?…")
            }
            return request
        }
        var (asked, output) = try request?.routeQuery() ?? (RouteQuery(mode: .driving, points: []), OSRMRouteResponse.Options())
        if let profile = try text("profile") {
            guard let mode = TravelMode(profileName: profile) else {
                throw EngineError(.invalidValue, "profile '\(profile)' is driving, walking or cycling")
            }
            guard request == nil || request?.mode == mode else { throw EngineError(.invalidValue, "profile and request name different profiles") }
            asked.mode = mode
        }
        output.geometries = try text("geometries").map { text -> GeometryEncoding in
            guard let g = GeometryEncoding(rawValue: text) else { throw EngineError(.invalidValue, "geometries is polyline, polyline6 or geojson") }
            return g
        } ?? output.geometries
        let route: NavigationRoute
        do { route = try NavigationRoute(json: routeObject, geometries: output.geometries) } catch let error as NavigationRoute.ReadError {
            throw EngineError(.invalidValue, "route: \(error)")
        }
        guard let location = object["location"] as? [Any], location.count == 2,
              let lon = (location[0] as? NSNumber)?.doubleValue, let lat = (location[1] as? NSNumber)?.doubleValue,
              abs(lat) <= 90, abs(lon) <= 180 else {
            throw EngineError(.invalidValue, "location is [lon, lat]")
        }
        func number(_ key: String, _ range: ClosedRange<Double>) throws -> Double? {
            guard let value = object[key], !(value is NSNull) else { return nil }
            guard let x = (value as? NSNumber)?.doubleValue, range.contains(x) else { throw EngineError(.invalidValue, "\(key) must be a number in \(range)") }
            return x
        }
        let fix = Fix(location: Coordinate(latitude: lat, longitude: lon), bearing: try number("bearing", 0...360),
                      speed: try number("speed", 0...150), accuracy: try number("accuracy", 0...10_000), time: try number("time", -1e12...1e12))
        // A new route asked for as the one sent was: with steps and what it carries (voice, banners), in its language.
        if request == nil {
            asked.points = route.waypoints
            asked.compatibility = compatibility
        }
        asked.directions.language = try text("language") ?? request?.options["language"] ?? routeObject["voiceLocale"] as? String ?? "en"
        asked.directions.steps = true
        asked.directions.voiceInstructions = route.steps.contains { !$0.voice.isEmpty }
        asked.directions.bannerInstructions = route.steps.contains { !$0.banners.isEmpty }
        if let units = try text("voice_units") {
            guard let chosen = Units(rawValue: units) else { throw EngineError(.invalidValue, "voice_units is metric or imperial") }
            asked.directions.voiceUnits = chosen
        }
        output.steps = true
        return try answer(tracker: ProgressTracker(route: route), fix: fix, state: try state(text("state")), query: asked, output: output)
    }

    private func answer(tracker: ProgressTracker, fix: Fix, state: NavigationState, query: RouteQuery,
                        output: OSRMRouteResponse.Options) throws -> HTTPResponse {
        let progress = tracker.progress(at: fix, state: state)
        var members: [(String, JSON)] = [("code", .string("Ok")), ("progress", progress.json), ("state", .string(progress.state.text))]
        if progress.offRoute {
            members.append(("reroute", try reroute(tracker: tracker, fix: fix, progress: progress, query: query, output: output)))
        }
        return .json(JSON.object(members))
    }

    /// The new route, with the options the first was asked with, kept like it under a `uuid` of its own.
    private func reroute(tracker: ProgressTracker, fix: Fix, progress: RouteProgress, query: RouteQuery,
                         output: OSRMRouteResponse.Options) throws -> JSON {
        let again = try engine.rerouteQuery(tracker, from: fix, progress: progress, like: query)
        let answer = try engine.reroute(again)
        return routes.keep([answer.best], query: again, output: output,
                           in: OSRMRouteResponse.make(answer.best, graph: answer.graph, options: output, departure: answer.departure))
    }
}
