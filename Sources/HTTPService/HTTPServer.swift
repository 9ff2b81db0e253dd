import CMicroHTTPD
import Foundation
// The endpoints themselves, for whoever imports the server.
@_exported import HTTPAPI
import RoadGraph
import RouteFormats

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

/// How a server listens and protects itself from slow or greedy clients.
public struct HTTPServerOptions: Sendable {
    public var host = "127.0.0.1"
    public var port = 5000
    public var threads = ProcessInfo.processInfo.activeProcessorCount
    /// Seconds a connection may stay silent before it is closed.
    public var idleTimeout = 30
    /// Seconds a client has to send a complete request head, counted from the connection's opening or from the
    /// previous answer on it. A client that trickles its headers a byte at a time is cut off here.
    public var headerTimeout = 10
    /// Open connections at most, and per client address.
    public var maxConnections = 4096
    public var maxConnectionsPerClient = 128
    /// `Access-Control-Allow-Origin`; nil sends none (nor the other CORS headers).
    public var allowOrigin: String? = "*"
    /// Largest POST body, bytes: OSRM's default, 1 MiB (a 1,000-point table with options takes about 60 KB).
    public var maxBodySize = 1 << 20
    /// One line per request on stderr.
    public var log = true

    public init() {}
}

/// A libmicrohttpd daemon with a thread pool (epoll) for the connections, calling one Swift handler for every
/// request on `threads` workers of its own: a request's connection is suspended while a worker computes its
/// answer. (Computed on the connection's polling thread, a long request held up every other connection that thread
/// served: a keep-alive client's trivial request waited behind another client's table.) GET and HEAD are
/// served, OPTIONS answers a CORS preflight, and POST takes a JSON body (OSRM's form for long requests). A
/// watchdog closes connections whose request head does not arrive in time, and `stop` lets requests in progress
/// finish.
public final class HTTPServer: @unchecked Sendable {
    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse
    let handler: Handler
    let options: HTTPServerOptions
    private var daemon: OpaquePointer?
    public private(set) var port: Int = 0
    let connections = ConnectionWatch()
    private var watchdog: DispatchSourceTimer?
    let workers: WorkerPool

    public init(handler: @escaping Handler, options: HTTPServerOptions = HTTPServerOptions()) {
        self.handler = handler
        self.options = options
        workers = WorkerPool(threads: max(1, options.threads))
    }

    public func start() throws {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(options.port).bigEndian)
        let host = options.host
        guard inet_pton(AF_INET, host == "localhost" ? "127.0.0.1" : host, &address.sin_addr) == 1 else {
            throw HTTPServerError.invalidHost(host)
        }
        let flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue | MHD_USE_ERROR_LOG.rawValue
            | MHD_USE_ITC.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue
        let context = Unmanaged.passUnretained(self).toOpaque()
        daemon = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                wf_mhd_start(flags, UInt16(options.port), sa, UInt32(max(1, options.threads)), UInt32(options.idleTimeout),
                             256 * 1024, UInt32(options.maxConnections), UInt32(options.maxConnectionsPerClient),
                             handleRequest, logTarget, requestCompleted, connectionChanged, context)
            }
        }
        guard let daemon else { throw HTTPServerError.cannotStart(host: host, port: options.port) }
        port = Int(wf_mhd_bound_port(daemon))
        let timer = DispatchSource.makeTimerSource(queue: .global())
        let limit = UInt64(options.headerTimeout) * 1_000_000_000
        timer.schedule(deadline: .now() + .milliseconds(250), repeating: .milliseconds(250))
        timer.setEventHandler { [connections] in connections.closeSlow(olderThan: limit) }
        timer.resume()
        watchdog = timer
    }

    /// Stops accepting connections, waits up to `grace` seconds for the requests in progress, then shuts down.
    public func stop(grace: Double = 0) {
        guard let daemon else { return }
        _ = MHD_quiesce_daemon(daemon)
        let deadline = Date().addingTimeInterval(grace)
        while connections.requestsInProgress > 0 && Date() < deadline { usleep(10_000) }
        // libmicrohttpd must not be stopped with a connection suspended: the workers' requests end first (each is
        // bounded by its CPU budget).
        workers.waitUntilIdle()
        watchdog?.cancel()
        watchdog = nil
        MHD_stop_daemon(daemon)
        self.daemon = nil
    }

    deinit { stop() }

    /// The request's second call: its connection is suspended and a worker computes the answer; resumed, the
    /// connection calls again and the answer is queued.
    func respond(_ connection: OpaquePointer, method: String, path: String, context: RequestContext) -> MHD_Result {
        if let response = context.response {
            context.response = nil
            let result = queue(response, on: connection)
            log(method: method, target: context.target, status: response.status, since: context.started)
            return result
        }
        context.started = DispatchTime.now()
        if method == "OPTIONS" {
            let result = queue(HTTPResponse(status: 204, contentType: "text/plain", body: []), on: connection)
            log(method: method, target: context.target, status: 204, since: context.started)
            return result
        }
        // The arguments are read here, on the connection's thread, before it is suspended.
        var arguments: [(key: String, value: String)] = []
        withUnsafeMutablePointer(to: &arguments) { pointer in
            _ = MHD_get_connection_values(connection, .GET_ARGUMENT_KIND, collectArgument, pointer)
        }
        let request = HTTPRequest(method: method, path: path, query: arguments, rawTarget: context.target, body: context.body)
        context.body = []
        MHD_suspend_connection(connection)
        let handler = handler
        // The connection is an opaque pointer that libmicrohttpd keeps valid while it is suspended.
        nonisolated(unsafe) let suspended = connection
        workers.submit {
            let cpu = WorkBudget.threadCPUTime()
            context.response = handler(request)
            MHD_resume_connection(suspended)
            // After a long request its memory goes back (a ms or two, against its 50 or more).
            if WorkBudget.threadCPUTime() - cpu > 50_000_000 { wf_release_free_memory() }
        }
        return .YES
    }

    private func log(method: String, target: String, status: Int, since started: DispatchTime) {
        guard options.log else { return }
        let ms = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e6
        let line = String(format: "%@ %@ %d %.2f ms\n", Self.loggable(method), Self.loggable(target), status, ms)
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// Answers a request refused at its head, with the connection closed after it, and logs it.
    func refuse(_ response: HTTPResponse, _ connection: OpaquePointer, method: String, target: String) -> MHD_Result {
        var response = response
        response.headers.append(("Connection", "close"))
        _ = queue(response, on: connection)
        if options.log {
            let line = "\(Self.loggable(method)) \(Self.loggable(target)) \(response.status) refused\n"
            FileHandle.standardError.write(Data(line.utf8))
        }
        // Yes: with an answer queued at the first call, the library sends it and closes; no would drop it unsent.
        return .YES
    }

    func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
        // libmicrohttpd copies the body (MUST_COPY) and never writes through the pointer: reading it in place
        // spares a copy of the whole answer that making the array mutable would take.
        let mhdResponse = response.body.withUnsafeBytes {
            MHD_create_response_from_buffer($0.count, UnsafeMutableRawPointer(mutating: $0.baseAddress), .RESPMEM_MUST_COPY)
        }
        _ = MHD_add_response_header(mhdResponse, "Content-Type", response.contentType)
        _ = MHD_add_response_header(mhdResponse, "X-Content-Type-Options", "nosniff")
        if let origin = options.allowOrigin {
            // On every answer, as OSRM sends them: a browser's preflight and its request both read them.
            _ = MHD_add_response_header(mhdResponse, "Access-Control-Allow-Origin", origin)
            _ = MHD_add_response_header(mhdResponse, "Access-Control-Allow-Methods", Self.methods)
            _ = MHD_add_response_header(mhdResponse, "Access-Control-Allow-Headers", "X-Requested-With, Content-Type")
        }
        for (name, value) in response.headers { _ = MHD_add_response_header(mhdResponse, name, value) }
        let result = MHD_queue_response(connection, UInt32(response.status), mhdResponse)
        MHD_destroy_response(mhdResponse)
        return result
    }

    static let methods = "GET, HEAD, POST, OPTIONS"

    /// Why a POST is refused at its head, before its body is read: a body that is not JSON (415, as OSRM), or one
    /// that says it is larger than the server takes (413).
    func refusal(ofPostHead connection: OpaquePointer) -> HTTPResponse? {
        let type = MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Type").map { String(cString: $0) } ?? ""
        guard type.trimmingCharacters(in: .whitespaces).lowercased().hasPrefix("application/json") else {
            return .json(OSRMRouteResponse.error(code: "InvalidContentType",
                                                 message: "a POST body must be JSON (Content-Type: application/json)"), status: 415)
        }
        if let length = MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Length").flatMap({ Int(String(cString: $0)) }),
           length > options.maxBodySize {
            return tooLarge
        }
        return nil
    }

    var tooLarge: HTTPResponse {
        .json(OSRMRouteResponse.error(code: "TooBig", message: "the request body is larger than \(options.maxBodySize) bytes"),
              status: 413)
    }

    /// Text as it may go into a log line: control characters, spaces and non-ASCII bytes percent-encoded, so a
    /// request cannot forge or break lines.
    static func loggable(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            if byte > 0x20 && byte < 0x7F { out.unicodeScalars.append(Unicode.Scalar(byte)) } else {
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }
}

/// One request on a connection: its target as sent, and whether its head has been handled.
final class RequestContext: @unchecked Sendable {
    let target: String
    /// The answer a worker computed: written before the connection is resumed and read after, under a lock of its
    /// own (libmicrohttpd's own ordering of the two is not one a thread sanitizer can see).
    var response: HTTPResponse? {
        get { lock.withLock { computed } }
        set { lock.withLock { computed = newValue } }
    }
    private var computed: HTTPResponse?
    private let lock = NSLock()
    /// When the request was taken up, for the log.
    var started = DispatchTime.now()
    /// Bytes of the target as libmicrohttpd saw it, up to a NUL if the client sent one.
    let rawLength: Int
    var headReceived = false
    /// A POST's body as it arrives.
    var body: [UInt8] = []
    /// Answered before its body was all read (too large): the rest is read and dropped.
    var refused = false
    init(target: String, rawLength: Int) {
        self.target = target
        self.rawLength = rawLength
    }
}

/// The server's open connections, for the request-head deadline and for counting requests in progress.
final class ConnectionWatch: @unchecked Sendable {
    final class Record {
        let descriptor: Int32
        /// When the connection began to wait for a request head (uptime nanoseconds); nil while one is served.
        var waitingSince: UInt64?
        var cutOff = false
        init(descriptor: Int32) {
            self.descriptor = descriptor
            waitingSince = DispatchTime.now().uptimeNanoseconds
        }
    }

    private let lock = NSLock()
    private var records: [ObjectIdentifier: Record] = [:]
    private var inProgress = 0

    var requestsInProgress: Int { lock.withLock { inProgress } }

    func opened(_ record: Record) { lock.withLock { records[ObjectIdentifier(record)] = record } }
    func closed(_ record: Record) { lock.withLock { _ = records.removeValue(forKey: ObjectIdentifier(record)) } }

    func headReceived(_ record: Record?) {
        lock.withLock {
            record?.waitingSince = nil
            inProgress += 1
        }
    }

    func requestEnded(_ record: Record?, counted: Bool) {
        lock.withLock {
            record?.waitingSince = DispatchTime.now().uptimeNanoseconds
            if counted { inProgress -= 1 }
        }
    }

    /// Shuts the sockets of connections that have waited too long for a request head; libmicrohttpd then closes
    /// them. Runs under the lock that `closed` takes, and libmicrohttpd reports a connection closed before it
    /// closes the socket, so a descriptor shut here is never one already reused.
    func closeSlow(olderThan limit: UInt64) {
        let now = DispatchTime.now().uptimeNanoseconds
        lock.withLock {
            for record in records.values where !record.cutOff {
                guard let since = record.waitingSince, now > since, now - since > limit else { continue }
                record.cutOff = true
                shutdown(record.descriptor, Int32(SHUT_RDWR))
            }
        }
    }
}

/// libmicrohttpd's callbacks: plain global functions (never closures in main.swift: that is main-actor code, and
/// the library calls these from its own threads).
private func server(_ context: UnsafeMutableRawPointer?) -> HTTPServer? {
    context.map { Unmanaged<HTTPServer>.fromOpaque($0).takeUnretainedValue() }
}

private func record(of connection: OpaquePointer) -> ConnectionWatch.Record? {
    wf_mhd_socket_context(connection).map { Unmanaged<ConnectionWatch.Record>.fromOpaque($0).takeUnretainedValue() }
}

/// The first callback of a request: its target exactly as sent, kept as the request's context.
private func logTarget(context: UnsafeMutableRawPointer?, uri: UnsafePointer<CChar>?, connection: OpaquePointer?)
    -> UnsafeMutableRawPointer?
{
    let target = uri.map { String(cString: $0) } ?? ""
    return Unmanaged.passRetained(RequestContext(target: target, rawLength: uri.map { strlen($0) } ?? 0)).toOpaque()
}

/// The access handler. The first call of a request only says "go on" (answering on the second keeps the
/// connection alive); a POST's body then comes in calls of its own; a method other than GET, HEAD, POST or OPTIONS
/// is refused at once, without reading a body.
private func handleRequest(context: UnsafeMutableRawPointer?, connection: OpaquePointer?, url: UnsafePointer<CChar>?,
                           method: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?,
                           uploadData: UnsafePointer<CChar>?, uploadSize: UnsafeMutablePointer<Int>?,
                           state: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> MHD_Result
{
    guard let server = server(context), let connection, let url, let method, let state else { return .NO }
    if state.pointee == nil {
        state.pointee = Unmanaged.passRetained(RequestContext(target: String(cString: url), rawLength: strlen(url))).toOpaque()
    }
    let request = Unmanaged<RequestContext>.fromOpaque(state.pointee!).takeUnretainedValue()
    let methodName = String(cString: method)
    if !request.headReceived {
        request.headReceived = true
        server.connections.headReceived(record(of: connection))
        // Framing the library lets through, answered before any body is read; libmicrohttpd then closes the
        // connection, so nothing after this request's head is read as another request.
        var message: UnsafePointer<CChar>?
        let status = wf_mhd_framing_error(connection, url, version, request.rawLength, &message)
        if status != 0 || request.target.contains("%00") {
            let why = status != 0 ? message.map { String(cString: $0) } ?? "" : "the target holds a NUL byte (%00)"
            let code = status == 501 ? "NotImplemented" : "InvalidUrl"
            return server.refuse(HTTPResponse.json(JSON.object([("code", .string(code)), ("message", .string(why))]),
                                                   status: status == 0 ? 400 : Int(status)),
                                 connection, method: methodName, target: request.target)
        }
        switch methodName {
        case "GET", "HEAD", "OPTIONS": return .YES
        case "POST":
            if let refusal = server.refusal(ofPostHead: connection) {
                return server.refuse(refusal, connection, method: methodName, target: request.target)
            }
            return .YES
        default:
            var response = HTTPResponse.json(OSRMRouteResponse.error(code: "InvalidMethod",
                                                                     message: "this server takes \(HTTPServer.methods)"), status: 405)
            response.headers.append(("Allow", HTTPServer.methods))
            return server.refuse(response, connection, method: methodName, target: request.target)
        }
    }
    if let uploadSize, uploadSize.pointee > 0 {
        if methodName == "POST", let uploadData {
            // A body sent without a length (chunked) is bounded here.
            guard !request.refused else { uploadSize.pointee = 0; return .YES }
            guard request.body.count + uploadSize.pointee <= server.options.maxBodySize else {
                uploadSize.pointee = 0
                request.refused = true
                request.body = []
                return server.refuse(server.tooLarge, connection, method: methodName, target: request.target)
            }
            UnsafeRawBufferPointer(start: uploadData, count: uploadSize.pointee).withMemoryRebound(to: UInt8.self) {
                request.body.append(contentsOf: $0)
            }
        }
        uploadSize.pointee = 0
        return .YES
    }
    if request.refused { return .YES }
    return server.respond(connection, method: methodName, path: String(cString: url), context: request)
}

private func requestCompleted(context: UnsafeMutableRawPointer?, connection: OpaquePointer?,
                              state: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, reason: MHD_RequestTerminationCode)
{
    guard let server = server(context), let state, let pointer = state.pointee else { return }
    let request = Unmanaged<RequestContext>.fromOpaque(pointer).takeRetainedValue()
    state.pointee = nil
    server.connections.requestEnded(connection.flatMap(record(of:)), counted: request.headReceived)
}

private func connectionChanged(context: UnsafeMutableRawPointer?, connection: OpaquePointer?,
                               socketContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
                               change: MHD_ConnectionNotificationCode)
{
    guard let server = server(context), let connection, let socketContext else { return }
    switch change {
    case .CONNECTION_NOTIFY_STARTED:
        let record = ConnectionWatch.Record(descriptor: wf_mhd_connection_fd(connection))
        socketContext.pointee = Unmanaged.passRetained(record).toOpaque()
        server.connections.opened(record)
    default:
        guard let pointer = socketContext.pointee else { return }
        let record = Unmanaged<ConnectionWatch.Record>.fromOpaque(pointer).takeRetainedValue()
        socketContext.pointee = nil
        server.connections.closed(record)
    }
}

private func collectArgument(context: UnsafeMutableRawPointer?, kind: MHD_ValueKind, key: UnsafePointer<CChar>?,
                             value: UnsafePointer<CChar>?) -> MHD_Result
{
    guard let context, let key else { return .YES }
    let arguments = context.assumingMemoryBound(to: [(key: String, value: String)].self)
    arguments.pointee.append((String(cString: key), value.map { String(cString: $0) } ?? ""))
    return .YES
}

/// A fixed number of threads taking work in order: where requests are computed, apart from the threads that
/// poll the connections.
final class WorkerPool: @unchecked Sendable {
    private let condition = NSCondition()
    private var queue: [() -> Void] = []
    private var busy = 0

    /// The threads keep the pool for as long as the process runs (a process serves once).
    init(threads: Int) {
        for k in 0..<threads {
            let thread = Thread { self.work() }
            thread.name = "wayfinder-worker-\(k)"
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    func submit(_ job: @escaping () -> Void) {
        condition.withLock {
            queue.append(job)
            condition.signal()
        }
    }

    /// Returns once no job is queued or running.
    func waitUntilIdle() {
        condition.withLock { while !queue.isEmpty || busy > 0 { condition.wait() } }
    }

    private func work() {
        while true {
            let job: () -> Void = condition.withLock {
                while queue.isEmpty { condition.wait() }
                busy += 1
                return queue.removeFirst()
            }
            job()
            condition.withLock {
                busy -= 1
                condition.broadcast()
            }
        }
    }
}
