import CRC32C
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The on-disk format of one mode's graph (`graphs/<name>/<mode>.wfgraph`), little-endian:
///
///     header (fixed 512 bytes)                 section table (sectionCount × 32 bytes)        sections…
///     magic "WAYFGRPH", format version,        id u32, element size u32, offset u64,          each at an offset
///     mode, checksum of header and table,      element count u64, CRC-32C u32, 0 u32          that is a multiple
///     source CRC-32 and size, bounds, max                                                     of 64
///     speed, grid geometry, build time,
///     source name
///
/// Loading maps the file, checks every checksum (CRC-32C, one pass over the file, sections in parallel) and the
/// arrays' structure, and points typed buffers at the sections: no parsing, no copying. A damaged file is refused,
/// never used.
public enum GraphFormat {
    public static let magic: [UInt8] = Array("WAYFGRPH".utf8)
    /// 16: edge ends hold divided roads' merged bearings (`mergeDividedRoadBearings`), which guidance relies on.
    public static let version: UInt32 = 16
    static let headerSize = 512
    static let sectionEntrySize = 32
    /// Where the header's own checksum sits (it covers the header, with these bytes zero, and the section table).
    static let headerChecksumOffset = 20
    static let buildTimeOffset = 128
    /// One byte after the build time: 0 for Wayfinder's import rules, 1 for OSRM's (`import --compat osrm`).
    static let compatibilityOffset = 136
    /// The metric's name (`wayfinder customize`; empty for the import's own), NUL-padded, up to the source name.
    static let metricNameOffset = 144
    static let metricNameCapacity = 112
    /// The longest metric name a header holds, bytes of UTF-8.
    public static let metricNameLimit = metricNameCapacity - 1
    static let sourceNameCapacity = 256
    static let sourceNameOffset = 512 - 256
    static let sectionAlignment = 64

    public static func fileName(for mode: TravelMode) -> String { "\(mode.rawValue).wfgraph" }

    /// Where an import's customization writes a mode's graph (`fileName` and this) before it replaces it.
    public static let customizingSuffix = ".customized"

    public static func checksum(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32 {
        bytes.isEmpty ? crc : wf_crc32c(crc, bytes.baseAddress, bytes.count)
    }

    /// The checksum the header should carry: over the header with its checksum field zero, then the table.
    static func headerChecksum(_ file: UnsafeRawBufferPointer, sectionCount: Int) -> UInt32 {
        var crc = checksum(UnsafeRawBufferPointer(rebasing: file[0..<headerChecksumOffset]))
        crc = withUnsafeBytes(of: UInt32(0)) { checksum($0, continuing: crc) }
        let tableEnd = headerSize + sectionCount * sectionEntrySize
        return checksum(UnsafeRawBufferPointer(rebasing: file[(headerChecksumOffset + 4)..<tableEnd]), continuing: crc)
    }

    /// Recomputes every checksum of a graph file's bytes in place: how tests and the fuzzer make a damaged file
    /// that the checksums would pass, to exercise the structural checks behind them. Sections whose table entry
    /// points outside the file are left as they are.
    public static func reseal(_ bytes: inout [UInt8]) {
        guard bytes.count >= headerSize else { return }
        bytes.withUnsafeMutableBytes { file in
            let sectionCount = Int(file.loadUnaligned(fromByteOffset: 16, as: UInt32.self))
            guard sectionCount <= maxSections, headerSize + sectionCount * sectionEntrySize <= file.count else { return }
            for i in 0..<sectionCount {
                let at = headerSize + i * sectionEntrySize
                let entry = SectionEntry(file: UnsafeRawBufferPointer(file), at: at)
                guard let range = entry.byteRange(fileSize: file.count) else { continue }
                let crc = checksum(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(file)[range]))
                file.storeBytes(of: crc.littleEndian, toByteOffset: at + 24, as: UInt32.self)
            }
            let crc = headerChecksum(UnsafeRawBufferPointer(file), sectionCount: sectionCount)
            file.storeBytes(of: crc.littleEndian, toByteOffset: headerChecksumOffset, as: UInt32.self)
        }
    }

    static let maxSections = 1024
}

/// One entry of the section table.
struct SectionEntry {
    var id: UInt32
    var elementSize: Int
    var offset: Int
    var count: Int
    var checksum: UInt32

    init(file: UnsafeRawBufferPointer, at: Int) {
        id = file.loadUnaligned(fromByteOffset: at, as: UInt32.self)
        elementSize = Int(file.loadUnaligned(fromByteOffset: at + 4, as: UInt32.self))
        offset = Int(truncatingIfNeeded: file.loadUnaligned(fromByteOffset: at + 8, as: UInt64.self))
        count = Int(truncatingIfNeeded: file.loadUnaligned(fromByteOffset: at + 16, as: UInt64.self))
        checksum = file.loadUnaligned(fromByteOffset: at + 24, as: UInt32.self)
    }

    /// The section's bytes, if they lie within the file (computed without overflow, whatever the entry says).
    func byteRange(fileSize: Int) -> Range<Int>? {
        guard offset >= 0, count >= 0, elementSize > 0 else { return nil }
        let (length, overflow) = count.multipliedReportingOverflow(by: elementSize)
        guard !overflow, offset <= fileSize, length <= fileSize - offset else { return nil }
        return offset..<(offset + length)
    }
}

public enum GraphFileError: Error, CustomStringConvertible, Equatable {
    case cannotOpen(String)
    case notAGraph(String)
    case unsupportedVersion(UInt32)
    case corrupt(String)
    case cannotWrite(String)

    public var description: String {
        switch self {
        case .cannotOpen(let path): return "cannot open graph file \(path)"
        case .notAGraph(let path): return "\(path) is not a Wayfinder graph file"
        case .unsupportedVersion(let v):
            return "graph format version \(v) is not supported (this build reads version \(GraphFormat.version)); re-run wayfinder import"
        case .corrupt(let what): return what
        case .cannotWrite(let what): return what
        }
    }
}

enum SectionID: UInt32, CaseIterable {
    case vertexLatitudes = 1, vertexLongitudes, edgeShapeStart, shapeLatitudes, shapeLongitudes, edgeLength,
         edgeLabel, edgeRef, edgeClass, edgeForwardArc, edgeBackwardArc, arcEdge, arcHead, arcWeight, arcBase,
         arcComponent, componentSize, transitionStart, transitionTargets, stringOffsets, stringBytes, gridCellStart,
         gridSegments, edgeFlags, labelStart, labelEntries, vertexEdgeStart, vertexEdges, arcInCore, chNode, chUpStart,
         chUpEdges, chUpLength, chDownStart, chDownEdges, chDownLength, transitionWeight, arcDuration, arcClasses,
         arcDestinations, edgePronunciation, edgeExits, chUpDuration, chDownDuration, arcTurnLanes, edgeLanes,
         chVertexCost, chArcTail, chOriginal, chUpShortcuts, chDownShortcuts, edgeEnds, shapeNodeIDs, maneuverStart,
         maneuverPath, maneuverVia, maneuverKind, importArcWeight, importArcDuration, importTransitionWeight, cchUpStart,
         cchUpHead, importTransitionStart, importTransitionTargets, segmentWeight, segmentDuration, importSegmentWeight,
         importSegmentDuration, timedRules, conditionNotes, timeZoneName, segmentSplitFromLast, interiorDelays,
         historyStart, historySlots, edgeUnpaved, boundUpStart, boundUpEdges, boundDownStart, boundDownEdges

    /// The contraction hierarchy's sections.
    var isHierarchy: Bool {
        switch self {
        case .chNode, .chOriginal, .chUpStart, .chUpEdges, .chUpLength, .chUpDuration, .chDownStart, .chDownEdges, .chDownLength,
             .chDownDuration, .chUpShortcuts, .chDownShortcuts, .chVertexCost, .chArcTail:
            return true
        default: return false
        }
    }
}

/// A read-only memory mapping that lives as long as any graph that points into it.
public final class MappedFile: @unchecked Sendable {
    public let base: UnsafeRawPointer
    public let size: Int
    /// Whether the bytes are the file's pages (a mapping), not memory of the process's own.
    private let isMapping: Bool

    /// Maps the file, or with `privateCopy` reads it into memory of its own. A mapping shares the file's pages, so
    /// the file overwritten or truncated in place (`cp new.wfgraph generation-1/`) changes or removes them under
    /// the searches: a trap, or SIGBUS. A long-running server takes the copy; the checksum pass reads every byte at
    /// load anyway, so it costs one copy of the bytes, and the page cache is let go after.
    public init(path: String, privateCopy: Bool = false) throws {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw GraphFileError.cannotOpen(path) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw GraphFileError.cannotOpen(path) }
        size = Int(info.st_size)
        guard size >= GraphFormat.headerSize else { throw GraphFileError.notAGraph(path) }
        guard privateCopy else {
            guard let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), mapped != MAP_FAILED else {
                throw GraphFileError.cannotOpen(path)
            }
            base = UnsafeRawPointer(mapped)
            isMapping = true
            return
        }
        isMapping = false
        guard let memory = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), memory != MAP_FAILED
        else { throw GraphFileError.cannotOpen("memory for \(path)") }
        var done = 0
        while done < size {
            let n = pread(fd, memory + done, min(size - done, 1 << 26), off_t(done))
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                munmap(memory, size)
                // Shorter than a moment ago: it is being written; the watch tries again when it changes.
                throw GraphFileError.corrupt("\(path) shrank while it was read: it is being written")
            }
            done += n
        }
        mprotect(memory, size, PROT_READ)
        _ = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)
        base = UnsafeRawPointer(memory)
    }

    /// A copy of `bytes` in memory of its own, mapped like a file (what the fuzzer loads: no file per input).
    public init(bytes: [UInt8]) throws {
        let count = bytes.count
        size = count
        guard count >= GraphFormat.headerSize else { throw GraphFileError.notAGraph("the bytes") }
        guard let mapped = mmap(nil, count, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
              mapped != MAP_FAILED else { throw GraphFileError.cannotOpen("memory for the bytes") }
        bytes.withUnsafeBytes { mapped.copyMemory(from: $0.baseAddress!, byteCount: count) }
        mprotect(mapped, count, PROT_READ)
        base = UnsafeRawPointer(mapped)
        isMapping = false
    }

    deinit { munmap(UnsafeMutableRawPointer(mutating: base), size) }

    /// Lets go of the file's pages in `range` (whole pages inside it): they stay in the page cache, are read again
    /// when touched, and stop counting to the process's resident memory. A customization calls it on the graph it
    /// reads once checked and once copied, so that a graph file of gigabytes does not count twice beside the
    /// hierarchy it builds. Memory of the process's own (`privateCopy`) has no file behind it, and is kept.
    public func releasePages(_ range: Range<Int>) {
        guard isMapping else { return }
        let start = max(0, range.lowerBound), end = min(size, range.upperBound)
        guard end > start else { return }
        releaseWholePages(UnsafeRawBufferPointer(start: base + start, count: end - start))
    }

    func load<T>(_ offset: Int, as type: T.Type) -> T { base.loadUnaligned(fromByteOffset: offset, as: T.self) }
}

extension MappedFile {
    /// The section table of a graph file this maps (checked when a graph was loaded from it), by section id.
    var sectionTable: [UInt32: SectionEntry] {
        let count = min(Int(load(16, as: UInt32.self)), GraphFormat.maxSections)
        let bytes = UnsafeRawBufferPointer(start: base, count: size)
        var table: [UInt32: SectionEntry] = [:]
        for i in 0..<count where GraphFormat.headerSize + (i + 1) * GraphFormat.sectionEntrySize <= size {
            let entry = SectionEntry(file: bytes, at: GraphFormat.headerSize + i * GraphFormat.sectionEntrySize)
            table[entry.id] = entry
        }
        return table
    }
}

struct GraphFileSections {
    let file: MappedFile
    var table: [UInt32: SectionEntry] = [:]

    func buffer<T>(_ id: SectionID) throws -> UnsafeBufferPointer<T> {
        guard let entry = table[id.rawValue] else { throw GraphFileError.corrupt("graph file lacks section \(id)") }
        guard entry.elementSize == MemoryLayout<T>.stride, entry.offset % MemoryLayout<T>.alignment == 0,
              entry.byteRange(fileSize: file.size) != nil
        else { throw GraphFileError.corrupt("graph file section \(id) is damaged or truncated") }
        let start = (file.base + entry.offset).assumingMemoryBound(to: T.self)
        return UnsafeBufferPointer(start: start, count: entry.count)
    }

    /// A section that files written before it existed lack: empty there.
    func optionalBuffer<T>(_ id: SectionID) throws -> UnsafeBufferPointer<T> {
        table[id.rawValue] == nil ? UnsafeBufferPointer(start: nil, count: 0) : try buffer(id)
    }
}

extension RoadGraph {
    /// Maps a graph file. Throws for anything that is not a complete graph of this format version.
    /// `privateCopy`: see `MappedFile.init(path:privateCopy:)`.
    public init(contentsOf path: String, privateCopy: Bool = false) throws {
        try self.init(mapping: try MappedFile(path: path, privateCopy: privateCopy), path: path)
    }

    /// A graph whose file is already mapped; `path` names it in errors.
    public init(mapping file: MappedFile, path: String) throws {
        let magic = (0..<8).map { file.load($0, as: UInt8.self) }
        guard magic == GraphFormat.magic else { throw GraphFileError.notAGraph(path) }
        let version = file.load(8, as: UInt32.self)
        guard version == GraphFormat.version else { throw GraphFileError.unsupportedVersion(version) }
        guard let mode = TravelMode(code: file.load(12, as: UInt32.self)) else { throw GraphFileError.notAGraph(path) }
        let sectionCount = Int(file.load(16, as: UInt32.self))
        var cursor = 24
        func u32() -> UInt32 { defer { cursor += 4 }; return file.load(cursor, as: UInt32.self) }
        func u64() -> UInt64 { defer { cursor += 8 }; return file.load(cursor, as: UInt64.self) }
        func f64() -> Double { defer { cursor += 8 }; return file.load(cursor, as: Double.self) }
        let bytes = UnsafeRawBufferPointer(start: file.base, count: file.size)
        guard sectionCount <= GraphFormat.maxSections,
              GraphFormat.headerSize + sectionCount * GraphFormat.sectionEntrySize <= file.size
        else { throw GraphFileError.corrupt("graph file \(path) is truncated") }
        guard GraphFormat.headerChecksum(bytes, sectionCount: sectionCount)
                == file.load(GraphFormat.headerChecksumOffset, as: UInt32.self)
        else { throw GraphFileError.corrupt("graph file \(path) is damaged (its header fails its checksum): re-run wayfinder import") }
        let checksum = u32()
        _ = u32()
        let sourceSize = u64()
        let bounds = BoundingBox(minLatitude: f64(), minLongitude: f64(), maxLatitude: f64(), maxLongitude: f64())
        let maxSpeed = f64()
        let grid = GridGeometry(originLatitude: f64(), originLongitude: f64(), cellHeight: f64(), cellWidth: f64(),
                                rows: u32(), columns: u32())
        let mainMinimum = u32()
        let buildTime = file.load(GraphFormat.buildTimeOffset, as: Int64.self)
        let compatibility: Compatibility
        switch file.load(GraphFormat.compatibilityOffset, as: UInt8.self) {
        case 0: compatibility = .wayfinder
        case 1: compatibility = .osrm
        case let other: throw GraphFileError.corrupt("graph file \(path) names unknown import rules (\(other))")
        }
        let nameBytes = (0..<GraphFormat.sourceNameCapacity).map {
            file.load(GraphFormat.sourceNameOffset + $0, as: UInt8.self)
        }
        let sourceName = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
        let metricBytes = (0..<GraphFormat.metricNameCapacity).map { file.load(GraphFormat.metricNameOffset + $0, as: UInt8.self) }
        var metadata = GraphMetadata(mode: mode, sourceName: sourceName, sourceChecksum: checksum,
                                     sourceSize: sourceSize, bounds: bounds, maxSpeed: maxSpeed,
                                     mainComponentMinimumSize: mainMinimum, grid: grid, buildTime: buildTime,
                                     compatibility: compatibility)
        metadata.metric = String(decoding: metricBytes.prefix { $0 != 0 }, as: UTF8.self)

        var sections = GraphFileSections(file: file)
        var entries: [SectionEntry] = []
        for i in 0..<sectionCount {
            let entry = SectionEntry(file: bytes, at: GraphFormat.headerSize + i * GraphFormat.sectionEntrySize)
            guard entry.byteRange(fileSize: file.size) != nil else {
                throw GraphFileError.corrupt("graph file \(path) is truncated or damaged (section \(entry.id))")
            }
            sections.table[entry.id] = entry
            entries.append(entry)
        }
        // One pass over the file: every section against its checksum, on every core for a large file.
        let damaged = Locked<UInt32?>(nil)
        let threads = file.size > 1 << 24 ? ProcessInfo.processInfo.activeProcessorCount : 1
        parallelFor(entries.count, threads: threads) { i in
            let entry = entries[i]
            let range = entry.byteRange(fileSize: file.size)!
            if GraphFormat.checksum(UnsafeRawBufferPointer(rebasing: bytes[range])) != entry.checksum {
                damaged.mutate { $0 = $0 ?? entry.id }
            }
        }
        if let id = damaged.value {
            throw GraphFileError.corrupt("graph file \(path) is damaged (section \(id) fails its checksum): re-run wayfinder import")
        }
        try self.init(file: file, metadata: metadata, sections: sections)
    }
}

/// `body(i)` for i in 0..<count on up to `threads` threads (inline on this one when it is one).
func parallelFor(_ count: Int, threads: Int, _ body: (Int) -> Void) {
    if threads <= 1 { for i in 0..<count { body(i) }; return }
    DispatchQueue.concurrentPerform(iterations: count, execute: body)
}

/// `body` over 0..<count in up to 64 consecutive ranges: on every core when `count` is large (more than 65,536
/// items, where a second thread pays), else on this thread. For passes over a graph's nodes or vertices.
func parallelChunks(_ count: Int, _ body: (Range<Int>) -> Void) {
    let chunks = min(count, 64)
    let threads = count > 1 << 16 ? ProcessInfo.processInfo.activeProcessorCount : 1
    parallelFor(chunks, threads: threads) { c in body((count * c / chunks)..<(count * (c + 1) / chunks)) }
}

/// One section of a graph file: its id and the array of `GraphArrays` it holds.
private protocol GraphSection {
    var id: SectionID { get }
    /// The array's bytes, element size and count.
    func withBytes<R>(of arrays: GraphArrays, _ body: (UnsafeRawBufferPointer, Int, Int) -> R) -> R
    func release(in arrays: inout GraphArrays)
}

private struct Section<T>: GraphSection {
    let id: SectionID
    let array: WritableKeyPath<GraphArrays, [T]>
    init(_ id: SectionID, _ array: WritableKeyPath<GraphArrays, [T]>) { self.id = id; self.array = array }

    func withBytes<R>(of arrays: GraphArrays, _ body: (UnsafeRawBufferPointer, Int, Int) -> R) -> R {
        arrays[keyPath: array].withUnsafeBytes { body($0, MemoryLayout<T>.stride, arrays[keyPath: array].count) }
    }

    func release(in arrays: inout GraphArrays) { arrays[keyPath: array] = [] }
}

/// Writes a graph file section by section, each as soon as it is given, then the header and section table
/// (which come first in the file) at the end. An import writes the sections its contraction does not read
/// before contracting and lets them go (`writeAllButRouting`), so a large extract's geometry and names are not
/// held through the contraction. Callers write into a temporary directory and rename it into place when all
/// modes are done.
public final class GraphFileWriter: @unchecked Sendable {  // one thread at a time
    private static let sections: [any GraphSection] = [
        Section(.vertexLatitudes, \.vertexLatitudes), Section(.vertexLongitudes, \.vertexLongitudes),
        Section(.edgeShapeStart, \.edgeShapeStart), Section(.shapeLatitudes, \.shapeLatitudes),
        Section(.shapeLongitudes, \.shapeLongitudes), Section(.shapeNodeIDs, \.shapeNodeIDs),
        Section(.edgeLength, \.edgeLength), Section(.edgeLabel, \.edgeLabel),
        Section(.edgeFlags, \.edgeFlags), Section(.edgeRef, \.edgeRef), Section(.edgeClass, \.edgeClass),
        Section(.edgeForwardArc, \.edgeForwardArc), Section(.edgeBackwardArc, \.edgeBackwardArc), Section(.arcEdge, \.arcEdge),
        Section(.arcHead, \.arcHead), Section(.arcWeight, \.arcWeight), Section(.arcBase, \.arcBase),
        Section(.arcDuration, \.arcDuration), Section(.arcClasses, \.arcClasses), Section(.arcDestinations, \.arcDestinations),
        Section(.arcTurnLanes, \.arcTurnLanes), Section(.edgeLanes, \.edgeLanes), Section(.edgePronunciation, \.edgePronunciation),
        Section(.edgeExits, \.edgeExits), Section(.arcComponent, \.arcComponent), Section(.componentSize, \.componentSize),
        Section(.arcInCore, \.arcInCore), Section(.transitionStart, \.transitionStart),
        Section(.transitionTargets, \.transitionTargets), Section(.transitionWeight, \.transitionWeight),
        Section(.stringOffsets, \.stringOffsets), Section(.stringBytes, \.stringBytes), Section(.labelStart, \.labelStart),
        Section(.labelEntries, \.labelEntries), Section(.vertexEdgeStart, \.vertexEdgeStart), Section(.vertexEdges, \.vertexEdges),
        Section(.gridCellStart, \.gridCellStart), Section(.gridSegments, \.gridSegments), Section(.chNode, \.chNode),
        Section(.chUpStart, \.chUpStart), Section(.chUpEdges, \.chUpEdges), Section(.chUpLength, \.chUpLength),
        Section(.chUpDuration, \.chUpDuration), Section(.chDownStart, \.chDownStart), Section(.chDownEdges, \.chDownEdges),
        Section(.chDownLength, \.chDownLength), Section(.chDownDuration, \.chDownDuration), Section(.chVertexCost, \.chVertexCost),
        Section(.chArcTail, \.chArcTail), Section(.chOriginal, \.chOriginal), Section(.chUpShortcuts, \.chUpShortcuts),
        Section(.chDownShortcuts, \.chDownShortcuts), Section(.edgeEnds, \.edgeEnds),
        Section(.maneuverStart, \.maneuverStart), Section(.maneuverPath, \.maneuverPath), Section(.maneuverVia, \.maneuverVia),
        Section(.maneuverKind, \.maneuverKind), Section(.importArcWeight, \.importArcWeight),
        Section(.importArcDuration, \.importArcDuration), Section(.importTransitionWeight, \.importTransitionWeight),
        Section(.cchUpStart, \.cchUpStart), Section(.cchUpHead, \.cchUpHead),
        Section(.importTransitionStart, \.importTransitionStart), Section(.importTransitionTargets, \.importTransitionTargets),
        Section(.segmentWeight, \.segmentWeight), Section(.segmentDuration, \.segmentDuration),
        Section(.importSegmentWeight, \.importSegmentWeight), Section(.importSegmentDuration, \.importSegmentDuration),
        Section(.timedRules, \.timedRules), Section(.conditionNotes, \.conditionNotes), Section(.timeZoneName, \.timeZoneName),
        Section(.segmentSplitFromLast, \.segmentSplitFromLast), Section(.interiorDelays, \.interiorDelays),
        Section(.historyStart, \.historyStart), Section(.historySlots, \.historySlots),
        Section(.edgeUnpaved, \.edgeUnpaved), Section(.boundUpStart, \.boundUpStart), Section(.boundUpEdges, \.boundUpEdges),
        Section(.boundDownStart, \.boundDownStart), Section(.boundDownEdges, \.boundDownEdges),
    ]

    /// What a contraction hierarchy is built from (arcs, turns, the edges at each vertex, the vertex count):
    /// kept until it is.
    private static let routing: Set<SectionID> = [
        .vertexLatitudes, .edgeLength, .edgeForwardArc, .edgeBackwardArc, .arcEdge, .arcHead, .arcWeight, .arcBase, .arcDuration, .arcClasses,
        .transitionStart, .transitionTargets, .transitionWeight, .vertexEdgeStart, .vertexEdges, .timedRules,
    ]

    /// A metric's own sections (see `GraphArrays`): a customization knows them last.
    private static let metric: Set<SectionID> = [
        .importArcWeight, .importArcDuration, .importTransitionStart, .importTransitionTargets, .importTransitionWeight,
        .cchUpStart, .cchUpHead, .segmentWeight, .segmentDuration, .historyStart, .historySlots,
        .boundUpStart, .boundUpEdges, .boundDownStart, .boundDownEdges,
    ]

    public let path: String
    private var out: UnsafeMutablePointer<FILE>?
    /// Per section written: id, element size, offset, count, checksum.
    private var table: [(id: SectionID, elementSize: Int, offset: Int, count: Int, crc: UInt32)] = []
    private var position: Int
    private var failed = false

    /// Creates the file, leaving room for the header and the section table.
    public init(path: String) throws {
        guard let out = fopen(path, "wb") else { throw GraphFileError.cannotWrite("cannot create \(path)") }
        self.path = path
        self.out = out
        position = GraphFormat.headerSize + Self.sections.count * GraphFormat.sectionEntrySize
        if fseek(out, position, SEEK_SET) != 0 { failed = true }
    }

    /// What a customization gives anew (`GraphArrays` it fills): a metric's costs, turns and hierarchies. The rest of
    /// a customized graph is its source's.
    private static let customized: Set<SectionID> = [
        .arcWeight, .arcDuration, .transitionStart, .transitionTargets, .transitionWeight, .importArcWeight,
        .importArcDuration, .importTransitionStart, .importTransitionTargets, .importTransitionWeight, .chNode, .chOriginal,
        .chUpStart, .chUpEdges, .chUpLength, .chUpDuration, .chDownStart, .chDownEdges, .chDownLength, .chDownDuration,
        .chUpShortcuts, .chDownShortcuts, .cchUpStart, .cchUpHead, .segmentWeight, .segmentDuration, .historyStart,
        .historySlots, .boundUpStart, .boundUpEdges, .boundDownStart, .boundDownEdges,
    ]

    /// Writes every section but those a contraction is built from (and a metric's own), and empties them in `arrays`.
    public func writeAllButRouting(_ arrays: inout GraphArrays) {
        for section in Self.sections where Self.isWrittenEarly(section.id) {
            write(section, arrays)
            section.release(in: &arrays)
        }
    }

    /// The same sections, for a customization of `source`: copied as they are from its file, with the checksums
    /// its load checked. Nothing is copied in memory (a gigabyte on a large graph) and no checksum is computed.
    public func writeAllButRouting(customizing source: RoadGraph) {
        let table = source.file.sectionTable
        for section in Self.sections where Self.isWrittenEarly(section.id) { copy(section, from: source.file, table) }
    }

    private static func isWrittenEarly(_ id: SectionID) -> Bool {
        !routing.contains(id) && !id.isHierarchy && !metric.contains(id)
    }

    /// Flushes what is written so far to disk, so that the commit's flush waits only for the rest (a customization
    /// calls it on the core that wrote the unchanged sections while the other still works).
    public func flushWritten() {
        guard let out, fflush(out) == 0 else { failed = true; return }
        if fsync(fileno(out)) != 0 { failed = true }
    }

    /// Writes the sections not written yet, then the header and table; closes the file. `arrays` is emptied.
    /// `customizing`: the graph a customization gives new costs: `arrays` holds only what it gives anew, and the
    /// other sections are copied from that graph's file.
    public func finish(_ arrays: inout GraphArrays, metadata: GraphMetadata, customizing source: RoadGraph? = nil) throws {
        let written = Set(table.map(\.id))
        let sourceTable = source?.file.sectionTable
        for section in Self.sections where !written.contains(section.id) {
            if let source, let sourceTable, !Self.customized.contains(section.id) {
                copy(section, from: source.file, sourceTable)
                continue
            }
            write(section, arrays)
            section.release(in: &arrays)
        }
        // Header.
        var header = [UInt8](repeating: 0, count: GraphFormat.headerSize)
        var cursor = 0
        func put<T>(_ value: T) {
            withUnsafeBytes(of: value) { bytes in
                for (i, b) in bytes.enumerated() { header[cursor + i] = b }
            }
            cursor += MemoryLayout<T>.size
        }
        for b in GraphFormat.magic { put(b) }
        put(GraphFormat.version)
        put(metadata.mode.code)
        put(UInt32(table.count))
        put(UInt32(0))
        put(metadata.sourceChecksum)
        put(UInt32(0))
        put(metadata.sourceSize)
        put(metadata.bounds.minLatitude); put(metadata.bounds.minLongitude)
        put(metadata.bounds.maxLatitude); put(metadata.bounds.maxLongitude)
        put(metadata.maxSpeed)
        put(metadata.grid.originLatitude); put(metadata.grid.originLongitude)
        put(metadata.grid.cellHeight); put(metadata.grid.cellWidth)
        put(metadata.grid.rows); put(metadata.grid.columns)
        put(metadata.mainComponentMinimumSize)
        precondition(cursor <= GraphFormat.buildTimeOffset)
        cursor = GraphFormat.buildTimeOffset
        put(Int64(Date().timeIntervalSince1970))
        put(UInt8(metadata.compatibility == .osrm ? 1 : 0))
        let metric = Array(metadata.metric.utf8.prefix(GraphFormat.metricNameCapacity - 1))
        for (i, b) in metric.enumerated() { header[GraphFormat.metricNameOffset + i] = b }
        let name = Array(metadata.sourceName.utf8.prefix(GraphFormat.sourceNameCapacity - 1))
        for (i, b) in name.enumerated() { header[GraphFormat.sourceNameOffset + i] = b }
        // The section table; the header's checksum covers it.
        var entries: [UInt8] = []
        for e in table {
            for v in [UInt64(e.id.rawValue) | UInt64(e.elementSize) << 32, UInt64(e.offset), UInt64(e.count), UInt64(e.crc)] {
                withUnsafeBytes(of: v.littleEndian) { entries.append(contentsOf: $0) }
            }
        }
        let headerCRC = (header + entries).withUnsafeBytes { GraphFormat.headerChecksum($0, sectionCount: table.count) }
        withUnsafeBytes(of: headerCRC.littleEndian) { crc in
            for (i, b) in crc.enumerated() { header[GraphFormat.headerChecksumOffset + i] = b }
        }
        guard let file = out else { throw GraphFileError.cannotWrite("\(path) was already finished") }
        if fseek(file, 0, SEEK_SET) != 0 { failed = true }
        header.withUnsafeBytes { emit($0) }
        entries.withUnsafeBytes { emit($0) }
        if fflush(file) != 0 { failed = true }
        if fclose(file) != 0 { failed = true }
        out = nil
        if failed { throw GraphFileError.cannotWrite("could not write \(path) (disk full?)") }
    }

    /// An import that failed before finishing closes what it had begun (the staging directory goes with it).
    deinit { if let out { fclose(out) } }

    /// Appends a section at the next aligned offset.
    private func write(_ section: any GraphSection, _ arrays: GraphArrays) {
        let offset = padToAlignment()
        section.withBytes(of: arrays) { bytes, size, count in
            table.append((section.id, size, offset, count, GraphFormat.checksum(bytes)))
            emit(bytes)
            position = offset + bytes.count
        }
    }

    /// Appends a section as `file` holds it (validated when it was loaded), or empty where the file lacks it.
    private func copy(_ section: any GraphSection, from file: MappedFile, _ sourceTable: [UInt32: SectionEntry]) {
        guard let entry = sourceTable[section.id.rawValue], let range = entry.byteRange(fileSize: file.size) else {
            return write(section, GraphArrays())
        }
        let offset = padToAlignment()
        let bytes = UnsafeRawBufferPointer(start: file.base + range.lowerBound, count: range.count)
        table.append((section.id, entry.elementSize, offset, entry.count, entry.checksum))
        emit(bytes)
        file.releasePages(range)
        position = offset + bytes.count
    }

    /// Writes zeros up to the next section's aligned offset, and returns it.
    private func padToAlignment() -> Int {
        let align = GraphFormat.sectionAlignment
        let offset = (position + align - 1) / align * align
        let zeros = [UInt8](repeating: 0, count: offset - position)
        zeros.withUnsafeBytes { emit($0) }
        return offset
    }

    private func emit(_ bytes: UnsafeRawBufferPointer) {
        guard let out else { failed = true; return }
        if bytes.count > 0, fwrite(bytes.baseAddress, 1, bytes.count, out) != bytes.count { failed = true }
    }
}
