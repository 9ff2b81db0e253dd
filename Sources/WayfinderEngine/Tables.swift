import Engine
import Foundation
import RoadGraph
import RouteFormats
import Routing

/// Durations and distances from every source to every destination, row by row (one row per source).
public struct TravelTable: Sendable {
    /// Rows: one per source.
    public let sourceCount: Int
    /// Columns: one per destination.
    public let destinationCount: Int
    /// Seconds, to a tenth, row-major (`durations[source * destinationCount + destination]`); NaN where the
    /// destination cannot be reached.
    public let durations: [Double]
    /// Metres along the fastest path, to a tenth, laid out as `durations`; NaN likewise.
    public let distances: [Double]
    /// The points (sources first, then destinations) with no road within the snap radius: their rows and columns
    /// are NaN.
    public let unsnapped: [Int]

    /// The cell of one source and one destination, or nil when the destination cannot be reached.
    public subscript(source: Int, destination: Int) -> (duration: Double, distance: Double)? {
        let k = source * destinationCount + destination
        return durations[k].isNaN ? nil : (durations[k], distances[k])
    }
}

extension Wayfinder {
    /// The fastest travel time and its distance from every source to every destination (to the sources themselves
    /// when `destinations` is nil), computed with the contraction hierarchy on `threads` cores. Values are the
    /// CLI's `wayfinder matrix` cells: seconds and metres to a tenth.
    ///
    /// A point with no road within `snapRadius` (default 5 km) does not fail the table: its row or column is NaN
    /// and it is listed in `unsnapped`.
    public func table(sources: [Location], destinations: [Location]? = nil, mode: Mode = .driving,
                      snapRadius: Double? = nil, threads: Int = ProcessInfo.processInfo.activeProcessorCount)
        throws(WayfinderError) -> TravelTable
    {
        let columns = destinations?.count ?? sources.count
        var durations = [Double](repeating: .nan, count: sources.count * columns)
        var distances = durations
        let unsnapped = try durations.withUnsafeMutableBufferPointer { d throws(WayfinderError) in
            try distances.withUnsafeMutableBufferPointer { m throws(WayfinderError) in
                try fillTable(sources: sources, destinations: destinations, mode: mode, snapRadius: snapRadius,
                              threads: threads, durations: d, distances: m)
            }
        }
        return TravelTable(sourceCount: sources.count, destinationCount: columns, durations: durations,
                           distances: distances, unsnapped: unsnapped)
    }

    /// `table`, written into buffers the caller owns (of sources × destinations cells each, row-major), so that a
    /// large table is never copied: what the C entry point fills a NumPy array with. Returns the unsnapped points.
    package func fillTable(sources: [Location], destinations: [Location]?, mode: Mode, snapRadius: Double?, threads: Int,
                           durations: UnsafeMutableBufferPointer<Double>, distances: UnsafeMutableBufferPointer<Double>)
        throws(WayfinderError) -> [Int]
    {
        let columns = destinations?.count ?? sources.count
        guard durations.count == sources.count * columns, distances.count == durations.count else {
            throw WayfinderError(code: "InvalidValue", message: "the table's buffers must hold \(sources.count) × \(columns) cells")
        }
        // Unreachable cells are NaN whatever the buffers held.
        durations.update(repeating: .nan)
        distances.update(repeating: .nan)
        guard !sources.isEmpty, columns > 0 else { return [] }
        guard (1...256).contains(threads) else {
            throw WayfinderError(code: "InvalidValue", message: "threads must be 1 to 256, not \(threads)")
        }
        let points = try Location.checked(sources + (destinations ?? []))
        return try calling {
            var query = TableQuery(mode: mode.travelMode, points: points, sources: Array(sources.indices),
                                   destinations: destinations.map { Array(sources.count..<(sources.count + $0.count)) })
            query.snapRadius = snapRadius
            query.unsnappedPointsAreNull = true
            query.threads = threads
            let table = try engine.table(query)
            // Blocks of about four million cells, as `wayfinder matrix` computes them: memory stays flat.
            let blockRows = max(1, min(sources.count, 4_000_000 / columns))
            var first = 0
            while first < sources.count {
                let end = min(sources.count, first + blockRows)
                for (k, row) in try table.rows(first..<end).enumerated() {
                    let base = (first + k) * columns
                    for (j, cell) in row.enumerated() {
                        guard let cell else { continue }
                        durations[base + j] = OSRMTableWriter.seconds(cell)
                        distances[base + j] = OSRMTableWriter.metres(cell.distance)
                    }
                }
                first = end
            }
            return table.unsnapped
        }
    }
}
