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
            let lat0 = Double(arrays.shapeLatitudes[s]) * 1e-7, lat1 = Double(arrays.shapeLatitudes[s + 1]) * 1e-7
            let lon0 = Double(arrays.shapeLongitudes[s]) * 1e-7, lon1 = Double(arrays.shapeLongitudes[s + 1]) * 1e-7
            let r0 = geometry.row(min(lat0, lat1)), r1 = geometry.row(max(lat0, lat1))
            let c0 = geometry.column(min(lon0, lon1)), c1 = geometry.column(max(lon0, lon1))
            for r in max(0, r0)...min(rows - 1, r1) {
                for c in max(0, c0)...min(columns - 1, c1) { body(r * columns + c) }
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
    /// Fraction along the segment, 0...1.
    public var fraction: Double
    public var position: Coordinate
    public var distance: Double
}

extension RoadGraph {
    /// The nearest segment within `maxDistance` metres that `accept` allows (given the segment's shape index).
    public func nearestSegment(to point: Coordinate, maxDistance: Double,
                               accept: (Int) -> Bool = { _ in true }) -> SegmentHit?
    {
        let grid = metadata.grid
        guard gridSegments.count > 0, point.isValid else { return nil }
        let rows = Int(grid.rows), columns = Int(grid.columns)
        // Clamp far-away points so the ring arithmetic stays small; the distance check still rejects them.
        let r0 = grid.rowIndex(point.latitude), c0 = grid.columnIndex(point.longitude)
        let cellSide = min(grid.cellHeight * SegmentGrid.metresPerDegree,
                           grid.cellWidth * SegmentGrid.metresPerDegree * cos(point.latitude * Double.pi / 180))
        var best: SegmentHit?
        let distanceToGrid = BoundingBox(
            minLatitude: grid.originLatitude, minLongitude: grid.originLongitude,
            maxLatitude: grid.originLatitude + Double(rows) * grid.cellHeight,
            maxLongitude: grid.originLongitude + Double(columns) * grid.cellWidth
        ).contains(point) ? 0 : Geo.distance(point, clampedToGrid(point))
        if distanceToGrid > maxDistance { return nil }
        let maxRing = max(rows, columns) + 1
        // Worked out once, each as `project` and `distance` would (bit for bit the same answers).
        let cosLatitude = cos(point.latitude * Double.pi / 180), cosForDistance = cos(point.latitude * (Double.pi / 180))
        var ring = 0
        while ring <= maxRing {
            // Everything in this ring or beyond is at least this far away.
            let ringBound = Double(max(0, ring - 1)) * cellSide
            if let hit = best, hit.distance <= ringBound { break }
            if ringBound > maxDistance { break }
            for r in (r0 - ring)...(r0 + ring) where r >= 0 && r < rows {
                let onEdgeRow = r == r0 - ring || r == r0 + ring
                var c = c0 - ring
                while c <= c0 + ring {
                    if c >= 0 && c < columns {
                        let cell = r * columns + c
                        for k in Int(gridCellStart[cell])..<Int(gridCellStart[cell + 1]) {
                            let s = Int(gridSegments[k])
                            let (fraction, position) = Geo.project(point, ontoSegmentFrom: shapePoint(s),
                                                                   to: shapePoint(s + 1), cosLatitude: cosLatitude)
                            // Most candidates are far from the nearest found so far: a bound without trigonometry
                            // rules them out (the same answer; their haversines were most of the time snapping took).
                            let bound = Geo.distanceLowerBound(point, position, cosLatitudeA: cosForDistance)
                            if bound > maxDistance || bound >= (best?.distance ?? .infinity) { continue }
                            let d = Geo.distance(point, position, cosLatitudeA: cosForDistance)
                            if d <= maxDistance, d < (best?.distance ?? .infinity), accept(s) {
                                best = SegmentHit(segment: s, fraction: fraction, position: position, distance: d)
                            }
                        }
                    }
                    c += onEdgeRow || ring == 0 ? 1 : 2 * ring  // interior rows: only the two border cells
                }
            }
            ring += 1
        }
        return best
    }

    private func clampedToGrid(_ p: Coordinate) -> Coordinate {
        let g = metadata.grid
        return Coordinate(
            latitude: min(max(p.latitude, g.originLatitude), g.originLatitude + Double(g.rows) * g.cellHeight),
            longitude: min(max(p.longitude, g.originLongitude), g.originLongitude + Double(g.columns) * g.cellWidth))
    }
}
