import Contraction
import Customization
import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Geocoding
import OSMReaderShim
import RoadGraph

/// What an import reports as it goes.
public enum ImportEvent: Sendable {
    /// Reading the file: pass 1 (ways, relations) or 2 (nodes), bytes done of total.
    case reading(pass: Int, done: UInt64, total: UInt64)
    case building(TravelMode)
    case built(ModeGraphStatistics)
    /// Contracting both modes at once: the fraction done for one of them.
    case contracting(TravelMode, Double)
    case contracted(TravelMode, ContractionStatistics)
    case indexedPlaces(PlaceIndexBuilder.Statistics)
    case warning(String)
}

public struct ImportSummary: Sendable {
    public var input: String
    public var output: String
    public var nodes = 0, ways = 0, relations = 0
    public var modes: [ModeGraphStatistics] = []
    public var contraction: [TravelMode: ContractionStatistics] = [:]
    public var places: PlaceIndexBuilder.Statistics?
    public var seconds = 0.0
}

/// `wayfinder import`: OSM file → one graph file per mode in a directory. Everything is written into a staging
/// directory that becomes current only when complete (`GraphDirectoryWriter`), so a failed or interrupted import
/// leaves either the previous graph or nothing.
public enum GraphImporter {
    /// `modes`: the graphs to build, in `TravelMode` order whatever the order given.
    public static func importGraphs(from input: String, to output: String, contract: Bool = true,
                                    compatibility: Compatibility = .wayfinder, modes: [TravelMode] = TravelMode.importedByDefault,
                                    timeZone: TimeZoneChoice? = nil,
                                    report: @escaping (ImportEvent) -> Void = { _ in }) throws -> ImportSummary
    {
        guard !modes.isEmpty else { throw ImportError.unreadableInput("no mode to build: give at least one of driving, walking, cycling") }
        try timeZone?.check()
        let started = Date()
        let fileManager = FileManager.default
        var isDirectory: ObjCBool = false
        guard fileManager.fileExists(atPath: input, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw ImportError.unreadableInput("no such file: \(input)")
        }
        var crcOK: Int32 = 0
        let checksum = wf_file_crc32(input, &crcOK)
        guard crcOK != 0 else { throw ImportError.unreadableInput("cannot read \(input)") }
        let size = (try? fileManager.attributesOfItem(atPath: input)[.size] as? UInt64) ?? 0

        // The output is checked (and locked) before the long part, so a wrong --output fails at once.
        let writer: GraphDirectoryWriter
        do { writer = try GraphDirectoryWriter(output: output) } catch {
            throw ImportError.cannotWrite("\(error)")
        }
        let staging = URL(fileURLWithPath: writer.stagingPath)
        var summary = ImportSummary(input: input, output: output)
        // Plain threads, not concurrentPerform: a contraction shares its rounds out with concurrentPerform, and
        // libdispatch runs a nested one on the calling thread alone.
        let group = DispatchGroup()
        func spawn(_ body: @escaping @Sendable () -> Void) {
            group.enter()
            let thread = Thread { body(); group.leave() }
            thread.stackSize = 8 << 20
            thread.start()
        }
        do {
            // Optional so the OSM arrays can be released before the memory-hungry contraction.
            var osm: OSMData? = try OSMData(reading: input) { pass, done, total in
                report(.reading(pass: pass, done: done, total: total))
            }
            summary.nodes = osm!.nodeCount
            summary.ways = osm!.wayCount
            summary.relations = osm!.relationCount
            if osm!.wayCount == 0 { report(.warning("\(input) contains no highway ways: every graph is empty")) }
            // The place index reads the extract on its own: it runs beside the graphs' builds, which take one core,
            // rather than beside the contractions, which take both.
            let placeResult = Locked<Result<PlaceIndexBuilder.Statistics, Error>?>(nil)
            let placesPath = staging.appendingPathComponent(Geocoder.fileName).path
            spawn { placeResult.mutate { $0 = Result { try PlaceIndexBuilder.build(osmFile: input, databasePath: placesPath) } } }
            var built: [(TravelMode, GraphArrays, GraphMetadata, GraphFileWriter, VertexReduction?)] = []
            var zoneName: String?
            for mode in TravelMode.allCases where modes.contains(mode) {
                // The last mode's builder goes back to the system before this one's build: glibc would keep much of
                // it (0.4 GB of the 8.7M-node extract's cycling build), as the builds allocate in other sizes.
                releaseFreedMemory()
                report(.building(mode))
                var builder = ModeGraphBuilder(osm: osm!, profile: .for(mode, compatibility: compatibility))
                var (arrays, maxSpeed, mainMinimum, grid) = builder.build()
                var bounds = BoundingBox.empty
                for i in 0..<arrays.vertexLatitudes.count {
                    bounds.extend(Coordinate(fixedLatitude: arrays.vertexLatitudes[i], fixedLongitude: arrays.vertexLongitudes[i]))
                }
                let metadata = GraphMetadata(
                    mode: mode, sourceName: URL(fileURLWithPath: input).lastPathComponent, sourceChecksum: checksum,
                    sourceSize: size, bounds: bounds, maxSpeed: maxSpeed, mainComponentMinimumSize: mainMinimum,
                    grid: grid, compatibility: compatibility)
                if let timeZone, zoneName == nil {
                    let centre = bounds == .empty ? Coordinate(latitude: 0, longitude: 0)
                        : Coordinate(latitude: (bounds.minLatitude + bounds.maxLatitude) / 2,
                                     longitude: (bounds.minLongitude + bounds.maxLongitude) / 2)
                    zoneName = try timeZone.name(at: centre)
                }
                arrays.timeZoneName = Array((zoneName ?? "").utf8)
                if builder.statistics.edges == 0 {
                    report(.warning("no roads usable for \(mode.rawValue) in \(input): that mode will answer NoSegment"))
                }
                report(.built(builder.statistics))
                summary.modes.append(builder.statistics)
                // What the contraction does not read is written now and let go: not held through it.
                let path = staging.appendingPathComponent(GraphFormat.fileName(for: mode)).path
                let writer: GraphFileWriter
                do { writer = try GraphFileWriter(path: path) } catch { throw ImportError.cannotWrite("\(error)") }
                writer.writeAllButRouting(&arrays)
                built.append((mode, arrays, metadata, writer, contract ? builder.vertexReduction() : nil))
            }
            osm = nil
            releaseFreedMemory()
            // The contractions (one per mode) are independent: run them side by side where memory allows. Each
            // mode's file is written as soon as its hierarchy is done, and its arrays are let go.
            let pending = Locked(built.map { Optional($0) })
            let contracted = Locked([TravelMode: ContractionStatistics]())
            let writeFailure = Locked<Error?>(nil)
            @Sendable func finishMode(_ i: Int) {
                var taken: (TravelMode, GraphArrays, GraphMetadata, GraphFileWriter, VertexReduction?)?
                pending.mutate { taken = $0[i]; $0[i] = nil }
                guard case (let mode, var arrays, let metadata, let writer, let reduction)? = taken else { return }
                taken = nil
                let customizable = contract && Self.customizableModes.contains(mode)
                if contract && !customizable {
                    let (hierarchy, stats) = Self.contract(arrays, overVertices: reduction, mode: mode, report: report)
                    arrays.install(hierarchy, overVertices: reduction)
                    contracted.mutate { $0[mode] = stats }
                }
                let arcCount = arrays.arcHead.count
                var failure: Error?
                do { try writer.finish(&arrays, metadata: metadata) } catch { failure = error }
                arrays = GraphArrays()
                releaseFreedMemory()
                // Customized from the file just written, with its arrays let go first.
                if customizable && failure == nil {
                    do {
                        let customization = try GraphCustomizer.customizeImported(file: writer.path)
                        var stats = ContractionStatistics()
                        stats.nodes = arcCount
                        stats.shortcuts = customization.hierarchy.hierarchyEdges
                        stats.seconds = customization.seconds
                        stats.customizable = true
                        contracted.mutate { $0[mode] = stats }
                    } catch {
                        failure = error
                    }
                    releaseFreedMemory()
                }
                if let failure { writeFailure.mutate { $0 = $0 ?? failure } }
            }
            // A contraction needs several hundred bytes per arc while it runs: on large extracts the modes take
            // turns (each on both cores), so peak memory is one contraction, not two.
            let totalArcs = built.reduce(0) { $0 + $1.1.arcHead.count }
            let oneAtATime = totalArcs > Self.parallelContractionLimit
            let modeCount = built.count
            built.removeAll()
            if oneAtATime {
                // Walking first: its hierarchy over vertices is quick, and its arrays (the larger) are written and
                // let go before driving's long contraction, instead of waiting through it.
                let modes = pending.value.map { $0?.0 }
                let order = modes.indices.filter { modes[$0] == .walking } + modes.indices.filter { modes[$0] != .walking }
                spawn { for k in order { finishMode(k) } }
            } else {
                for k in 0..<modeCount { spawn { finishMode(k) } }
            }
            group.wait()
            if let failure = writeFailure.value { throw failure }
            // Routing does not depend on the place index: a failure there is a warning, not a failed import.
            switch placeResult.value! {
            case .success(let placeStats):
                summary.places = placeStats
                report(.indexedPlaces(placeStats))
                if placeStats.areasSkipped {
                    report(.warning("\(input) is not sorted: boundaries were not assembled, places have no containing areas"))
                }
            case .failure(let error):
                try? FileManager.default.removeItem(atPath: placesPath)
                report(.warning("no place index: \(error)"))
            }
            for mode in TravelMode.allCases {
                guard let stats = contracted.value[mode] else { continue }
                summary.contraction[mode] = stats
                report(.contracted(mode, stats))
            }
            do { try writer.commit() } catch { throw ImportError.cannotWrite("\(error)") }
        } catch {
            // The place index may still be writing into the staging directory.
            group.wait()
            writer.abandon()
            throw error
        }
        summary.seconds = Date().timeIntervalSince(started)
        return summary
    }

    /// Reads an extract and builds every mode's graph in memory, writing nothing: the importer's reading and
    /// building on their own, for the fuzzer that feeds them damaged files.
    public static func buildInMemory(osmXML bytes: [UInt8]) throws -> [ModeGraphStatistics] {
        let osm = try OSMData(bytes: bytes, format: "osm")
        return TravelMode.allCases.map { mode in
            var builder = ModeGraphBuilder(osm: osm, profile: .for(mode))
            _ = builder.build()
            return builder.statistics
        }
    }

    /// Modes whose hierarchy is ordered by nested dissection and customized (as `wayfinder customize` does) instead
    /// of contracted. Cycling's contraction over arcs, with a turn cost at most junctions, takes several times as
    /// long as ordering and customizing, and its routes are faster on the customized hierarchy. Driving keeps its
    /// contraction: its tables are faster on it.
    static let customizableModes: Set<TravelMode> = [.cycling]

    /// Above this many arcs (all modes together) the modes are contracted one after the other.
    static let parallelContractionLimit = 3_000_000

    /// The mode's hierarchy: over vertices where the graph allows it (`reduction`), else over arcs.
    static func contract(_ arrays: GraphArrays, overVertices reduction: VertexReduction?, mode: TravelMode,
                         report: @escaping (ImportEvent) -> Void) -> (HierarchyArrays, ContractionStatistics)
    {
        let started = Date()
        // Roads and turns closed at times carry a class of their own, which tables leaving at a time avoid.
        let excludable = ArcClasses.excludable.union(.timed).rawValue
        var builder: HierarchyBuilder
        if let reduction {
            // Arcs into or out of a vertex that lets nothing through are left out: no path passes there.
            builder = HierarchyBuilder(nodeCount: arrays.vertexLatitudes.count, edgeCount: arrays.arcHead.count) { a in
                let u = reduction.tail[a], v = arrays.arcHead[a]
                let pass = reduction.cost[Int(v)]
                guard reduction.cost[Int(u)] != noIndex, pass != noIndex else { return nil }
                return HierarchyBuilder.BaseEdge(from: u, to: v, weight: arrays.arcWeight[a] + pass,
                                                 duration: arrays.arcDuration[a] + pass,
                                                 length: arrays.edgeLength[Int(arrays.arcEdge[a] >> 1)],
                                                 mask: arrays.arcClasses[a] & excludable)
            }
        } else {
            let lengths = arrays.arcEdge.map { arrays.edgeLength[Int($0 >> 1)] }
            let timedTurns = Set(arrays.timedRules.filter(\.isTurn).map { UInt64($0.from) << 32 | UInt64($0.to) })
            var turnMasks: [UInt8]?
            if !timedTurns.isEmpty {
                turnMasks = (0..<arrays.arcHead.count).flatMap { a in
                    (Int(arrays.transitionStart[a])..<Int(arrays.transitionStart[a + 1])).map { i in
                        let to = UInt64(arrays.arcBase[Int(arrays.transitionTargets[i])])
                        return timedTurns.contains(UInt64(a) << 32 | to) || timedTurns.contains(UInt64(arrays.arcBase[a]) << 32 | to)
                            ? ArcClasses.timed.rawValue : 0
                    }
                }
            }
            builder = HierarchyBuilder(arcCount: arrays.arcHead.count, transitionStart: arrays.transitionStart,
                                       transitionTargets: arrays.transitionTargets,
                                       transitionWeight: arrays.transitionWeight, arcWeight: arrays.arcWeight,
                                       arcDuration: arrays.arcDuration, arcLength: lengths,
                                       arcClasses: arrays.arcClasses.map { $0 & excludable }, transitionMasks: turnMasks)
        }
        var (hierarchy, stats) = builder.build { report(.contracting(mode, $0)) }
        stats.seconds = Date().timeIntervalSince(started)
        stats.overVertices = reduction != nil
        return (hierarchy, stats)
    }
}

extension GraphArrays {
    mutating func install(_ h: HierarchyArrays, overVertices reduction: VertexReduction?) {
        chNode = h.node; chOriginal = h.original
        chUpStart = h.upStart; chUpEdges = h.up; chUpLength = h.upLength; chUpDuration = h.upDuration
        chDownStart = h.downStart; chDownEdges = h.down; chDownLength = h.downLength; chDownDuration = h.downDuration
        chUpShortcuts = h.upShortcuts; chDownShortcuts = h.downShortcuts
        chVertexCost = reduction?.cost ?? []
        chArcTail = reduction?.tail ?? []
    }
}
