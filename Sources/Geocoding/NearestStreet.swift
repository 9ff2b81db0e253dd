import Foundation
import RoadGraph

/// The named street nearest a point, for house numbers mapped without `addr:street` (and interpolation lines
/// without one): as Nominatim does, such an address belongs to the closest street within a short distance.
struct NearestStreet {
    /// Cells of about 300 m north-south; a search looks at the 3×3 cells around the point.
    static let cellDegrees = 0.003
    static let maximumDistance = 100.0

    private var cells: [Int64: [Int32]] = [:]
    private let streets: [(name: String, lines: [[Coordinate]])]

    init(streets entries: [PlaceEntry]) {
        streets = entries.filter { $0.kind == .street && !$0.name.isEmpty }.map { ($0.name, $0.lines) }
        for (index, street) in streets.enumerated() {
            var keys = Set<Int64>()
            for line in street.lines {
                if let first = line.first { keys.insert(Self.cell(first)) }
                // Points every 100 m along each segment, so that a long segment is found from beside its middle.
                for (a, b) in zip(line, line.dropFirst()) {
                    let steps = Int(Geo.distance(a, b) / 100)
                    for k in 0...steps {
                        let t = steps == 0 ? 1 : Double(k + 1) / Double(steps + 1)
                        keys.insert(Self.cell(Coordinate(latitude: a.latitude + (b.latitude - a.latitude) * t,
                                                         longitude: a.longitude + (b.longitude - a.longitude) * t)))
                    }
                }
            }
            for key in keys { cells[key, default: []].append(Int32(index)) }
        }
    }

    static func cell(_ p: Coordinate) -> Int64 {
        let scale = max(0.05, cos(p.latitude * Double.pi / 180))
        return cell(row: Int64((p.latitude / cellDegrees).rounded(.down)),
                    column: Int64((p.longitude * scale / cellDegrees).rounded(.down)))
    }

    static func cell(row: Int64, column: Int64) -> Int64 { row &* 4_000_003 &+ column }

    /// The nearest street's name within `maximumDistance`, or nil.
    func name(near point: Coordinate) -> String? {
        let scale = max(0.05, cos(point.latitude * Double.pi / 180))
        let row = Int64((point.latitude / Self.cellDegrees).rounded(.down))
        let column = Int64((point.longitude * scale / Self.cellDegrees).rounded(.down))
        var candidates = Set<Int32>()
        for dr in -1...1 {
            for dc in -1...1 { candidates.formUnion(cells[Self.cell(row: row + Int64(dr), column: column + Int64(dc))] ?? []) }
        }
        var best: (name: String, distance: Double)?
        for index in candidates {
            let street = streets[Int(index)]
            for line in street.lines {
                for (a, b) in zip(line, line.dropFirst()) {
                    let d = Geo.distance(point, Geo.project(point, ontoSegmentFrom: a, to: b).position)
                    if d <= Self.maximumDistance && d < (best?.distance ?? .infinity) { best = (street.name, d) }
                }
                if line.count == 1 {
                    let d = Geo.distance(point, line[0])
                    if d <= Self.maximumDistance && d < (best?.distance ?? .infinity) { best = (street.name, d) }
                }
            }
        }
        return best?.name
    }
}
