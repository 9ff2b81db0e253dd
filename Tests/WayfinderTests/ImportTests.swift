import Foundation
import GraphImport
import RoadGraph
import Routing
import Testing

/// The importer against the odd inputs in ../shared/data/odd and against files that are not OSM data at all.
@Suite struct ImportTests {
    static let odd = OracleTests.sharedData.appendingPathComponent("odd")

    @Test(.enabled(if: Available.oddFiles, "needs ../shared/data/odd"),
          arguments: ["bautzen.osm", "west-oakland.osm.bz2", "moscow-unsorted.osm.gz", "columbus-unsorted.osm.pbf",
                      "portland-negative-ids.osm.pbf"])
    func importsOddButValidFiles(name: String) throws {
        let input = Self.odd.appendingPathComponent(name)
        let directory = try TemporaryDirectory()
        let summary = try GraphImporter.importGraphs(from: input.path, to: directory.path + "/g", modes: TravelMode.allCases)
        #expect(summary.ways > 0)
        for mode in TravelMode.allCases {
            let graph = try RoadGraph(contentsOf: try graphFile(directory.path + "/g", mode))
            #expect(graph.edgeCount > 0, "\(name) has \(mode.rawValue) roads")
            // A route between two vertices of the main network must exist and match the oracle.
            let main = (0..<UInt32(graph.arcCount)).filter { graph.isMainNetwork(arc: $0) }
            let from = graph.vertexCoordinate(graph.arcHead[Int(main[0])])
            let to = graph.vertexCoordinate(graph.arcHead[Int(main[main.count / 2])])
            if let route = try? checkedRoute(graph, [from, to]) { #expect(route.distance >= 0) }
        }
        let unsorted = name.contains("unsorted")
        if unsorted { #expect(summary.nodes > 1000) }
    }

    @Test(.enabled(if: Available.oddFiles, "needs ../shared/data/odd"))
    func truncatedFileFailsCleanlyAndLeavesNoGraph() throws {
        let input = Self.odd.appendingPathComponent("helsinki-truncated.osm.pbf")
        let directory = try TemporaryDirectory()
        #expect(throws: ImportError.self) { try GraphImporter.importGraphs(from: input.path, to: directory.path + "/g") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty, "no graph, no staging directory left")
    }

    @Test func failedImportKeepsThePreviousGraph() throws {
        let directory = try TemporaryDirectory()
        let map = TestMap("a    b")
        map.way("ab", ["highway": "residential"])
        try map.xml().write(toFile: directory.path + "/good.osm", atomically: true, encoding: .utf8)
        _ = try GraphImporter.importGraphs(from: directory.path + "/good.osm", to: directory.path + "/g")
        try Data("not osm at all".utf8).write(to: URL(fileURLWithPath: directory.path + "/bad.osm.pbf"))
        #expect(throws: ImportError.self) {
            try GraphImporter.importGraphs(from: directory.path + "/bad.osm.pbf", to: directory.path + "/g")
        }
        let graph = try RoadGraph(contentsOf: try graphFile(directory.path + "/g", .driving))
        #expect(graph.edgeCount == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["bad.osm.pbf", "g", "good.osm"])
    }

    @Test(arguments: [("garbage.osm.pbf", "PBF"), ("garbage.osm", "XML"), ("garbage.unknown", "format"), ("missing.osm.pbf", "no such file")])
    func unreadableInputsGiveAOneLineError(name: String, expected: String) throws {
        let directory = try TemporaryDirectory()
        if name != "missing.osm.pbf" {
            try Data("this is not OpenStreetMap data\n".utf8).write(to: URL(fileURLWithPath: directory.path + "/" + name))
        }
        do {
            _ = try GraphImporter.importGraphs(from: directory.path + "/" + name, to: directory.path + "/g")
            Issue.record("import of \(name) should fail")
        } catch let error as ImportError {
            let message = "\(error)"
            #expect(!message.contains("\n"))
            #expect(message.localizedCaseInsensitiveContains(expected), "\(message)")
        }
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/g"))
    }

    @Test func importsTheBundledSampleWithRestrictions() throws {
        let sample = OracleTests.packageRoot.appendingPathComponent("graphs/helsinki.osm.pbf")
        let directory = try TemporaryDirectory()
        let summary = try GraphImporter.importGraphs(from: sample.path, to: directory.path + "/g")
        let driving = try #require(summary.modes.first { $0.mode == .driving })
        #expect(driving.restrictionsViaNode > 20, "Helsinki has 45 restriction relations")
        #expect(driving.droppedNodeReferences > 0, "the clipped extract references missing nodes")
        let graph = try RoadGraph(contentsOf: try graphFile(directory.path + "/g", .driving))
        #expect(graph.metadata.sourceName == "helsinki.osm.pbf")
        #expect(graph.metadata.bounds.contains(Coordinate(latitude: 60.1699, longitude: 24.9384)))
    }
}

@Suite struct GraphFileTests {
    func importedSample() throws -> (TemporaryDirectory, String) {
        let directory = try TemporaryDirectory()
        let map = TestMap("a    b    c\n\nd    e")
        map.way("abc", ["highway": "residential", "name": "Katu"])
        map.way("bde", ["highway": "primary"])
        try map.xml().write(toFile: directory.path + "/m.osm", atomically: true, encoding: .utf8)
        _ = try GraphImporter.importGraphs(from: directory.path + "/m.osm", to: directory.path + "/g")
        return (directory, try graphFile(directory.path + "/g", .driving))
    }

    @Test func roundTripsMetadataAndNames() throws {
        let (directory, path) = try importedSample()
        defer { _ = directory }
        let graph = try RoadGraph(contentsOf: path)
        #expect(graph.mode == .driving)
        #expect(graph.metadata.sourceName == "m.osm")
        #expect(graph.edgeCount == 3, "ab, bc, and bde (d is no junction)")
        #expect((0..<graph.edgeCount).map { graph.name(ofEdge: $0) }.contains("Katu"))
        // The fastest arc by weight: a primary at 65 km/h, its segments' times rounded to tenths of a second.
        #expect(abs(graph.metadata.maxSpeed - 65 / 3.6) < 0.02 * 65 / 3.6)
    }

    /// What the import stores of each edge end is, to the bit, what guidance and leg assembly would work out from
    /// the shapes at query time: the perceived bearing (OSRM's representative point), the distance to the far end,
    /// the length summed from that end. The bearing is checked where the road ends at its far vertex; where it goes
    /// on there, OSRM reads on along it (`roadsGoOnThroughTheEndsOfWays`). Where OSRM keeps a node inside the edge
    /// (beside another edge between the same junctions) it reads the road up to that node only
    /// (`DividedRoadTests.aNodeKeptBesideAnotherRoadEndsTheRoadThere`): such an end is the bearing along the line up
    /// to one of its inner points, and they are few.
    @Test(arguments: TravelMode.allCases)
    func edgeEndsAreWhatAJunctionWouldWorkOut(mode: TravelMode) throws {
        let graph = try RoadGraph(contentsOf: try graphFile(CommandLineTests.graph.1, mode))
        #expect(graph.edgeEnds.count == 2 * graph.edgeCount)
        var checked = 0, bearingsChecked = 0, cutAtAKeptNode = 0
        var seen = Set<Int>()
        var degree: [SIMD2<Double>: Int] = [:]
        // Divided roads turn some bearings (`mergeDividedRoadBearings`): a merged pair at a junction shares one, and
        // a road of at most 30 m into such a junction is turned by the merge there.
        var mergedAt = Set<SIMD2<Double>>()
        func sharesBearing(_ v: UInt32, _ end: (edge: Int, atEnd: Bool)) -> Bool {
            let bearing = graph.edgeEnds[2 * end.edge + (end.atEnd ? 1 : 0)].bearing
            return graph.edges(atVertex: v).contains { $0 != end && graph.edgeEnds[2 * $0.edge + ($0.atEnd ? 1 : 0)].bearing == bearing }
        }
        for v in 0..<UInt32(graph.vertexCount) {
            let c = graph.vertexCoordinate(v)
            degree[SIMD2(c.latitude, c.longitude)] = graph.edges(atVertex: v).count
            if graph.edges(atVertex: v).contains(where: { sharesBearing(v, $0) }) { mergedAt.insert(SIMD2(c.latitude, c.longitude)) }
        }
        for v in 0..<UInt32(graph.vertexCount) {
            let here = graph.edges(atVertex: v)
            let origin = graph.vertexCoordinate(v)
            let lanesHere = here.map { Int(graph.edgeLanes[$0.edge]) }.max() ?? 0
            for (edge, atEnd) in here {
                let end = graph.edgeEnds[2 * edge + (atEnd ? 1 : 0)]
                let flags = graph.flags(ofEdge: edge)
                let shape = graph.shapeRange(ofEdge: edge)
                let points = (atEnd ? Array(shape.reversed()) : Array(shape)).map { graph.shapePoint($0) }
                func road(_ line: ArraySlice<Coordinate>) -> PerceivedBearing.Road {
                    PerceivedBearing.Road(
                        roadClass: graph.roadClass(ofEdge: edge), isLink: flags.contains(.link),
                        onRing: flags.contains(.roundabout) || flags.contains(.circular), roadsHere: here.count,
                        lanesHere: lanesHere, isLoop: line.count > 2 && line.first == line.last)
                }
                var length = 0.0
                for k in 1..<points.count { length += Geo.osrmRulerDistance(points[k - 1], points[k]) }
                let far = SIMD2(points[points.count - 1].latitude, points[points.count - 1].longitude)
                let turned = sharesBearing(v, (edge, atEnd)) || (end.shapeLength <= 30 && mergedAt.contains(far))
                if (here.count <= 2 || degree[far] != 2) && !turned {
                    if end.bearing == PerceivedBearing.bearing(along: points, road: road(points[...])) {
                        #expect(end.initialBearing == PerceivedBearing.initialBearing(along: points))
                    } else {
                        let cut = (2..<points.count).first { k in
                            end.bearing == PerceivedBearing.bearing(along: Array(points[..<k]), road: road(points[..<k]))
                                && end.initialBearing == PerceivedBearing.initialBearing(along: Array(points[..<k]))
                        }
                        #expect(cut != nil, "edge \(edge) from \(atEnd ? "its last point" : "its first"): \(end.bearing)")
                        cutAtAKeptNode += 1
                    }
                    bearingsChecked += 1
                }
                #expect(end.reach == Geo.distance(origin, points[points.count - 1]))
                #expect(end.shapeLength == length)
                checked += 1
                seen.insert(edge)
            }
        }
        // Every edge a route can use is seen from both ends (a road mapped twice keeps one edge: the other has no
        // arc and no junction sees it).
        let usable = (0..<graph.edgeCount).filter { graph.edgeForwardArc[$0] != noIndex || graph.edgeBackwardArc[$0] != noIndex }
        #expect(usable.allSatisfy(seen.contains) && checked == 2 * seen.count)
        #expect(bearingsChecked > checked / 2, "\(bearingsChecked) of \(checked)")
        #expect(cutAtAKeptNode < bearingsChecked / 50, "\(cutAtAKeptNode) of \(bearingsChecked) read up to an inner point")
    }

    /// OSRM joins a road drawn as two ways into one edge where nothing else meets it, and reads its bearing at a
    /// junction along both (measured with osrm-routed: the same turn either way). So does the import.
    @Test func roadsGoOnThroughTheEndsOfWays() throws {
        func sideRoad(split: Bool) throws -> (bearing: Double, firstSegment: Double) {
            let map = TestMap("""
                          N

                                          n

                           m

                w         c




                          s
                """, gridSize: 4)
            map.way("scN", ["highway": "primary", "name": "Main"])
            map.way("cw", ["highway": "primary", "name": "West"])
            if split {
                map.way("cm", ["highway": "primary", "name": "Side"])
                map.way("mn", ["highway": "primary", "name": "Side"])
            } else {
                map.way("cmn", ["highway": "primary", "name": "Side"])
            }
            let graph = try map.build().driving
            let c = map.position("c"), m = map.position("m")
            let junction = try #require((0..<UInt32(graph.vertexCount)).first { Geo.distance(graph.vertexCoordinate($0), c) < 0.5 })
            for (edge, atEnd) in graph.edges(atVertex: junction) {
                let shape = graph.shapeRange(ofEdge: edge)
                let next = graph.shapePoint(atEnd ? shape.upperBound - 2 : shape.lowerBound + 1)
                if Geo.distance(next, m) < 0.5 { return (graph.edgeEnds[2 * edge + (atEnd ? 1 : 0)].bearing, Geo.bearing(from: c, to: m)) }
            }
            throw CocoaError(.featureUnsupported)
        }
        let one = try sideRoad(split: false), two = try sideRoad(split: true)
        #expect(one.bearing == two.bearing)
        #expect(abs(one.bearing - one.firstSegment) > 2, "read along the road, not its first \(one.firstSegment)° segment: \(one.bearing)°")
    }

    @Test func truncatedOrForeignFilesAreRejected() throws {
        let (directory, path) = try importedSample()
        defer { _ = directory }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        for cut in [10, 600, bytes.count / 2, bytes.count - 8] {
            let damaged = directory.path + "/cut-\(cut).wfgraph"
            try bytes.prefix(cut).write(to: URL(fileURLWithPath: damaged))
            #expect(throws: GraphFileError.self) { try RoadGraph(contentsOf: damaged) }
        }
        var foreign = bytes
        foreign[0] = UInt8(ascii: "X")
        try foreign.write(to: URL(fileURLWithPath: directory.path + "/foreign.wfgraph"))
        #expect(throws: GraphFileError.notAGraph(directory.path + "/foreign.wfgraph")) {
            try RoadGraph(contentsOf: directory.path + "/foreign.wfgraph")
        }
        var future = bytes
        future[8] = 99
        try future.write(to: URL(fileURLWithPath: directory.path + "/future.wfgraph"))
        #expect(throws: GraphFileError.unsupportedVersion(99)) { try RoadGraph(contentsOf: directory.path + "/future.wfgraph") }
    }

    /// A customization lets go of the graph file's pages once read: the graph reads the same bytes after, whether
    /// mapped (read again from the file) or copied (kept: nothing to read them from).
    @Test func releasedPagesReadTheSame() throws {
        let (directory, path) = try importedSample()
        defer { _ = directory }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        for privateCopy in [false, true] {
            let file = try MappedFile(path: path, privateCopy: privateCopy)
            file.releasePages(0..<file.size)
            file.releasePages(100..<(file.size / 2))
            #expect(Data(bytes: file.base, count: file.size) == bytes, "privateCopy \(privateCopy)")
            let graph = try RoadGraph(mapping: file, path: path), fresh = try RoadGraph(contentsOf: path)
            graph.file.releasePages(0..<file.size)
            #expect(graph.arcCount > 0 && graph.name(ofEdge: 0) == fresh.name(ofEdge: 0))
        }
    }

    /// A customization hands back its lanes' pages as it reads them (`releaseWholePages`): only pages wholly inside
    /// the bytes given go (they read zero after); a page shared with bytes outside keeps every byte.
    @Test func releasingWholePagesKeepsThePagesItShares() {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        var bytes = [UInt8](repeating: 0xAB, count: 6 * page)
        bytes.withUnsafeMutableBytes { all in
            let address = Int(bitPattern: all.baseAddress!)
            for (start, end) in [(100, 3 * page + 50), (4 * page + 7, 4 * page + 9), (0, 0)] {
                releaseWholePages(UnsafeRawBufferPointer(rebasing: all[start..<end]))
                for i in [start - 1, start, end - 1, end] where i >= 0 && i < all.count {
                    let pageStart = (address + i) / page * page
                    let inside = pageStart >= address + start && pageStart + page <= address + end
                    #expect(all[i] == (inside ? 0 : 0xAB), "byte \(i) of \(start)..<\(end)")
                }
            }
            // Two whole pages at least lie inside the first range, whatever the array's alignment.
            #expect(all.filter { $0 == 0 }.count >= 2 * page)
        }
    }
}
