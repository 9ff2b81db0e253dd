import Foundation
import Isochrones
import RoadGraph
import Routing
import Testing

/// Isochrones against the oracle: every main-network vertex strictly inside a contour is reachable within its
/// limit (ReferenceDijkstra's one-to-all, written apart from the search), and nearly every reachable one is inside.
@Suite struct IsochroneTests {
    /// Holes go to the smallest ring around them through a grid of the rings' boxes (a damaged graph's contour
    /// had 27,000 islands and 27,000 holes, and testing each hole against each ring took minutes): the grid must
    /// find exactly what testing every ring in order finds.
    @Test func ringIndexFindsWhatAScanFinds() {
        var random = SplitMix64(seed: 5)
        func uniform() -> Double { Double(random.next() % 1_000_000) / 1_000 }
        var rings: [[(Double, Double)]] = []
        var squares: [(x: Double, y: Double, size: Double)] = []
        for k in 0..<3000 {
            // Mostly small squares, some large ones that span many cells, counterclockwise and closed.
            let size = k % 100 == 0 ? 300 + uniform() / 2 : 1 + uniform() / 100
            let (x, y) = (uniform(), uniform())
            squares.append((x, y, size))
            rings.append([(x, y), (x + size, y), (x + size, y + size), (x, y + size), (x, y)])
        }
        let index = RingIndex(rings)
        var found = 0
        for _ in 0..<5000 {
            let p = (uniform() * 1.2 - 100, uniform() * 1.2 - 100)
            // The squares' own bounds (random points never fall on an edge).
            let scan = squares.firstIndex { p.0 > $0.x && p.0 < $0.x + $0.size && p.1 > $0.y && p.1 < $0.y + $0.size }
            #expect(index.first(containing: p) == scan, "\(p)")
            if scan != nil { found += 1 }
        }
        #expect(found > 1000, "most points fall in some square: \(found)")
        #expect(RingIndex([]).first(containing: (0, 0)) == nil)
    }

    /// Polygons of one contour, with their segments in latitude bands so that a point's ray crosses few of them.
    struct PolygonIndex {
        struct Segment { var a: Coordinate, b: Coordinate }
        let band = 0.0005  // degrees of latitude, about 55 m
        var bands: [Int: [Segment]] = [:]
        let metresPerDegree = 6_371_008.8 * Double.pi / 180

        init(_ polygons: [[[Coordinate]]]) {
            for polygon in polygons {
                for ring in polygon {
                    for k in 0..<(ring.count - 1) {
                        let s = Segment(a: ring[k], b: ring[k + 1])
                        let low = Int((min(s.a.latitude, s.b.latitude) / band).rounded(.down))
                        let high = Int((max(s.a.latitude, s.b.latitude) / band).rounded(.down))
                        for i in low...high { bands[i, default: []].append(s) }
                    }
                }
            }
        }

        /// Inside (crossings of a ray eastwards, holes included), or on the border within `tolerance` metres.
        func locate(_ p: Coordinate, tolerance: Double = 0.01) -> (inside: Bool, onBorder: Bool) {
            let segments = bands[Int((p.latitude / band).rounded(.down))] ?? []
            var inside = false
            let kx = metresPerDegree * cos(p.latitude * Double.pi / 180), ky = metresPerDegree
            var onBorder = false
            for s in segments {
                if (s.a.latitude > p.latitude) != (s.b.latitude > p.latitude) {
                    let x = s.a.longitude + (p.latitude - s.a.latitude) / (s.b.latitude - s.a.latitude) * (s.b.longitude - s.a.longitude)
                    if p.longitude < x { inside.toggle() }
                }
                // Distance to the segment, in the plane of metres.
                let ax = (s.a.longitude - p.longitude) * kx, ay = (s.a.latitude - p.latitude) * ky
                let bx = (s.b.longitude - p.longitude) * kx, by = (s.b.latitude - p.latitude) * ky
                let dx = bx - ax, dy = by - ay
                let t = dx == 0 && dy == 0 ? 0 : max(0, min(1, -(ax * dx + ay * dy) / (dx * dx + dy * dy)))
                let cx = ax + t * dx, cy = ay + t * dy
                if (cx * cx + cy * cy).squareRoot() <= tolerance { onBorder = true }
            }
            return (inside, onBorder)
        }
    }

    struct Finding: CustomStringConvertible {
        var insideChecked = 0, reachable = 0, reachableOutside = 0
        var wrong: [String] = []
        var description: String {
            "\(insideChecked) vertices inside, \(reachable) reachable of which \(reachableOutside) outside, \(wrong.count) wrong"
        }
    }

    static func onMainNetwork(_ graph: RoadGraph, _ v: UInt32) -> Bool {
        graph.edges(atVertex: v).contains { graph.isMainNetwork(edge: $0.edge) }
    }

    /// Builds the isochrone (exact: no denoising, no simplification) and checks every main-network vertex.
    static func check(_ graph: RoadGraph, from point: Coordinate, metric: ReachMetric, limits: [Double],
                      resolution: Double? = nil) throws -> Finding {
        let candidates = try #require(graph.snap(point, maxDistance: 5000))
        let origin = candidates.mainNetwork ?? candidates.nearest
        var builder = IsochroneBuilder(graph: graph)
        var options = IsochroneOptions(metric: metric, limits: limits,
                                       resolution: resolution ?? IsochroneOptions.defaultResolution(for: graph.mode))
        options.denoise = 0
        let isochrone = try builder.build(from: origin, options: options)
        let unit = metric == .duration ? 1000.0 : 100.0
        let oracle = ReferenceDijkstra.vertexCosts(in: graph, from: origin, metric: metric,
                                                   limit: UInt32(limits.max()! * unit))
        var finding = Finding()
        for contour in isochrone.contours {
            let index = PolygonIndex(contour.polygons)
            let limit = contour.limit * unit
            for v in 0..<UInt32(graph.vertexCount) where onMainNetwork(graph, v) {
                let c = graph.vertexCoordinate(v)
                let cost = oracle[v].map(Double.init)
                let (inside, onBorder) = index.locate(c)
                let reachable = cost.map { $0 <= limit } ?? false
                if reachable {
                    finding.reachable += 1
                    if !inside && !onBorder { finding.reachableOutside += 1 }
                }
                guard inside && !onBorder else { continue }
                finding.insideChecked += 1
                if !reachable {
                    finding.wrong.append("vertex \(v) (\(c)) inside the \(contour.limit) contour costs \(cost.map { "\($0 / unit)" } ?? "unreachable")")
                }
            }
        }
        return finding
    }

    @Test func helsinkiContoursHoldOnlyReachableVertices() throws {
        let sample = OracleTests.packageRoot.appendingPathComponent("graphs/helsinki.osm.pbf")
        let (directory, driving, walking) = try OracleTests.graphs(for: sample)
        defer { _ = directory }
        var random = SplitMix64(seed: 17)
        for graph in [driving, walking] {
            let b = graph.metadata.bounds
            for _ in 0..<3 {
                let point = Coordinate(latitude: b.minLatitude + Double(random.next() % 1000) / 1000 * (b.maxLatitude - b.minLatitude),
                                       longitude: b.minLongitude + Double(random.next() % 1000) / 1000 * (b.maxLongitude - b.minLongitude))
                let limits = graph.mode == .walking ? [300.0, 600] : [120.0, 240]
                let finding = try Self.check(graph, from: point, metric: .duration, limits: limits)
                #expect(finding.wrong.isEmpty, "\(graph.mode) from \(point): \(finding.wrong.prefix(3))")
                #expect(finding.insideChecked > 20, "\(graph.mode) from \(point): \(finding)")
                #expect(Double(finding.reachableOutside) <= 0.05 * Double(finding.reachable),
                        "\(graph.mode) from \(point): \(finding)")
            }
            // By distance too.
            let finding = try Self.check(graph, from: Coordinate(latitude: 60.1699, longitude: 24.9384), metric: .distance,
                                         limits: [800, 1500])
            #expect(finding.wrong.isEmpty, "\(finding.wrong.prefix(3))")
            #expect(Double(finding.reachableOutside) <= 0.05 * Double(finding.reachable), "\(finding)")
        }
    }

    @Test(.enabled(if: Available.porto, "needs ../shared/data/r5-porto_portugal.osm.pbf"))
    func portoContoursHoldOnlyReachableVertices() throws {
        let porto = OracleTests.sharedData.appendingPathComponent("r5-porto_portugal.osm.pbf")
        let (directory, driving, walking) = try OracleTests.graphs(for: porto)
        defer { _ = directory }
        for (graph, limits) in [(driving, [300.0, 600]), (walking, [600.0, 900])] {
            for point in [Coordinate(latitude: 41.1496, longitude: -8.6109), Coordinate(latitude: 41.1780, longitude: -8.5980)] {
                let finding = try Self.check(graph, from: point, metric: .duration, limits: limits)
                #expect(finding.wrong.isEmpty, "\(graph.mode) from \(point): \(finding.wrong.prefix(3))")
                #expect(finding.insideChecked > 100, "\(graph.mode) from \(point): \(finding)")
                print("isochrone check, \(graph.mode) from \(point): \(finding)")
                #expect(Double(finding.reachableOutside) <= 0.05 * Double(finding.reachable), "\(graph.mode) from \(point): \(finding)")
            }
        }
    }

    /// A walker's contour does not run out along a motorway, nor a driver's along a footway: only roads the mode
    /// may use carry ground into a contour.
    @Test func roadsTheModeCannotUseDoNotLeak() throws {
        let map = TestMap("""
            a    b    c                                                  m

            d    e    f

            g    h    i                                                  n
            """, gridSize: 20)
        for row in ["abc", "def", "ghi", "adg", "beh", "cfi"] { map.way(row, ["highway": "residential"]) }
        map.way("cm", ["highway": "motorway", "oneway": "no"])
        map.way("in", ["highway": "footway"])
        let (driving, walking) = try map.build()
        let start = map.position("e")
        for (graph, far) in [(walking, map.position(between: "c", "m", at: 0.6)), (driving, map.position(between: "i", "n", at: 0.6))] {
            var builder = IsochroneBuilder(graph: graph)
            var options = IsochroneOptions(metric: .duration, limits: [3600], resolution: 100)
            options.denoise = 0
            let origin = try #require(graph.snap(start)?.nearest)
            let isochrone = try builder.build(from: origin, options: options)
            let index = PolygonIndex(isochrone.contours[0].polygons)
            #expect(index.locate(start).inside, "\(graph.mode): the start is inside")
            #expect(!index.locate(far).inside, "\(graph.mode): the road it may not use carries no ground")
        }
    }

    @Test func outerRingsRunCounterclockwiseAndHolesClockwise() throws {
        // Streets 40 m apart east-west and 20 m north-south, but for a 120 × 60 m block in the middle: at a
        // resolution of 50 m the small blocks are covered and the large one is a hole (a notch, were it on the edge).
        let map = TestMap("""
            a   b   c   d   e   f

            g   h   i   j   k   l

            m   n           o   p

            q   r           s   t

            u   v   w   x   y   z

            A   B   C   D   E   F
            """, gridSize: 10)
        for row in ["abcdef", "ghijkl", "mn", "op", "qr", "st", "uvwxyz", "ABCDEF"] {
            map.way(row, ["highway": "residential"])
        }
        for column in ["agmquA", "bhnrvB", "ci", "wC", "dj", "xD", "ekosyE", "flptzF"] { map.way(column, ["highway": "residential"]) }
        let (_, walking) = try map.build()
        var builder = IsochroneBuilder(graph: walking)
        var options = IsochroneOptions(metric: .duration, limits: [3600], resolution: 50)
        options.denoise = 0
        let isochrone = try builder.build(from: try #require(walking.snap(map.position("a"))?.nearest), options: options)
        let polygons = isochrone.contours[0].polygons
        #expect(!polygons.isEmpty)
        func signedArea(_ ring: [Coordinate]) -> Double {
            zip(ring, ring.dropFirst()).reduce(0) { $0 + $1.0.longitude * $1.1.latitude - $1.1.longitude * $1.0.latitude } / 2
        }
        for polygon in polygons {
            #expect(polygon.allSatisfy { $0.first == $0.last }, "rings are closed")
            #expect(signedArea(polygon[0]) > 0, "outer ring counterclockwise")
            for hole in polygon.dropFirst() { #expect(signedArea(hole) < 0, "hole clockwise") }
        }
        #expect(polygons.count == 1 && polygons[0].count == 2, "one polygon with one hole: \(polygons.map(\.count))")
        let index = PolygonIndex(polygons)
        #expect(!index.locate(map.position(between: "i", "x", at: 0.5)).inside, "the empty square is out")
        #expect(index.locate(map.position(between: "a", "h", at: 0.5)).inside, "a small block is in")
    }
}
