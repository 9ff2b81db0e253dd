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
    /// Each source as snapped to its road; nil where it has none.
    public let sources: [SnappedWaypoint?]
    /// Each destination as snapped; nil likewise.
    public let destinations: [SnappedWaypoint?]

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
        // Two arrays of doubles held whole (wayfinder matrix streams its blocks instead): refused, not trapped on,
        // when they can't fit in the machine's memory.
        let (cells, overflow) = sources.count.multipliedReportingOverflow(by: columns)
        guard !overflow, UInt64(cells) <= ProcessInfo.processInfo.physicalMemory / 16 else {
            throw WayfinderError(code: "TooBig", message: "a table of \(sources.count) × \(columns) cells needs more memory "
                + "than this machine has; wayfinder matrix computes it in blocks")
        }
        var durations = [Double](repeating: .nan, count: cells)
        var distances = durations
        let snapped = try durations.withUnsafeMutableBufferPointer { d throws(WayfinderError) in
            try distances.withUnsafeMutableBufferPointer { m throws(WayfinderError) in
                try fillTable(sources: sources, destinations: destinations, mode: mode, snapRadius: snapRadius,
                              threads: threads, durations: d, distances: m)
            }
        }
        return TravelTable(sourceCount: sources.count, destinationCount: columns, durations: durations,
                           distances: distances, unsnapped: snapped.unsnapped, sources: snapped.sources,
                           destinations: snapped.destinations)
    }

    /// `table(sources:destinations:mode:snapRadius:threads:)` for `async` code: a large table takes seconds, so it
    /// runs on a thread of its own rather than holding one of Swift's cooperative pool (a server's event loop)
    /// that long.
    public func table(sources: [Location], destinations: [Location]? = nil, mode: Mode = .driving,
                      snapRadius: Double? = nil, threads: Int = ProcessInfo.processInfo.activeProcessorCount)
        async throws(WayfinderError) -> TravelTable
    {
        do {
            return try await withCheckedThrowingContinuation { continuation in
                DispatchQueue.global().async {
                    continuation.resume(with: Result { () throws -> TravelTable in
                        try self.table(sources: sources, destinations: destinations, mode: mode, snapRadius: snapRadius,
                                       threads: threads)
                    })
                }
            }
        } catch {
            throw WayfinderError.from(error)
        }
    }

    /// `table`, written into buffers the caller owns (of sources × destinations cells each, row-major), so that a
    /// large table is never copied: what the C entry point fills a NumPy array with. `exact` leaves durations at the
    /// millisecond and distances unrounded, as `wayfinder matrix --format protobuf` gives them.
    /// Cells are `Double`, or `Float` for half the memory (a 10,000 × 10,000 table in 800 MB, not 1.6 GB).
    package func fillTable<Cell: BinaryFloatingPoint>(
        sources: [Location], destinations: [Location]?, mode: Mode, snapRadius: Double?, threads: Int, exact: Bool = false,
        durations: UnsafeMutableBufferPointer<Cell>, distances: UnsafeMutableBufferPointer<Cell>
    ) throws(WayfinderError) -> TableWaypoints {
        let columns = destinations?.count ?? sources.count
        guard durations.count == sources.count * columns, distances.count == durations.count else {
            throw WayfinderError(code: "InvalidValue", message: "the table's buffers must hold \(sources.count) × \(columns) cells")
        }
        guard !sources.isEmpty, columns > 0 else {
            return TableWaypoints(unsnapped: [], sources: sources.map { _ in nil }, destinations: [])
        }
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
            // Blocks of about four million cells, as `wayfinder matrix` computes them: memory stays flat. Every cell
            // is written once, NaN where unreachable, so the caller need not clear its arrays first.
            let blockRows = max(1, min(sources.count, 4_000_000 / columns))
            // A block is copied on a thread of its own while the next is computed, as the CLI writes its blocks:
            // copying into arrays the caller just allocated is mostly page faults (1.6 GB for 10,000 × 10,000), and
            // those need not wait for the search. One block waits at most.
            let copying = DispatchQueue(label: "table copy")
            let slot = DispatchSemaphore(value: 1)
            let cells = CellBuffers(durations: durations, distances: distances)
            defer { copying.sync {} }
            var first = 0
            while first < sources.count {
                let end = min(sources.count, first + blockRows)
                let rows = try table.rows(first..<end)
                slot.wait()
                copying.async { [first] in
                    defer { slot.signal() }
                    for (k, row) in rows.enumerated() {
                        let base = (first + k) * columns
                        for (j, cell) in row.enumerated() {
                            guard let cell else {
                                cells.durations[base + j] = .nan
                                cells.distances[base + j] = .nan
                                continue
                            }
                            cells.durations[base + j] = Cell(exact ? Double(cell.duration) / 1000 : OSRMTableWriter.seconds(cell))
                            cells.distances[base + j] = Cell(exact ? cell.distance : OSRMTableWriter.metres(cell.distance))
                        }
                    }
                }
                first = end
            }
            copying.sync {}
            func snapped(_ snap: Snap?) -> SnappedWaypoint? {
                snap.map { SnappedWaypoint(input: Location($0.input), location: Location($0.location), distance: $0.distance,
                                           name: table.graph.name(ofEdge: $0.edge)) }
            }
            return TableWaypoints(unsnapped: table.unsnapped, sources: table.sources.map(snapped),
                                  destinations: table.destinations.map(snapped))
        }
    }
}

/// The caller's two arrays, handed to the copying thread: only it writes them until the call returns.
private struct CellBuffers<Cell>: @unchecked Sendable {
    let durations: UnsafeMutableBufferPointer<Cell>
    let distances: UnsafeMutableBufferPointer<Cell>
}

/// Where a table's points were snapped, and which could not be.
package struct TableWaypoints: Sendable {
    package var unsnapped: [Int]
    package var sources: [SnappedWaypoint?]
    package var destinations: [SnappedWaypoint?]
}
