import Foundation

/// A uniform grid over the road segments of a graph: each cell lists the segments whose bounding box touches it,
/// a segment named by the shape index of its first point. Cells are sized for a few segments each, so a nearest
/// query looks at a handful of cells.
public enum SegmentGrid {
    static let metresPerDegree = Geo.earthRadius * Double.pi / 180

    /// Builds the grid for `arrays` (edges and shapes must be final) and stores it in them.
    public static func build(into arrays: inout GraphArrays) -> GridGeometry {
        let pointCount = arrays.shapeLatitudes.count
        var bounds = BoundingBox.empty
        for i in 0..<pointCount {
            bounds.extend(Coordinate(fixedLatitude: arrays.shapeLatitudes[i], fixedLongitude: arrays.shapeLongitudes[i]))
        }
        let segmentCount = max(0, pointCount - arrays.edgeLength.count)
        guard !bounds.isEmpty, segmentCount > 0 else {
            arrays.gridCellStart = [0, 0]
            arrays.gridSegments = []
            return GridGeometry(originLatitude: 0, originLongitude: 0, cellHeight: 1, cellWidth: 1, rows: 1, columns: 1)
        }
        let midLatitude = (bounds.minLatitude + bounds.maxLatitude) / 2
        let lonScale = max(0.01, cos(midLatitude * Double.pi / 180))
        let heightMetres = (bounds.maxLatitude - bounds.minLatitude) * metresPerDegree
        let widthMetres = (bounds.maxLongitude - bounds.minLongitude) * metresPerDegree * lonScale
        let area = max(1, heightMetres * widthMetres)
        let cellMetres = max(25, (area / (Double(segmentCount) / 4)).squareRoot())
        let cellHeight = cellMetres / metresPerDegree
        let cellWidth = cellMetres / (metresPerDegree * lonScale)
        let rows = Int((bounds.maxLatitude - bounds.minLatitude) / cellHeight) + 1
        let columns = Int((bounds.maxLongitude - bounds.minLongitude) / cellWidth) + 1
        let geometry = GridGeometry(originLatitude: bounds.minLatitude, originLongitude: bounds.minLongitude,
                                    cellHeight: cellHeight, cellWidth: cellWidth,
                                    rows: UInt32(rows), columns: UInt32(columns))

        // Two passes (count, then fill) give the CSR arrays without per-cell lists.
        var cellStart = [UInt32](repeating: 0, count: rows * columns + 1)
        func forEachCell(ofSegment s: Int, _ body: (Int) -> Void) {
            // The degrees every other reader of the shape sees (`Coordinate(fixedLatitude:…)`), so that a point on
            // the bounds' edge falls in the grid's first row or column, not an ulp outside it.
            let a = Coordinate(fixedLatitude: arrays.shapeLatitudes[s], fixedLongitude: arrays.shapeLongitudes[s])
            let b = Coordinate(fixedLatitude: arrays.shapeLatitudes[s + 1], fixedLongitude: arrays.shapeLongitudes[s + 1])
            let r0 = max(0, geometry.row(min(a.latitude, b.latitude))), r1 = min(rows - 1, geometry.row(max(a.latitude, b.latitude)))
            let c0 = max(0, geometry.column(min(a.longitude, b.longitude)))
            let c1 = min(columns - 1, geometry.column(max(a.longitude, b.longitude)))
            guard r0 <= r1, c0 <= c1 else { return }
            for r in r0...r1 {
                for c in c0...c1 { body(r * columns + c) }
            }
        }
        func forEachSegment(_ body: (Int) -> Void) {
            for e in 0..<arrays.edgeLength.count {
                let start = Int(arrays.edgeShapeStart[e]), end = Int(arrays.edgeShapeStart[e + 1])
                for s in start..<(end - 1) { body(s) }
            }
        }
        forEachSegment { s in forEachCell(ofSegment: s) { cellStart[$0 + 1] += 1 } }
        for i in 0..<(rows * columns) { cellStart[i + 1] += cellStart[i] }
        var fill = cellStart
        var segments = [UInt32](repeating: 0, count: Int(cellStart[rows * columns]))
        forEachSegment { s in
            forEachCell(ofSegment: s) { cell in
                segments[Int(fill[cell])] = UInt32(s)
                fill[cell] += 1
            }
        }
        arrays.gridCellStart = cellStart
        arrays.gridSegments = segments
        return geometry
    }
}

extension SegmentGrid {
    /// Side of a block of cells, in cells, for searching the non-empty cells of a grid (see `nearestSegment`).
    static let blockSide = 16

    /// The non-empty cells of a grid, block by block, and each block with its first cell in that list.
    static func occupied(_ cellStart: UnsafeBufferPointer<UInt32>, cells: Int, columns: Int)
        -> ([UInt32], [(row: UInt32, column: UInt32, first: UInt32)])
    {
        var byBlock: [(block: Int, cell: UInt32)] = []
        let blockColumns = (columns + blockSide - 1) / blockSide
        for cell in 0..<cells where cellStart[cell + 1] > cellStart[cell] {
            let r = cell / columns, c = cell % columns
            byBlock.append(((r / blockSide) * blockColumns + c / blockSide, UInt32(cell)))
        }
        byBlock.sort { $0.block < $1.block || ($0.block == $1.block && $0.cell < $1.cell) }
        var blocks: [(row: UInt32, column: UInt32, first: UInt32)] = []
        for (k, entry) in byBlock.enumerated() where k == 0 || byBlock[k - 1].block != entry.block {
            blocks.append((UInt32(entry.block / blockColumns), UInt32(entry.block % blockColumns), UInt32(k)))
        }
        return (byBlock.map(\.cell), blocks)
    }
}

extension GridGeometry {
    @inlinable func row(_ latitude: Double) -> Int { Int(((latitude - originLatitude) / cellHeight).rounded(.down)) }
    @inlinable func column(_ longitude: Double) -> Int {
        Int(((longitude - originLongitude) / cellWidth).rounded(.down))
    }

    /// The grid row of a latitude (may be outside 0..<rows), clamped to a sane integer range.
    public func rowIndex(_ latitude: Double) -> Int {
        Int(max(-1, min(Double(rows), ((latitude - originLatitude) / cellHeight).rounded(.down))))
    }

    public func columnIndex(_ longitude: Double) -> Int {
        Int(max(-1, min(Double(columns), ((longitude - originLongitude) / cellWidth).rounded(.down))))
    }
}

/// The closest point of a road segment to a query point.
public struct SegmentHit: Sendable {
    /// Shape index of the segment's first point.
    public var segment: Int
    public var position: Coordinate
    public var distance: Double
}

extension RoadGraph {
    /// The nearest segment within `maxDistance` metres that `accept` allows (given the segment's shape index).
    /// `rankedAsOSRM`: where others are nearly as near (`NearlyNearestHits`), the one OSRM ranks nearest
    /// (`Geo.osrmNearnessRank`), then the nearest; otherwise the nearest on the sphere.
    public func nearestSegment(to point: Coordinate, maxDistance: Double, rankedAsOSRM: Bool = true,
                               accept: (Int) -> Bool = { _ in true }) -> SegmentHit?
    {
        var nearest = NearlyNearestHits(latitude: point.latitude, slack: rankedAsOSRM)
        searchGrid(around: point, maxDistance: maxDistance, accept: accept, into: &nearest)
        guard var best = nearest.nearest, !nearest.others.isEmpty else { return nearest.nearest }
        var bestRank = Geo.osrmNearnessRank(of: point, onSegmentFrom: shapePoint(best.segment), to: shapePoint(best.segment + 1))
        for hit in nearest.others {
            let rank = Geo.osrmNearnessRank(of: point, onSegmentFrom: shapePoint(hit.segment), to: shapePoint(hit.segment + 1))
            if rank < bestRank || (rank == bestRank && hit.distance < best.distance) { (best, bestRank) = (hit, rank) }
        }
        return best
    }

    /// The nearest segments of up to `count` different keys (`key` of a segment's shape index, such as its edge),
    /// nearest first, each key with its nearest segment: one search, where asking `nearestSegment` again with the
    /// keys found excluded searched afresh each time.
    public func nearestSegments(to point: Coordinate, count: Int, maxDistance: Double, key: @escaping (Int) -> Int,
                                accept: (Int) -> Bool = { _ in true }) -> [SegmentHit]
    {
        guard count > 0 else { return [] }
        var nearest = NearestHits(count: count, key: key)
        searchGrid(around: point, maxDistance: maxDistance, accept: accept, into: &nearest)
        return nearest.hits.map(\.hit)
    }

    /// The segments listed in the grid cell of `place` whose nearest place to `point` is `place` (as `isPlace`
    /// tells) and that `accept` allows: every segment with an end at `place` is listed in that cell (its bounding
    /// box touches it), so a junction's roads are found without a search.
    public func segments(endingAt place: Coordinate, nearestTo point: Coordinate, accept: (Int) -> Bool,
                         isPlace: (Coordinate) -> Bool) -> [SegmentHit] {
        let grid = metadata.grid
        let r = grid.rowIndex(place.latitude), c = grid.columnIndex(place.longitude)
        guard gridSegments.count > 0, r >= 0, r < Int(grid.rows), c >= 0, c < Int(grid.columns) else { return [] }
        let cell = r * Int(grid.columns) + c
        // As `searchGrid` works them out, for the same distances bit for bit.
        let cosLatitude = cos(point.latitude * Double.pi / 180), cosForDistance = cos(point.latitude * (Double.pi / 180))
        var hits: [SegmentHit] = []
        for k in Int(gridCellStart[cell])..<Int(gridCellStart[cell + 1]) {
            let s = Int(gridSegments[k])
            let (_, position) = Geo.project(point, ontoSegmentFrom: shapePoint(s), to: shapePoint(s + 1), cosLatitude: cosLatitude)
            guard isPlace(position), accept(s) else { continue }
            hits.append(SegmentHit(segment: s, position: position, distance: Geo.distance(point, position, cosLatitudeA: cosForDistance)))
        }
        return hits
    }

    /// Offers segments to `collector` nearest first, near enough: rings of cells are walked outward from the
    /// point's cell until nothing nearer than `collector.bound` can lie beyond. A point far from every road (at
    /// sea, or on another continent) would walk every cell of the grid that way, empty ones included; once the
    /// rings have cost as many cells as the grid has non-empty ones, the search turns to those alone, in the
    /// order of a lower bound of their distance. Both stop when the request's CPU budget is spent (the caller then
    /// answers with the budget's error).
    func searchGrid<C: HitCollector>(around point: Coordinate, maxDistance: Double, accept: (Int) -> Bool,
                                     into collector: inout C)
    {
        let grid = metadata.grid
        guard gridSegments.count > 0, point.isValid else { return }
        let rows = Int(grid.rows), columns = Int(grid.columns)
        // Clamp far-away points so the ring arithmetic stays small; the distance check still rejects them.
        let r0 = grid.rowIndex(point.latitude), c0 = grid.columnIndex(point.longitude)
        // A cell's narrowest side, here or at the grid's edge farthest from the equator, whichever is narrower: a
        // point far south of the grid would otherwise take the grid's cells for wider than they are.
        let polewardEdge = max(abs(grid.originLatitude), abs(grid.originLatitude + Double(rows) * grid.cellHeight))
        let cellSide = min(grid.cellHeight * SegmentGrid.metresPerDegree,
                           grid.cellWidth * SegmentGrid.metresPerDegree
                               * min(cos(point.latitude * Double.pi / 180), cos(min(90, polewardEdge) * Double.pi / 180)))
        if WorkBudget.exceeded() { return }
        // Past the radius from the whole grid, nothing to look at. (A lower bound: the clamped point is not the
        // grid's nearest on a sphere, and overestimated a far point's distance by kilometres.)
        let gridCentre = Coordinate(latitude: grid.originLatitude + Double(rows) * grid.cellHeight / 2,
                                    longitude: grid.originLongitude + Double(columns) * grid.cellWidth / 2)
        let halfGridDiagonal = halfCellDiagonal * Double(max(rows, columns))
        if Geo.distanceLowerBound(point, gridCentre, cosLatitudeA: cos(point.latitude * (Double.pi / 180))) - halfGridDiagonal
            > maxDistance { return }
        let maxRing = max(rows, columns) + 1
        // Worked out once, each as `project` and `distance` would (bit for bit the same answers).
        let cosLatitude = cos(point.latitude * Double.pi / 180), cosForDistance = cos(point.latitude * (Double.pi / 180))
        func scan(_ cell: Int) {
            for k in Int(gridCellStart[cell])..<Int(gridCellStart[cell + 1]) {
                let s = Int(gridSegments[k])
                let (_, position) = Geo.project(point, ontoSegmentFrom: shapePoint(s),
                                                       to: shapePoint(s + 1), cosLatitude: cosLatitude)
                // Most candidates are far from the nearest found so far: a bound without trigonometry
                // rules them out (the same answer; their haversines were most of the time snapping took).
                let bound = Geo.distanceLowerBound(point, position, cosLatitudeA: cosForDistance)
                if bound > maxDistance || bound >= collector.bound { continue }
                let d = Geo.distance(point, position, cosLatitudeA: cosForDistance)
                if d <= maxDistance, d < collector.bound, accept(s) {
                    collector.offer(SegmentHit(segment: s, position: position, distance: d))
                }
            }
        }
        let affordable = max(1024, 4 * occupiedBlocks.count)
        var visited = 0
        var ring = 0
        while ring <= maxRing {
            // Everything in this ring or beyond is at least this far away.
            let ringBound = Double(max(0, ring - 1)) * cellSide
            if collector.bound <= ringBound || ringBound > maxDistance { return }
            for r in (r0 - ring)...(r0 + ring) where r >= 0 && r < rows {
                let onEdgeRow = r == r0 - ring || r == r0 + ring
                var c = c0 - ring
                while c <= c0 + ring {
                    if c >= 0 && c < columns {
                        scan(r * columns + c)
                        visited += 1
                        if visited & 0xFFF == 0 && WorkBudget.exceeded() { return }
                    }
                    c += onEdgeRow || ring == 0 ? 1 : 2 * ring  // interior rows: only the two border cells
                }
            }
            ring += 1
            if visited > affordable { break }
        }
        if ring > maxRing { return }
        // The non-empty cells, by blocks nearest first by a lower bound from their centres (a heap: usually only the
        // first few are taken before the bound rules out the rest), and within a block by the same bound per cell.
        let halfDiagonal = halfCellDiagonal, side = Double(SegmentGrid.blockSide)
        func lowerBound(row: Double, column: Double, halfDiagonal: Double) -> Double {
            let centre = Coordinate(latitude: grid.originLatitude + row * grid.cellHeight,
                                    longitude: grid.originLongitude + column * grid.cellWidth)
            return Geo.distanceLowerBound(point, centre, cosLatitudeA: cosForDistance) - halfDiagonal
        }
        var blocks = SearchHeap()
        for (k, block) in occupiedBlocks.enumerated() {
            let bound = lowerBound(row: (Double(block.row) + 0.5) * side, column: (Double(block.column) + 0.5) * side,
                                   halfDiagonal: halfDiagonal * side)
            // Centimetres as the key: rounded down, still a lower bound.
            if bound <= maxDistance { blocks.push(Int64(max(0, bound * 100).rounded(.down)), UInt32(k)) }
        }
        var taken = 0
        while let (key, k) = blocks.pop() {
            if Double(key) / 100 >= collector.bound { return }
            let end = Int(k) + 1 < occupiedBlocks.count ? Int(occupiedBlocks[Int(k) + 1].first) : occupiedCells.count
            for i in Int(occupiedBlocks[Int(k)].first)..<end {
                let cell = Int(occupiedCells[i])
                let bound = lowerBound(row: Double(cell / columns) + 0.5, column: Double(cell % columns) + 0.5, halfDiagonal: halfDiagonal)
                if bound < min(collector.bound, maxDistance) { scan(cell) }
            }
            taken += 1
            if taken & 0x3F == 0 && WorkBudget.exceeded() { return }
        }
    }
}

/// What a grid search keeps of the segments it is offered: `bound` is the distance past which no segment is wanted.
protocol HitCollector {
    var bound: Double { get }
    mutating func offer(_ hit: SegmentHit)
}

/// The nearest segment, and those nearly as near: where OSRM's ranking may differ from metres measured on the
/// sphere (the rounding of its R-tree, a few centimetres; Mercator's scale, which changes by tan(latitude) per radian
/// north, across the distance). Most searches find none nearly as near, and keep no list.
/// Mercator's part is at most a metre: a point kilometres from every road (at sea) keeps the road truly nearest,
/// where OSRM's Mercator may rank one hundreds of metres farther first.
struct NearlyNearestHits: HitCollector {
    /// Metres of slack per metre of distance: Mercator's change of scale across it, with room to spare.
    let slackPerMetre: Double
    let slack: Bool
    private(set) var nearest: SegmentHit?
    /// The others within the slack of the nearest.
    private(set) var others: [SegmentHit] = []
    private(set) var bound = Double.infinity

    init(latitude: Double, slack: Bool) {
        self.slack = slack
        // No tangent for a search that keeps the nearest alone.
        slackPerMetre = slack ? 2 * max(1, abs(tan(min(85, abs(latitude)) * .pi / 180))) / Geo.earthRadius : 0
    }

    mutating func offer(_ hit: SegmentHit) {
        guard let current = nearest, hit.distance < current.distance else {
            // Offered within the bound, so nearly as near (or the first).
            if nearest == nil { nearest = hit } else { others.append(hit) }
            if others.isEmpty { bound = limit(hit.distance) }
            return
        }
        nearest = hit
        bound = limit(hit.distance)
        if !others.isEmpty { others.removeAll { $0.distance > bound } }
        if current.distance <= bound { others.append(current) }
    }

    private func limit(_ distance: Double) -> Double {
        slack ? distance + 0.25 + min(1, distance * distance * slackPerMetre) : distance
    }
}

/// The nearest segment of each of the `count` nearest keys.
struct NearestHits<Key: Hashable>: HitCollector {
    let count: Int
    let key: (Int) -> Key
    /// Nearest first, one per key.
    private(set) var hits: [(key: Key, hit: SegmentHit)] = []

    init(count: Int, key: @escaping (Int) -> Key) {
        self.count = count
        self.key = key
    }

    var bound: Double { hits.count == count ? hits[hits.count - 1].hit.distance : .infinity }

    mutating func offer(_ hit: SegmentHit) {
        let k = key(hit.segment)
        if let i = hits.firstIndex(where: { $0.key == k }) {
            guard hit.distance < hits[i].hit.distance else { return }
            hits.remove(at: i)
        } else if hits.count == count {
            hits.removeLast()
        }
        let at = hits.firstIndex { $0.hit.distance > hit.distance } ?? hits.count
        hits.insert((k, hit), at: at)
    }
}
