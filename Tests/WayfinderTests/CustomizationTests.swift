import Customization
import Engine
import GraphImport
import Foundation
import HTTPAPI
import RoadGraph
import Routing
import Testing

/// `wayfinder customize`: traffic files in OSRM's formats change routes and durations as they change OSRM's, the
/// customizable hierarchy stays exact against the Dijkstra oracle at every metric and exclusion, bad files change
/// nothing, and a server takes up a new metric under load.
@Suite(.serialized) struct CustomizationTests {
    /// A street of five 100 m segments (a–h, two ways that meet at c; d–e–h is one road piece) and a detour round
    /// its middle (b–f–g–d, 280 m).
    static func street(renamed: Bool = false) -> TestMap {
        let map = TestMap("""
            a    b    c    d    e    h

                 f         g
            """, gridSize: 20)
        map.way("abc", ["highway": "residential", "name": "Main Street"])
        map.way("cdeh", ["highway": "residential", "name": renamed ? "High Street" : "Main Street"])
        map.way("bfgd", ["highway": "residential", "name": "Detour"])
        return map
    }

    struct TrafficCase: CustomStringConvertible, Sendable {
        var name: String
        var speeds: [String] = []
        var turns: [String] = []
        /// A second speed file, given after the first.
        var laterSpeeds: [String] = []
        /// Whether the street changes its name at c.
        var renamed = false
        /// Where the route starts and ends (between two nodes, at a fraction of the way), when not on a–b and d–e.
        var ends: (from: (Character, Character, Double), to: (Character, Character, Double))?
        /// Whether the route's time can be compared: a segment at speed 0 kept open by its rate takes OSRM's
        /// longest segment time (116 h), past the longest a Wayfinder arc may take (74 h, `RoadGraph.maxArcWeight`).
        var comparableDuration = true
        var description: String { name }
    }

    static let trafficCases: [TrafficCase] = [
        TrafficCase(name: "a segment faster", speeds: ["b,c,90"]),
        TrafficCase(name: "a segment slower, the detour wins", speeds: ["c,d,5"]),
        TrafficCase(name: "a segment closed one way", speeds: ["c,d,0"]),
        TrafficCase(name: "both roads closed", speeds: ["c,d,0", "f,g,0"]),
        TrafficCase(name: "a rate in metres per second", speeds: ["b,c,20,2"]),
        TrafficCase(name: "an empty rate keeps the weight", speeds: ["c,d,20,"]),
        TrafficCase(name: "speed 0 with a rate stays open", speeds: ["c,d,0,5"], comparableDuration: false),
        TrafficCase(name: "the later file wins", speeds: ["b,c,10", "c,d,5"], laterSpeeds: ["b,c,90"]),
        TrafficCase(name: "a turn penalty replaces the turn's cost", turns: ["a,b,c,30"]),
        TrafficCase(name: "a turn penalty with a weight", turns: ["a,b,f,0,0"]),
        TrafficCase(name: "no turn where two ways of one road meet", turns: ["b,c,d,60"]),
        TrafficCase(name: "a turn where the street changes its name", turns: ["b,c,d,60"], renamed: true),
        TrafficCase(name: "a route that starts and ends inside changed segments", speeds: ["a,b,10", "d,e,90", "e,d,7"]),
        TrafficCase(name: "to a point on a closed segment", speeds: ["c,d,0"], ends: (("a", "b", 0.5), ("c", "d", 0.5))),
        TrafficCase(name: "to a point before a closed segment", speeds: ["d,e,0"], ends: (("a", "b", 0.5), ("c", "d", 0.5))),
        TrafficCase(name: "to a point before a closed segment of its road piece", speeds: ["e,h,0"],
                    ends: (("a", "b", 0.5), ("d", "e", 0.5))),
        TrafficCase(name: "to a point past a closed segment of its road piece", speeds: ["d,e,0"],
                    ends: (("a", "b", 0.5), ("e", "h", 0.5))),
        TrafficCase(name: "rows for nodes the map lacks", speeds: ["999,998,50"], turns: ["997,996,995,9"]),
    ]

    /// Node letters in a row become the map's OSM ids; numbers stay.
    static func rows(_ lines: [String], _ map: TestMap) -> String {
        lines.map { line in
            line.split(separator: ",", omittingEmptySubsequences: false).map { field -> String in
                if field.count == 1, let c = field.first, c.isLetter, let node = map.nodes[c] { return String(node.id) }
                return String(field)
            }.joined(separator: ",")
        }.joined(separator: "\n") + "\n"
    }

    static func figures(_ body: [String: Any]) -> (code: String, distance: Double, duration: Double, weight: Double) {
        let route = (body["routes"] as? [[String: Any]])?.first
        return (body["code"] as? String ?? "", route?["distance"] as? Double ?? -1, route?["duration"] as? Double ?? -1,
                route?["weight"] as? Double ?? -1)
    }

    /// Each traffic file, both ways along the street, as OSRM answers with the same file given to osrm-contract:
    /// the same path, and the same duration and weight to the tenth (see `CyclingTests.sameTenth`).
    @Test(.enabled(if: OSRMOracle.available, Comment(rawValue: OSRMOracle.skipMessage)), arguments: trafficCases)
    func trafficFileAsOSRM(_ c: TrafficCase) throws {
        let map = Self.street(renamed: c.renamed)
        _ = try map.build()
        let files = try TemporaryDirectory()
        let speeds = files.path + "/speeds.csv", later = files.path + "/later.csv", turns = files.path + "/turns.csv"
        try Self.rows(c.speeds, map).write(toFile: speeds, atomically: true, encoding: .utf8)
        try Self.rows(c.laterSpeeds, map).write(toFile: later, atomically: true, encoding: .utf8)
        try Self.rows(c.turns, map).write(toFile: turns, atomically: true, encoding: .utf8)
        let speedFiles = (c.speeds.isEmpty ? [] : [speeds]) + (c.laterSpeeds.isEmpty ? [] : [later])
        let report = try GraphCustomizer.customize(directory: map.graphDirectory, mode: .driving, speedFiles: speedFiles,
                                                   turnFiles: c.turns.isEmpty ? [] : [turns])
        if c.name.hasPrefix("rows for nodes") {
            #expect(report.unusedSpeedRows == 1 && report.unusedTurnRows == 1 && report.changedArcs == 0 && report.changedTurns == 0)
        }
        let service = WayfinderService(engine: try Engine(directory: map.graphDirectory))
        var contract: [String] = []
        for file in speedFiles { contract += ["--segment-speed-file", file] }
        if !c.turns.isEmpty { contract += ["--turn-penalty-file", turns] }
        let osrm = try OSRMOracle(map: map, profile: "car", contractArguments: contract)
        let ends = c.ends ?? (("a", "b", 0.5), ("d", "e", 0.5))
        let west = map.position(between: ends.from.0, ends.from.1, at: ends.from.2)
        let east = map.position(between: ends.to.0, ends.to.1, at: ends.to.2)
        for (from, to) in [(west, east), (east, west)] {
            let request = "/route/v1/driving/\(OSRMCompatibilityTests.text(from));\(OSRMCompatibilityTests.text(to))?steps=true"
            let ours = Self.figures(try service.json(request + "&compat=osrm").object)
            let theirs = Self.figures(try osrm.json(request).object)
            let way = from == west ? "eastwards" : "westwards"
            #expect(ours.code == theirs.code, "\(c.name) \(way): \(ours) against OSRM's \(theirs)")
            #expect(abs(ours.distance - theirs.distance) <= 0.2, "\(c.name) \(way): \(ours) against OSRM's \(theirs)")
            #expect(!c.comparableDuration || abs(ours.duration - theirs.duration) <= CyclingTests.sameTenth,
                    "\(c.name) \(way): \(ours) against OSRM's \(theirs)")
            #expect(abs(ours.weight - theirs.weight) <= CyclingTests.sameTenth, "\(c.name) \(way): \(ours) against OSRM's \(theirs)")
        }
    }

    /// Speed rows for the segments of the arcs `pick` chooses (each segment in the arc's direction), and turn rows
    /// for the turns `turn` chooses.
    static func trafficRows(_ graph: RoadGraph, seed: UInt64, pick: (Int, inout SplitMix64) -> String?,
                            turn: ((inout SplitMix64) -> String?)? = nil) -> (speeds: String, turns: String) {
        var random = SplitMix64(seed: seed)
        var speeds = "", turns = ""
        for a in 0..<graph.arcCount where graph.arcBase[a] == UInt32(a) {
            guard let speed = pick(a, &random) else { continue }
            let (e, reversed) = graph.edge(ofArc: UInt32(a))
            var ids = Array(graph.shapeNodeIDs[Int(graph.edgeShapeStart[e])..<Int(graph.edgeShapeStart[e + 1])])
            if reversed { ids.reverse() }
            for (p, q) in zip(ids, ids.dropFirst()) { speeds += "\(p),\(q),\(speed)\n" }
        }
        if let turn {
            for a in 0..<graph.arcCount where graph.arcBase[a] == UInt32(a) {
                for i in Int(graph.transitionStart[a])..<Int(graph.transitionStart[a + 1]) {
                    guard let penalty = turn(&random) else { continue }
                    let b = Int(graph.transitionTargets[i])
                    func ids(_ arc: Int) -> [Int64] {
                        let (e, reversed) = graph.edge(ofArc: UInt32(arc))
                        let all = Array(graph.shapeNodeIDs[Int(graph.edgeShapeStart[e])..<Int(graph.edgeShapeStart[e + 1])])
                        return reversed ? all.reversed() : all
                    }
                    let into = ids(a), onto = ids(b)
                    turns += "\(into[into.count - 2]),\(into[into.count - 1]),\(onto[1]),\(penalty)\n"
                }
            }
        }
        return (speeds, turns)
    }

    /// Customizes `mode` in `directory` with the rows, then checks CH, A* and Dijkstra against the oracle on random
    /// pairs, with every exclusion for driving.
    static func customizeAndCheck(_ directory: String, _ mode: TravelMode, _ rows: (speeds: String, turns: String),
                                  pairs: Int, seed: UInt64) throws -> RoadGraph {
        let files = try TemporaryDirectory()
        let speeds = files.path + "/speeds.csv", turns = files.path + "/turns.csv"
        try rows.speeds.write(toFile: speeds, atomically: true, encoding: .utf8)
        try rows.turns.write(toFile: turns, atomically: true, encoding: .utf8)
        let report = try GraphCustomizer.customize(directory: directory, mode: mode, speedFiles: [speeds],
                                                   turnFiles: rows.turns.isEmpty ? [] : [turns])
        // Turn rows where two pieces of one road meet go unused, as in OSRM (it has no turn there).
        #expect(report.unusedSpeedRows == 0 && (rows.turns.isEmpty || report.usedTurnRows > 0))
        #expect(rows.speeds.isEmpty || report.changedArcs > 0)
        let graph = try RoadGraph(contentsOf: try graphFile(directory, mode))
        #expect(!graph.cchUpStart.isEmpty && graph.metadata.metric.hasPrefix("speeds.csv"))
        let exclusions: [ArcClasses] = mode == .driving ? [[], [.toll], [.motorway], [.toll, .motorway], [.ferry]] : [[]]
        for (k, excluding) in exclusions.enumerated() {
            // Rates make some weights less than their durations.
            let result = try OracleTests.checkRandomPairs(graph, count: k == 0 ? pairs : pairs / 4, seed: seed &+ UInt64(k),
                                                          excluding: excluding, weightsCoverDurations: false)
            #expect(result.routed > (k == 0 ? pairs : pairs / 4) / 2, "most pairs routable: \(result)")
            Self.checkTables(graph, excluding: excluding, seed: seed &+ 50 &+ UInt64(k))
        }
        return graph
    }

    /// Tables on the customized hierarchy (its searches walk the elimination tree), cell for cell against one
    /// plain search per source.
    static func checkTables(_ graph: RoadGraph, excluding: ArcClasses, seed: UInt64) {
        let cells = OracleTests.tableCells(graph, excluding: excluding, seed: seed)
        #expect(cells.count >= 400 && cells.count { $0.0 != nil } > cells.count / 2, "a table of some size: \(cells.count)")
        #expect(cells.allSatisfy { $0?.weight == $1?.weight }, "\(graph.mode) tables excluding \(excluding.names)")
    }

    /// Motorways at 30 km/h, three random speed files (some segments closed, some with rates) with random turn
    /// penalties, and walking: CH, A* and Dijkstra agree with the oracle on each, with every exclusion.
    static func checkExtract(_ input: String, pairs: Int) throws {
        let directory = try TemporaryDirectory()
        let graphs = directory.path + "/g"
        _ = try GraphImporter.importGraphs(from: input, to: graphs, modes: [.driving, .walking])
        let imported = try RoadGraph(contentsOf: try graphFile(graphs, .driving))
        let slowMotorways = Self.trafficRows(imported, seed: 1) { a, _ in
            RoadClass(rawValue: imported.edgeClass[imported.edge(ofArc: UInt32(a)).edge]) == .motorway ? "30" : nil
        }
        let slowed = try Self.customizeAndCheck(graphs, .driving, slowMotorways, pairs: pairs, seed: 11)
        // Every motorway arc now takes at least its length at 30 km/h (each segment rounded to a tenth).
        for a in 0..<slowed.arcCount {
            let e = slowed.edge(ofArc: UInt32(a)).edge
            guard RoadClass(rawValue: slowed.edgeClass[e]) == .motorway else { continue }
            let segments = Double(slowed.edgeShapeStart[e + 1] - slowed.edgeShapeStart[e] - 1)
            let atThirty = Double(slowed.edgeLength[e]) / (30 / 3.6) * 1000
            #expect(Double(slowed.arcDuration[a]) >= atThirty - 50 * segments, "motorway arc \(a) at 30 km/h")
        }
        for seed in [2, 3, 4] as [UInt64] {
            let rows = Self.trafficRows(imported, seed: seed, pick: { _, random in
                switch random.next() % 200 {
                case 0: return "0"
                case 1..<20: return "\(5 + random.next() % 100),\(1 + random.next() % 30)"
                case 20..<80: return "\(5 + random.next() % 125)"
                default: return nil
                }
            }, turn: { random in random.next() % 20 == 0 ? "\(random.next() % 40)" : nil })
            _ = try Self.customizeAndCheck(graphs, .driving, rows, pairs: pairs, seed: 100 + seed)
        }
        let walking = try RoadGraph(contentsOf: try graphFile(graphs, .walking))
        let walkingRows = Self.trafficRows(walking, seed: 5) { _, random in random.next() % 4 == 0 ? "\(1 + random.next() % 8)" : nil }
        _ = try Self.customizeAndCheck(graphs, .walking, walkingRows, pairs: pairs, seed: 200)

        // No files: the import's costs again, whatever the metric was.
        _ = try GraphCustomizer.customize(directory: graphs, mode: .driving, speedFiles: [], turnFiles: [])
        let restored = try RoadGraph(contentsOf: try graphFile(graphs, .driving))
        #expect(Array(restored.arcWeight) == Array(imported.arcWeight) && Array(restored.arcDuration) == Array(imported.arcDuration)
                && Array(restored.transitionWeight) == Array(imported.transitionWeight) && restored.metadata.metric == "import")
    }

    @Test func helsinkiCustomizedHierarchiesMatchDijkstra() throws {
        try Self.checkExtract(OracleTests.packageRoot.appendingPathComponent("graphs/helsinki.osm.pbf").path, pairs: 300)
    }

    @Test(.enabled(if: Available.porto, "the Porto extract is not in ../shared/data"))
    func portoCustomizedHierarchiesMatchDijkstra() throws {
        try Self.checkExtract(OracleTests.sharedData.appendingPathComponent("r5-porto_portugal.osm.pbf").path, pairs: 100)
    }

    /// Cycling is imported with a customizable hierarchy (`GraphImporter.customizableModes`): routes and tables on
    /// it match the oracle, driving keeps its contraction, and a later customization keeps the import's order.
    @Test func cyclingIsImportedCustomizable() throws {
        let directory = try TemporaryDirectory()
        let graphs = directory.path + "/g"
        let summary = try GraphImporter.importGraphs(
            from: OracleTests.packageRoot.appendingPathComponent("graphs/helsinki.osm.pbf").path, to: graphs,
            modes: [.driving, .cycling])
        #expect(summary.contraction[.cycling]?.customizable == true && summary.contraction[.driving]?.customizable == false)
        let imported = try RoadGraph(contentsOf: try graphFile(graphs, .cycling))
        #expect(!imported.cchUpStart.isEmpty && imported.metadata.metric == "import")
        #expect(try RoadGraph(contentsOf: try graphFile(graphs, .driving)).cchUpStart.isEmpty)
        let result = try OracleTests.checkRandomPairs(imported, count: 300, seed: 31)
        #expect(result.routed > 150, "most pairs routable: \(result)")
        Self.checkTables(imported, excluding: [], seed: 32)
        let rows = Self.trafficRows(imported, seed: 33) { _, random in random.next() % 4 == 0 ? "\(5 + random.next() % 20)" : nil }
        let customized = try Self.customizeAndCheck(graphs, .cycling, rows, pairs: 100, seed: 34)
        #expect(Array(customized.chNode) == Array(imported.chNode), "the import's order is kept")
    }

    /// A graph without a road (an extract with none for the mode) customizes, at import and after, into a graph
    /// that loads and has nothing to snap to; its empty import metric once made it unloadable.
    @Test func graphWithoutRoadsCustomizes() throws {
        let directory = try TemporaryDirectory()
        let input = directory.path + "/empty.osm", graphs = directory.path + "/g"
        try #"<?xml version="1.0"?><osm version="0.6"><node id="1" lat="1" lon="1"/></osm>"#
            .write(toFile: input, atomically: true, encoding: .utf8)
        _ = try GraphImporter.importGraphs(from: input, to: graphs, modes: [.driving, .cycling])
        _ = try GraphCustomizer.customize(directory: graphs, mode: .driving, speedFiles: [], turnFiles: [])
        for mode in [TravelMode.driving, .cycling] {
            let graph = try RoadGraph(contentsOf: try graphFile(graphs, mode))
            #expect(graph.arcCount == 0 && !graph.cchUpStart.isEmpty, "\(mode) customized")
            #expect(graph.snap(Coordinate(latitude: 1, longitude: 1)) == nil)
        }
    }

    /// Split in two over the elimination tree (both cores on each group of lanes), the customization gives the
    /// hierarchy one core per group gives, edge for edge: a 150 × 150 grid with random weights, one-way streets and
    /// classes, with four and with eight exclusion sets (lanes four and eight wide, against two and four).
    @Test func splitCustomizationMatchesOneCorePerGroup() throws {
        var random = SplitMix64(seed: 7)
        let side = 150
        for excludable: UInt8 in [0b11, 0b111] {
            var edges: [CustomizationInput.Edge] = []
            for r in 0..<side {
                for c in 0..<side {
                    for (r2, c2) in [(r, c + 1), (r + 1, c)] where r2 < side && c2 < side {
                        let (a, b) = (UInt32(r * side + c), UInt32(r2 * side + c2))
                        for (from, to) in [(a, b), (b, a)] where random.next() % 10 != 0 {
                            let weight = UInt32(100 + random.next() % 5_000)
                            let classes = random.next() % 6 == 0 ? UInt8(1 << (random.next() % 3)) & excludable : 0
                            edges.append(.init(from: from, to: to, weight: weight, duration: weight / 2 + 7,
                                               length: Float(weight) / 10, classes: classes))
                        }
                    }
                }
            }
            let input = CustomizationInput(nodeCount: side * side, edges: edges, nodeClasses: [])
            let topology = try HierarchyTopology(nodeCount: side * side, edges: edges.map { ($0.from, $0.to) })
            let (split, statistics) = HierarchyCustomization.customize(topology, input, excludable: excludable)
            let (whole, alone) = HierarchyCustomization.customize(topology, input, excludable: excludable, splitting: false)
            #expect(statistics.splitInTwo && !alone.splitInTwo)
            #expect(statistics.exclusionSets == (excludable == 0b11 ? 4 : 8) && statistics.triangles == alone.triangles)
            #expect(split.up.count > topology.edgeCount / 4, "a hierarchy of some size: \(split.up.count)")
            #expect(split.node == whole.node && split.original == whole.original)
            #expect(split.upStart == whole.upStart && split.up == whole.up && split.upShortcuts == whole.upShortcuts)
            #expect(split.upDuration == whole.upDuration && split.upLength == whole.upLength)
            #expect(split.downStart == whole.downStart && split.down == whole.down && split.downShortcuts == whole.downShortcuts)
            #expect(split.downDuration == whole.downDuration && split.downLength == whole.downLength)
        }
    }

    /// Bad rows are reported by line, with exit code 2, and the graph stays as it was; a walking graph refuses turn
    /// penalties; unknown nodes are counted.
    @Test func badFilesChangeNothing() throws {
        let map = Self.street()
        _ = try map.build()
        let files = try TemporaryDirectory()
        let bad = files.path + "/bad.csv"
        let a = map.nodes["a"]!.id, b = map.nodes["b"]!.id
        try "from,to,speed\n\(a),\(b),50\n\(a),\(b),fast\n\(a)\n\(a),\(b),-3\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let before = try GraphDirectory(map.graphDirectory).current()
        let run = try CommandLineTests.run(["customize", "--graph", map.graphDirectory, "--segment-speeds", bad])
        #expect(run.status == 2)
        for line in [1, 3, 4, 5] { #expect(run.stderr.contains("bad.csv:\(line):"), "line \(line) reported: \(run.stderr)") }
        #expect(!run.stderr.contains("bad.csv:2:"))
        #expect(try GraphDirectory(map.graphDirectory).current() == before, "the graph is unchanged")

        let turns = files.path + "/turns.csv"
        try "\(a),\(b),\(map.nodes["c"]!.id),5\n".write(toFile: turns, atomically: true, encoding: .utf8)
        let walking = try CommandLineTests.run(["customize", "--graph", map.graphDirectory, "--mode", "walking", "--turn-penalties", turns])
        #expect(walking.status == 2 && walking.stderr.contains("no turn costs"), "\(walking.stderr)")
        let missing = try CommandLineTests.run(["customize", "--graph", map.graphDirectory, "--segment-speeds", files.path + "/none.csv"])
        #expect(missing.status == 2 && missing.stderr.contains("cannot read"), "\(missing.stderr)")

        let unknown = files.path + "/unknown.csv"
        try "9991,9992,50\n\(a),\(b),50\n".write(toFile: unknown, atomically: true, encoding: .utf8)
        let counted = try CommandLineTests.run(["customize", "--graph", map.graphDirectory, "--segment-speeds", unknown, "--name", "rush"])
        #expect(counted.status == 0)
        #expect(counted.stderr.contains("1 used, 1 naming no segment"), "\(counted.stderr)")
        let graph = try RoadGraph(contentsOf: try graphFile(map.graphDirectory, .driving))
        #expect(graph.metadata.metric == "rush")
        let long = try CommandLineTests.run(["customize", "--graph", map.graphDirectory, "--name", String(repeating: "é", count: 60)])
        #expect(long.status == 1 && long.stderr.contains("--name"), "\(long.stderr)")
        let info = try CommandLineTests.run(["info", "--graph", map.graphDirectory])
        #expect(info.stdout.contains("metric rush (customizable hierarchy)") && info.stdout.contains("metric import"), "\(info.stdout)")
    }

    /// The triangle kernels trust a stored topology to be closed under elimination: one that is not (a file whose
    /// checksums pass, edited by hand) is told apart before they read it.
    @Test func topologyNotClosedUnderEliminationIsRefused() throws {
        // A path a–b–c–d ordered with b first: eliminating b joins a and c.
        let closed = try HierarchyTopology(nodeCount: 4, edges: [(0, 1), (1, 2), (2, 3)])
        #expect(closed.isClosedUnderElimination)
        // Node 0's upper neighbours 1 and 2 without the edge 1–2.
        let open = HierarchyTopology(number: [0, 1, 2], node: [0, 1, 2], upStart: [0, 2, 2, 2], upHead: [1, 2])
        #expect(!open.isClosedUnderElimination)
    }

    /// Under continuous load, a speed file closes the street: 0 failed requests, and the detour is answered within
    /// 2 s of the customization's end; /health names the metric.
    @Test func newMetricServedUnderLoad() throws {
        let map = Self.street()
        _ = try map.build()
        let server = try ServerTests.Server(extra: ["--watch", "0.2"], graph: map.graphDirectory, quiet: false)
        defer { _ = server.stop() }
        let from = map.position(between: "a", "b", at: 0.5), to = map.position(between: "d", "e", at: 0.5)
        let url = server.base + "/route/v1/driving/\(OSRMCompatibilityTests.text(from));\(OSRMCompatibilityTests.text(to))?overview=false"
        let before = try GraphSwapTests.routeDistance(url).get()
        let load = GraphSwapTests.RouteLoad(url)
        let answers = load.answers
        _ = GraphSwapTests.wait(20) { answers.value.count >= 30 }
        let files = try TemporaryDirectory()
        let speeds = files.path + "/closed.csv"
        try Self.rows(["c,d,0"], map).write(toFile: speeds, atomically: true, encoding: .utf8)
        let run = try CommandLineTests.run(["customize", "--graph", map.graphDirectory, "--segment-speeds", speeds, "--name", "closure"])
        let customized = Date()
        #expect(run.status == 0, "\(run.stderr)")
        let detour = GraphSwapTests.wait(10) { (try? GraphSwapTests.routeDistance(url).get()).map { $0 > before + 50 } ?? false }
        let visibleAfter = Date().timeIntervalSince(customized)
        _ = GraphSwapTests.wait(20) { answers.value.count(where: { $0.at > customized.addingTimeInterval(visibleAfter) }) >= 30 }
        load.stop()
        #expect(detour && visibleAfter <= 2, "the detour answered \(visibleAfter) s after the customization: \(server.stderr)")
        let failures = answers.value.compactMap { try? $0.result.failureMessage() }
        #expect(answers.value.count > 50 && failures.isEmpty, "\(failures.count) of \(answers.value.count) failed: \(failures.first ?? "")")
        let health = try GraphSwapTests.health(server)
        #expect((health.object["metrics"] as? [String: String])?["driving"] == "closure", "\(health.object)")
        #expect((health.object["metrics"] as? [String: String])?["walking"] == "import", "\(health.object)")
    }
}
