import CDelaunay
import Foundation
import RoadGraph
import Routing

/// What an isochrone asks: contours of travel time or of distance from one point.
public struct IsochroneOptions: Sendable {
    public var metric: ReachMetric
    /// The contours' limits: seconds for time, metres for distance.
    public var limits: [Double]
    /// The longest side of a triangle that still counts as covered ground, metres: what keeps a contour from
    /// spanning fields, rivers and the space between far-apart roads. Roads are sampled every half of it.
    public var resolution: Double
    /// Contours smaller than this share of the largest one at the same limit are dropped (Mapbox's and Valhalla's
    /// `denoise`; 1 keeps the largest only, 0 keeps every one).
    public var denoise: Double = 1
    /// Douglas–Peucker tolerance applied to each ring, metres (0: the exact contour).
    public var generalize: Double = 0
    public var excluding: ArcClasses = []
    /// The most points the triangulation may take: past it the isochrone is refused (`IsochroneError.tooBig`)
    /// before any is triangulated. Points grow with the reached area over the resolution squared.
    public var maxPoints = Int.max

    public init(metric: ReachMetric, limits: [Double], resolution: Double) {
        self.metric = metric
        self.limits = limits
        self.resolution = resolution
    }

    /// Default resolutions: finer on foot, where streets are denser and a contour is a few hundred metres across.
    public static func defaultResolution(for mode: TravelMode) -> Double { mode == .walking ? 150 : 300 }
}

public enum IsochroneError: Error, Equatable {
    /// More points to triangulate than `IsochroneOptions.maxPoints` (the count when the sampling stopped).
    case tooBig(points: Int)
    /// The request's CPU budget ran out (see `WorkBudget`).
    case outOfTime
}

/// One contour: the ground reachable within `limit`, as polygons (each an outer ring, then its holes; rings
/// closed, outer rings counterclockwise and holes clockwise, as RFC 7946 asks).
public struct Contour: Sendable {
    public var limit: Double
    public var polygons: [[[Coordinate]]]
}

public struct Isochrone: Sendable {
    public var origin: Snap
    public var metric: ReachMetric
    public var contours: [Contour]
    /// Work done, for benchmarks: arcs settled, points triangulated, triangles kept.
    public var settled: Int, points: Int, triangles: Int
}

/// Contours from a one-to-all search. The search's costs are sampled on every road near the reached area (each
/// vertex with its exact cost, points between every half resolution by the cost along the road, roads beyond the
/// limit or not reached at a cost above every limit) and the samples are triangulated (Delaunay, by CGAL).
/// Triangles longer than the resolution on a side are dropped: no ground far from a road counts. A contour is
/// then the part of the triangles where the linear interpolation of the costs is within its limit.
///
/// So a graph vertex inside a contour is reachable within its limit, exactly: every vertex near the area is a
/// corner of the triangulation with its own cost, and inside a triangle no point is below the cheapest of its
/// corners. A reachable vertex lies outside (or on the border) only where every triangle at it was dropped for
/// being longer than the resolution, or where a denoised contour went with its small polygon.
public struct IsochroneBuilder {
    public let graph: RoadGraph
    private var search = ReachSearch()
    private var copies: [UInt32: [UInt32]]?

    public init(graph: RoadGraph) { self.graph = graph }

    public mutating func build(from origin: Snap, options: IsochroneOptions) throws -> Isochrone {
        let unit = options.metric == .duration ? 1000.0 : 100.0  // milliseconds / centimetres per second / metre
        let limits = options.limits.map { $0 * unit }
        let top = limits.max() ?? 0
        // Beyond the top limit too, so a contour's edge is placed between real costs rather than against the
        // stand-in for "not reached".
        let searchLimit = UInt32(min(Double(UInt32.max / 2), (top * 2).rounded(.up)))
        search.run(in: graph, from: graph.reachStarts(origin), metric: options.metric, limit: searchLimit,
                   excluding: options.excluding)
        if WorkBudget.wasExceeded || WorkBudget.exceeded() { throw IsochroneError.outOfTime }
        // Not reached at all (an island, a road beyond twice the top limit): no cost to interpolate towards.
        let unreached = Double.infinity
        if copies == nil { copies = graph.arcCopies() }

        // Vertex costs: the cheapest arrival over the arcs that end there.
        var vertexCost: [UInt32: Double] = [:]
        var bounds = BoundingBox.empty
        bounds.extend(origin.location)
        for arc in search.touched {
            guard let c = search.costAtHead(arc) else { continue }
            let v = graph.arcHead[Int(arc)]
            if Double(c) < vertexCost[v] ?? .infinity { vertexCost[v] = Double(c) }
            bounds.extend(graph.vertexCoordinate(v))
        }
        let projection = LocalProjection(origin: origin.location)
        let margin = options.resolution
        let (minX, minY) = projection.project(Coordinate(latitude: bounds.minLatitude, longitude: bounds.minLongitude))
        let (maxX, maxY) = projection.project(Coordinate(latitude: bounds.maxLatitude, longitude: bounds.maxLongitude))
        func inBox(_ p: (Double, Double)) -> Bool {
            p.0 >= minX - margin && p.0 <= maxX + margin && p.1 >= minY - margin && p.1 <= maxY + margin
        }
        let far = max(20_000, 50 * margin)
        func nearBox(_ p: (Double, Double)) -> Bool {
            p.0 >= minX - far && p.0 <= maxX + far && p.1 >= minY - far && p.1 <= maxY + far
        }

        // Islands (roads not connected to the main network, which routes snap away from too) are left out unless
        // reached: a footway mapped apart from the streets around it should not punch a hole in a contour.
        func onMainNetwork(_ v: UInt32) -> Bool {
            for k in Int(graph.vertexEdgeStart[Int(v)])..<Int(graph.vertexEdgeStart[Int(v) + 1])
            where graph.isMainNetwork(edge: Int(graph.vertexEdges[k] >> 1)) { return true }
            return false
        }
        func isReached(_ arc: UInt32) -> Bool { search.costAtHead(arc) != nil || search.costAtTail(arc) != nil }
        var samples = Samples()
        samples.add(projection.project(origin.location), 0)
        let spacing = options.resolution / 2
        var xs: [Double] = [], ys: [Double] = [], cumulative: [Double] = []
        var arcs: [(arc: UInt32, reversed: Bool)] = []
        var edgeSamples: [(point: (Double, Double), cost: Double)] = []
        for e in 0..<graph.edgeCount {
            if e & 0x3FF == 0 {
                if samples.count > options.maxPoints { throw IsochroneError.tooBig(points: samples.count) }
                if WorkBudget.exceeded() { throw IsochroneError.outOfTime }
            }
            let shape = graph.shapeRange(ofEdge: e)
            let p0 = projection.project(graph.shapePoint(shape.lowerBound))
            let p1 = projection.project(graph.shapePoint(shape.upperBound - 1))
            guard inBox(p0) || inBox(p1) else { continue }
            // The edge's arcs, via-way copies included: a point's cost is the cheapest over them.
            arcs.removeAll(keepingCapacity: true)
            for (base, reversed) in [(graph.edgeForwardArc[e], false), (graph.edgeBackwardArc[e], true)] where base != noIndex {
                arcs.append((base, reversed))
                if let more = copies?[base] { for copy in more { arcs.append((copy, reversed)) } }
            }
            if !graph.isMainNetwork(edge: e) && !arcs.contains(where: { isReached($0.arc) }) { continue }
            // Points every `spacing` metres along the edge (in the plane), its ends excluded: they are vertices.
            xs.removeAll(keepingCapacity: true); ys.removeAll(keepingCapacity: true)
            cumulative.removeAll(keepingCapacity: true)
            for k in shape {
                let p = projection.project(graph.shapePoint(k))
                if let x = xs.last, let y = ys.last {
                    cumulative.append(cumulative[cumulative.count - 1] + ((p.0 - x) * (p.0 - x) + (p.1 - y) * (p.1 - y)).squareRoot())
                } else {
                    cumulative.append(0)
                }
                xs.append(p.0)
                ys.append(p.1)
            }
            let length = cumulative[cumulative.count - 1]
            // At most 1,000 pieces: real edges of up to 500 resolutions (50 km at 100 m) are sampled as before, and a
            // damaged graph's absurd edges cannot flood the triangulation with points on one line (quadratic in CGAL).
            let pieces = min(1_000, max(1, Int((length / spacing).rounded(.up))))
            var segment = 1
            // Far outside the box only reached points and their unreached neighbours along the edge are kept: the
            // rest share no kept triangle with a reached point, and a damaged graph's edge thousands of kilometres
            // long gave the triangulation a quarter of a million points on one line (quadratic in CGAL). Far: so
            // far that a real graph's isochrones are as before (its long edges are ferries).
            edgeSamples.removeAll(keepingCapacity: true)
            for k in 1..<pieces {
                let s = length * Double(k) / Double(pieces)
                while segment < cumulative.count - 1 && cumulative[segment] < s { segment += 1 }
                let span = cumulative[segment] - cumulative[segment - 1]
                let t = span > 0 ? (s - cumulative[segment - 1]) / span : 0
                let point = (xs[segment - 1] + (xs[segment] - xs[segment - 1]) * t, ys[segment - 1] + (ys[segment] - ys[segment - 1]) * t)
                var cost = unreached
                let along = s / max(length, 1e-9)
                for (arc, reversed) in arcs {
                    if let c = search.cost(arc: arc, fraction: reversed ? 1 - along : along, in: graph) { cost = min(cost, Double(c)) }
                }
                edgeSamples.append((point, cost))
            }
            for k in edgeSamples.indices {
                func reached(_ j: Int) -> Bool { j >= 0 && j < edgeSamples.count && edgeSamples[j].cost < unreached }
                if nearBox(edgeSamples[k].point) || reached(k) || reached(k - 1) || reached(k + 1) {
                    samples.add(edgeSamples[k].point, edgeSamples[k].cost)
                }
            }
        }
        // Every vertex near the area, reached or not, so that the unreached hold the contours back.
        for v in 0..<UInt32(graph.vertexCount) {
            let p = projection.project(graph.vertexCoordinate(v))
            guard inBox(p) else { continue }
            let cost = vertexCost[v]
            if cost == nil && !onMainNetwork(v) { continue }
            samples.add(p, cost ?? unreached)
        }
        // Checked before the triangulation, which cannot be stopped once begun.
        if samples.count > options.maxPoints { throw IsochroneError.tooBig(points: samples.count) }
        if WorkBudget.exceeded() { throw IsochroneError.outOfTime }
        let mesh = Mesh(samples: samples, maxEdge: options.resolution)
        var contours: [Contour] = []
        for (k, limit) in limits.enumerated() {
            if WorkBudget.exceeded() { throw IsochroneError.outOfTime }
            var polygons = mesh.contour(at: limit)
            if options.denoise > 0, let largest = polygons.map({ abs(Mesh.area($0[0])) }).max() {
                polygons.removeAll { abs(Mesh.area($0[0])) < options.denoise * largest }
            }
            let rings = polygons.map { polygon in
                polygon.map { ring -> [Coordinate] in
                    let line = ring.map(projection.unproject)
                    return options.generalize > 0 ? Self.simplifyRing(line, tolerance: options.generalize) : line
                }
            }
            contours.append(Contour(limit: options.limits[k], polygons: rings))
        }
        return Isochrone(origin: origin, metric: options.metric, contours: contours, settled: search.settled,
                         points: samples.count, triangles: mesh.triangleCount)
    }

    /// Douglas–Peucker on a closed ring (kept closed, and at least a triangle). Where the tolerance would leave
    /// less than a triangle, the ring's simplest form is kept: the first point, the one farthest from it, and the
    /// one farthest from the line between those two, in ring order. (Keeping the whole ring then made a larger
    /// tolerance give more points than a smaller one.)
    static func simplifyRing(_ ring: [Coordinate], tolerance: Double) -> [Coordinate] {
        guard ring.count > 4 else { return ring }
        // Split at the point farthest from the first, so that both halves are open lines.
        let far = ring.indices.max { Geo.distance(ring[0], ring[$0]) < Geo.distance(ring[0], ring[$1]) } ?? ring.count / 2
        let first = Geo.douglasPeucker(Array(ring[0...far]), tolerance: tolerance)
        let second = Geo.douglasPeucker(Array(ring[far...]), tolerance: tolerance)
        let result = first + second.dropFirst()
        if result.count >= 4 { return result }
        let projection = LocalProjection(origin: ring[0])
        let a = projection.project(ring[0]), b = projection.project(ring[far])
        func offLine(_ k: Int) -> Double {
            let p = projection.project(ring[k])
            return abs((b.0 - a.0) * (p.1 - a.1) - (b.1 - a.1) * (p.0 - a.0))
        }
        let candidates = ring.indices.dropFirst().dropLast().filter { $0 != far }
        guard let third = candidates.max(by: { offLine($0) < offLine($1) }), offLine(third) > 0 else { return ring }
        return [0, far, third].sorted().map { ring[$0] } + [ring[0]]
    }
}

/// Metres east and north of an origin (equirectangular): exact enough over an isochrone's few tens of kilometres,
/// and what the triangulation and the contours work in.
struct LocalProjection {
    let origin: Coordinate
    let metresPerDegreeLatitude = 6_371_008.8 * Double.pi / 180
    let metresPerDegreeLongitude: Double

    init(origin: Coordinate) {
        self.origin = origin
        metresPerDegreeLongitude = metresPerDegreeLatitude * cos(origin.latitude * Double.pi / 180)
    }

    func project(_ c: Coordinate) -> (Double, Double) {
        ((c.longitude - origin.longitude) * metresPerDegreeLongitude, (c.latitude - origin.latitude) * metresPerDegreeLatitude)
    }

    func unproject(_ p: (Double, Double)) -> Coordinate {
        Coordinate(latitude: origin.latitude + p.1 / metresPerDegreeLatitude,
                   longitude: origin.longitude + p.0 / metresPerDegreeLongitude)
    }
}

/// Sample points with costs. Points that fall within a centimetre of one another are one point with the dearer
/// cost: the triangulation keeps one of coincident points, and the dearer keeps "inside means reachable" true.
struct Samples {
    var xy: [Double] = []
    var cost: [Double] = []
    private struct Cell: Hashable { var x: Int64, y: Int64 }
    private var index: [Cell: Int] = [:]
    var count: Int { cost.count }

    mutating func add(_ p: (Double, Double), _ c: Double) {
        let key = Cell(x: Int64((p.0 * 100).rounded()), y: Int64((p.1 * 100).rounded()))
        if let i = index[key] {
            cost[i] = max(cost[i], c)
            return
        }
        index[key] = cost.count
        xy.append(p.0)
        xy.append(p.1)
        cost.append(c)
    }
}

/// The triangulated samples, triangles longer than `maxEdge` on a side dropped (CGAL gives them counterclockwise),
/// each with which of its sides lie on the border of what is left.
struct Mesh {
    let samples: Samples
    /// Three corners per kept triangle.
    var corners: [Int32] = []
    /// Per kept triangle: bit i set when its side from corner i to corner i + 1 is shared with no kept triangle.
    var border: [UInt8] = []
    var triangleCount: Int { border.count }

    init(samples: Samples, maxEdge: Double) {
        self.samples = samples
        var raw: UnsafeMutablePointer<Int32>?, across: UnsafeMutablePointer<Int32>?
        var count: Int32 = 0
        let status = samples.xy.withUnsafeBufferPointer {
            wf_delaunay_with_neighbours($0.baseAddress, Int32(samples.count), &raw, &across, &count)
        }
        defer { wf_delaunay_free(raw); wf_delaunay_free(across) }
        guard status == 0, let raw, let across else { return }
        let limit = maxEdge * maxEdge
        let n = Int(count)
        var kept = [Int32](repeating: -1, count: n)
        samples.xy.withUnsafeBufferPointer { xy in
            func d2(_ a: Int32, _ b: Int32) -> Double {
                let dx = xy[2 * Int(a)] - xy[2 * Int(b)], dy = xy[2 * Int(a) + 1] - xy[2 * Int(b) + 1]
                return dx * dx + dy * dy
            }
            var next: Int32 = 0
            for t in 0..<n {
                let a = raw[3 * t], b = raw[3 * t + 1], c = raw[3 * t + 2]
                if d2(a, b) <= limit && d2(b, c) <= limit && d2(c, a) <= limit { kept[t] = next; next += 1 }
            }
            corners.reserveCapacity(3 * Int(next))
            border.reserveCapacity(Int(next))
        }
        for t in 0..<n where kept[t] >= 0 {
            corners.append(raw[3 * t])
            corners.append(raw[3 * t + 1])
            corners.append(raw[3 * t + 2])
            var mask: UInt8 = 0
            for i in 0..<3 {
                // The side from corner i to corner i + 1 lies opposite corner i + 2.
                let other = across[3 * t + (i + 2) % 3]
                if other < 0 || kept[Int(other)] < 0 { mask |= 1 << i }
            }
            border.append(mask)
        }
    }

    /// A border point's identity: a sample's index, or (high bit set) the side on which the limit is crossed.
    static func sampleKey(_ i: Int32) -> UInt64 { UInt64(UInt32(i)) }
    static func crossingKey(_ u: Int32, _ v: Int32) -> UInt64 {
        1 << 63 | UInt64(UInt32(min(u, v))) << 31 | UInt64(UInt32(max(u, v)))
    }

    /// The region where the interpolated cost is at most `limit`, as polygons (outer ring, then holes) in metres.
    func contour(at limit: Double) -> [[[(Double, Double)]]] {
        let cost = samples.cost, xy = samples.xy
        func position(_ key: UInt64) -> (Double, Double) {
            if key >> 63 == 0 { let i = Int(key); return (xy[2 * i], xy[2 * i + 1]) }
            var u = Int((key >> 31) & 0x7FFF_FFFF), v = Int(key & 0x7FFF_FFFF)
            if cost[u] > limit { swap(&u, &v) }
            // Towards a point with no cost, the border runs halfway: ground nearer the reached road counts.
            let t = cost[v].isFinite ? (limit - cost[u]) / (cost[v] - cost[u]) : 0.5
            return (xy[2 * u] + t * (xy[2 * v] - xy[2 * u]), xy[2 * u + 1] + t * (xy[2 * v + 1] - xy[2 * u + 1]))
        }
        // The border's pieces, each with the region on its left: the limit's line through each triangle, and the
        // parts of the mesh's own border that lie within the limit.
        var from: [UInt64] = [], to: [UInt64] = []
        func emit(_ a: UInt64, _ b: UInt64) {
            guard a != b else { return }
            from.append(a)
            to.append(b)
        }
        for t in 0..<triangleCount {
            let p = (corners[3 * t], corners[3 * t + 1], corners[3 * t + 2])
            let ins = (cost[Int(p.0)] <= limit, cost[Int(p.1)] <= limit, cost[Int(p.2)] <= limit)
            let n = (ins.0 ? 1 : 0) + (ins.1 ? 1 : 0) + (ins.2 ? 1 : 0)
            if n == 0 { continue }
            let mask = border[t]
            if n == 3 {
                if mask & 1 != 0 { emit(Self.sampleKey(p.0), Self.sampleKey(p.1)) }
                if mask & 2 != 0 { emit(Self.sampleKey(p.1), Self.sampleKey(p.2)) }
                if mask & 4 != 0 { emit(Self.sampleKey(p.2), Self.sampleKey(p.0)) }
                continue
            }
            // Turn the corners so that the pattern is (in, out, out) or (in, in, out); r is the turn.
            let r: Int
            if n == 1 { r = ins.0 ? 0 : ins.1 ? 1 : 2 } else { r = !ins.2 ? 0 : !ins.0 ? 1 : 2 }
            let q = [p.0, p.1, p.2]
            let a = q[r], b = q[(r + 1) % 3], c = q[(r + 2) % 3]
            func onBorder(_ side: Int) -> Bool { mask & (1 << ((side + r) % 3)) != 0 }  // side 0: a→b, 1: b→c, 2: c→a
            if n == 1 {
                let ab = Self.crossingKey(a, b), ca = Self.crossingKey(c, a)
                if onBorder(0) { emit(Self.sampleKey(a), ab) }
                emit(ab, ca)
                if onBorder(2) { emit(ca, Self.sampleKey(a)) }
            } else {
                let bc = Self.crossingKey(b, c), ca = Self.crossingKey(c, a)
                if onBorder(0) { emit(Self.sampleKey(a), Self.sampleKey(b)) }
                if onBorder(1) { emit(Self.sampleKey(b), bc) }
                emit(bc, ca)
                if onBorder(2) { emit(ca, Self.sampleKey(a)) }
            }
        }
        // Chain the pieces into rings: pieces by their first point, several where rings touch at a point.
        var first: [UInt64: Int32] = [:]
        first.reserveCapacity(from.count)
        var sameStart = [Int32](repeating: -1, count: from.count)
        for k in from.indices {
            if let previous = first.updateValue(Int32(k), forKey: from[k]) { sameStart[k] = previous }
        }
        var used = [Bool](repeating: false, count: from.count)
        func take(_ key: UInt64) -> Int? {
            var k = first[key] ?? -1
            while k >= 0 && used[Int(k)] { k = sameStart[Int(k)] }
            return k >= 0 ? Int(k) : nil
        }
        // Where rings touch at a point, a walk comes back to a point it passed: the loop since then is a ring of its
        // own, so that every ring is simple (GeoJSON's rings may not cross or touch themselves).
        var rings: [[(Double, Double)]] = []
        var seen: [UInt64: Int] = [:]
        for startPiece in from.indices where !used[startPiece] {
            used[startPiece] = true
            let start = from[startPiece]
            var keys: [UInt64] = [start]
            seen.removeAll(keepingCapacity: true)
            seen[start] = 0
            var at = to[startPiece]
            while true {
                if let j = seen[at] {
                    let loop = keys[j...] + [at]
                    if loop.count >= 4 { rings.append(loop.map(position)) }
                    for key in keys[(j + 1)...] { seen[key] = nil }
                    keys.removeSubrange((j + 1)...)
                    if j == 0 { break }
                } else {
                    seen[at] = keys.count
                    keys.append(at)
                }
                guard let k = take(at) else { break }
                used[k] = true
                at = to[k]
            }
        }
        // Outer rings run counterclockwise, holes clockwise; each hole goes to the smallest outer ring around it.
        var outers: [(ring: [(Double, Double)], area: Double, holes: [[(Double, Double)]])] = []
        var holes: [[(Double, Double)]] = []
        for ring in rings {
            let area = Self.area(ring)
            if area > 0 { outers.append((ring, area, [])) } else if area < 0 { holes.append(ring) }
        }
        outers.sort { $0.area < $1.area }
        let index = RingIndex(outers.map(\.ring))
        for hole in holes {
            let probe = ((hole[0].0 + hole[1].0) / 2, (hole[0].1 + hole[1].1) / 2)
            if let k = index.first(containing: probe) { outers[k].holes.append(hole) }
        }
        return outers.sorted { $0.area > $1.area }.map { [$0.ring] + $0.holes }
    }

    /// Signed area (shoelace): positive for a counterclockwise ring.
    static func area(_ ring: [(Double, Double)]) -> Double {
        var sum = 0.0
        for i in 0..<(ring.count - 1) { sum += ring[i].0 * ring[i + 1].1 - ring[i + 1].0 * ring[i].1 }
        return sum / 2
    }

    static func contains(_ ring: [(Double, Double)], _ p: (Double, Double)) -> Bool {
        var inside = false
        var j = ring.count - 1
        for i in 0..<ring.count {
            let a = ring[i], b = ring[j]
            if (a.1 > p.1) != (b.1 > p.1), p.0 < (b.0 - a.0) * (p.1 - a.1) / (b.1 - a.1) + a.0 { inside.toggle() }
            j = i
        }
        return inside
    }
}

/// Rings by their bounding boxes in a uniform grid, to find the first ring (in the given order) that contains a
/// point without testing every ring: a contour of many small islands and holes (a damaged graph gave 27,000 of
/// each) otherwise tests every hole against every ring.
public struct RingIndex {
    private let rings: [[(Double, Double)]]
    private let boxes: [(minX: Double, minY: Double, maxX: Double, maxY: Double)]
    private let origin: (Double, Double), cell: Double, side: Int
    /// Ring indices per cell, ascending; rings covering more than `spread` cells are in `wide` instead.
    private var cells: [[Int32]]
    private var wide: [Int32] = []
    private static let spread = 64

    public init(_ rings: [[(Double, Double)]]) {
        self.rings = rings
        boxes = rings.map { ring in
            ring.reduce((minX: Double.infinity, minY: Double.infinity, maxX: -Double.infinity, maxY: -Double.infinity)) {
                (min($0.minX, $1.0), min($0.minY, $1.1), max($0.maxX, $1.0), max($0.maxY, $1.1))
            }
        }
        let minX = boxes.map(\.minX).min() ?? 0, minY = boxes.map(\.minY).min() ?? 0
        let maxX = boxes.map(\.maxX).max() ?? 0, maxY = boxes.map(\.maxY).max() ?? 0
        origin = (minX, minY)
        side = max(1, min(1024, Int(Double(rings.count).squareRoot().rounded(.up))))
        let extent = max(maxX - minX, maxY - minY)
        cell = extent.isFinite && extent > 0 ? extent / Double(side) : 1
        cells = Array(repeating: [], count: side * side)
        for (k, b) in boxes.enumerated() {
            let (x0, y0) = slot(b.minX, b.minY), (x1, y1) = slot(b.maxX, b.maxY)
            if (x1 - x0 + 1) * (y1 - y0 + 1) > Self.spread { wide.append(Int32(k)); continue }
            for y in y0...y1 { for x in x0...x1 { cells[y * side + x].append(Int32(k)) } }
        }
    }

    private func slot(_ x: Double, _ y: Double) -> (Int, Int) {
        func clamp(_ v: Double) -> Int { v.isFinite ? min(side - 1, max(0, Int(v))) : 0 }
        return (clamp((x - origin.0) / cell), clamp((y - origin.1) / cell))
    }

    /// The lowest index of a ring around `p`.
    public func first(containing p: (Double, Double)) -> Int? {
        let (x, y) = slot(p.0, p.1)
        var best = Int.max
        for candidates in [cells[y * side + x], wide] {
            for k32 in candidates {
                let k = Int(k32)
                guard k < best else { break }  // both lists ascend
                let b = boxes[k]
                if p.0 >= b.minX && p.0 <= b.maxX && p.1 >= b.minY && p.1 <= b.maxY && Mesh.contains(rings[k], p) { best = k }
            }
        }
        return best == Int.max ? nil : best
    }
}
