import Engine
import Foundation
import Guidance
import HTTPAPI
import Isochrones
import RoadGraph
import RouteFormats
import Routing

/// Why a call failed, with OSRM's code for it: the same code and message the CLI and the HTTP API give.
public struct WayfinderError: Error, Sendable, Equatable, CustomStringConvertible {
    /// OSRM's code: `NoRoute`, `NoSegment`, `InvalidValue`, `TooBig`, `NotFound`, …
    public var code: String
    /// What went wrong, in words a user can act on.
    public var message: String
    /// The HTTP status the server would answer with (400, 404, …).
    public var status: Int

    /// An error with OSRM's code, a message, and its HTTP status.
    public init(code: String, message: String, status: Int = 400) {
        self.code = code
        self.message = message
        self.status = status
    }

    /// `Code: message`.
    public var description: String { "\(code): \(message)" }

    init(_ error: EngineError) { self.init(code: error.code, message: error.message, status: error.status) }

    /// Any failure of the layers below, as the HTTP API reports it.
    static func from(_ error: Error) -> WayfinderError {
        switch error {
        case let error as WayfinderError: return error
        case let error as EngineError: return WayfinderError(error)
        case let error as RoutingError: return WayfinderError(code: error.code, message: error.description)
        case GraphDirectoryError.noGraph, GraphDirectoryError.noModeGraph, GraphDirectoryError.notADirectory, GraphFileError.cannotOpen:
            return WayfinderError(code: "NotFound", message: "\(error)", status: 404)
        case IsochroneError.tooBig(let points):
            return WayfinderError(code: "TooBig", message: "the isochrone needs \(points) points; ask for a coarser resolution")
        default: return WayfinderError(code: "InvalidValue", message: "\(error)")
        }
    }
}

/// Runs `body`, its failures as `WayfinderError`.
func calling<T>(_ body: () throws -> T) throws(WayfinderError) -> T {
    do { return try body() } catch { throw WayfinderError.from(error) }
}

/// The routing engine over one graph directory (made by `wayfinder import` or `WayfinderImport`): routes between
/// locations or names, tables, nearest roads, trips, trace matching and isochrones, in-process.
///
/// One instance serves any number of threads at once; its graphs are mapped, not copied, so opening is quick and
/// several processes share the memory.
public final class Wayfinder: Sendable {
    let engine: Engine
    let service: WayfinderService

    /// Opens the graphs of `directory`: every mode its import built, or only `modes`.
    ///
    /// - Throws: `NotFound` when the directory holds no graph of a mode, `InvalidValue` when a file fails its checks.
    public init(directory: String, modes: [Mode]? = nil) throws(WayfinderError) {
        engine = try calling {
            try Engine(directory: directory, modes: modes?.map(\.travelMode), limits: .commandLine)
        }
        service = WayfinderService(engine: engine)
    }

    /// The modes this engine can route in.
    public var modes: [Mode] { engine.current.graphs.keys.map(Mode.init).sorted { $0.rawValue < $1.rawValue } }

    /// Whether the import indexed places, so that waypoints may be names.
    public var hasPlaceIndex: Bool { engine.current.hasPlaceIndex }

    // MARK: Routes

    /// The fastest route through `waypoints` in order (at least two), with turn-by-turn steps unless `options`
    /// say otherwise.
    ///
    /// - Throws: `NoSegment` for a waypoint with no road near it, `NoRoute` when they are not connected,
    ///   `NoMatch` for a name that matches no place.
    public func route(_ waypoints: [Waypoint], options: RouteOptions = RouteOptions()) throws(WayfinderError) -> Directions {
        let answer = try calling { try engine.route(routeQuery(waypoints, options)) }
        return Directions(best: Route(answer.best, graph: answer.graph),
                          alternatives: answer.alternatives.map { Route($0, graph: answer.graph) },
                          departure: answer.departure?.description)
    }

    /// `route(_:options:)` as OSRM JSON's UTF-8 (the best route and the alternatives), without the Swift values on
    /// the way: what the C entry point answers.
    package func routeJSON(_ waypoints: [Waypoint], options: RouteOptions) throws(WayfinderError) -> [UInt8] {
        try calling {
            let answer = try engine.route(routeQuery(waypoints, options))
            return OSRMRouteResponse.make(answer.best, graph: answer.graph, alternatives: answer.alternatives,
                                          departure: answer.departure).bytes()
        }
    }

    /// The fastest route from one waypoint to another.
    public func route(from origin: Waypoint, to destination: Waypoint, options: RouteOptions = RouteOptions())
        throws(WayfinderError) -> Route
    {
        try route([origin, destination], options: options).best
    }

    func routeQuery(_ waypoints: [Waypoint], _ options: RouteOptions) throws -> RouteQuery {
        var query = RouteQuery(mode: options.mode.travelMode, points: try locations(of: waypoints, language: options.language))
        query.directions = DirectionsOptions(language: options.language, units: options.units.engineValue,
                                             steps: options.steps, compatibility: options.compatibility == .osrm ? .osrm : .wayfinder)
        query.alternatives = options.alternatives
        query.excluding = try exclusion(options.avoiding)
        query.snapRadius = options.snapRadius
        switch options.time {
        case nil: break
        case .departing(let text)?: query.time = .departure(try ClockTime(iso8601: text))
        case .arriving(let text)?: query.time = .arrival(try ClockTime(iso8601: text))
        }
        query.weightFactors = try weightFactors(options.weights)
        return query
    }

    func weightFactors(_ weights: [RoadKind: Double]) throws -> WeightFactors? {
        var factors = WeightFactors()
        for (kind, factor) in weights.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            guard factor.isFinite, factor >= 1, factor <= WeightFactors.largestFactor, let known = WeightFactors.Kind(rawValue: kind.rawValue) else {
                throw EngineError(.invalidValue, "the weight of \(kind.rawValue) roads must be a number from 1 to \(Int(WeightFactors.largestFactor))")
            }
            factors.weigh(known, by: factor)
        }
        return factors.isEmpty ? nil : factors
    }

    func exclusion(_ classes: Set<RoadClass>) throws -> ArcClasses {
        guard let excluded = ArcClasses(names: classes.map(\.rawValue)) else {
            throw EngineError(.invalidValue, "only toll, motorway and ferry can be avoided")
        }
        return excluded
    }

    /// Each waypoint's location: a name is searched near the waypoint before it, as the CLI does.
    func locations(of waypoints: [Waypoint], language: String = "en") throws -> [Coordinate] {
        var previous: Coordinate?
        return try waypoints.map { waypoint in
            let coordinate: Coordinate
            switch waypoint {
            case .location(let location): coordinate = try location.checked()
            case .name(let text): coordinate = try engine.resolve(text, near: previous, language: language).coordinate
            }
            previous = coordinate
            return coordinate
        }
    }

    // MARK: Places and roads

    /// The place a name stands for: the best match of the place index, near `near` when given.
    ///
    /// - Throws: `NoMatch` when nothing matches, `NotFound` when the import indexed no places.
    public func resolve(_ name: String, near: Location? = nil, language: String = "en") throws(WayfinderError) -> Place {
        let point = try calling { try engine.resolve(name, near: near?.checked(), language: language) }
        return Place(name: point.place?.name ?? name, kind: point.place?.kind ?? "location", location: Location(point.coordinate))
    }

    /// Up to `count` roads nearest to `location` that `mode` may use, nearest first.
    ///
    /// - Throws: `NoSegment` when none lies within `radius` metres (default 5 km).
    public func nearest(_ location: Location, mode: Mode = .driving, count: Int = 1, radius: Double? = nil)
        throws(WayfinderError) -> [NearestRoad]
    {
        let point = try location.checked()
        let (graph, snaps) = try calling {
            try engine.nearest(mode: mode.travelMode, point: point, count: count, radius: radius)
        }
        return snaps.map { NearestRoad(location: Location($0.location), distance: $0.distance, name: graph.name(ofEdge: $0.edge)) }
    }

    // MARK: Trips, traces, isochrones

    /// A trip through `waypoints` in the fastest order found, back to the first unless `roundTrip` is false (then it
    /// starts at the first and ends at the last).
    public func trip(_ waypoints: [Waypoint], roundTrip: Bool = true, options: RouteOptions = RouteOptions())
        throws(WayfinderError) -> Trip
    {
        guard options.alternatives == 0 else { throw Self.noAlternatives("a trip") }
        let answer = try calling {
            var query = TripQuery(mode: options.mode.travelMode, points: try locations(of: waypoints, language: options.language))
            query.roundtrip = roundTrip
            query.fixedStart = !roundTrip
            query.fixedEnd = !roundTrip
            query.directions = try routeQuery([], options).directions
            query.excluding = try exclusion(options.avoiding)
            query.snapRadius = options.snapRadius
            query.weightFactors = try weightFactors(options.weights)
            switch options.time {
            case nil: break
            case .departing(let text)?: query.departure = try ClockTime(iso8601: text)
            case .arriving?: throw EngineError(.invalidValue, "a trip leaves at a time (departing); it cannot arrive by one")
            }
            return try engine.trip(query)
        }
        // Waypoints in parts the mode cannot link make one trip per part (OSRM's answer): one trip can't hold them.
        guard answer.trips.count == 1, let first = answer.trips.first else {
            throw WayfinderError(code: "NoTrips", message: answer.trips.isEmpty ? "no trip visits every waypoint"
                : "the waypoints lie in \(answer.trips.count) parts that \(options.mode.rawValue) cannot link: no one trip visits them all")
        }
        return Trip(route: Route(first.guided, graph: answer.graph), order: first.stops)
    }

    /// The roads a GPS trace followed, one route per part of the trace that could be matched. `timestamps`, in
    /// seconds, one per fix, make the match stricter about speed.
    public func match(_ trace: [Location], timestamps: [Double]? = nil, options: RouteOptions = RouteOptions())
        throws(WayfinderError) -> [MatchedRoute]
    {
        guard options.alternatives == 0 else { throw Self.noAlternatives("a matched trace") }
        // A fix's search radius comes from its accuracy, not from a snapping radius.
        guard options.snapRadius == nil else {
            throw WayfinderError(code: "InvalidValue", message: "snapRadius does not apply to matching: a fix is searched by its accuracy")
        }
        // A trace says where the car went and when: neither a departure time nor weights choose its roads.
        guard options.time == nil && options.weights.isEmpty else {
            throw WayfinderError(code: "InvalidValue", message: "time and weights do not apply to matching: the trace decides the roads")
        }
        let points = try Location.checked(trace)
        let answer = try calling {
            var query = MatchQuery(mode: options.mode.travelMode, points: points)
            query.timestamps = timestamps
            query.directions = try routeQuery([], options).directions
            query.excluding = try exclusion(options.avoiding)
            return try engine.match(query)
        }
        return answer.matchings.map { MatchedRoute(route: Route($0.guided, graph: answer.graph), confidence: $0.confidence) }
    }

    /// An option that only routes between waypoints take, refused rather than ignored.
    static func noAlternatives(_ what: String) -> WayfinderError {
        WayfinderError(code: "InvalidValue", message: "alternatives apply to routes, not to \(what)")
    }

    /// The area reachable from `origin` within each of `limits` (seconds, or metres when `measuring` is distance).
    public func isochrone(from origin: Location, limits: [Double], measuring: ReachLimit = .duration, mode: Mode = .driving)
        throws(WayfinderError) -> Isochrone
    {
        let point = try origin.checked()
        let (_, found) = try calling {
            try engine.isochrone(IsochroneQuery(mode: mode.travelMode, point: point,
                                                metric: measuring == .distance ? .distance : .duration, limits: limits))
        }
        return Isochrone(contours: found.contours.map { contour in
            Isochrone.Contour(limit: contour.limit, polygons: contour.polygons.map { $0.map { $0.map(Location.init) } })
        })
    }

    // MARK: The HTTP API, in-process

    /// Answers a request of the HTTP API without a socket: an OSRM v5 target such as
    /// `/route/v1/driving/24.94,60.17;24.95,60.18?steps=true` (longitude first, as OSRM's URLs say), or any other
    /// endpoint the server has. `body` is a POST's JSON body. Failures are OSRM error bodies with their status, as
    /// the server sends them. Requests get the library's limits, the CLI's: sizes for a batch job, and a 5 km
    /// snapping radius where the request gives none (a server's `serve` defaults to no limit, as OSRM).
    public func respond(to target: String, body: [UInt8]? = nil) -> HTTPAnswer {
        let response = service.handle(HTTPRequest(method: body == nil ? "GET" : "POST", target: target, body: body ?? []))
        return HTTPAnswer(status: response.status, contentType: response.contentType, body: response.body)
    }
}

/// The HTTP API's answer to a request made in-process.
public struct HTTPAnswer: Sendable, Hashable {
    /// 200, or the error's status.
    public var status: Int
    /// `application/json; charset=utf-8` for OSRM's services.
    public var contentType: String
    /// The answer's bytes: OSRM's JSON, GeoJSON, HTML, …
    public var body: [UInt8]

    /// The body as text.
    public var text: String { String(decoding: body, as: UTF8.self) }
}

// MARK: Formats

extension Route {
    /// The route as OSRM v5 JSON (`{"code":"Ok","routes":[…],"waypoints":[…]}`), exactly as the CLI's
    /// `--format json` prints it.
    public func osrmJSON() -> String { OSRMRouteResponse.make(guided, graph: graph).serialized() }

    /// The line as an encoded polyline, precision 5 (OSRM's default) or 6.
    public func encodedPolyline(precision: Int = 5) -> String { Polyline.encode(guided.route.coordinates, precision: precision) }

    /// An RFC 7946 FeatureCollection: the line with its steps, and the two ends.
    public func geoJSON() -> String { RouteGeoJSON.make(guided).serialized() }

    /// A GPX 1.1 document with the route and its track.
    public func gpx() -> String { RouteGPX.make(guided) }

    /// The directions as text, one instruction per line.
    public func text() -> String { RouteText.make(guided) }
}

extension Directions {
    /// OSRM v5 JSON of the best route and the alternatives, exactly as the CLI's `--format json` prints it.
    public func osrmJSON() -> String {
        OSRMRouteResponse.make(best.guided, graph: best.graph, alternatives: alternatives.map(\.guided)).serialized()
    }
}
