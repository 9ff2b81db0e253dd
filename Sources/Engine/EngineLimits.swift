import RoadGraph

/// How much one request may ask for. Every limit is configurable (`serve` and the CLI commands take options of
/// the same names) and documented in README.md; a request over one gets a `TooBig` error naming it.
public struct EngineLimits: Sendable {
    /// Most coordinates in a route (via points included).
    public var maxRouteWaypoints = 50
    /// Most locations in a table: sources plus destinations, as OSRM counts them.
    public var maxTableLocations = 1000
    public var maxNearestResults = 100
    /// Most points in a trip (OSRM's `--max-trip-size`).
    public var maxTripPoints = 100
    /// Most points in a trace to match (OSRM's `--max-matching-size`).
    public var maxTracePoints = 100
    /// Largest `radiuses` entry of a trace to match, metres (OSRM's `--max-matching-radius`); nil for none. A fix's
    /// radius sets how far its candidate roads are looked for, so this bounds the candidate search.
    public var maxMatchingRadius: Double?
    /// Isochrones: most contours in one request, and the largest limits (Mapbox's isochrone API's own limits).
    public var maxContours = 4
    public var maxContourMinutes = 60.0
    public var maxContourMeters = 100_000.0
    /// Most points an isochrone may triangulate (the reached roads sampled every half resolution): some 0.3 s of
    /// triangulation, against 4.5 s and 47 MB of answer for 100 km on foot at a 20 m resolution.
    public var maxIsochronePoints = 300_000
    /// Longest free-text place query, in UTF-8 bytes, and most words in it.
    public var maxQueryLength = 512
    public var maxQueryWords = 32
    /// CPU time one request may take, milliseconds; nil for no limit (the CLI's default).
    public var maxComputeMilliseconds: Double?
    /// How far a point may be from its road when the request does not say (OSRM's `radiuses`): the CLI's 5 km;
    /// the server has no limit, as OSRM.
    public var defaultSnapRadius: Double = RoadGraph.defaultSnapDistance

    public init() {}

    /// A server's limits: OSRM's defaults, no snapping limit, and two seconds of CPU per request.
    public static var server: EngineLimits {
        var limits = EngineLimits()
        limits.defaultSnapRadius = .infinity
        limits.maxComputeMilliseconds = 2000
        limits.maxMatchingRadius = 1000
        return limits
    }

    /// The limits of a caller on the same machine (the CLI, the library): sizes only a batch job reaches, no CPU
    /// limit, and the 5 km snapping limit.
    public static var commandLine: EngineLimits {
        var limits = EngineLimits()
        limits.maxRouteWaypoints = 10_000
        limits.maxTableLocations = 1_000_000
        limits.maxTripPoints = 10_000
        limits.maxTracePoints = 100_000
        return limits
    }
}
