import Foundation
import RoadGraph
import Testing

/// The deployment in deploy/: replicas behind nginx survive a replica killed under load, and the Dask table
/// package in cluster/ gives the single-process table cell for cell.
@Suite(.serialized) struct DeploymentTests {
    static let script = OracleTests.packageRoot.appendingPathComponent("deploy/local-replicas.sh").path

    /// A loopback port that was free a moment ago.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        guard bound == 0, withUnsafeMutablePointer(to: &address, {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }) == 0 else { throw OracleMismatch(message: "no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    static func deploy(_ arguments: [String]) throws -> CommandLineTests.Run {
        let run = try Subprocess.run(script, arguments, environment: ["WAYFINDER": CommandLineTests.binary], timeout: 120)
        guard run.status == 0 else { throw OracleMismatch(message: "local-replicas.sh \(arguments.first ?? ""): \(run.stderr)") }
        return run
    }

    @Test(.enabled(if: Available.nginx, "needs nginx (Debian: apt-get install nginx)"))
    func killedReplicaBehindNginxCostsNoRequest() throws {
        let state = try TemporaryDirectory()
        let port = try Self.freePort()
        _ = try Self.deploy(["up", "--graph", CommandLineTests.graph.1, "--state", state.path, "--replicas", "3",
                             "--port", String(port), "--threads", "1"])
        defer { _ = try? Self.deploy(["down", "--state", state.path]) }
        let base = "http://127.0.0.1:\(port)"
        let requests = [
            "/route/v1/driving/24.9440,60.1675;24.9412,60.1756?steps=true",
            "/route/v1/foot/24.9384,60.1699;24.9450,60.1720?overview=full",
            "/table/v1/driving/24.9384,60.1699;24.9412,60.1756;24.9450,60.1720",
            "/nearest/v1/driving/24.9440,60.1675",
        ]
        // Three clients, bounded in count and time; one replica is killed a third of the way through and
        // restarted at two thirds.
        let total = 1_200
        let sent = Locked(0)
        let failures = Locked<[String]>([])
        let group = startClients(3) { client in
            let deadline = Date().addingTimeInterval(90)
            for i in 0..<(total / 3) where Date() < deadline {
                let path = requests[(i + client) % requests.count]
                let answer = try? ServerTests.get(base + path)
                if answer?.status != 200 {
                    let body = answer.map { String(decoding: $0.body.prefix(200), as: UTF8.self) } ?? "no answer"
                    failures.mutate { $0.append("\(path): \(answer?.status ?? 0) \(body)") }
                }
                sent.mutate { $0 += 1 }
            }
        }
        func waitForSent(_ count: Int) {
            let deadline = Date().addingTimeInterval(60)
            while sent.value < count && Date() < deadline { usleep(5_000) }
        }
        waitForSent(total / 3)
        _ = try Self.deploy(["kill-replica", "2", "--state", state.path])
        waitForSent(2 * total / 3)
        _ = try Self.deploy(["restart-replica", "2", "--state", state.path])
        group.wait()

        #expect(sent.value == total, "the load ran to its end")
        #expect(failures.value.isEmpty, "\(failures.value.count) failed, first: \(failures.value.first ?? "")")
        // nginx tries the restarted replica again once its fail_timeout (2 s) is over: requests reach it.
        let log = state.path + "/replica-2.log"
        func restartedServed() -> Int {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            guard let restart = text.range(of: "listening on", options: String.CompareOptions.backwards) else { return 0 }
            return text[restart.upperBound...].components(separatedBy: "GET /nearest").count - 1
        }
        let deadline = Date().addingTimeInterval(15)
        while restartedServed() == 0 && Date() < deadline {
            #expect(try ServerTests.get(base + requests[3]).status == 200)
            usleep(50_000)
        }
        #expect(restartedServed() > 0, "the restarted replica rejoined")
    }

    /// Porto, imported once per run into the (git-ignored) build directory.
    static let portoGraph: Result<String, OracleMismatch> = {
        let output = OracleTests.packageRoot.appendingPathComponent(".build/test-graphs/porto").path
        let input = OracleTests.sharedData.appendingPathComponent("r5-porto_portugal.osm.pbf").path
        guard let run = try? CommandLineTests.run(["import", input, "--output", output, "--quiet"]), run.status == 0 else {
            return .failure(OracleMismatch(message: "import of Porto failed"))
        }
        return .success(output)
    }()

    /// A 2,000 × 2,000 Porto table (two place names among the points) on a LocalCluster of two workers equals the
    /// single-process `wayfinder matrix` cell for cell; then again with one worker killed once the first block is in.
    /// Tasks run `wayfinder matrix`, and (where the C library is built) call the engine in-process through the
    /// Python package.
    @Test(.enabled(if: Available.dask, "needs dask.distributed, pyarrow and protobuf (scripts/install-test-tools.sh)"),
          .enabled(if: Available.porto, "needs ../shared/data/r5-porto_portugal.osm.pbf"))
    func daskTableEqualsTheCLIEvenWithAWorkerKilled() throws {
        let graph = try Self.portoGraph.get()
        let scratch = try TemporaryDirectory()
        let points = scratch.path + "/points.csv"
        let sample = try CommandLineTests.run(["bench", "--graph", graph, "--sample-points", "2000", "--seed", "11"])
        #expect(sample.status == 0, "\(sample.stderr)")
        try sample.stdout.write(toFile: points, atomically: true, encoding: .utf8)
        let check = OracleTests.packageRoot.appendingPathComponent("cluster/tests/check_table.py").path
        let root = OracleTests.packageRoot.path
        let library = ["PYTHONPATH": root + "/python", "WAYFINDER_LIBRARY": root + "/.build/release/libWayfinderC.so"]
        let engines = ["cli"] + (Available.cLibrary.ready ? ["library"] : [])
        for engine in engines { for kill in [false, true] {
            let run = try Subprocess.run("/usr/bin/env", ["python3", check, "--wayfinder", CommandLineTests.binary,
                                                          "--graph", graph, "--points", points,
                                                          "--names", "Avenida dos Aliados", "Rua de Santa Catarina",
                                                          "--block-rows", "100", "--engine", engine] + (kill ? ["--kill"] : []),
                                         environment: engine == "library" ? library : [:], timeout: 150)
            let report = run.stdout.split(separator: "\n").last.map(String.init) ?? ""
            #expect(run.status == 0 && report.hasPrefix("OK"), "\(engine): \(report) \(run.stderr.suffix(600))")
            #expect(report.contains("2002x2002 identical"), "\(report)")
            #expect(report.contains("(0 in-process)") == (engine == "cli"), "\(report)")
            if kill { #expect(report.contains("killed"), "\(report)") }
        } }
    }
}
