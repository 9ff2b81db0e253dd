import CMicroHTTPD
import Foundation

public struct HTTPRequest: Sendable {
    public var method: String
    /// Percent-decoded path, without the query.
    public var path: String
    /// Decoded query arguments in order (a key may repeat).
    public var query: [(key: String, value: String)]

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
}

public enum HTTPServerError: Error, CustomStringConvertible {
    case invalidHost(String)
    case cannotStart(host: String, port: Int)

    public var description: String {
        switch self {
        case .invalidHost(let host): return "cannot listen on '\(host)': not an IPv4 address"
        case .cannotStart(let host, let port): return "cannot listen on \(host):\(port) (in use, or not permitted)"
        }
    }
}

/// A libmicrohttpd daemon with a thread pool, calling one Swift handler for every request. The handler runs on
/// the pool's threads in parallel.
public final class HTTPServer: @unchecked Sendable {
    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse
    let handler: Handler
    let log: Bool
    private var daemon: OpaquePointer?
    public private(set) var port: Int = 0

    public init(handler: @escaping Handler, log: Bool = true) {
        self.handler = handler
        self.log = log
    }

    public func start(host: String, port: Int, threads: Int, timeoutSeconds: Int = 30) throws {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        guard inet_pton(AF_INET, host == "localhost" ? "127.0.0.1" : host, &address.sin_addr) == 1 else {
            throw HTTPServerError.invalidHost(host)
        }
        let flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue | MHD_USE_ERROR_LOG.rawValue
        let context = Unmanaged.passUnretained(self).toOpaque()
        daemon = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                wf_mhd_start(flags, UInt16(port), sa, UInt32(max(1, threads)), UInt32(timeoutSeconds), 256 * 1024,
                             handleConnection, context)
            }
        }
        guard let daemon else { throw HTTPServerError.cannotStart(host: host, port: port) }
        self.port = Int(wf_mhd_bound_port(daemon))
    }

    public func stop() {
        if let daemon { MHD_stop_daemon(daemon) }
        daemon = nil
    }

    deinit { stop() }

    func respond(_ connection: OpaquePointer, method: String, url: String) -> MHD_Result {
        let started = DispatchTime.now()
        var arguments: [(key: String, value: String)] = []
        withUnsafeMutablePointer(to: &arguments) { pointer in
            _ = MHD_get_connection_values(connection, .GET_ARGUMENT_KIND, collectArgument, pointer)
        }
        let request = HTTPRequest(method: method, path: url, query: arguments)
        let response = method == "GET" || method == "HEAD"
            ? handler(request)
            : HTTPResponse.json(#"{"code":"InvalidQuery","message":"only GET is supported"}"#, status: 405)
        var body = response.body
        let mhdResponse = body.withUnsafeMutableBytes {
            MHD_create_response_from_buffer($0.count, $0.baseAddress, .RESPMEM_MUST_COPY)
        }
        _ = MHD_add_response_header(mhdResponse, "Content-Type", response.contentType)
        _ = MHD_add_response_header(mhdResponse, "Access-Control-Allow-Origin", "*")
        for (name, value) in response.headers { _ = MHD_add_response_header(mhdResponse, name, value) }
        let result = MHD_queue_response(connection, UInt32(response.status), mhdResponse)
        MHD_destroy_response(mhdResponse)
        if log {
            let ms = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e6
            let query = arguments.isEmpty ? "" : "?" + arguments.map { "\($0.key)=\($0.value)" }.joined(separator: "&")
            FileHandle.standardError.write(Data(String(format: "%@ %@%@ %d %.2f ms\n", method, url, query, response.status, ms).utf8))
        }
        return result
    }
}

/// libmicrohttpd's access handler. A plain global function (never a closure in main.swift: that is main-actor
/// code, and the library calls this from its own threads). The first call of a request only says "go on";
/// answering on the second keeps the connection alive.
private func handleConnection(context: UnsafeMutableRawPointer?, connection: OpaquePointer?, url: UnsafePointer<CChar>?,
                              method: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?,
                              uploadData: UnsafePointer<CChar>?, uploadSize: UnsafeMutablePointer<Int>?,
                              state: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> MHD_Result
{
    guard let context, let connection, let url, let method, let state else { return .NO }
    if state.pointee == nil {
        state.pointee = UnsafeMutableRawPointer(bitPattern: 1)
        return .YES
    }
    if let uploadSize, uploadSize.pointee > 0 {
        uploadSize.pointee = 0  // request bodies are not used: drop them
        return .YES
    }
    let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
    return server.respond(connection, method: String(cString: method), url: String(cString: url))
}

private func collectArgument(context: UnsafeMutableRawPointer?, kind: MHD_ValueKind, key: UnsafePointer<CChar>?,
                             value: UnsafePointer<CChar>?) -> MHD_Result
{
    guard let context, let key else { return .YES }
    let arguments = context.assumingMemoryBound(to: [(key: String, value: String)].self)
    arguments.pointee.append((String(cString: key), value.map { String(cString: $0) } ?? ""))
    return .YES
}
