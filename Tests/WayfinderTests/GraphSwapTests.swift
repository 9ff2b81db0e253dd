import Engine
import Foundation
import HTTPService
import RoadGraph
import Testing

/// Health probes and graph swaps without downtime: `serve` under continuous load while an import replaces its
/// graph, a damaged new graph refused, SIGHUP.
@Suite(.serialized) struct GraphSwapTests {
    /// Two imports of the same place that answer the same request differently: in A the road from a to b is
    /// straight (110 m), in B it is gone and the way round is 170 m.
    static func maps(in directory: String) throws -> (a: String, b: String, url: (String) -> String) {
        let first = TestMap("a          b")
        first.way("ab", ["highway": "residential", "name": "First Street"])
        let second = TestMap("a          b\n\n\nc          d")
        second.way("acdb", ["highway": "residential", "name": "Second Street"])
        let a = directory + "/a.osm", b = directory + "/b.osm"
        try first.xml().write(toFile: a, atomically: true, encoding: .utf8)
        try second.xml().write(toFile: b, atomically: true, encoding: .utf8)
        let from = first.position("a"), to = first.position("b")
        let url = { (base: String) in
            base + "/route/v1/driving/\(from.longitude),\(from.latitude);\(to.longitude),\(to.latitude)?overview=false"
        }
        return (a, b, url)
    }

    static func importGraph(_ input: String, _ output: String) throws {
        let run = try CommandLineTests.run(["import", input, "--output", output, "--quiet"])
        guard run.status == 0 else { throw OracleMismatch(message: "import of \(input) failed: \(run.stderr)") }
    }

    /// A route's distance, or nil with the reason when the request failed in any way.
    static func routeDistance(_ url: String) -> Result<Double, OracleMismatch> {
        guard let (status, object) = try? ServerTests.json(url) else { return .failure(OracleMismatch(message: "no answer")) }
        guard status == 200, let routes = object["routes"] as? [[String: Any]], let distance = routes.first?["distance"] as? Double
        else { return .failure(OracleMismatch(message: "status \(status): \(object)")) }
        return .success(distance)
    }

    /// Two clients sending one route request without pause (bounded in count and time), each answer stamped with
    /// when it was sent: a request sent before a swap may be answered by the old graph after it.
    final class RouteLoad {
        let answers: Locked<[(at: Date, result: Result<Double, OracleMismatch>)]>
        private let stopping: Locked<Bool>
        private let group: DispatchGroup

        init(_ url: String) {
            let answers = Locked<[(at: Date, result: Result<Double, OracleMismatch>)]>([]), stopping = Locked(false)
            (self.answers, self.stopping) = (answers, stopping)
            group = startClients(2) { _ in
                let deadline = Date().addingTimeInterval(60)
                for _ in 0..<5_000 where !stopping.value && Date() < deadline {
                    let sent = Date()
                    let result = GraphSwapTests.routeDistance(url)
                    answers.mutate { $0.append((sent, result)) }
                }
            }
        }

        func stop() {
            stopping.mutate { $0 = true }
            group.wait()
        }
    }

    static func health(_ server: ServerTests.Server) throws -> (status: Int, object: [String: Any]) {
        try ServerTests.json(server.base + "/health")
    }

    /// Polls until `condition` holds, at most `timeout` seconds.
    static func wait(_ timeout: Double, until condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            usleep(50_000)
        }
        return condition()
    }

    @Test func healthNamesTheGraphsAndIsUnavailableWhileLoading() throws {
        let server = try ServerTests.Server()
        defer { _ = server.stop() }
        let (status, object) = try Self.health(server)
        #expect(status == 200)
        #expect(object["status"] as? String == "ready")
        #expect(object["source"] as? String == "helsinki.osm.pbf")
        #expect(object["format_version"] as? Int == Int(GraphFormat.version))
        #expect(object["modes"] as? [String] == ["driving", "walking", "cycling"])
        let built = try #require(object["build_time"] as? String)
        #expect(ISO8601DateFormatter().date(from: built) != nil, "build time \(built) is ISO 8601")
        #expect((object["generation"] as? String)?.hasPrefix("generation-") == true)

        // Before its graphs are loaded, a server answers every request with 503, /health included.
        let loading = WayfinderService(slot: EngineSlot())
        #expect(loading.handle(HTTPRequest(path: "/health")).status == 503)
        let route = loading.handle(HTTPRequest(path: "/route/v1/driving/24.94,60.16;24.95,60.17"))
        #expect(route.status == 503)
        #expect(String(decoding: route.body, as: UTF8.self).contains("ServiceUnavailable"))
    }

    @Test func importUnderLoadSwapsWithoutAFailedRequest() throws {
        let directory = try TemporaryDirectory()
        let (a, b, url) = try Self.maps(in: directory.path)
        let graph = directory.path + "/g"
        try Self.importGraph(a, graph)
        let server = try ServerTests.Server(extra: ["--watch", "0.2"], graph: graph, quiet: false)
        defer { _ = server.stop() }
        let routeURL = url(server.base)
        let before = try Self.routeDistance(routeURL).get()

        // Two clients send routes without pause (bounded in count and time) while B is imported into the directory.
        let load = RouteLoad(routeURL)
        let answers = load.answers
        // The import starts once the load is under way, and the load goes on a while after the swap.
        _ = Self.wait(20) { answers.value.count >= 30 }
        try Self.importGraph(b, graph)
        let swapped = Self.wait(20) { (try? Self.health(server))?.object["source"] as? String == "b.osm" }
        let swappedAt = Date()
        _ = Self.wait(20) { answers.value.count(where: { $0.at > swappedAt }) >= 30 }
        load.stop()

        #expect(swapped, "the server took up the new import: \(server.stderr)")
        let all = answers.value
        let failures = all.compactMap { try? $0.result.failureMessage() }
        #expect(all.count > 50, "the load ran: \(all.count) requests")
        #expect(failures.isEmpty, "\(failures.count) of \(all.count) requests failed, first: \(failures.first ?? "")")
        let after = try Self.routeDistance(routeURL).get()
        #expect(abs(before - 110) < 5 && abs(after - 170) < 5, "A's road, then B's: \(before) m, \(after) m")
        #expect(all.filter { $0.at > swappedAt }.allSatisfy { (try? $0.result.get()) == after }, "requests sent after the swap answered from B")
        #expect(server.stderr.contains("now serving generation-2 (b.osm"), "\(server.stderr)")

        // A's files were removed by the import; once its last request ended the server unmapped them.
        let maps = try String(contentsOfFile: "/proc/\(server.pid)/maps", encoding: .utf8)
        #expect(!maps.contains("generation-1/"), "A's graphs are still mapped")

        // A damaged generation made current is refused; B keeps answering.
        let damaged = graph + "/generation-9"
        try FileManager.default.createDirectory(atPath: damaged, withIntermediateDirectories: false)
        for mode in TravelMode.importedByDefault {
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: graph + "/generation-2/" + GraphFormat.fileName(for: mode))))
            if mode == .driving { bytes[520] ^= 0xFF }  // in the section table, which the header checksum covers
            try Data(bytes).write(to: URL(fileURLWithPath: damaged + "/" + GraphFormat.fileName(for: mode)))
        }
        try FileManager.default.createSymbolicLink(atPath: graph + "/.next-9", withDestinationPath: "generation-9")
        #expect(rename(graph + "/.next-9", graph + "/current") == 0)
        #expect(Self.wait(10) { server.stderr.contains("refusing the new graph") }, "\(server.stderr)")
        let health = try Self.health(server)
        #expect(health.status == 200 && health.object["generation"] as? String == "generation-2")
        #expect((try? Self.routeDistance(routeURL).get()) == after)
        // Refused once, not again at every check.
        usleep(600_000)
        #expect(server.stderr.components(separatedBy: "refusing the new graph").count == 2, "\(server.stderr)")
    }

    /// An operator's `cp` over a served graph file, a truncation and a replacement, under load (issue 27): the server
    /// keeps running and answering. It used to trap (SegmentGrid) or die of SIGBUS, its pages changed or gone.
    @Test func graphFilesWrittenInPlaceUnderLoadDoNotStopTheServer() throws {
        let directory = try TemporaryDirectory()
        let (a, b, url) = try Self.maps(in: directory.path)
        let graph = directory.path + "/g", other = directory.path + "/other"
        try Self.importGraph(a, graph)
        try Self.importGraph(b, other)
        let server = try ServerTests.Server(extra: ["--watch", "0.2"], graph: graph, quiet: false)
        defer { _ = server.stop() }
        let routeURL = url(server.base)
        let served = try graphFile(graph, .driving)
        let replacement = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try graphFile(other, .driving))))

        let stopLoad = Locked(false), answered = Locked(0), failed = Locked(0)
        let group = startClients(2) { _ in
            let deadline = Date().addingTimeInterval(60)
            for _ in 0..<20_000 where !stopLoad.value && Date() < deadline {
                switch Self.routeDistance(routeURL) {
                case .success: answered.mutate { $0 += 1 }
                case .failure: failed.mutate { $0 += 1 }
                }
            }
        }
        // Each state lasts three watch periods and 20 answers, so the watcher sees it however fast the clients are.
        func settle() {
            let start = answered.value, until = Date().addingTimeInterval(0.6)
            _ = Self.wait(10) { answered.value >= start + 20 && Date() >= until }
        }
        _ = Self.wait(20) { answered.value >= 20 }
        // `cp other.wfgraph served.wfgraph`: the same inode truncated, then written in pieces.
        let fd = open(served, O_WRONLY | O_TRUNC)
        #expect(fd >= 0)
        for start in stride(from: 0, to: replacement.count, by: 4096) {
            _ = replacement[start..<min(start + 4096, replacement.count)].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if start % (16 * 4096) == 0 { usleep(10_000) }
        }
        close(fd)
        settle()
        // Truncated to half, then to nothing.
        #expect(truncate(served, off_t(replacement.count / 2)) == 0)
        settle()
        #expect(truncate(served, 0) == 0)
        settle()
        // Replaced by another file under the same name.
        try Data(replacement).write(to: URL(fileURLWithPath: served + ".new"))
        #expect(rename(served + ".new", served) == 0)
        settle()
        stopLoad.mutate { $0 = true }
        group.wait()

        #expect(kill(server.pid, 0) == 0, "the server is still running: \(server.stderr)")
        #expect(answered.value > 100, "\(answered.value) answered, \(failed.value) failed")
        #expect(try Self.health(server).status == 200)
        #expect(server.stderr.contains("refusing the new graph"), "the truncated file was refused: \(server.stderr)")
        // The last file is a whole graph (B's driving graph beside A's walking one): it is served.
        #expect(Self.wait(10) { abs(((try? Self.routeDistance(routeURL).get()) ?? 0) - 170) < 5 }, "\(server.stderr)")
    }

    @Test func hangupSwapsWhenWatchingIsOff() throws {
        let directory = try TemporaryDirectory()
        let (a, b, url) = try Self.maps(in: directory.path)
        let graph = directory.path + "/g"
        try Self.importGraph(a, graph)
        let server = try ServerTests.Server(extra: ["--watch", "0"], graph: graph)
        defer { _ = server.stop() }
        try Self.importGraph(b, graph)
        usleep(500_000)
        #expect(try Self.health(server).object["source"] as? String == "a.osm", "no watching: A stays until told")
        #expect(kill(server.pid, SIGHUP) == 0)
        #expect(Self.wait(10) { (try? Self.health(server))?.object["source"] as? String == "b.osm" })
        #expect(abs(((try? Self.routeDistance(url(server.base)).get()) ?? 0) - 170) < 5)
    }
}

extension Result where Failure == OracleMismatch {
    /// The failure's message; throws for a success, so `try?` keeps only failures.
    func failureMessage() throws -> String {
        switch self {
        case .success: throw OracleMismatch(message: "succeeded")
        case .failure(let failure): return failure.message
        }
    }
}
