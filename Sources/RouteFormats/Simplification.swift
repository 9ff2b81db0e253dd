import Foundation
import RoadGraph

/// Douglas–Peucker line simplification, for overview geometries and the map's road layer.
public enum Simplification {
    /// Keeps the points that deviate more than `tolerance` metres from the simplified line; by default a
    /// tolerance that suits the line's own extent (about a pixel when the whole line fills a screen).
    public static func simplify(_ line: [Coordinate], tolerance: Double? = nil) -> [Coordinate] {
        guard line.count > 2 else { return line }
        var bounds = BoundingBox.empty
        for c in line { bounds.extend(c) }
        let extent = Geo.distance(Coordinate(latitude: bounds.minLatitude, longitude: bounds.minLongitude),
                                  Coordinate(latitude: bounds.maxLatitude, longitude: bounds.maxLongitude))
        let epsilon = tolerance ?? max(1, extent / 1000)
        var keep = [Bool](repeating: false, count: line.count)
        keep[0] = true
        keep[line.count - 1] = true
        var stack = [(0, line.count - 1)]
        while let (first, last) = stack.popLast() {
            guard last > first + 1 else { continue }
            var farthest = first, distance = 0.0
            for i in (first + 1)..<last {
                let (_, projected) = Geo.project(line[i], ontoSegmentFrom: line[first], to: line[last])
                let d = Geo.distance(line[i], projected)
                if d > distance { distance = d; farthest = i }
            }
            if distance > epsilon {
                keep[farthest] = true
                stack.append((first, farthest))
                stack.append((farthest, last))
            }
        }
        return line.indices.filter { keep[$0] }.map { line[$0] }
    }
}
