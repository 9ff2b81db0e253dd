import Engine
import Foundation
import GraphImport
import HTTPAPI
import HTTPService
import MapMatching
import RoadGraph
import Routing
import Testing

/// The defects a hostile user found (issue 10), each pinned by a test: files the import did not write, crashes
/// between renames, damaged graphs, unbounded work, leaks, one bad point spoiling a matrix, text that looks like a
/// coordinate, slow clients, and the server's smaller manners.
@Suite(.serialized) struct HardeningTests {
    /// A binary copied without the resources `swift build` writes beside it (phrase books, place words, the map
    /// page) used to trap in SwiftPM's accessor on its first instruction. The lookup finds them beside the
    /// executable, reports them missing where neither there nor in a source tree, and this build has them all.
    @Test func resourcesAreFoundBesideTheBinaryOrReportedMissing() throws {
        let directory = try TemporaryDirectory()
        let executableDirectory = URL(fileURLWithPath: directory.path)
        func lookUp() -> URL? {
            ResourceDirectory.url(module: "Guidance", resource: "Phrases", sourceFile: directory.path + "/Sources/Guidance/PhraseBook.swift",
                                  besideExecutableIn: executableDirectory)
        }
        #expect(lookUp() == nil)
        let phrases = executableDirectory.appendingPathComponent("Wayfinder_Guidance.resources/Phrases")
        try FileManager.default.createDirectory(at: phrases, withIntermediateDirectories: true)
        #expect(lookUp()?.path == phrases.path)
        #expect(BundledResources.missing.isEmpty, "\(BundledResources.missing)")
    }

    static let sample = OracleTests.packageRoot.appendingPathComponent("graphs/helsinki.osm.pbf").path
    static func run(_ arguments: [String]) throws -> CommandLineTests.Run { try CommandLineTests.run(arguments) }

    // MARK: The output directory

    @Test func importNeverTouchesFilesItDidNotWrite() throws {
        let directory = try TemporaryDirectory()
        let notes = directory.path + "/k/notes"
        try FileManager.default.createDirectory(atPath: directory.path + "/k", withIntermediateDirectories: true)
        try "hi".write(toFile: notes, atomically: true, encoding: .utf8)
        let refused = try Self.run(["import", Self.sample, "--output", directory.path + "/k", "--quiet"])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("did not write") && refused.stderr.contains("notes"), "\(refused.stderr)")
        #expect(try String(contentsOfFile: notes, encoding: .utf8) == "hi")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path + "/k") == ["notes"])

        // `--output ..` from inside a directory: its parent holds other things, so it is refused.
        let parent = try Self.run(["import", Self.sample, "--output", directory.path + "/k/..", "--quiet"])
        #expect(parent.status == 2)
        #expect(FileManager.default.fileExists(atPath: notes))
        // A file is not a directory to write into.
        let file = try Self.run(["import", Self.sample, "--output", notes, "--quiet"])
        #expect(file.status == 2 && file.stderr.contains("not a directory"))
        #expect(try String(contentsOfFile: notes, encoding: .utf8) == "hi")
        // A file inside a generation directory makes it foreign too.
        let graph = directory.path + "/g"
        #expect(try Self.run(["import", Self.sample, "--output", graph, "--quiet"]).status == 0)
        let generation = try GraphDirectory(graph).current().directory
        try "mine".write(toFile: generation + "/mine.txt", atomically: true, encoding: .utf8)
        let foreign = try Self.run(["import", Self.sample, "--output", graph, "--quiet"])
        #expect(foreign.status == 2 && foreign.stderr.contains("did not write"))
        #expect(FileManager.default.fileExists(atPath: generation + "/mine.txt"))
    }

    @Test func reimportReplacesOnlyWhatImportsWrote() throws {
        let directory = try TemporaryDirectory()
        let graph = directory.path + "/g"
        #expect(try Self.run(["import", Self.sample, "--output", graph, "--quiet"]).status == 0)
        let first = try GraphDirectory(graph).current()
        // What a killed import leaves: a staging directory, a generation that never became current, a new link.
        let staging = graph + "/.staging-17", orphan = graph + "/generation-12"
        for path in [staging, orphan] {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: first.graphPath(for: .driving), toPath: path + "/driving.wfgraph")
        }
        try FileManager.default.createSymbolicLink(atPath: graph + "/.next-17", withDestinationPath: "generation-12")
        #expect(try Self.run(["import", Self.sample, "--output", graph, "--quiet"]).status == 0)
        let second = try GraphDirectory(graph).current()
        #expect(second.name != first.name)
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: graph)) == [".lock", "current", second.name!])
        #expect(try Self.run(["route", "--graph", graph, "60.1675,24.9440", "60.1756,24.9412"]).status == 0)
    }

    @Test func graphsWrittenBeforeGenerationsAreReplaced() throws {
        let directory = try TemporaryDirectory()
        let graph = directory.path + "/g", old = directory.path + "/old"
        #expect(try Self.run(["import", Self.sample, "--output", graph, "--quiet"]).status == 0)
        // The layout of earlier versions: the files directly in the directory.
        try FileManager.default.createDirectory(atPath: old, withIntermediateDirectories: true)
        let current = try GraphDirectory(graph).current()
        for file in ["driving.wfgraph", "walking.wfgraph", "places.sqlite"] {
            try FileManager.default.copyItem(atPath: current.directory + "/" + file, toPath: old + "/" + file)
        }
        #expect(try Self.run(["route", "--graph", old, "60.1675,24.9440", "60.1756,24.9412"]).status == 0)
        #expect(try Self.run(["import", Self.sample, "--output", old, "--quiet"]).status == 0)
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: old))
        #expect(names.contains("current") && !names.contains("driving.wfgraph") && !names.contains("places.sqlite"))
    }

    @Test func aSecondImportIntoTheSameDirectoryWaitsItsTurn() throws {
        let directory = try TemporaryDirectory()
        let graph = directory.path + "/g"
        let writer = try GraphDirectoryWriter(output: graph)
        let busy = try Self.run(["import", Self.sample, "--output", graph, "--quiet"])
        #expect(busy.status == 2 && busy.stderr.contains("another import"), "\(busy.stderr)")
        writer.abandon()
        #expect(try Self.run(["import", Self.sample, "--output", graph, "--quiet"]).status == 0)
    }

    /// `kill -9` at each rename of an import over an existing graph: the directory always holds a complete graph,
    /// and the next import cleans up after the killed one.
    @Test(.enabled(if: Available.strace, "needs strace"))
    func killedAtAnyRenameLeavesACompleteGraph() throws {
        let directory = try TemporaryDirectory()
        let graph = directory.path + "/g"
        #expect(try Self.run(["import", Self.sample, "--output", graph, "--quiet"]).status == 0)
        // An import renames three times: cycling's customized graph over the one it replaces (in the staging
        // directory, on a thread of its own), the staging directory to its generation, then the new link over
        // `current`. strace counts each thread's renames apart: the first of the last two is reached without cycling.
        for (when, modes) in [(1, ["--modes", "driving,walking"]), (2, []), (1, [])] {
            let killed = try CommandLineTests.runTool("/usr/bin/strace", [
                "-f", "-o", "/dev/null", "-e", "trace=rename,renameat,renameat2",
                "-e", "inject=rename,renameat,renameat2:signal=KILL:when=\(when)",
                CommandLineTests.binary, "import", Self.sample, "--output", graph, "--quiet",
            ] + modes)
            #expect(killed.status != 0, "import killed at rename \(when) \(modes)")
            let route = try Self.run(["route", "--graph", graph, "60.1675,24.9440", "60.1756,24.9412"])
            #expect(route.status == 0, "after a kill at rename \(when) \(modes): \(route.stderr)")
        }
        #expect(try Self.run(["import", Self.sample, "--output", graph, "--quiet"]).status == 0)
        let names = try FileManager.default.contentsOfDirectory(atPath: graph)
        #expect(names.filter { $0.hasPrefix(".staging") || $0.hasPrefix(".next") }.isEmpty, "\(names)")
        #expect(names.filter { $0.hasPrefix("generation-") }.count == 1, "\(names)")
    }

    // MARK: Damaged graph files

    /// Every 4,096th byte of the sample's graphs flipped, one at a time: the graph is refused, or (a flip in the
    /// padding between sections) it answers exactly as before. Never a trap, never a different answer.
    @Test func everyFlippedByteIsRefusedOrHarmless() throws {
        let directory = try TemporaryDirectory()
        for mode in TravelMode.allCases {
            let path = try graphFile(CommandLineTests.graph.1, mode)
            let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            let points = [Coordinate(latitude: 60.1675, longitude: 24.9440), Coordinate(latitude: 60.1756, longitude: 24.9412)]
            let expected = try checkedRoute(try RoadGraph(contentsOf: path), points)
            var refused = 0, harmless = 0
            for offset in stride(from: 0, to: original.count, by: 4096) {
                var bytes = original
                bytes[offset] ^= 0x5A
                let damaged = directory.path + "/flip.wfgraph"
                try Data(bytes).write(to: URL(fileURLWithPath: damaged))
                guard let graph = try? RoadGraph(contentsOf: damaged) else { refused += 1; continue }
                var router = Router(graph: graph)
                let route = try router.route(points)
                #expect(route.weight == expected.weight && route.coordinates == expected.coordinates,
                        "\(mode) flip at \(offset) changed the answer")
                harmless += 1
            }
            #expect(refused > 0 && refused + harmless == (original.count + 4095) / 4096)
        }
        // And the CLI says so with exit 2.
        let copy = directory.path + "/copy"
        try FileManager.default.copyItem(atPath: CommandLineTests.graph.1, toPath: copy)
        let file = try graphFile(copy, .driving)
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))
        bytes[bytes.count / 2] ^= 1
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        let run = try Self.run(["route", "--graph", copy, "60.1675,24.9440", "60.1756,24.9412"])
        #expect(run.status == 2 && run.stderr.contains("damaged"), "\(run.stderr)")
        let serve = try Self.run(["serve", "--graph", copy, "--port", "0"])
        #expect(serve.status == 2 && serve.stderr.contains("damaged"), "the server refuses to start: \(serve.stderr)")
    }

    /// Damage the checksums cannot see (the file resealed after the damage): the structural checks refuse it.
    @Test func inconsistentArraysAreRefusedEvenWithValidChecksums() throws {
        let path = try graphFile(CommandLineTests.graph.1, .driving)
        let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let directory = try TemporaryDirectory()
        let graph = try RoadGraph(contentsOf: path)
        // The last entry of the transition table, a hierarchy node number, a hierarchy node's arc and a shortcut's
        // half, pointing where they must not; an edge end's bearings that are no angles.
        let shortcut = try #require(graph.chUpShortcuts.firstIndex { $0.middle != noIndex })
        let targets: [(String, Int)] = [
            ("transitions", graph.transitionStart.baseAddress!.advanced(by: graph.arcCount).withMemoryRebound(to: UInt8.self, capacity: 4) { $0 } - graph.file.base.assumingMemoryBound(to: UInt8.self)),
            ("ranks", graph.chNode.baseAddress!.withMemoryRebound(to: UInt8.self, capacity: 4) { $0 } - graph.file.base.assumingMemoryBound(to: UInt8.self)),
            ("numbering", graph.chOriginal.baseAddress!.advanced(by: 1).withMemoryRebound(to: UInt8.self, capacity: 4) { $0 } - graph.file.base.assumingMemoryBound(to: UInt8.self)),
            // The first half of a shortcut (its `first`, after `middle`).
            ("halves", graph.file.base.distance(to: UnsafeRawPointer(graph.chUpShortcuts.baseAddress! + shortcut) + 4)),
            // The high half of the first edge end's bearing: not a number.
            ("edge ends", graph.file.base.distance(to: UnsafeRawPointer(graph.edgeEnds.baseAddress!) + 4)),
            // The same of its initial bearing.
            ("initial bearings", graph.file.base.distance(to: UnsafeRawPointer(graph.edgeEnds.baseAddress!)
                + MemoryLayout<EdgeEnd>.offset(of: \.initialBearing)! + 4)),
            // The first delay inside a road piece, at a shape point past the last.
            ("interior delays", graph.file.base.distance(to: UnsafeRawPointer(try #require(graph.interiorDelays.baseAddress)))),
        ]
        for (what, offset) in targets {
            var bytes = original
            for k in 0..<4 { bytes[offset + k] = 0xFF }
            GraphFormat.reseal(&bytes)
            let damaged = directory.path + "/\(what).wfgraph"
            try Data(bytes).write(to: URL(fileURLWithPath: damaged))
            #expect(throws: GraphFileError.self, "\(what)") { try RoadGraph(contentsOf: damaged) }
        }
    }

    /// Edges of absurd length (a resealed file, as the graph fuzz target found) load, and the length searches of
    /// isochrones and matching count them at their cap instead of trapping on the conversion or wrapping sums.
    @Test func absurdEdgeLengthsSaturateInLengthSearches() throws {
        let path = try graphFile(CommandLineTests.graph.1, .walking)
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let graph = try RoadGraph(contentsOf: path)
        let offset = graph.edgeLength.baseAddress!.withMemoryRebound(to: UInt8.self, capacity: 4) { $0 }
            - graph.file.base.assumingMemoryBound(to: UInt8.self)
        let huge = Float(6e7).bitPattern  // 60,000 km: 6e9 centimetres, more than a UInt32 holds
        for e in 0..<graph.edgeCount {
            for k in 0..<4 { bytes[offset + 4 * e + k] = UInt8(truncatingIfNeeded: huge >> (8 * UInt32(k))) }
        }
        GraphFormat.reseal(&bytes)
        let directory = try TemporaryDirectory()
        let damaged = directory.path + "/long.wfgraph"
        try Data(bytes).write(to: URL(fileURLWithPath: damaged))
        let long = try RoadGraph(contentsOf: damaged)
        let start = try #require(long.snap(Coordinate(latitude: 60.1699, longitude: 24.9384))?.nearest)
        var search = ReachSearch()
        search.run(in: long, from: long.reachStarts(start), metric: .distance, limit: .max)
        #expect(search.settled > 1)
        for arc in search.touched {
            if let cost = search.costAtHead(arc) { #expect(cost <= UInt32(Int32.max)) }
        }
        var matcher = MapMatcher(graph: long)
        let trace = [Coordinate(latitude: 60.1699, longitude: 24.9384), Coordinate(latitude: 60.1720, longitude: 24.9450)]
        _ = try? matcher.match(trace.map { TracePoint(coordinate: $0) }, options: MatchOptions())
    }

    // MARK: Bounded work

    @Test func placeQueriesAreBoundedInLengthAndWords() throws {
        let words = try Self.run(["geocode", "--graph", CommandLineTests.graph.1, Array(repeating: "ab", count: 40).joined(separator: " ")])
        #expect(words.status == 2 && words.stderr.contains("at most 32 words"), "\(words.stderr)")
        let long = String(repeating: "a", count: 120_000)  // a command-line argument holds at most 128 KiB
        let name = try Self.run(["route", "--graph", CommandLineTests.graph.1, long, "60.1756,24.9412"])
        #expect(name.status == 2 && name.stderr.contains("bytes long"), "\(name.stderr)")
        // The limits are the user's to set.
        let many = Array(repeating: "katu", count: 2000).joined(separator: " ")
        let raised = try Self.run(["geocode", "--graph", CommandLineTests.graph.1, "--max-query-words", "3000",
                                   "--max-query-length", "20000", many])
        #expect(raised.status == 0 || raised.status == 2)
        #expect(!raised.stderr.contains("at most"))
        // The geocoder itself no longer grows with the square of the words: 300 words against the index.
        let engine = try Engine(directory: CommandLineTests.graph.1, modes: [], limits: {
            var limits = EngineLimits(); limits.maxQueryWords = 1000; limits.maxQueryLength = 100_000; return limits
        }())
        let places = try engine.geocode(Array(repeating: "mannerheimintie", count: 300).joined(separator: " "))
        #expect(!places.isEmpty, "the longest run of words that matches is found")
    }

    /// Thousands of via points: legs kept once each (before, every waypoint copied the legs so far).
    @Test(.enabled(if: Available.plainMemory, "memory is not measured under AddressSanitizer"))
    func manyViaPointsRouteInBoundedMemory() throws {
        let graph = try RoadGraph(contentsOf: try graphFile(CommandLineTests.graph.1, .driving))
        var random = SplitMix64(seed: 11)
        let main = (0..<UInt32(graph.arcCount)).filter { graph.arcInCore[Int($0)] == 1 }
        let points = (0..<1500).map { _ in graph.arcPoints(main[Int(random.next() % UInt64(main.count))]).last! }
        let text = points.map { String(format: "%.6f,%.6f", $0.latitude, $0.longitude) }
        let (run, peak) = try Self.runMeasuringPeak(["route", "--graph", CommandLineTests.graph.1, "--format", "polyline"] + text)
        #expect(run.status == 0, "\(run.stderr.prefix(300))")
        #expect(peak > 0 && peak < 300_000, "peak RSS \(peak) KB")
        let tooMany = try Self.run(["route", "--graph", CommandLineTests.graph.1, "--max-waypoints", "100", "--format", "polyline"] + text)
        #expect(tooMany.status == 2 && tooMany.stderr.contains("at most 100 points"))
    }

    /// Runs the CLI and follows its peak resident memory (VmHWM, KB) until it exits.
    static func runMeasuringPeak(_ arguments: [String]) throws -> (CommandLineTests.Run, Int) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLineTests.binary)
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let stdout = Locked(Data()), stderr = Locked(Data())
        out.fileHandleForReading.readabilityHandler = { h in let d = h.availableData; stdout.mutate { $0.append(d) } }
        err.fileHandleForReading.readabilityHandler = { h in let d = h.availableData; stderr.mutate { $0.append(d) } }
        try process.run()
        var peak = 0
        while process.isRunning {
            if let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
               let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
               let kb = Int(line.split(separator: " ").dropFirst().first { !$0.isEmpty } ?? "")
            { peak = max(peak, kb) }
            usleep(5_000)
        }
        process.waitUntilExit()
        out.fileHandleForReading.readabilityHandler = nil
        err.fileHandleForReading.readabilityHandler = nil
        stdout.mutate { $0.append(out.fileHandleForReading.readDataToEndOfFile()) }
        stderr.mutate { $0.append(err.fileHandleForReading.readDataToEndOfFile()) }
        return (CommandLineTests.Run(status: process.terminationStatus, stdout: String(decoding: stdout.value, as: UTF8.self),
                                     stderr: String(decoding: stderr.value, as: UTF8.self)), peak)
    }

    @Test func aRequestOverItsCPUBudgetIsRefused() throws {
        let server = try ServerTests.Server(extra: ["--max-compute-ms", "1", "--max-waypoints", "1000", "--max-url-length", "100000"])
        defer { _ = server.stop() }
        let graph = try RoadGraph(contentsOf: try graphFile(CommandLineTests.graph.1, .driving))
        var random = SplitMix64(seed: 5)
        let main = (0..<UInt32(graph.arcCount)).filter { graph.arcInCore[Int($0)] == 1 }
        let points = (0..<600).map { _ in graph.arcPoints(main[Int(random.next() % UInt64(main.count))]).last! }
        let coordinates = points.map { String(format: "%.6f,%.6f", $0.longitude, $0.latitude) }.joined(separator: ";")
        let (status, body) = try ServerTests.json("\(server.base)/route/v1/driving/\(coordinates)?overview=false")
        #expect(status == 400 && body["code"] as? String == "TooBig", "\(body)")
        #expect((body["message"] as? String ?? "").contains("1 ms"))
        // A small request fits.
        let small = try ServerTests.json("\(server.base)/nearest/v1/driving/24.9384,60.1699")
        #expect(small.status == 200)
    }

    // MARK: Leaks

    /// RSS after 200 tables stays within 10 % of the RSS after 20 (the server leaked every table's rows).
    @Test(.enabled(if: Available.plainMemory, "memory is not measured under AddressSanitizer"))
    func tablesDoNotLeak() throws {
        let server = try ServerTests.Server(extra: ["--max-table-size", "400", "--threads", "1"])
        defer { _ = server.stop() }
        var random = SplitMix64(seed: 3)
        let coordinates = (0..<200).map { _ in
            String(format: "%.5f,%.5f", 24.935 + Double(random.next() % 1000) / 1000 * 0.015,
                   60.163 + Double(random.next() % 1000) / 1000 * 0.012)
        }.joined(separator: ";")
        func rss() throws -> Int {
            let status = try String(contentsOfFile: "/proc/\(server.pid)/status", encoding: .utf8)
            let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }!
            return Int(line.split(separator: " ").dropFirst().first { !$0.isEmpty }!)!
        }
        let url = "\(server.base)/table/v1/driving/\(coordinates)?annotations=duration,distance"
        for _ in 0..<20 { #expect(try ServerTests.get(url).status == 200) }
        let warm = try rss()
        for _ in 0..<180 { _ = try ServerTests.get(url) }
        let after = try rss()
        #expect(Double(after) <= Double(warm) * 1.1, "RSS \(warm) KB after 20 tables, \(after) KB after 200")
    }

    // MARK: Matrices and coordinates

    @Test func anUnsnappablePointNullsItsRowAndColumnOnly() throws {
        let points = "60.1699,24.9384;59.0,24.0;60.1756,24.9412"  // the middle one lies out at sea
        let csv = try Self.run(["matrix", "--graph", CommandLineTests.graph.1, "--sources", points])
        #expect(csv.status == 0, "\(csv.stderr)")
        #expect(csv.stderr.contains("source 1") && csv.stderr.contains("59.000000,24.000000"), "\(csv.stderr)")
        let lines = csv.stdout.split(separator: "\n").dropFirst()
        #expect(lines.count == 9)
        for line in lines {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            let touchesSea = fields[0] == "1" || fields[1] == "1"
            #expect(touchesSea == (fields[2].isEmpty), "\(line)")
        }
        let json = try Self.run(["matrix", "--graph", CommandLineTests.graph.1, "--format", "json", "--sources", points])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let sources = try #require(object["sources"] as? [Any])
        #expect(sources[1] is NSNull && !(sources[0] is NSNull))
        // Without a limit, the far point snaps too.
        let unlimited = try Self.run(["matrix", "--graph", CommandLineTests.graph.1, "--radius", "unlimited", "--sources", points])
        #expect(unlimited.status == 0 && !unlimited.stderr.contains("null"))
        #expect(unlimited.stdout.split(separator: "\n").dropFirst().allSatisfy { !$0.split(separator: ",", omittingEmptySubsequences: false)[2].isEmpty })
    }

    @Test func theHTTPAPISnapsWithoutALimitUnlessRadiusesSaysSo() throws {
        let server = try ServerTests.Server()
        defer { _ = server.stop() }
        let far = "24.9384,60.1699;24.0,59.0"
        #expect(try ServerTests.json("\(server.base)/route/v1/driving/\(far)").object["code"] as? String == "Ok")
        #expect(try ServerTests.json("\(server.base)/table/v1/driving/\(far)").object["code"] as? String == "Ok")
        let limited = try ServerTests.json("\(server.base)/table/v1/driving/\(far)?radiuses=;1000")
        #expect(limited.status == 400 && limited.object["code"] as? String == "NoSegment")
    }

    @Test(arguments: ["0,inf", "NaN,0", "inf,nan", "60.17;24.9", "1,2,3", "-infinity,5", "-nan,-inf"])
    func textThatLooksLikeACoordinateIsNeverAPlaceName(text: String) throws {
        let run = try Self.run(["route", "--graph", CommandLineTests.graph.1, text, "60.1756,24.9412"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("not a coordinate"), "\(run.stderr)")
        #expect(!run.stderr.contains("no place matches"))
        #expect(try PointText.parse("Infante") == .name("Infante"))
        #expect(try PointText.parse(" 60.5 , 24.25 ") == .coordinate(Coordinate(latitude: 60.5, longitude: 24.25)))
    }

    // MARK: The server's manners

    /// Clients that send their request head a byte at a time are cut off at the head deadline, and the
    /// per-client cap keeps them from taking every connection: normal requests still get answers.
    @Test func slowClientsDoNotLockOthersOut() throws {
        let server = try ServerTests.Server(extra: ["--header-timeout", "1", "--max-connections-per-client", "20"])
        defer { _ = server.stop() }
        var slow: [Int32] = []
        for _ in 0..<60 {
            guard let fd = try? RawHTTP.connect(port: server.port, timeout: 5) else { continue }
            _ = RawHTTP.send(fd, "GET /route/v1/driving/24.9384,60.1699;24.9412,60.1756 HTTP/1.1\r\nX-A: ")
            slow.append(fd)
        }
        let held = slow
        // The trickle is stopped and waited for before the descriptors are closed: their numbers are reused at
        // once by other tests' sockets in this process, and a late "a" would corrupt someone else's request.
        let stop = Locked(false)
        let stopped = DispatchSemaphore(value: 0)
        let trickle = Thread {
            for _ in 0..<12 where !stop.value {
                for fd in held { _ = RawHTTP.send(fd, "a") }
                usleep(250_000)
            }
            stopped.signal()
        }
        trickle.start()
        // Within a few seconds of the deadline, ordinary requests are answered.
        var answered = false
        let deadline = Date().addingTimeInterval(6)
        while !answered && Date() < deadline {
            if let response = try? RawHTTP.request(port: server.port, target: "/nearest/v1/driving/24.9384,60.1699", timeout: 2),
               response.status == 200 { answered = true } else { usleep(200_000) }
        }
        #expect(answered, "a normal request got through while slow clients were connected")
        stop.mutate { $0 = true }
        stopped.wait()
        // The slow connections were closed by the server.
        var closed = 0
        for fd in slow {
            var byte: UInt8 = 0
            var time = timeval(tv_sec: 3, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
            if recv(fd, &byte, 1, 0) <= 0 { closed += 1 }
            close(fd)
        }
        #expect(closed == slow.count, "\(closed) of \(slow.count) slow connections closed")
    }

    @Test func headersLogLinesAndRawURLLength() throws {
        let server = try ServerTests.Server(extra: ["--max-url-length", "300", "--cors", "none"], quiet: false)
        defer { _ = server.stop() }
        // 405 names the methods that work; a POST that is not JSON is refused before its body is read.
        let delete = try RawHTTP.request(port: server.port, method: "DELETE", target: "/route/v1/driving/1,2;3,4")
        #expect(delete.status == 405 && delete.headers["allow"] == "GET, HEAD, POST, OPTIONS" && delete.body.contains("InvalidMethod"))
        let post = try RawHTTP.request(port: server.port, method: "POST", target: "/route/v1/driving/1,2;3,4")
        #expect(post.status == 415 && post.body.contains("InvalidContentType"))
        let ok = try RawHTTP.request(port: server.port, target: "/nearest/v1/driving/24.9384,60.1699")
        #expect(ok.status == 200 && ok.headers["x-content-type-options"] == "nosniff")
        #expect(ok.headers["access-control-allow-origin"] == nil, "--cors none sends no CORS header")
        // A percent-encoded newline cannot forge a log line.
        _ = try RawHTTP.request(port: server.port, target: "/geocode?q=a%0AGET%20/forged%20200%200.01%20ms")
        // The URL limit counts bytes as sent: 100 decoded bytes, 300 and more as sent.
        let encoded = String(repeating: "%41", count: 110)
        let long = try RawHTTP.request(port: server.port, target: "/geocode?q=" + encoded)
        #expect(long.status == 414 && long.body.contains("TooBig"))
        usleep(200_000)
        let lines = server.stderr.split(separator: "\n")
        #expect(!lines.contains { $0.hasPrefix("GET /forged") }, "\(lines)")
        #expect(lines.contains { $0.contains("%0A") })
        let cors = try ServerTests.Server(extra: ["--cors", "https://maps.example.org"])
        defer { _ = cors.stop() }
        let withOrigin = try RawHTTP.request(port: cors.port, target: "/nearest/v1/driving/24.9384,60.1699")
        #expect(withOrigin.headers["access-control-allow-origin"] == "https://maps.example.org")
    }

    /// SIGTERM while a request is being computed: it is answered, then the server exits cleanly.
    @Test func sigtermLetsRequestsInProgressFinish() throws {
        let server = try ServerTests.Server(extra: ["--max-compute-ms", "0", "--max-waypoints", "3000",
                                                    "--max-url-length", "1000000", "--threads", "2", "--grace", "120"])
        var random = SplitMix64(seed: 8)
        let coordinates = (0..<2500).map { _ in
            String(format: "%.5f,%.5f", 24.935 + Double(random.next() % 1000) / 1000 * 0.015,
                   60.163 + Double(random.next() % 1000) / 1000 * 0.012)
        }.joined(separator: ";")
        let result = Locked<RawHTTP.Response?>(nil)
        let client = Thread {
            // Thousands of via points passed straight on: over a second of work, a modest answer.
            let response = try? RawHTTP.request(port: server.port, target: "/route/v1/walking/\(coordinates)?overview=false&continue_straight=true", timeout: 60)
            result.mutate { $0 = response }
        }
        client.start()
        usleep(300_000)
        let status = server.stop(wait: 120)
        while !client.isFinished { usleep(10_000) }
        #expect(result.value?.status == 200, "the request in progress was answered")
        #expect(status == 0)
    }
}
