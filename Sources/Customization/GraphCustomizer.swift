import Foundation
import Contraction
#if canImport(Glibc)
import Glibc
#endif
import RoadGraph

/// `wayfinder customize`: new costs for one mode's graph, from traffic files, served without a new import. The
/// graph's arcs, names and shapes stay; the costs and the hierarchy are replaced, and the result is written as a
/// new generation of the graph directory (the other modes and the place index are linked into it, not copied), so
/// a server picks it up as it picks up an import, and a failure at any point leaves the graph as it was.
public enum GraphCustomizer {
    public struct Report: Sendable {
        public var metric = ""
        public var usedSpeedRows = 0, unusedSpeedRows = 0, usedTurnRows = 0, unusedTurnRows = 0
        public var changedArcs = 0, changedTurns = 0
        /// Historical speeds: segments named that the graph has and has not, and arcs given a week of costs.
        public var usedHistorySegments = 0, unusedHistorySegments = 0, historicalArcs = 0
        /// Seconds spent ordering the graph (zero when the graph already had its customizable hierarchy).
        public var orderSeconds = 0.0
        public var hierarchy = CustomizationStatistics()
        /// Seconds from start to the new generation in place.
        public var seconds = 0.0
        public var generation = ""
    }

    public enum Failure: Error, CustomStringConvertible {
        case noMode(TravelMode, String)
        case noTurnCosts(TravelMode)
        case noNodeIDs(String)
        case tooLarge(Int)
        case damagedHierarchy(String)
        case badName(String)
        public var description: String {
            switch self {
            case .damagedHierarchy(let path):
                return "the customizable hierarchy in \(path) is damaged: re-run wayfinder import"
            case .badName(let why): return why
            case .tooLarge(let edges): return "the graph is too large to customize (\(edges) edges; at most 2^30)"
            case .noMode(let mode, let path): return "the graph in \(path) has no \(mode.rawValue) mode"
            case .noTurnCosts(let mode):
                return "the \(mode.rawValue) graph has no turn costs of its own (every turn at a junction costs the same): "
                    + "a turn penalty file cannot change it"
            case .noNodeIDs(let path): return "the graph in \(path) does not know its OSM node ids: re-import it"
            }
        }
    }

    /// Customizes `mode` in the graph directory `path` with the given files (none: back to the import's costs).
    /// `historyFiles`: historical speeds (`TrafficFiles.historicalSpeeds`), which routes with a departure time
    /// read on top of the metric the other files make.
    public static func customize(directory path: String, mode: TravelMode, speedFiles: [String], turnFiles: [String],
                                 historyFiles: [String] = [], metricName: String? = nil) throws -> Report {
        let started = Date()
        if let name = metricName, name.isEmpty || name.utf8.count > GraphFormat.metricNameLimit
            || name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw Failure.badName("--name must be 1 to \(GraphFormat.metricNameLimit) bytes of printable text")
        }
        // Every file is read and checked before anything is written.
        let speeds = try speedFiles.flatMap { try TrafficFiles.segmentSpeeds(path: $0) }
        let turns = try turnFiles.flatMap { try TrafficFiles.turnPenalties(path: $0) }
        let history = try historyFiles.flatMap { try TrafficFiles.historicalSpeeds(path: $0) }
        let directory = GraphDirectory(path)
        let generation = try directory.current()
        let graphPath = generation.graphPath(for: mode)
        guard FileManager.default.fileExists(atPath: graphPath) else { throw Failure.noMode(mode, path) }
        let graph = try RoadGraph(contentsOf: graphPath)
        guard graph.hasNodeIDs || (speeds.isEmpty && turns.isEmpty && history.isEmpty) else { throw Failure.noNodeIDs(path) }
        if graph.hierarchyOverVertices && !turns.isEmpty { throw Failure.noTurnCosts(mode) }

        var report = Report()
        let imported = TrafficMetric.importMetric(of: graph)
        var metric = imported
        metric.apply(speeds, to: graph)
        metric.apply(turns, to: graph)
        // A row can make a short segment (its time rounded to a tenth) faster than the top speed a graph file may
        // claim, which would leave A*'s bound too high: no arc's weight is less than its length at that speed.
        func leastWeight(_ a: Int) -> UInt32 {
            UInt32((Double(graph.edgeLength[Int(graph.arcEdge[a] >> 1)]) / Self.topSpeed * 1000).rounded(.up))
        }
        for a in 0..<graph.arcCount where metric.arcWeight[a] < leastWeight(a) { metric.arcWeight[a] = leastWeight(a) }
        let week = HistoricalMetric(history, graph: graph, metric: metric, leastWeight: leastWeight)
        report.usedHistorySegments = week.usedSegments; report.unusedHistorySegments = week.unusedSegments
        report.historicalArcs = week.arcs
        report.usedSpeedRows = metric.usedSpeedRows; report.unusedSpeedRows = metric.unusedSpeedRows
        report.usedTurnRows = metric.usedTurnRows; report.unusedTurnRows = metric.unusedTurnRows
        report.changedArcs = metric.changedArcs; report.changedTurns = metric.changedTurns

        let writer = try GraphDirectoryWriter(output: path)
        do {
            let name = metricName ?? defaultName(speedFiles: speedFiles, turnFiles: turnFiles + historyFiles)
            try write(graph, from: graphPath, imported: imported, metric: metric, week: week, metricName: name,
                      to: writer.stagingPath + "/" + GraphFormat.fileName(for: mode), report: &report)
            // The rest of the generation is the same files: linked, so the new generation costs no copy.
            for other in TravelMode.allCases where other != mode {
                try link(generation.graphPath(for: other), into: writer.stagingPath)
            }
            try link(generation.placesPath, into: writer.stagingPath)
            let committed = try writer.commit()
            report.generation = committed.name ?? committed.directory
        } catch {
            writer.abandon()
            throw error
        }
        report.seconds = Date().timeIntervalSince(started)
        return report
    }

    /// Gives a graph file just written by an import, without a hierarchy, the customizable hierarchy of its own
    /// costs, in place (`wayfinder import` for modes whose contraction costs more than ordering and customizing).
    /// A later `customize` then starts from the order this one made.
    public static func customizeImported(file path: String) throws -> Report {
        let started = Date()
        var report = Report()
        let customized = path + GraphFormat.customizingSuffix
        // The graph is unmapped before its file is replaced.
        do {
            let graph = try RoadGraph(contentsOf: path)
            let metric = TrafficMetric.importMetric(of: graph)
            try write(graph, from: path, imported: metric, metric: metric, week: HistoricalMetric(), metricName: "import",
                      to: customized, report: &report)
        } catch {
            unlink(customized)
            throw error
        }
        guard rename(customized, path) == 0 else {
            unlink(customized)
            throw GraphDirectoryError.cannotWrite("cannot replace \(path): \(String(cString: strerror(errno)))")
        }
        report.seconds = Date().timeIntervalSince(started)
        return report
    }

    /// Writes `graph` (loaded from `source`) to `path` with the metric's costs and its customized hierarchy, and
    /// with `week`'s historical speeds; `imported`: the import's costs, which every later customization starts from.
    static func write(_ graph: RoadGraph, from source: String, imported: TrafficMetric, metric: TrafficMetric,
                      week: HistoricalMetric, metricName: String, to path: String, report: inout Report) throws {
        // The load's checksums read the whole file: what the customization reads of it comes back as it is read.
        graph.file.releasePages(0..<graph.file.size)
        let input = customizationInput(graph, metric)
        let file = try GraphFileWriter(path: path)
        // The sections no metric changes (geometry, names: most of the file) are copied from the current file
        // on the other core while the hierarchy is assembled, and flushed to disk there.
        let unchanged = DispatchGroup()
        let writeUnchanged = {
            DispatchQueue.global().async(group: unchanged) {
                file.writeAllButRouting(customizing: graph)
                file.flushWritten()
            }
        }
        var started = false
        defer { if started { unchanged.wait() } }
        let topology: HierarchyTopology
        if !graph.cchUpStart.isEmpty {
            topology = HierarchyTopology(number: Array(graph.chNode), node: Array(graph.chOriginal),
                                         upStart: Array(graph.cchUpStart), upHead: Array(graph.cchUpHead))
            guard topology.isClosedUnderElimination else { throw Failure.damagedHierarchy(source) }
        } else {
            let ordering = Date()
            // From every turn of the import, closed or not: the order serves every later metric.
            topology = try HierarchyTopology(nodeCount: input.nodeCount, edges: structure(graph, metric))
            report.orderSeconds = Date().timeIntervalSince(ordering)
            // The ordering's graphs go before the customization's lanes come.
            releaseFreedMemory()
        }
        // Edge indices share 32 bits with two flags (see `LaneGroup`).
        guard max(topology.edgeCount, input.edges.count) < 1 << 30 else {
            throw Failure.tooLarge(max(topology.edgeCount, input.edges.count))
        }
        let (hierarchy, statistics) = HierarchyCustomization.customize(topology, input, excludable: ArcClasses.excludable.rawValue) {
            writeUnchanged()
            started = true
        }
        report.hierarchy = statistics
        // Where the week makes some arc cheaper than the metric, A* at a time needs bounds below both: the same
        // order customized once more, with each arc's least weight. Without exclusion sets: a bound that ignores
        // an exclusion is still a bound, and one set is half the work of Porto's four.
        let least = weekLeast(graph, metric, week)
        var bounds: HierarchyArrays?
        if let least {
            bounds = HierarchyCustomization.customize(topology, customizationInput(graph, least), excludable: 0).0
        }
        unchanged.wait()
        var arrays = GraphArrays()
        arrays.importArcWeight = imported.arcWeight
        arrays.importArcDuration = imported.arcDuration
        arrays.importTransitionStart = imported.transitionStart
        arrays.importTransitionTargets = imported.transitionTargets
        arrays.importTransitionWeight = imported.transitionWeight
        arrays.arcWeight = metric.arcWeight
        arrays.arcDuration = metric.arcDuration
        (arrays.transitionStart, arrays.transitionTargets, arrays.transitionWeight) = metric.openTransitions()
        arrays.chNode = hierarchy.node; arrays.chOriginal = hierarchy.original
        arrays.chUpStart = hierarchy.upStart; arrays.chUpEdges = hierarchy.up
        arrays.chUpLength = hierarchy.upLength; arrays.chUpDuration = hierarchy.upDuration
        arrays.chDownStart = hierarchy.downStart; arrays.chDownEdges = hierarchy.down
        arrays.chDownLength = hierarchy.downLength; arrays.chDownDuration = hierarchy.downDuration
        arrays.chUpShortcuts = hierarchy.upShortcuts; arrays.chDownShortcuts = hierarchy.downShortcuts
        arrays.cchUpStart = topology.upStart; arrays.cchUpHead = topology.upHead
        arrays.segmentWeight = metric.segmentWeight; arrays.segmentDuration = metric.segmentDuration
        arrays.historyStart = week.start; arrays.historySlots = week.runs
        // Without bounds, empty sections: a week nowhere faster keeps no old bounds.
        arrays.boundUpStart = bounds?.upStart ?? []; arrays.boundUpEdges = bounds?.up ?? []
        arrays.boundDownStart = bounds?.downStart ?? []; arrays.boundDownEdges = bounds?.down ?? []

        var metadata = graph.metadata
        // The A* bound holds at every time: the least of each arc's weights over the week.
        metadata.maxSpeed = fastestSpeed(graph, (least ?? metric).arcWeight, atLeast: graph.metadata.maxSpeed)
        metadata.metric = metricName
        report.metric = metricName
        try file.finish(&arrays, metadata: metadata, customizing: graph)
    }

    /// The metric with each arc's least weight over the week, where some run is cheaper than the metric (else nil).
    static func weekLeast(_ graph: RoadGraph, _ metric: TrafficMetric, _ week: HistoricalMetric) -> TrafficMetric? {
        guard !week.start.isEmpty else { return nil }
        var least = metric
        var cheaper = false
        for a in 0..<graph.arcCount {
            let base = Int(graph.arcBase[a])
            let entry = metric.arcWeight[a] > metric.arcWeight[base] ? metric.arcWeight[a] - metric.arcWeight[base] : 0
            for k in Int(week.start[base])..<Int(week.start[base + 1]) where week.runs[k].weight != HistorySlot.current {
                let w = week.runs[k].weight + entry
                if w < least.arcWeight[a] { least.arcWeight[a] = w; cheaper = true }
            }
        }
        return cheaper ? least : nil
    }

    /// The metric's name: its files' names and the time, or `import` for the import's own costs.
    static func defaultName(speedFiles: [String], turnFiles: [String]) -> String {
        let files = (speedFiles + turnFiles).map { URL(fileURLWithPath: $0).lastPathComponent }
        guard !files.isEmpty else { return "import" }
        let stamp = "@" + ISO8601DateFormatter().string(from: Date())
        // Shortened by whole characters to what the header holds, the time kept.
        var names = files.joined(separator: "+")
        while names.utf8.count + stamp.utf8.count > GraphFormat.metricNameLimit { names.removeLast() }
        return names + stamp
    }

    private static func link(_ file: String, into directory: String) throws {
        guard FileManager.default.fileExists(atPath: file) else { return }
        let target = directory + "/" + URL(fileURLWithPath: file).lastPathComponent
        if Glibc.link(file, target) == 0 { return }
        // Another file system: a copy.
        do { try FileManager.default.copyItem(atPath: file, toPath: target) } catch {
            throw GraphDirectoryError.cannotWrite("cannot link or copy \(file) into \(directory): \(error.localizedDescription)")
        }
    }

    /// The base graph of the hierarchy with the metric's costs: transitions between arcs, or arcs between vertices
    /// for a hierarchy over vertices (the import's `HierarchyBuilder` inputs, the same way).
    static func customizationInput(_ graph: RoadGraph, _ metric: TrafficMetric) -> CustomizationInput {
        let excludable = ArcClasses.excludable.rawValue
        var edges: [CustomizationInput.Edge] = []
        if graph.hierarchyOverVertices {
            edges.reserveCapacity(graph.arcCount)
            for a in 0..<graph.arcCount {
                let u = graph.chArcTail[a], v = graph.arcHead[a]
                let pass = graph.chVertexCost[Int(v)]
                guard graph.chVertexCost[Int(u)] != noIndex, pass != noIndex, metric.closed.isEmpty || !metric.closed[a] else { continue }
                edges.append(.init(from: u, to: v, weight: metric.arcWeight[a] + pass, duration: metric.arcDuration[a] + pass,
                                   length: graph.edgeLength[Int(graph.arcEdge[a] >> 1)], classes: graph.arcClasses[a] & excludable))
            }
            return CustomizationInput(nodeCount: graph.vertexCount, edges: edges, nodeClasses: [])
        }
        let (start, targets, weights) = metric.openTransitions()
        edges.reserveCapacity(targets.count)
        for a in 0..<graph.arcCount {
            for i in Int(start[a])..<Int(start[a + 1]) {
                let b = Int(targets[i])
                guard b != a else { continue }
                edges.append(.init(from: UInt32(a), to: UInt32(b), weight: weights[i] + metric.arcWeight[b],
                                   duration: weights[i] + metric.arcDuration[b],
                                   length: graph.edgeLength[Int(graph.arcEdge[b] >> 1)], classes: 0))
            }
        }
        return CustomizationInput(nodeCount: graph.arcCount, edges: edges,
                                  nodeClasses: (0..<graph.arcCount).map { graph.arcClasses[$0] & excludable })
    }

    /// The hierarchy's base edges at any metric: every turn of the import (over vertices, every arc).
    static func structure(_ graph: RoadGraph, _ metric: TrafficMetric) -> [(UInt32, UInt32)] {
        if graph.hierarchyOverVertices {
            return (0..<graph.arcCount).map { (graph.chArcTail[$0], graph.arcHead[$0]) }
        }
        var edges: [(UInt32, UInt32)] = []
        edges.reserveCapacity(metric.transitionTargets.count)
        for a in 0..<graph.arcCount {
            for i in Int(metric.transitionStart[a])..<Int(metric.transitionStart[a + 1]) {
                edges.append((UInt32(a), metric.transitionTargets[i]))
            }
        }
        return edges
    }

    /// The most a graph file's top speed may be, metres per second (`RoadGraph`'s checks at load).
    static let topSpeed = 300.0

    /// The A* bound: the fastest any arc is at these weights (metres per second), never below the import's.
    static func fastestSpeed(_ graph: RoadGraph, _ weights: [UInt32], atLeast floor: Double) -> Double {
        var fastest = floor
        for a in 0..<graph.arcCount where weights[a] > 0 {
            fastest = max(fastest, Double(graph.edgeLength[Int(graph.arcEdge[a] >> 1)]) / (Double(weights[a]) / 1000))
        }
        return min(topSpeed, fastest)
    }
}
