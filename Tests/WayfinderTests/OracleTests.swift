import Foundation
import GraphImport
import RoadGraph
import Routing
import Testing

/// A* against the reference Dijkstra on real extracts: 500 random pairs per mode, identical costs required.
@Suite struct OracleTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let sharedData = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/data")

    /// Imports once per extract and test run.
    static func graphs(for input: URL) throws -> (TemporaryDirectory, RoadGraph, RoadGraph) {
        let directory = try TemporaryDirectory()
        _ = try GraphImporter.importGraphs(from: input.path, to: directory.path + "/g")
        return (directory, try RoadGraph(contentsOf: try graphFile(directory.path + "/g", .driving)),
                try RoadGraph(contentsOf: try graphFile(directory.path + "/g", .walking)))
    }

    static func checkRandomPairs(_ graph: RoadGraph, count: Int, seed: UInt64, excluding: ArcClasses = [],
                                 weightsCoverDurations: Bool = true) throws
        -> (routed: Int, unroutable: Int) {
        var state = seed
        func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 11
        }
        let b = graph.metadata.bounds
        var router = Router(graph: graph)
        router.excluding = excluding
        var routed = 0, unroutable = 0
        for _ in 0..<count {
            // Uniform points over the bounding box: snapping, islands and unroutable pairs all get exercised.
            func point() -> Coordinate {
                Coordinate(latitude: b.minLatitude + Double(next() % 10_000) / 10_000 * (b.maxLatitude - b.minLatitude),
                           longitude: b.minLongitude + Double(next() % 10_000) / 10_000 * (b.maxLongitude - b.minLongitude))
            }
            let points = [point(), point()]
            // Points far out at sea get NoSegment; they count as unroutable.
            guard let snaps = try? router.snapWaypoints(points) else { unroutable += 1; continue }
            let sources = graph.sourceEndpoints(snaps[0]), targets = graph.targetEndpoints(snaps[1])
            let oracle = ReferenceDijkstra.cost(in: graph, from: sources, to: targets, excluding: excluding)
            let astar = router.routeLeg(from: snaps[0], to: snaps[1], algorithm: .astar)
            let dijkstra = router.routeLeg(from: snaps[0], to: snaps[1], algorithm: .dijkstra)
            let hierarchy = router.routeLeg(from: snaps[0], to: snaps[1], algorithm: .ch)
            #expect(graph.hasHierarchy)
            #expect(hierarchy?.weight == oracle, "CH vs oracle from \(points[0]) to \(points[1])")
            if let h = hierarchy {
                let stretchMs = h.stretches.reduce(0.0) { $0 + $1.weight * 1000 }
                #expect(abs(stretchMs - Double(h.weight)) < 0.5, "the unpacked CH path costs what the search said")
                #expect(abs(h.stretches.reduce(0.0) { $0 + $1.duration } - h.duration) < 0.001)
                #expect(!weightsCoverDurations || h.duration * 1000 <= Double(h.weight) + 0.5, "penalties only ever add to the weight")
            }
            #expect(astar?.weight == oracle, "A* vs oracle from \(points[0]) to \(points[1])")
            #expect(dijkstra?.weight == oracle, "Dijkstra vs oracle from \(points[0]) to \(points[1])")
            #expect(hierarchy.map { $0.stretches.allSatisfy { $0.classes.intersection(excluding).isEmpty } } ?? true)
            if let leg = astar {
                routed += 1
                let stretchMs = leg.stretches.reduce(0.0) { $0 + $1.weight * 1000 }
                #expect(abs(stretchMs - Double(leg.weight)) < 0.5, "stretches add up to the leg's cost")
                #expect(abs(leg.distance - leg.stretches.reduce(0) { $0 + $1.distance }) < 0.01)
            } else {
                unroutable += 1
            }
        }
        return (routed, unroutable)
    }

    @Test func helsinkiAStarAndCHMatchDijkstra() throws {
        let sample = Self.packageRoot.appendingPathComponent("graphs/helsinki.osm.pbf")
        let (directory, driving, walking) = try Self.graphs(for: sample)
        defer { _ = directory }
        let car = try Self.checkRandomPairs(driving, count: 500, seed: 1)
        let foot = try Self.checkRandomPairs(walking, count: 500, seed: 2)
        #expect(car.routed > 400 && foot.routed > 450, "most random pairs are routable: \(car), \(foot)")
    }

    /// Points on junctions carry every road there as a candidate (`Snap.alternatives`): each leg costs the least
    /// of what the reference Dijkstra finds from each candidate on its own to each on its own, on every algorithm.
    @Test func junctionPointsCostTheirCheapestCandidate() throws {
        let sample = Self.packageRoot.appendingPathComponent("graphs/helsinki.osm.pbf")
        let (directory, driving, _) = try Self.graphs(for: sample)
        defer { _ = directory }
        let junctions = (0..<UInt32(driving.vertexLatitudes.count)).filter { driving.edges(atVertex: $0).count >= 3 }
        var router = Router(graph: driving)
        var random = SplitMix64(seed: 3)
        var withAlternatives = 0, routed = 0
        func alone(_ snap: Snap) -> [Snap] {
            snap.candidates.map { var c = $0; c.alternatives = []; return c }
        }
        for _ in 0..<300 {
            let points = (0..<2).map { _ -> Coordinate in
                let v = Int(junctions[Int(random.next() % UInt64(junctions.count))])
                return Coordinate(fixedLatitude: driving.vertexLatitudes[v], fixedLongitude: driving.vertexLongitudes[v])
            }
            guard let snaps = try? router.snapWaypoints(points) else { continue }
            if !snaps[0].alternatives.isEmpty || !snaps[1].alternatives.isEmpty { withAlternatives += 1 }
            var least: UInt64?
            for s in alone(snaps[0]) {
                for t in alone(snaps[1]) {
                    guard let c = ReferenceDijkstra.cost(in: driving, from: driving.sourceEndpoints(s), to: driving.targetEndpoints(t))
                    else { continue }
                    least = min(least ?? c, c)
                }
            }
            for algorithm in [SearchAlgorithm.ch, .astar, .dijkstra] {
                let leg = router.routeLeg(from: snaps[0], to: snaps[1], algorithm: algorithm)
                #expect(leg.map { UInt64($0.weight) } == least, "\(algorithm) from \(points[0]) to \(points[1])")
                if let leg {
                    let stretchMs = leg.stretches.reduce(0.0) { $0 + $1.weight * 1000 }
                    #expect(abs(stretchMs - Double(leg.weight)) < 0.5, "the leg's pieces cost what its search did")
                }
            }
            if least != nil { routed += 1 }
        }
        #expect(withAlternatives > 250 && routed > 250, "\(withAlternatives) pairs with alternatives, \(routed) routed")
    }

    /// Cycling: a turn cost at every junction, pushed directions and trains; its hierarchy is over arcs. CH, A* and
    /// Dijkstra as the oracle, on the sample and on Porto.
    @Test func cyclingAStarAndCHMatchDijkstra() throws {
        var extracts = [Self.packageRoot.appendingPathComponent("graphs/helsinki.osm.pbf")]
        if Available.porto { extracts.append(Self.sharedData.appendingPathComponent("r5-porto_portugal.osm.pbf")) }
        for (i, extract) in extracts.enumerated() {
            let directory = try TemporaryDirectory()
            _ = try GraphImporter.importGraphs(from: extract.path, to: directory.path + "/g", modes: [.cycling])
            let cycling = try RoadGraph(contentsOf: try graphFile(directory.path + "/g", .cycling))
            let bike = try Self.checkRandomPairs(cycling, count: 500, seed: UInt64(5 + i))
            #expect(bike.routed > 400, "\(extract.lastPathComponent): \(bike)")
        }
    }

    /// Walking's hierarchy is over vertices (driving's, with turn costs and restrictions, over arcs). It cannot
    /// forbid U-turns, which only a point pinned to one direction of its road (a bearing, a via point passed
    /// straight on) needs: such legs and cells go to the arc graph, and all agree with the oracle, ferries
    /// excluded or not.
    @Test func walkingHierarchyOverVerticesMatchesDijkstraWithPinnedDirections() throws {
        let sample = Self.packageRoot.appendingPathComponent("graphs/helsinki.osm.pbf")
        let (directory, driving, walking) = try Self.graphs(for: sample)
        defer { _ = directory }
        #expect(walking.hierarchyOverVertices && walking.hasHierarchy && walking.chNode.count == walking.vertexCount)
        #expect(!driving.hierarchyOverVertices && driving.hasHierarchy)
        #expect(walking.chVertexCost.contains(noIndex), "the sample has barriers walkers cannot pass")
        let ferries = try Self.checkRandomPairs(walking, count: 300, seed: 11, excluding: .ferry)
        #expect(ferries.routed > 250, "\(ferries)")
        var random = SplitMix64(seed: 12)
        let b = walking.metadata.bounds
        func point() -> Coordinate {
            Coordinate(latitude: b.minLatitude + Double(random.next() % 10_000) / 10_000 * (b.maxLatitude - b.minLatitude),
                       longitude: b.minLongitude + Double(random.next() % 10_000) / 10_000 * (b.maxLongitude - b.minLongitude))
        }
        func pinned(_ snap: Snap) -> Snap {
            var s = snap
            if random.next() % 2 == 0 { s.allowsForward = false } else { s.allowsBackward = false }
            return s.allowsForward || s.allowsBackward ? s : snap
        }
        var router = Router(graph: walking)
        var compared = 0
        var snaps: [Snap] = []
        for k in 0..<300 {
            guard let pair = try? router.snapWaypoints([point(), point()]) else { continue }
            let (from, to) = (pinned(pair[0]), pinned(pair[1]))
            snaps.append(k % 2 == 0 ? from : pair[0])
            let oracle = ReferenceDijkstra.cost(in: walking, from: walking.sourceEndpoints(from), to: walking.targetEndpoints(to))
            let hierarchy = router.routeLeg(from: from, to: to, algorithm: .ch)
            #expect(hierarchy?.weight == oracle, "pinned \(from.location) → \(to.location)")
            if oracle != nil { compared += 1 }
        }
        #expect(compared > 200)
        // Tables: pinned and free points mixed, cell for cell against one plain search per source.
        let mixed = Array(snaps.prefix(40))
        let hierarchy = HierarchyMatrix(graph: walking, targets: mixed).rows(for: mixed, threads: 2)
        let plain = TableSearch.rows(in: walking, sources: mixed, targets: mixed, threads: 2)
        #expect(zip(hierarchy.joined(), plain.joined()).allSatisfy { $0?.weight == $1?.weight && $0?.duration == $1?.duration })
    }

    @Test(.enabled(if: Available.porto, "needs ../shared/data/r5-porto_portugal.osm.pbf"))
    func portoAStarAndCHMatchDijkstra() throws {
        let porto = Self.sharedData.appendingPathComponent("r5-porto_portugal.osm.pbf")
        let (directory, driving, walking) = try Self.graphs(for: porto)
        defer { _ = directory }
        let car = try Self.checkRandomPairs(driving, count: 500, seed: 3)
        let foot = try Self.checkRandomPairs(walking, count: 500, seed: 4)
        #expect(car.routed > 400 && foot.routed > 400, "most random pairs are routable: \(car), \(foot)")
    }

    /// Every exclusion set on Porto (it has tolls, motorways and no ferries): the one hierarchy gives the oracle's
    /// cost for each, on routes and on table cells.
    @Test(.enabled(if: Available.porto, "needs ../shared/data/r5-porto_portugal.osm.pbf"))
    func portoExclusionsMatchDijkstra() throws {
        let porto = Self.sharedData.appendingPathComponent("r5-porto_portugal.osm.pbf")
        let (directory, driving, _) = try Self.graphs(for: porto)
        defer { _ = directory }
        #expect((0..<UInt32(driving.arcCount)).contains { driving.classes(ofArc: $0).contains(.toll) }, "Porto has tolls")
        for (k, excluding) in [ArcClasses.toll, .motorway, [.toll, .motorway], [.toll, .motorway, .ferry]].enumerated() {
            let result = try Self.checkRandomPairs(driving, count: 150, seed: 20 + UInt64(k), excluding: excluding)
            #expect(result.routed > 100, "\(excluding.names): \(result)")
            // Tables: the hierarchy's cells equal one Dijkstra per source, both avoiding the classes.
            let cells = Self.tableCells(driving, excluding: excluding, seed: 40 + UInt64(k))
            // The weights are what both minimise; of two paths that weigh the same, each may take either, so
            // durations may part where weights tie (rarely: some roads weigh more than their time).
            #expect(cells.allSatisfy { $0?.weight == $1?.weight }, "\(excluding.names)")
            let sameDuration = cells.count { $0?.duration == $1?.duration }
            #expect(sameDuration * 100 >= cells.count * 99, "\(excluding.names): \(sameDuration) of \(cells.count) durations")
        }
    }

    /// A table of 30 random points (snapped avoiding `excluding`) from the hierarchy's buckets and from one plain
    /// search per source, cell by cell.
    static func tableCells(_ graph: RoadGraph, excluding: ArcClasses, seed: UInt64) -> [(TableCell?, TableCell?)] {
        let b = graph.metadata.bounds
        var random = SplitMix64(seed: seed)
        let points = (0..<30).map { _ in
            Coordinate(latitude: b.minLatitude + Double(random.next() % 10_000) / 10_000 * (b.maxLatitude - b.minLatitude),
                       longitude: b.minLongitude + Double(random.next() % 10_000) / 10_000 * (b.maxLongitude - b.minLongitude))
        }
        let snaps = graph.snapPoints(points, maxDistance: 5000,
                                     filters: points.map { _ in WaypointFilter(excluding: excluding) }).compactMap { $0 }
        let hierarchy = HierarchyMatrix(graph: graph, targets: snaps, excluding: excluding).rows(for: snaps, threads: 2)
        let plain = TableSearch.rows(in: graph, sources: snaps, targets: snaps, threads: 2, excluding: excluding)
        return Array(zip(hierarchy.joined(), plain.joined()))
    }
}
