import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The on-disk format of one mode's graph (`graphs/<name>/<mode>.wfgraph`), little-endian:
///
///     header (fixed 512 bytes)                 section table (sectionCount × 24 bytes)        sections…
///     magic "WAYFGRPH", format version,        id u32, element size u32, offset u64,          each at an offset
///     mode, source CRC-32 and size, bounds,    element count u64                              that is a multiple
///     max speed, grid geometry, source name                                                   of 64
///
/// Loading maps the file and points typed buffers at the sections: no parsing, no copying.
public enum GraphFormat {
    public static let magic: [UInt8] = Array("WAYFGRPH".utf8)
    public static let version: UInt32 = 5
    static let headerSize = 512
    static let sourceNameCapacity = 256
    static let sourceNameOffset = 512 - 256
    static let sectionAlignment = 64

    public static func fileName(for mode: TravelMode) -> String { "\(mode.rawValue).wfgraph" }
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
         chUpTarget, chUpWeight, chUpMiddle, chUpLength, chDownStart, chDownSource, chDownWeight, chDownMiddle, chDownLength, transitionWeight
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

    deinit { munmap(UnsafeMutableRawPointer(mutating: base), size) }

    func load<T>(_ offset: Int, as type: T.Type) -> T { base.loadUnaligned(fromByteOffset: offset, as: T.self) }
}

struct GraphFileSections {
    let file: MappedFile
    var table: [UInt32: (elementSize: Int, offset: Int, count: Int)] = [:]

    func buffer<T>(_ id: SectionID) throws -> UnsafeBufferPointer<T> {
        guard let entry = table[id.rawValue] else { throw GraphFileError.corrupt("graph file lacks section \(id)") }
        guard entry.elementSize == MemoryLayout<T>.stride, entry.offset % MemoryLayout<T>.alignment == 0,
              entry.count >= 0, entry.offset >= 0,
              entry.offset + entry.count * entry.elementSize <= file.size
        else { throw GraphFileError.corrupt("graph file section \(id) is damaged or truncated") }
        let start = (file.base + entry.offset).assumingMemoryBound(to: T.self)
        return UnsafeBufferPointer(start: start, count: entry.count)
    }
}

extension RoadGraph {
    /// Maps a graph file. Throws for anything that is not a complete graph of this format version.
    public init(contentsOf path: String) throws {
        let file = try MappedFile(path: path)
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
        let checksum = u32()
        _ = u32()
        let sourceSize = u64()
        let bounds = BoundingBox(minLatitude: f64(), minLongitude: f64(), maxLatitude: f64(), maxLongitude: f64())
        let maxSpeed = f64()
        let grid = GridGeometry(originLatitude: f64(), originLongitude: f64(), cellHeight: f64(), cellWidth: f64(),
                                rows: u32(), columns: u32())
        let mainMinimum = u32()
        let nameBytes = (0..<GraphFormat.sourceNameCapacity).map {
            file.load(GraphFormat.sourceNameOffset + $0, as: UInt8.self)
        }
        let sourceName = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
        let metadata = GraphMetadata(mode: mode, sourceName: sourceName, sourceChecksum: checksum,
                                     sourceSize: sourceSize, bounds: bounds, maxSpeed: maxSpeed,
                                     mainComponentMinimumSize: mainMinimum, grid: grid)

        guard sectionCount <= 1024, GraphFormat.headerSize + sectionCount * 24 <= file.size else {
            throw GraphFileError.corrupt("graph file \(path) is truncated")
        }
        var sections = GraphFileSections(file: file)
        for i in 0..<sectionCount {
            let at = GraphFormat.headerSize + i * 24
            let id = file.load(at, as: UInt32.self)
            let elementSize = Int(file.load(at + 4, as: UInt32.self))
            let offset = Int(truncatingIfNeeded: file.load(at + 8, as: UInt64.self))
            let count = Int(truncatingIfNeeded: file.load(at + 16, as: UInt64.self))
            sections.table[id] = (elementSize, offset, count)
        }
        try self.init(file: file, metadata: metadata, sections: sections)
    }
}

/// Writes a graph file. Callers write into a temporary directory and rename it into place when all modes are done.
public enum GraphFileWriter {
    public static func write(_ arrays: GraphArrays, metadata: GraphMetadata, to path: String) throws {
        typealias BytesProvider = ((UnsafeRawBufferPointer) -> Void) -> Void
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
        add(.chDownStart, arrays.chDownStart)
        add(.chDownSource, arrays.chDownSource)
        add(.chDownWeight, arrays.chDownWeight)
        add(.chDownMiddle, arrays.chDownMiddle)
        add(.chDownLength, arrays.chDownLength)

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
        precondition(cursor <= GraphFormat.sourceNameOffset)
        let name = Array(metadata.sourceName.utf8.prefix(GraphFormat.sourceNameCapacity - 1))
        for (i, b) in name.enumerated() { header[GraphFormat.sourceNameOffset + i] = b }
        header.withUnsafeBytes { emit($0) }

        // Section table, then the sections at aligned offsets.
        let align = GraphFormat.sectionAlignment
        var offset = GraphFormat.headerSize + sections.count * 24
        offset = (offset + align - 1) / align * align
        var table: [UInt8] = []
        var offsets: [Int] = []
        for (id, size, count, _) in sections {
            offsets.append(offset)
            for v in [UInt64(id.rawValue) | UInt64(size) << 32, UInt64(offset), UInt64(count)] {
                withUnsafeBytes(of: v.littleEndian) { table.append(contentsOf: $0) }
            }
            offset = (offset + size * count + align - 1) / align * align
        }
        table.withUnsafeBytes { emit($0) }
        var written = GraphFormat.headerSize + table.count
        let zeros = [UInt8](repeating: 0, count: align)
        for (i, section) in sections.enumerated() {
            let padding = offsets[i] - written
            zeros.withUnsafeBytes { emit(UnsafeRawBufferPointer(rebasing: $0[0..<padding])) }
            section.bytes { emit($0) }
            written += padding + section.elementSize * section.count
        }
        if fflush(out) != 0 { failed = true }
        if fclose(out) != 0 { failed = true }
        if failed { throw GraphFileError.cannotWrite("could not write \(path) (disk full?)") }
    }
}
