import Foundation
import Geocoding
import RoadGraph
import Routing

/// Every way a request can fail, in one table: the OSRM code clients switch on, the HTTP status, and the message.
/// The server, the CLI and batch tasks all report these, so one failure reads the same everywhere.
public struct EngineError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// The request is malformed (OSRM `InvalidQuery`, `InvalidUrl`, `InvalidOptions`, `InvalidValue`).
        case invalidQuery = "InvalidQuery", invalidURL = "InvalidUrl", invalidOptions = "InvalidOptions"
        case invalidValue = "InvalidValue", invalidService = "InvalidService", invalidVersion = "InvalidVersion"
        /// No road near a point (OSRM `NoSegment`).
        case noSegment = "NoSegment"
        /// The points are not connected for this mode (OSRM `NoRoute`).
        case noRoute = "NoRoute"
        /// The points of a trip cannot all be visited in one order (OSRM `NoTrips`).
        case noTrips = "NoTrips"
        /// Over a configured limit: size, length, words, or the CPU time a request may take (OSRM `TooBig`).
        case tooBig = "TooBig"
        /// A name that matches no place (`NoMatch`, as Nominatim-style geocoders say it).
        case noMatch = "NoMatch"
        /// What this server or graph does not have: a mode, a place index, a file.
        case notFound = "NotFound"
        /// A request OSRM's API defines that Wayfinder does not answer (OSRM `NotImplemented`).
        case notImplemented = "NotImplemented"
        /// The server cannot answer yet: its graphs are still loading.
        case unavailable = "ServiceUnavailable"
        /// An HTTP method the endpoint does not take (OSRM `InvalidMethod`, status 405).
        case invalidMethod = "InvalidMethod"
    }

    public var kind: Kind
    public var message: String
    /// HTTP status: 400 for everything a client can fix, 404 for what is not here, 405 for a method not taken, 413
    /// for an overlarge body, 414 for an overlong URL, 503 for a server still loading.
    public var status: Int

    public init(_ kind: Kind, _ message: String, status: Int? = nil) {
        self.kind = kind
        self.message = message
        self.status = status ?? (kind == .notFound ? 404 : kind == .unavailable ? 503 : kind == .invalidMethod ? 405 : 400)
    }

    public var code: String { kind.rawValue }
    public var description: String { message }

    static func from(_ error: RoutingError) -> EngineError {
        switch error {
        case .noSegment: return EngineError(.noSegment, error.description)
        case .noRoute: return EngineError(.noRoute, error.description)
        case .tooFewWaypoints: return EngineError(.invalidQuery, error.description)
        }
    }

    static func timeout(_ milliseconds: Double) -> EngineError {
        EngineError(.tooBig, "the request needs more than \(Int(milliseconds)) ms of computation, this server's limit; "
            + "split it into smaller requests")
    }
}
