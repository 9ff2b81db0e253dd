import Foundation

public enum TravelMode: String, CaseIterable, Sendable {
    case driving, walking

    /// OSRM's profile names map onto ours: `car` → driving, `foot` → walking.
    public init?(profileName: String) {
        switch profileName.lowercased() {
        case "driving", "car": self = .driving
        case "walking", "foot": self = .walking
        default: return nil
        }
    }

    var code: UInt32 { self == .driving ? 1 : 2 }
    init?(code: UInt32) {
        switch code {
        case 1: self = .driving
        case 2: self = .walking
        default: return nil
        }
    }
}

/// Road class kept per edge (for output and, later, guidance).
public enum RoadClass: UInt8, Sendable {
    case motorway, trunk, primary, secondary, tertiary, unclassified, residential, livingStreet, service
    case track, pedestrian, footway, path, steps, cycleway, other
}

/// `UInt32.max`: "no such arc/edge".
public let noIndex = UInt32.max

/// Everything that describes a graph apart from its arrays.
public struct GraphMetadata: Equatable, Sendable {
    public var mode: TravelMode
    public var sourceName: String
    public var sourceChecksum: UInt32
    public var sourceSize: UInt64
    public var bounds: BoundingBox
    /// Fastest speed on any arc, metres per second: the A* heuristic divides straight-line distance by it.
    public var maxSpeed: Double
    /// Arcs in connected components at least this large form the main network that snapping prefers.
    public var mainComponentMinimumSize: UInt32
    public var grid: GridGeometry

    public init(mode: TravelMode, sourceName: String, sourceChecksum: UInt32, sourceSize: UInt64,
                bounds: BoundingBox, maxSpeed: Double, mainComponentMinimumSize: UInt32, grid: GridGeometry)
    {
        self.mode = mode
        self.sourceName = sourceName
        self.sourceChecksum = sourceChecksum
        self.sourceSize = sourceSize
        self.bounds = bounds
        self.maxSpeed = maxSpeed
        self.mainComponentMinimumSize = mainComponentMinimumSize
        self.grid = grid
    }
}

/// The geometry of the uniform grid that indexes road segments for snapping.
public struct GridGeometry: Equatable, Sendable {
    public var originLatitude: Double, originLongitude: Double
    public var cellHeight: Double, cellWidth: Double  // degrees
    public var rows: UInt32, columns: UInt32

    public init(originLatitude: Double, originLongitude: Double, cellHeight: Double, cellWidth: Double,
                rows: UInt32, columns: UInt32)
    {
        self.originLatitude = originLatitude
        self.originLongitude = originLongitude
        self.cellHeight = cellHeight
        self.cellWidth = cellWidth
        self.rows = rows
        self.columns = columns
    }
}

/// The arrays of one mode's graph, as the importer builds them. Layout (all flat, CSR where a list hangs off an item):
/// - vertices: junctions, way ends and barriers; degree-2 chains between them are compressed into edges.
/// - edges: an undirected piece of one way between two vertices, with its shape points (both ends included).
/// - arcs: a direction of an edge that the mode may use. Arcs are the search's states (an edge-based graph), so
///   turn restrictions are transitions that are missing. Arcs past the originals duplicate the arcs of a via-way
///   restriction's path; `arcBase` names the original they copy.
/// - transitions: for arc `a`, the arcs that may follow it: `transitionTargets[transitionStart[a]..<transitionStart[a+1]]`.
public struct GraphArrays {
    public var vertexLatitudes: [Int32] = [], vertexLongitudes: [Int32] = []
    public var edgeShapeStart: [UInt32] = [0]
    public var shapeLatitudes: [Int32] = [], shapeLongitudes: [Int32] = []
    public var edgeLength: [Float] = [], edgeName: [UInt32] = [], edgeRef: [UInt32] = [], edgeClass: [UInt8] = []
    public var edgeForwardArc: [UInt32] = [], edgeBackwardArc: [UInt32] = []
    public var arcEdge: [UInt32] = [], arcHead: [UInt32] = [], arcWeight: [UInt32] = [], arcBase: [UInt32] = []
    public var arcComponent: [UInt32] = [], componentSize: [UInt32] = []
    public var transitionStart: [UInt32] = [0], transitionTargets: [UInt32] = []
    public var nameOffsets: [UInt32] = [0], nameBytes: [UInt8] = []
    public var gridCellStart: [UInt32] = [0], gridSegments: [UInt32] = []

    public init() {}
}

/// A memory-mapped graph for one travel mode. Buffers point into the mapping, which `file` keeps alive.
public struct RoadGraph: @unchecked Sendable {
    public let file: MappedFile
    public let metadata: GraphMetadata
    public let vertexLatitudes: UnsafeBufferPointer<Int32>, vertexLongitudes: UnsafeBufferPointer<Int32>
    public let edgeShapeStart: UnsafeBufferPointer<UInt32>
    public let shapeLatitudes: UnsafeBufferPointer<Int32>, shapeLongitudes: UnsafeBufferPointer<Int32>
    public let edgeLength: UnsafeBufferPointer<Float>, edgeName: UnsafeBufferPointer<UInt32>
    public let edgeRef: UnsafeBufferPointer<UInt32>, edgeClass: UnsafeBufferPointer<UInt8>
    public let edgeForwardArc: UnsafeBufferPointer<UInt32>, edgeBackwardArc: UnsafeBufferPointer<UInt32>
    public let arcEdge: UnsafeBufferPointer<UInt32>, arcHead: UnsafeBufferPointer<UInt32>
    public let arcWeight: UnsafeBufferPointer<UInt32>, arcBase: UnsafeBufferPointer<UInt32>
    public let arcComponent: UnsafeBufferPointer<UInt32>, componentSize: UnsafeBufferPointer<UInt32>
    public let transitionStart: UnsafeBufferPointer<UInt32>, transitionTargets: UnsafeBufferPointer<UInt32>
    public let nameOffsets: UnsafeBufferPointer<UInt32>, nameBytes: UnsafeBufferPointer<UInt8>
    public let gridCellStart: UnsafeBufferPointer<UInt32>, gridSegments: UnsafeBufferPointer<UInt32>

    public var vertexCount: Int { vertexLatitudes.count }
    public var edgeCount: Int { edgeLength.count }
    public var arcCount: Int { arcHead.count }
    public var transitionCount: Int { transitionTargets.count }
    public var mode: TravelMode { metadata.mode }

    init(file: MappedFile, metadata: GraphMetadata, sections: GraphFileSections) throws {
        self.file = file
        self.metadata = metadata
        vertexLatitudes = try sections.buffer(.vertexLatitudes)
        vertexLongitudes = try sections.buffer(.vertexLongitudes)
        edgeShapeStart = try sections.buffer(.edgeShapeStart)
        shapeLatitudes = try sections.buffer(.shapeLatitudes)
        shapeLongitudes = try sections.buffer(.shapeLongitudes)
        edgeLength = try sections.buffer(.edgeLength)
        edgeName = try sections.buffer(.edgeName)
        edgeRef = try sections.buffer(.edgeRef)
        edgeClass = try sections.buffer(.edgeClass)
        edgeForwardArc = try sections.buffer(.edgeForwardArc)
        edgeBackwardArc = try sections.buffer(.edgeBackwardArc)
        arcEdge = try sections.buffer(.arcEdge)
        arcHead = try sections.buffer(.arcHead)
        arcWeight = try sections.buffer(.arcWeight)
        arcBase = try sections.buffer(.arcBase)
        arcComponent = try sections.buffer(.arcComponent)
        componentSize = try sections.buffer(.componentSize)
        transitionStart = try sections.buffer(.transitionStart)
        transitionTargets = try sections.buffer(.transitionTargets)
        nameOffsets = try sections.buffer(.nameOffsets)
        nameBytes = try sections.buffer(.nameBytes)
        gridCellStart = try sections.buffer(.gridCellStart)
        gridSegments = try sections.buffer(.gridSegments)
        try validate()
    }

    /// Cheap structural checks, so a damaged file fails at load instead of crashing a search.
    private func validate() throws {
        let edges = edgeLength.count, arcs = arcHead.count
        func require(_ condition: Bool, _ what: String) throws {
            if !condition { throw GraphFileError.corrupt("inconsistent graph file: \(what)") }
        }
        try require(vertexLongitudes.count == vertexLatitudes.count, "vertex arrays")
        try require(shapeLongitudes.count == shapeLatitudes.count, "shape arrays")
        try require(edgeShapeStart.count == edges + 1 && Int(edgeShapeStart[edges]) == shapeLatitudes.count,
                    "edge shapes")
        try require([edgeName.count, edgeRef.count, edgeClass.count, edgeForwardArc.count, edgeBackwardArc.count]
            .allSatisfy { $0 == edges }, "edge arrays")
        try require([arcEdge.count, arcWeight.count, arcBase.count, arcComponent.count].allSatisfy { $0 == arcs },
                    "arc arrays")
        try require(transitionStart.count == arcs + 1 && Int(transitionStart[arcs]) == transitionTargets.count,
                    "transitions")
        try require(nameOffsets.count >= 1 && Int(nameOffsets[nameOffsets.count - 1]) == nameBytes.count, "names")
        let cells = Int(metadata.grid.rows) * Int(metadata.grid.columns)
        try require(gridCellStart.count == cells + 1 && Int(gridCellStart[cells]) == gridSegments.count, "grid")
        try require(arcHead.allSatisfy { Int($0) < vertexLatitudes.count }, "arc heads")
        try require(transitionTargets.allSatisfy { Int($0) < arcs }, "transition targets")
        try require(arcEdge.allSatisfy { Int($0 >> 1) < edges }, "arc edges")
        try require(arcComponent.allSatisfy { Int($0) < componentSize.count }, "components")
        try require(gridSegments.allSatisfy { Int($0) + 1 < shapeLatitudes.count }, "grid segments")
    }

    // MARK: Accessors

    @inlinable public func vertexCoordinate(_ v: UInt32) -> Coordinate {
        Coordinate(fixedLatitude: vertexLatitudes[Int(v)], fixedLongitude: vertexLongitudes[Int(v)])
    }

    @inlinable public func shapePoint(_ i: Int) -> Coordinate {
        Coordinate(fixedLatitude: shapeLatitudes[i], fixedLongitude: shapeLongitudes[i])
    }

    /// The edge an arc runs along, and whether it runs against the edge's shape order.
    @inlinable public func edge(ofArc arc: UInt32) -> (edge: Int, reversed: Bool) {
        let packed = arcEdge[Int(arc)]
        return (Int(packed >> 1), packed & 1 == 1)
    }

    /// Shape point indices of an edge, both ends included.
    @inlinable public func shapeRange(ofEdge e: Int) -> Range<Int> {
        Int(edgeShapeStart[e])..<Int(edgeShapeStart[e + 1])
    }

    /// The edge that owns shape point `i` as the start of one of its segments.
    public func edge(ofSegmentStartingAt i: Int) -> Int {
        // Largest e with edgeShapeStart[e] <= i.
        var low = 0, high = edgeCount - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if Int(edgeShapeStart[mid]) <= i { low = mid } else { high = mid - 1 }
        }
        return low
    }

    public func name(_ id: UInt32) -> String {
        let i = Int(id)
        guard i + 1 < nameOffsets.count else { return "" }
        let start = Int(nameOffsets[i]), end = Int(nameOffsets[i + 1])
        return String(decoding: UnsafeBufferPointer(rebasing: nameBytes[start..<end]), as: UTF8.self)
    }

    @inlinable public func isMainNetwork(arc: UInt32) -> Bool {
        componentSize[Int(arcComponent[Int(arc)])] >= metadata.mainComponentMinimumSize
    }
}
