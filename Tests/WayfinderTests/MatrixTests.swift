import Foundation
import RoadGraph
import RouteFormats
import Routing
import Testing

/// Tables: the hierarchy's bucket matrix against one Dijkstra per source and against the reference oracle.
@Suite struct MatrixTests {
    func randomSnaps(_ graph: RoadGraph, count: Int, seed: UInt64) throws -> [Snap] {
        var state = seed
        let main = (0..<UInt32(graph.arcCount)).filter { graph.isMainNetwork(arc: $0) && graph.arcBase[Int($0)] == $0 }
        let points = (0..<count).map { _ -> Coordinate in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let arc = main[Int((state >> 20) % UInt64(main.count))]
            return graph.arcPoints(arc, from: 0, to: Double((state >> 8) % 100) / 100).last!
        }
        return try Router(graph: graph).snapWaypoints(points)
    }

    func compare(_ graph: RoadGraph, sources: [Snap], targets: [Snap], oracleCells: Int) {
        let hierarchy = HierarchyMatrix(graph: graph, targets: targets).rows(for: sources, threads: 2)
        var dijkstra = TableSearch()
        let baseline = dijkstra.table(in: graph, sources: sources, targets: targets)
        var sameDistance = 0, cells = 0
        for i in sources.indices {
            for j in targets.indices {
                cells += 1
                #expect(hierarchy[i][j]?.weight == baseline[i][j]?.weight, "cell \(i),\(j)")
                if let a = hierarchy[i][j], let b = baseline[i][j], abs(a.distance - b.distance) < 1 { sameDistance += 1 }
                if i * targets.count + j < oracleCells {
                    let oracle = ReferenceDijkstra.cost(in: graph, from: graph.sourceEndpoints(sources[i]),
                                                        to: graph.targetEndpoints(targets[j]))
                    #expect(hierarchy[i][j].map { UInt64($0.weight) } == oracle, "cell \(i),\(j) against the oracle")
                }
            }
        }
        // Equal-time paths of different length may exist; they are rare.
        #expect(Double(sameDistance) >= 0.98 * Double(baseline.joined().compactMap { $0 }.count))
    }

    @Test func helsinkiMatrixMatchesDijkstra() throws {
        let sample = OracleTests.packageRoot.appendingPathComponent("graphs/helsinki.osm.pbf")
        let (directory, driving, walking) = try OracleTests.graphs(for: sample)
        defer { _ = directory }
        for graph in [driving, walking] {
            let snaps = try randomSnaps(graph, count: 40, seed: 5)
            compare(graph, sources: Array(snaps[0..<25]), targets: Array(snaps[15..<40]), oracleCells: 150)
        }
    }

    @Test(.enabled(if: Available.porto, "needs ../shared/data/r5-porto_portugal.osm.pbf"))
    func portoMatrixMatchesDijkstra() throws {
        let porto = OracleTests.sharedData.appendingPathComponent("r5-porto_portugal.osm.pbf")
        let (directory, driving, _) = try OracleTests.graphs(for: porto)
        defer { _ = directory }
        let snaps = try randomSnaps(driving, count: 60, seed: 9)
        compare(driving, sources: Array(snaps[0..<30]), targets: Array(snaps[30..<60]), oracleCells: 60)
    }

    @Test func sameArcCellsIncludingTargetsBehindTheSource() throws {
        let map = TestMap("a          b\n\nc          d")
        map.way("ab", ["highway": "residential", "oneway": "yes"])
        map.way("acdb", ["highway": "residential"])
        let graph = try map.build().driving
        let points = [0.2, 0.5, 0.8].map { map.position(between: "a", "b", at: $0) }
        let snaps = try Router(graph: graph).snapWaypoints(points)
        compare(graph, sources: snaps, targets: snaps, oracleCells: 9)
    }
}
