import Dispatch
import Engine
import Foundation
import HTTPService
import RoadGraph
#if canImport(Glibc)
import Glibc
#endif

/// `wayfinder bench-http`: what a client sees over HTTP, on random pairs across the whole extract.
enum BenchHTTPCommand {
    static let help = """
    Usage: wayfinder bench-http --graph <dir> [--mode driving|walking|cycling] [--pairs N] [--seed S] [--rounds R]
                                [--threads T] [--server host:port | --in-process]

    Starts `wayfinder serve` on a free loopback port (or uses --server), draws N random points pairs uniformly in
    the graph's bounds (a point more than 5 km from a road the mode may use is drawn again), and sends each
    request variant for every pair over one keep-alive connection with TCP_NODELAY and TCP_QUICKACK, R rounds
    after a warm-up round. Prints the median and 95th percentile latency per variant (request written → response
    read whole): `steps=true&overview=full`, `steps=false&overview=false`, and `/nearest` (the HTTP floor).
    Pairs with no route (islands) are counted and left out of the figures. Exit 2 if any answer is not 200/Ok.
    --in-process hands the same requests to the server's request handler in this process, without sockets: the
    time the answer itself takes (and a steady loop for a profiler).
    """

    struct Variant {
        let name: String
        let path: ([Coordinate]) -> String
    }

    static func run(_ raw: [String]) throws -> ExitCode {
        let args = try Arguments(raw, flags: ["--help", "--in-process"],
                                 options: ["--graph", "--mode", "--pairs", "--seed", "--rounds", "--threads", "--server"])
        if args.has("--help") { print(help); return .ok }
        let mode = try args.mode()
        let count = try args.integer("--pairs", default: 200, range: 1...100_000)
        let seed = try args.integer("--seed", default: 1, range: 0...Int.max)
        let rounds = try args.integer("--rounds", default: 3, range: 1...100)
        let threads = try args.integer("--threads", default: ProcessInfo.processInfo.activeProcessorCount, range: 1...256)
        guard let graphPath = args["--graph"] else { throw CommandError.usage("--graph <dir> is required") }
        // In process, the engine is opened as `serve` opens it (every mode, the server's limits) and answers too.
        let inProcess = args.has("--in-process")
        let engine = inProcess ? try openEngine(args, limits: EngineLimits.server.configured(by: args)) : try openEngine(args, modes: [mode])
        let graph = try modeGraph(engine, mode, args)
        let bounds = graph.metadata.bounds
        guard bounds != .empty else { throw CommandError.badInput("the \(mode.rawValue) graph is empty") }

        // Uniform in the bounds, as a user anywhere on the map would click; points far from any road are redrawn.
        var random = SplitMix64(seed: UInt64(seed))
        func uniform() -> Double { Double(random.next() >> 11) / Double(1 << 53) }
        var redrawn = 0
        func randomPoint() throws -> Coordinate {
            for _ in 0..<10_000 {
                let point = Coordinate(latitude: bounds.minLatitude + uniform() * (bounds.maxLatitude - bounds.minLatitude),
                                       longitude: bounds.minLongitude + uniform() * (bounds.maxLongitude - bounds.minLongitude))
                if !graph.nearestRoads(to: point, count: 1, maxDistance: 5_000).isEmpty { return point }
                redrawn += 1
            }
            throw CommandError.badInput("no road within 5 km of 10,000 random points in the graph's bounds")
        }
        var pairs: [[Coordinate]] = []
        for _ in 0..<count { pairs.append([try randomPoint(), try randomPoint()]) }

        var server: Process?
        let host: String, port: UInt16
        if inProcess {
            guard args["--server"] == nil else { throw CommandError.usage("--in-process and --server exclude each other") }
            host = "in-process"; port = 0
        } else if let address = args["--server"] {
            let parts = address.split(separator: ":")
            guard parts.count == 2, let p = UInt16(parts[1]) else { throw CommandError.usage("--server takes host:port") }
            host = String(parts[0]); port = p
        } else {
            (server, port) = try startServer(graph: graphPath, threads: threads)
            host = "127.0.0.1"
        }
        defer {
            if let server { server.terminate(); server.waitUntilExit() }
        }
        var client: any RequestClient = inProcess ? InProcessClient(service: WayfinderService(engine: engine))
            : try HTTPClient(host: host, port: port)
        let profile = mode.rawValue
        func coordinates(_ points: [Coordinate]) -> String {
            points.map { String(format: "%.6f,%.6f", $0.longitude, $0.latitude) }.joined(separator: ";")
        }
        let variants = [
            Variant(name: "route steps=true&overview=full") { "/route/v1/\(profile)/\(coordinates($0))?steps=true&overview=full" },
            Variant(name: "route steps=false&overview=false") { "/route/v1/\(profile)/\(coordinates($0))?steps=false&overview=false" },
            Variant(name: "nearest") { "/nearest/v1/\(profile)/\(coordinates([$0[0]]))" },
        ]

        // Warm-up: every request once; pairs without a route are left out (reported), anything else is an error.
        var routable: [[Coordinate]] = []
        var distances: [Double] = [], steps: [Double] = []
        var failures = 0
        for pair in pairs {
            let (status, bytes) = try client.get(variants[0].path(pair))
            let body = String(decoding: bytes, as: UTF8.self)
            if status == 200, body.contains("\"code\":\"Ok\"") {
                routable.append(pair)
                if let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
                   let route = (object["routes"] as? [[String: Any]])?.first {
                    distances.append(route["distance"] as? Double ?? 0)
                    let legs = route["legs"] as? [[String: Any]] ?? []
                    steps.append(Double(legs.reduce(0) { $0 + (($1["steps"] as? [Any])?.count ?? 0) }))
                }
            } else if !body.contains("\"code\":\"NoRoute\"") {
                failures += 1
                FileHandle.standardError.write(Data("unexpected answer \(status): \(body.prefix(200))\n".utf8))
            }
        }
        print("graph \(graphPath) (\(mode.rawValue)); seed \(seed); \(pairs.count) pairs (\(redrawn) points redrawn, "
            + "more than 5 km from a road), \(routable.count) routable; \(rounds) rounds; "
            + (inProcess ? "handler in process" : "server \(host):\(port)")
            + (server == nil ? "" : " with \(threads) threads"))
        print(String(format: "routes: median %.1f km, %.0f steps", BenchCommand.median(distances) / 1000,
                     BenchCommand.median(steps)))
        for variant in variants {
            var times: [Double] = []
            for _ in 0..<rounds {
                for pair in routable {
                    let path = variant.path(pair)
                    let start = DispatchTime.now()
                    let (status, bytes) = try client.get(path)
                    times.append(BenchCommand.milliseconds(since: start))
                    let body = String(decoding: bytes, as: UTF8.self)
                    if status != 200 || !body.hasPrefix("{\"code\":\"Ok\"") {
                        failures += 1
                        FileHandle.standardError.write(Data("unexpected answer \(status): \(body.prefix(200))\n".utf8))
                    }
                }
            }
            print("\(variant.name.padding(toLength: 34, withPad: " ", startingAt: 0)) \(times.count) requests  "
                + "p50 \(BenchCommand.format(BenchCommand.median(times))) ms  p95 \(BenchCommand.format(BenchCommand.percentile(times, 0.95))) ms")
        }
        if failures > 0 { print("\(failures) unexpected answers"); return .badInput }
        return .ok
    }

    /// `wayfinder serve` from this same executable on a free port; returns once its graphs are loaded.
    static func startServer(graph: String, threads: Int) throws -> (Process, UInt16) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["serve", "--graph", graph, "--port", "0", "--quiet", "--threads", String(threads)]
        let pipe = Pipe()
        process.standardError = pipe
        try process.run()
        // The server prints its address on stderr once it is listening, and "serving" once its graphs answer.
        var text = ""
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline {
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
            if let range = text.range(of: "listening on http://127.0.0.1:"), text.contains("wayfinder: serving ") {
                let digits = text[range.upperBound...].prefix { $0.isNumber }
                if let port = UInt16(digits), text[range.upperBound...].dropFirst(digits.count).first == " " {
                    // Keep draining stderr so the server never blocks on a full pipe.
                    DispatchQueue.global().async { while !pipe.fileHandleForReading.availableData.isEmpty {} }
                    return (process, port)
                }
            }
        }
        process.terminate()
        throw CommandError.badInput("the server did not start: \(text.suffix(500))")
    }
}

/// Sends a GET and returns the status and the body's bytes (decoding them is the caller's, after its clock stops).
protocol RequestClient {
    mutating func get(_ path: String) throws -> (Int, [UInt8])
}

/// The server's request handler called directly: what an answer costs without the sockets.
struct InProcessClient: RequestClient {
    let service: WayfinderService

    func get(_ target: String) throws -> (Int, [UInt8]) {
        let parts = target.split(separator: "?", maxSplits: 1)
        let pairs = parts.count < 2 ? [] : parts[1].split(separator: "&")
        let query = pairs.map { pair -> (key: String, value: String) in
            let kv = pair.split(separator: "=", maxSplits: 1)
            return (key: String(kv[0]), value: kv.count > 1 ? String(kv[1]) : "")
        }
        let response = service.handle(HTTPRequest(path: String(parts[0]), query: query, rawTarget: target))
        return (response.status, response.body)
    }
}

/// A minimal HTTP/1.1 client over one keep-alive connection: GET, then read the head and `Content-Length` bytes.
/// It reads into one buffer and parses the head byte by byte, so that what it measures is the server's answer
/// and the socket, not the client's own string handling.
struct HTTPClient: RequestClient {
    private let socket: Int32
    private let host: String
    /// Bytes received and not yet consumed.
    private let buffer = ReceiveBuffer()

    init(host: String, port: UInt16) throws {
        self.host = host
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw CommandError.badInput("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { throw CommandError.usage("not an IPv4 address: \(host)") }
        let fd = socket
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw CommandError.badInput("connect to \(host):\(port): \(String(cString: strerror(errno)))") }
        var on: Int32 = 1
        setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Status and body.
    mutating func get(_ path: String) throws -> (Int, [UInt8]) {
        let request = Array("GET \(path) HTTP/1.1\r\nHost: \(host)\r\nConnection: keep-alive\r\n\r\n".utf8)
        var sent = 0
        while sent < request.count {
            let n = request[sent...].withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw CommandError.badInput("send: \(String(cString: strerror(errno)))") }
            sent += n
        }
        // Head, then the body by its length.
        var headEnd = 0
        while true {
            if let end = buffer.headEnd() { headEnd = end; break }
            try receive()
        }
        let head = UnsafeBufferPointer(start: buffer.bytes, count: headEnd)
        guard let (status, length) = Self.statusAndLength(head[...]) else {
            throw CommandError.badInput("malformed response head: \(String(decoding: head.prefix(200), as: UTF8.self))")
        }
        let bodyStart = headEnd + 4
        while buffer.count < bodyStart + length { try receive() }
        let body = Array(UnsafeBufferPointer(start: buffer.bytes + bodyStart, count: length))
        buffer.consume(bodyStart + length)
        return (status, body)
    }

    /// Reads what has arrived straight into the buffer's spare room.
    private func receive() throws {
        // Quick ACKs are not sticky on Linux: set again before every read, as the issue's client does.
        var on: Int32 = 1
        setsockopt(socket, Int32(IPPROTO_TCP), TCP_QUICKACK, &on, socklen_t(MemoryLayout<Int32>.size))
        let room = buffer.room(atLeast: 1 << 16)
        let n = recv(socket, room.baseAddress, room.count, 0)
        guard n > 0 else { throw CommandError.badInput(n == 0 ? "the server closed the connection" : "recv: \(String(cString: strerror(errno)))") }
        buffer.count += n
    }

    /// The status code, and `Content-Length` (0 when absent), read from the head's bytes.
    private static func statusAndLength(_ head: Slice<UnsafeBufferPointer<UInt8>>) -> (Int, Int)? {
        let lines = head.split(separator: 10, omittingEmptySubsequences: true)
        guard let statusLine = lines.first else { return nil }
        let fields = statusLine.split(separator: 32)
        guard fields.count >= 2, let status = number(fields[1]) else { return nil }
        let name = Array("content-length:".utf8)
        for line in lines.dropFirst() where line.count > name.count {
            guard line.prefix(name.count).map({ $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }) == name else { continue }
            return (status, number(line.dropFirst(name.count)) ?? 0)
        }
        return (status, 0)
    }

    /// Decimal digits, with the spaces and the carriage return around them ignored.
    private static func number(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Int? {
        var value = 0, digits = 0
        for byte in bytes where byte != 32 && byte != 13 {
            guard byte >= 48 && byte <= 57 else { return nil }
            value = value * 10 + Int(byte - 48)
            digits += 1
        }
        return digits > 0 ? value : nil
    }
}

/// The client's received bytes: one block, read into in place (no zeroed chunk copied in per read).
final class ReceiveBuffer {
    private(set) var bytes: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// Bytes held, from `bytes`.
    var count = 0

    init() {
        capacity = 1 << 20
        bytes = .allocate(capacity: capacity)
    }

    deinit { bytes.deallocate() }

    /// Room for at least `size` more bytes after the ones held.
    func room(atLeast size: Int) -> UnsafeMutableBufferPointer<UInt8> {
        if capacity - count < size {
            capacity = max(2 * capacity, count + size)
            let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
            grown.update(from: bytes, count: count)
            bytes.deallocate()
            bytes = grown
        }
        return UnsafeMutableBufferPointer(start: bytes + count, count: capacity - count)
    }

    /// Drops the first `n` bytes (an answer read), keeping any that follow.
    func consume(_ n: Int) {
        (bytes).update(from: bytes + n, count: count - n)
        count -= n
    }

    /// Where the head's closing blank line starts.
    func headEnd() -> Int? {
        guard count >= 4 else { return nil }
        for i in 0...(count - 4) where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 {
            return i
        }
        return nil
    }
}
