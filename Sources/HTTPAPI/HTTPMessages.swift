import Foundation
import RouteFormats

/// A request as the endpoints see it, however it arrived: over a socket (HTTPService), or in-process (a library).
public struct HTTPRequest: Sendable {
    public var method: String
    /// Percent-decoded path, without the query.
    public var path: String
    /// Decoded query arguments in order (a key may repeat).
    public var query: [(key: String, value: String)]
    /// The request target as the client sent it: path and query, still percent-encoded.
    public var rawTarget: String
    /// A POST's body (OSRM's JSON form of a request); empty otherwise.
    public var body: [UInt8]

    public init(method: String = "GET", path: String, query: [(key: String, value: String)] = [], rawTarget: String? = nil,
                body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.query = query
        self.rawTarget = rawTarget ?? path
        self.body = body
    }

    /// From a request target as sent (`/route/v1/driving/…?steps=true`), path and arguments percent-decoded as an
    /// HTTP server decodes them (`+` is a space in arguments).
    public init(method: String = "GET", target: String, body: [UInt8] = []) {
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        func decode<S: StringProtocol>(_ text: S) -> String {
            String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text)
        }
        let query = parts.count > 1 ? parts[1].split(separator: "&").map { pair -> (key: String, value: String) in
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (decode(kv[0]), kv.count > 1 ? decode(kv[1]) : "")
        } : []
        self.init(method: method, path: String(parts[0]).removingPercentEncoding ?? String(parts[0]), query: query,
                  rawTarget: target, body: body)
    }

    /// Bytes of the target as sent: what a URL length limit counts.
    public var rawLength: Int { rawTarget.utf8.count }

    public func argument(_ key: String) -> String? { query.first { $0.key == key }?.value }
}

public struct HTTPResponse: Sendable {
    public var status: Int
    public var contentType: String
    public var body: [UInt8]
    public var headers: [(String, String)] = []

    public init(status: Int, contentType: String, body: [UInt8], headers: [(String, String)] = []) {
        self.status = status
        self.contentType = contentType
        self.body = body
        self.headers = headers
    }

    public static func json(_ text: String, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "application/json; charset=utf-8", body: Array(text.utf8))
    }

    public static func json(_ value: JSON, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "application/json; charset=utf-8", body: value.bytes())
    }
}
