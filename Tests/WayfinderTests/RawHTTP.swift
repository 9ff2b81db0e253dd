import Foundation

/// A blocking HTTP/1.1 client on a plain socket, for what URLSession hides: response headers, byte-by-byte
/// requests, connections held open.
enum RawHTTP {
    struct Response {
        var status: Int
        var headers: [String: String]
        var body: String
    }

    struct Failure: Error, CustomStringConvertible { var description: String }

    /// A loopback connection, with send and receive timeouts.
    static func connect(port: Int, timeout: Double = 10) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var time = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(fd)
            throw Failure(description: "connect: \(errno)")
        }
        return fd
    }

    static func send(_ fd: Int32, _ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }

    /// Reads until the peer closes or a full response (by Content-Length) has arrived.
    static func receive(_ fd: Int32) -> String {
        var data = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65536)
        var expected: Int?
        let separator = Array("\r\n\r\n".utf8)
        while expected.map({ data.count < $0 }) ?? true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            data += buffer[0..<n]
            if expected == nil, let end = data.indices.dropLast(3).first(where: { Array(data[$0..<($0 + 4)]) == separator }) {
                let head = String(decoding: data[..<end], as: UTF8.self).lowercased()
                if let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
                   let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
                { expected = end + 4 + length }
            }
        }
        return String(decoding: data, as: UTF8.self)
    }

    static func parse(_ text: String) throws -> Response {
        guard let end = text.range(of: "\r\n\r\n") else { throw Failure(description: "no response: \(text.prefix(200))") }
        let lines = text[..<end.lowerBound].split(separator: "\r\n")
        guard let statusLine = lines.first, statusLine.split(separator: " ").count >= 2,
              let status = Int(statusLine.split(separator: " ")[1]) else { throw Failure(description: "bad status line") }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Response(status: status, headers: headers, body: String(text[end.upperBound...]))
    }

    /// One request on a new connection, with extra header lines and a body (its length is added).
    static func request(port: Int, method: String = "GET", target: String, headers: [String] = [], body: String? = nil,
                        timeout: Double = 20) throws -> Response {
        let fd = try connect(port: port, timeout: timeout)
        defer { close(fd) }
        let extra = (headers + (body.map { ["Content-Length: \($0.utf8.count)"] } ?? [])).map { $0 + "\r\n" }.joined()
        guard send(fd, "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\(extra)\r\n\(body ?? "")") else {
            throw Failure(description: "send failed")
        }
        return try parse(receive(fd))
    }
}
