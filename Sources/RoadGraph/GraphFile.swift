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
    public static let version: UInt32 = 9
    static let headerSize = 512
    static let sectionEntrySize = 32
    /// Where the header's own checksum sits (it covers the header, with these bytes zero, and the section table).
    static let headerChecksumOffset = 20
    static let buildTimeOffset = 128
    static let sourceNameCapacity = 256
    static let sourceNameOffset = 512 - 256
    static let sectionAlignment = 64

    public static func fileName(for mode: TravelMode) -> String { "\(mode.rawValue).wfgraph" }

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
         gridSegments, edgeFlags, labelStart, labelEntries, vertexEdgeStart, vertexEdges, arcInCore, chRank, chUpStart,
         chUpTarget, chUpWeight, chUpMiddle, chUpLength, chDownStart, chDownSource, chDownWeight, chDownMiddle, chDownLength, transitionWeight,
         arcDuration, arcClasses, arcDestinations, edgePronunciation, edgeExits, chUpDuration, chDownDuration,
         chUpMask, chDownMask, arcTurnLanes, edgeLanes, chVertexCost, chArcTail
}

/// A read-only memory mapping that lives as long as any graph that points into it.
public final class MappedFile: @unchecked Sendable {
    public let base: UnsafeRawPointer
    public let size: Int

    public init(path: String) throws {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw GraphFileError.cannotOpen(path) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw GraphFileError.cannotOpen(path) }
        size = Int(info.st_size)
        guard size >= GraphFormat.headerSize else { throw GraphFileError.notAGraph(path) }
        guard let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), mapped != MAP_FAILED else {
            throw GraphFileError.cannotOpen(path)
        }
        base = UnsafeRawPointer(mapped)
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
    }

    deinit { munmap(UnsafeMutableRawPointer(mutating: base), size) }

    func load<T>(_ offset: Int, as type: T.Type) -> T { base.loadUnaligned(fromByteOffset: offset, as: T.self) }
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
}

extension RoadGraph {
    /// Maps a graph file. Throws for anything that is not a complete graph of this format version.
    public init(contentsOf path: String) throws {
        try self.init(mapping: try MappedFile(path: path), path: path)
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
        let nameBytes = (0..<GraphFormat.sourceNameCapacity).map {
            file.load(GraphFormat.sourceNameOffset + $0, as: UInt8.self)
        }
        let sourceName = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
        let metadata = GraphMetadata(mode: mode, sourceName: sourceName, sourceChecksum: checksum,
                                     sourceSize: sourceSize, bounds: bounds, maxSpeed: maxSpeed,
                                     mainComponentMinimumSize: mainMinimum, grid: grid, buildTime: buildTime)

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

/// Writes a graph file. Callers write into a temporary directory and rename it into place when all modes are done.
public enum GraphFileWriter {
    public static func write(_ arrays: GraphArrays, metadata: GraphMetadata, to path: String) throws {
        typealias BytesProvider = ((UnsafeRawBufferPointer) -> Void) -> Void
        let written = Date()
        var sections: [(id: SectionID, elementSize: Int, count: Int, bytes: BytesProvider)] = []
        func add<T>(_ id: SectionID, _ array: [T]) {
            sections.append((id, MemoryLayout<T>.stride, array.count, { body in array.withUnsafeBytes(body) }))
        }
        add(.vertexLatitudes, arrays.vertexLatitudes)
        add(.vertexLongitudes, arrays.vertexLongitudes)
        add(.edgeShapeStart, arrays.edgeShapeStart)
        add(.shapeLatitudes, arrays.shapeLatitudes)
        add(.shapeLongitudes, arrays.shapeLongitudes)
        add(.edgeLength, arrays.edgeLength)
        add(.edgeLabel, arrays.edgeLabel)
        add(.edgeFlags, arrays.edgeFlags)
        add(.edgeRef, arrays.edgeRef)
        add(.edgeClass, arrays.edgeClass)
        add(.edgeForwardArc, arrays.edgeForwardArc)
        add(.edgeBackwardArc, arrays.edgeBackwardArc)
        add(.arcEdge, arrays.arcEdge)
        add(.arcHead, arrays.arcHead)
        add(.arcWeight, arrays.arcWeight)
        add(.arcBase, arrays.arcBase)
        add(.arcDuration, arrays.arcDuration)
        add(.arcClasses, arrays.arcClasses)
        add(.arcDestinations, arrays.arcDestinations)
        add(.arcTurnLanes, arrays.arcTurnLanes)
        add(.edgeLanes, arrays.edgeLanes)
        add(.edgePronunciation, arrays.edgePronunciation)
        add(.edgeExits, arrays.edgeExits)
        add(.arcComponent, arrays.arcComponent)
        add(.componentSize, arrays.componentSize)
        add(.arcInCore, arrays.arcInCore)
        add(.transitionStart, arrays.transitionStart)
        add(.transitionTargets, arrays.transitionTargets)
        add(.transitionWeight, arrays.transitionWeight)
        add(.stringOffsets, arrays.stringOffsets)
        add(.stringBytes, arrays.stringBytes)
        add(.labelStart, arrays.labelStart)
        add(.labelEntries, arrays.labelEntries)
        add(.vertexEdgeStart, arrays.vertexEdgeStart)
        add(.vertexEdges, arrays.vertexEdges)
        add(.gridCellStart, arrays.gridCellStart)
        add(.gridSegments, arrays.gridSegments)
        add(.chRank, arrays.chRank)
        add(.chUpStart, arrays.chUpStart)
        add(.chUpTarget, arrays.chUpTarget)
        add(.chUpWeight, arrays.chUpWeight)
        add(.chUpMiddle, arrays.chUpMiddle)
        add(.chUpLength, arrays.chUpLength)
        add(.chUpDuration, arrays.chUpDuration)
        add(.chUpMask, arrays.chUpMask)
        add(.chDownStart, arrays.chDownStart)
        add(.chDownSource, arrays.chDownSource)
        add(.chDownWeight, arrays.chDownWeight)
        add(.chDownMiddle, arrays.chDownMiddle)
        add(.chDownLength, arrays.chDownLength)
        add(.chDownDuration, arrays.chDownDuration)
        add(.chDownMask, arrays.chDownMask)
        add(.chVertexCost, arrays.chVertexCost)
        add(.chArcTail, arrays.chArcTail)

        guard let out = fopen(path, "wb") else { throw GraphFileError.cannotWrite("cannot create \(path)") }
        var failed = false
        func emit(_ bytes: UnsafeRawBufferPointer) {
            if bytes.count > 0, fwrite(bytes.baseAddress, 1, bytes.count, out) != bytes.count { failed = true }
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
        put(UInt32(sections.count))
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
        put(Int64(written.timeIntervalSince1970))
        let name = Array(metadata.sourceName.utf8.prefix(GraphFormat.sourceNameCapacity - 1))
        for (i, b) in name.enumerated() { header[GraphFormat.sourceNameOffset + i] = b }

        // Section table, then the sections at aligned offsets; the header's checksum covers the table.
        let align = GraphFormat.sectionAlignment
        var offset = GraphFormat.headerSize + sections.count * GraphFormat.sectionEntrySize
        offset = (offset + align - 1) / align * align
        var table: [UInt8] = []
        var offsets: [Int] = []
        for (id, size, count, bytes) in sections {
            offsets.append(offset)
            var crc: UInt32 = 0
            bytes { crc = GraphFormat.checksum($0) }
            for v in [UInt64(id.rawValue) | UInt64(size) << 32, UInt64(offset), UInt64(count), UInt64(crc)] {
                withUnsafeBytes(of: v.littleEndian) { table.append(contentsOf: $0) }
            }
            offset = (offset + size * count + align - 1) / align * align
        }
        let headerCRC = (header + table).withUnsafeBytes { GraphFormat.headerChecksum($0, sectionCount: sections.count) }
        withUnsafeBytes(of: headerCRC.littleEndian) { crc in
            for (i, b) in crc.enumerated() { header[GraphFormat.headerChecksumOffset + i] = b }
        }
        header.withUnsafeBytes { emit($0) }
        table.withUnsafeBytes { emit($0) }
        var position = GraphFormat.headerSize + table.count
        let zeros = [UInt8](repeating: 0, count: align)
        for (i, section) in sections.enumerated() {
            let padding = offsets[i] - position
            zeros.withUnsafeBytes { emit(UnsafeRawBufferPointer(rebasing: $0[0..<padding])) }
            section.bytes { emit($0) }
            position += padding + section.elementSize * section.count
        }
        if fflush(out) != 0 { failed = true }
        if fclose(out) != 0 { failed = true }
        if failed { throw GraphFileError.cannotWrite("could not write \(path) (disk full?)") }
    }
}
