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
        return Geo.douglasPeucker(line, tolerance: epsilon)
    }
}
