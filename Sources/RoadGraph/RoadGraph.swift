import Foundation

public enum TravelMode: String, CaseIterable, Sendable {
    case driving, walking, cycling

    /// What `import` builds unless told: every mode. Cycling's customizable hierarchy keeps a city's import within
    /// about a quarter more time than two modes, and an extract of millions of nodes within 5 minutes and 3 GB
    /// (BENCHMARKS.md); `--modes` leaves a mode out.
    public static let importedByDefault: [TravelMode] = allCases

    /// OSRM's profile names map onto ours: `car` → driving, `foot` → walking, `bicycle` and `bike` → cycling.
    public init?(profileName: String) {
        switch profileName.lowercased() {
        case "driving", "car": self = .driving
        case "walking", "foot": self = .walking
        case "cycling", "bicycle", "bike": self = .cycling
        default: return nil
        }
    }

    var code: UInt32 {
        switch self {
        case .driving: return 1
        case .walking: return 2
        case .cycling: return 3
        }
    }
    init?(code: UInt32) {
        switch code {
        case 1: self = .driving
        case 2: self = .walking
        case 3: self = .cycling
        default: return nil
        }
    }
}

/// Road class kept per edge, for guidance (ramps, forks, merges) and output.
public enum RoadClass: UInt8, Sendable {
    case motorway, trunk, primary, secondary, tertiary, unclassified, residential, livingStreet, service
    case track, pedestrian, footway, path, steps, cycleway, other, ferry

    /// Motorways and trunk roads: where ramps, merges and exits happen.
    public var isHighway: Bool { self == .motorway || self == .trunk }

    /// Service roads, tracks and paths (OSRM's low-priority roads): they never steal a "continue" from the road
    /// one is on, and their bearing is read closer to the junction.
    public var isLowPriority: Bool {
        switch self {
        case .motorway, .trunk, .primary, .secondary, .tertiary, .unclassified, .residential, .livingStreet: return false
        default: return true
        }
    }
}

/// Per-edge facts that guidance and snapping need. The flags (and the classes below) are inlinable constants, not
/// stored statics: other modules test them in their loops, where a stored static is read through an accessor call.
public struct EdgeFlags: OptionSet, Sendable, Equatable {
    public let rawValue: UInt8
    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// `junction=roundabout` (or `circular`).
    @inlinable public static var roundabout: EdgeFlags { EdgeFlags(rawValue: 1) }
    /// A `*_link` road: a ramp or slip road.
    @inlinable public static var link: EdgeFlags { EdgeFlags(rawValue: 2) }
    /// A ferry crossing (`route=ferry`).
    @inlinable public static var ferry: EdgeFlags { EdgeFlags(rawValue: 4) }
    /// A bridge (`bridge` other than `no`): its own name is not announced on a road that goes on across it.
    @inlinable public static var bridge: EdgeFlags { EdgeFlags(rawValue: 128) }
    /// A car-carrying train (`route=shuttle_train`).
    @inlinable public static var train: EdgeFlags { EdgeFlags(rawValue: 8) }
    /// No route may start or end here: ferries, trains, a car's private service roads.
    @inlinable public static var notStartpoint: EdgeFlags { EdgeFlags(rawValue: 16) }
    /// `junction=circular`: a circle that is not a roundabout by the rules (OSRM's rotaries when named).
    @inlinable public static var circular: EdgeFlags { EdgeFlags(rawValue: 32) }
    /// A oneway (either direction), as tagged or implied.
    @inlinable public static var oneway: EdgeFlags { EdgeFlags(rawValue: 64) }
}

/// OSRM's classes of a direction of a way: what `exclude` avoids and intersections report.
public struct ArcClasses: OptionSet, Sendable, Equatable, Hashable {
    public let rawValue: UInt8
    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }
    @inlinable public static var toll: ArcClasses { ArcClasses(rawValue: 1) }
    @inlinable public static var motorway: ArcClasses { ArcClasses(rawValue: 2) }
    @inlinable public static var ferry: ArcClasses { ArcClasses(rawValue: 4) }
    /// A road a route may only start or end on (private, destination-only, HOV).
    @inlinable public static var restricted: ArcClasses { ArcClasses(rawValue: 8) }
    @inlinable public static var tunnel: ArcClasses { ArcClasses(rawValue: 16) }
    /// Cycling only: the bike is pushed here (a footway, a oneway against its direction, `bicycle=dismount`), OSRM's
    /// `pushing bike` mode. Not a class OSRM names, so never reported or excludable.
    @inlinable public static var pushing: ArcClasses { ArcClasses(rawValue: 32) }
    /// Closed at times by a conditional tag (`TimedRule`), or, on a hierarchy's edge, passing such a road or a turn
    /// a conditional restriction forbids at times: a table that avoids it is exact at any time (`Table`). Never
    /// reported or excludable by a request.
    @inlinable public static var timed: ArcClasses { ArcClasses(rawValue: 64) }

    /// Names in OSRM's order, as the API spells them.
    public static let names: [(ArcClasses, String)] = [
        (.toll, "toll"), (.motorway, "motorway"), (.ferry, "ferry"), (.restricted, "restricted"), (.tunnel, "tunnel"),
    ]
    /// The classes a route may be asked to avoid.
    public static let excludable: ArcClasses = [.toll, .motorway, .ferry]

    public var names: [String] { Self.names.filter { contains($0.0) }.map(\.1) }

    /// From names such as `toll,motorway`; nil for an unknown name.
    public init?(names: [String]) {
        var classes: ArcClasses = []
        for name in names {
            guard let match = Self.names.first(where: { $0.1 == name }) else { return nil }
            classes.insert(match.0)
        }
        self = classes
    }
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
    /// When the import wrote the graph, seconds since 1970 (0 until written).
    public var buildTime: Int64
    /// Whose rules the import followed where they differ (`import --compat osrm`).
    public var compatibility: Compatibility
    /// The metric the weights are (`wayfinder customize` names it after its files); empty for the import's own.
    public var metric = ""

    public init(mode: TravelMode, sourceName: String, sourceChecksum: UInt32, sourceSize: UInt64,
                bounds: BoundingBox, maxSpeed: Double, mainComponentMinimumSize: UInt32, grid: GridGeometry,
                buildTime: Int64 = 0, compatibility: Compatibility = .wayfinder)
    {
        self.buildTime = buildTime
        self.compatibility = compatibility
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

/// The edges at a vertex, read in place from the graph (guidance walks them at every junction of a route: an
/// array per vertex was an allocation each time).
public struct VertexEdges: RandomAccessCollection {
    let entries: UnsafeBufferPointer<UInt32>
    let range: Range<Int>

    public var startIndex: Int { 0 }
    public var endIndex: Int { range.count }
    public subscript(i: Int) -> (edge: Int, atEnd: Bool) {
        let entry = entries[range.lowerBound + i]
        return (Int(entry >> 1), entry & 1 == 1)
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
///   restriction's path, or a restricted arc entered from outside (which can then only lead on to restricted
///   arcs: a route ends there); `arcBase` names the original they copy. An arc's `arcWeight` is what the route
///   choice counts (its `arcDuration` with the profile's penalties), both in milliseconds.
/// - transitions: for arc `a`, the arcs that may follow it: `transitionTargets[transitionStart[a]..<transitionStart[a+1]]`,
///   each with the time the turn itself costs (`transitionWeight`, milliseconds; zero where the mode has no turn
///   costs). Moving from `a` onto `b` costs `transitionWeight[i] + arcWeight[b]`.
/// - labels: an edge's names, `labelEntries[2*i]` a language (string id, "" for the plain `name`) and
///   `labelEntries[2*i+1]` the name, for i in `labelStart[label]..<labelStart[label+1]`.
/// - vertex edges: every edge at a vertex (`edge << 1 | 1` where the vertex is the edge's last point), for the
///   bearings of an intersection.
public struct GraphArrays {
    public var vertexLatitudes: [Int32] = [], vertexLongitudes: [Int32] = []
    public var edgeShapeStart: [UInt32] = [0]
    public var shapeLatitudes: [Int32] = [], shapeLongitudes: [Int32] = []
    /// Per shape point: its OSM node id, for OSRM's `nodes` annotation and speed files keyed on node pairs.
    /// Empty in graphs built without OSM (drawn in code).
    public var shapeNodeIDs: [Int64] = []
    public var edgeLength: [Float] = [], edgeLabel: [UInt32] = [], edgeRef: [UInt32] = [], edgeClass: [UInt8] = []
    public var edgeFlags: [UInt8] = []
    public var edgeForwardArc: [UInt32] = [], edgeBackwardArc: [UInt32] = []
    public var arcEdge: [UInt32] = [], arcHead: [UInt32] = [], arcWeight: [UInt32] = [], arcBase: [UInt32] = []
    public var arcDuration: [UInt32] = [], arcClasses: [UInt8] = [], arcDestinations: [UInt32] = []
    /// Per arc: its `turn:lanes` for that direction (a string id, "" for none).
    public var arcTurnLanes: [UInt32] = []
    /// Per edge: its lanes (both directions), 0 when not tagged.
    public var edgeLanes: [UInt8] = []
    public var edgePronunciation: [UInt32] = [], edgeExits: [UInt32] = []
    public var arcComponent: [UInt32] = [], componentSize: [UInt32] = []
    /// 1 for arcs in the largest strongly connected component: from there every other such arc can be reached.
    public var arcInCore: [UInt8] = []
    public var transitionStart: [UInt32] = [0], transitionTargets: [UInt32] = [], transitionWeight: [UInt32] = []
    public var stringOffsets: [UInt32] = [0], stringBytes: [UInt8] = []
    public var labelStart: [UInt32] = [0], labelEntries: [UInt32] = []
    public var vertexEdgeStart: [UInt32] = [0], vertexEdges: [UInt32] = []
    /// Per edge end (`2 * edge`, `2 * edge + 1` for its last point): what a junction there sees of it (`EdgeEnd`).
    public var edgeEnds: [EdgeEnd] = []
    /// Maneuver relations: override k applies to a route along the directed edges (`arcEdge` values)
    /// `maneuverPath[maneuverStart[k]..<maneuverStart[k + 1]]`, at vertex `maneuverVia[k]`, and says
    /// `ManeuverOverride(packed: maneuverKind[k])` there.
    public var maneuverStart: [UInt32] = [0], maneuverPath: [UInt32] = [], maneuverVia: [UInt32] = [], maneuverKind: [UInt8] = []
    public var gridCellStart: [UInt32] = [0], gridSegments: [UInt32] = []
    /// Contraction hierarchy (empty when the graph was imported without one); see `Contraction`. Its nodes stand
    /// for the arcs, or the vertices where `chVertexCost` is set (see `RoadGraph.hierarchyOverVertices`), and have
    /// numbers of their own, lower for nodes contracted earlier (see `HierarchyBuilder.build`): `chNode[a]` is the
    /// node of arc (or vertex) a, `chOriginal[k]` the arc (or vertex) of node k.
    /// Edges, starts and middles are in node numbers. Node u's upward edges are `chUpEdges[chUpStart[u]..<chUpStart[u+1]]`
    /// (edges u→v, v > u), its downward ones likewise (edges v→u stored at u as v, v > u); each edge's duration and
    /// length, which only tables read, and its halves, which only unpacking reads, are kept apart.
    public var chNode: [UInt32] = [], chOriginal: [UInt32] = []
    public var chUpStart: [UInt32] = [0], chUpEdges: [HierarchyEdge] = [], chUpLength: [Float] = [], chUpDuration: [UInt32] = []
    public var chDownStart: [UInt32] = [0], chDownEdges: [HierarchyEdge] = [], chDownLength: [Float] = [], chDownDuration: [UInt32] = []
    public var chUpShortcuts: [HierarchyShortcut] = [], chDownShortcuts: [HierarchyShortcut] = []
    /// For a hierarchy over vertices only: per vertex, what passing it costs (the one weight of every turn there,
    /// milliseconds; `noIndex` where a barrier lets nothing through), and per arc, its tail.
    public var chVertexCost: [UInt32] = [], chArcTail: [UInt32] = []
    /// A customized graph only (`wayfinder customize`; empty in an import): the import's own arc weights, arc
    /// durations and turns (a closed road's are left out of the graph's), from which every customization starts,
    /// so that a speed file replaces the last one instead of adding to it (as in OSRM).
    public var importArcWeight: [UInt32] = [], importArcDuration: [UInt32] = []
    public var importTransitionStart: [UInt32] = [], importTransitionTargets: [UInt32] = [], importTransitionWeight: [UInt32] = []
    /// A customized graph only: the metric-independent hierarchy (every edge of the chordal graph of the
    /// nested-dissection order in `chNode`), node u's upper neighbours `cchUpHead[cchUpStart[u]..<cchUpStart[u+1]]`,
    /// ascending. The next customization reuses it.
    public var cchUpStart: [UInt32] = [], cchUpHead: [UInt32] = []
    /// A customized graph only: the weight and time of each segment of each road piece whose costs a traffic file
    /// changed, milliseconds, at `2 * (edgeShapeStart[e] - e + k) + (backward ? 1 : 0)` for the k-th segment of edge
    /// e in shape order; zero for the rest. A route that starts or ends inside such a piece pays for the segments
    /// it travels (`partialCost`), not a share by length.
    public var segmentWeight: [UInt32] = [], segmentDuration: [UInt32] = []
    /// The import's time and weight of every segment, indexed as `segmentWeight` (without the delays at nodes
    /// inside a piece, which only its arc's figures hold): what a traffic file's row replaces. Empty in graphs
    /// drawn in code and in files written before them.
    public var importSegmentWeight: [UInt32] = [], importSegmentDuration: [UInt32] = []
    /// A bit per segment (numbered as `segmentWeight` counts them, without the direction): set where OSRM
    /// measures a point's share of the segment from its last shape point, not its first. OSRM cuts a segment's
    /// time at a route's end to a whole tenth counted from its edge's end with the lower OSM node id
    /// (`RoadGraph.partialCost`). Empty in graphs drawn in code and in files written before it.
    public var segmentSplitFromLast: [UInt8] = []
    /// The delays at nodes inside road pieces, by shape point ascending (`InteriorDelay`).
    public var interiorDelays: [InteriorDelay] = []
    /// Rules that hold at some times only (`TimedRule`), and what the import could not apply of the conditional
    /// tags (strings of the graph, one line each).
    public var timedRules: [TimedRule] = [], conditionNotes: [UInt32] = []
    /// The IANA name of the extract's time zone (`import --time-zone`), UTF-8; empty when none was given.
    public var timeZoneName: [UInt8] = []
    /// A customized graph with historical speeds only: arc a's week (`HistorySlot` runs, ascending from slot 0) is
    /// `historySlots[historyStart[a]..<historyStart[a+1]]`; empty for copies of arcs and arcs without any.
    public var historyStart: [UInt32] = [], historySlots: [HistorySlot] = []
    /// A customized graph whose historical speeds make some arc cheaper than its metric: the hierarchy customized
    /// with each arc's least weight over the week (the same order, `chNode`), laid out as `chUpStart`/`chUpEdges`
    /// and `chDownStart`/`chDownEdges`. What guides A* at a time (`HierarchyPotential`): exact bounds at every time.
    public var boundUpStart: [UInt32] = [], boundUpEdges: [HierarchyEdge] = []
    public var boundDownStart: [UInt32] = [], boundDownEdges: [HierarchyEdge] = []
    /// A bit per edge: set where its way is not paved (`surface`, `tracktype`). Empty in graphs drawn in code and
    /// in files written before it.
    public var edgeUnpaved: [UInt8] = []

    public init() {}
}

/// One edge of a contraction hierarchy, as the searches read it: one cache line holds several, where parallel
/// arrays cost a miss each per node on large graphs. `node` is the other end (higher in number), `mask` the
/// excludable classes of the arcs it skips (see `Contraction`).
public struct HierarchyEdge: Equatable, Sendable {
    public var node: UInt32
    public var weight: UInt32
    public var mask: UInt8
    /// Zero, so that every byte of a graph file is defined (the struct has no padding).
    var reserved: UInt8 = 0, reserved2: UInt16 = 0

    public init(node: UInt32, weight: UInt32, mask: UInt8) {
        self.node = node; self.weight = weight; self.mask = mask
    }
}

/// A delay at an OSM node inside a road piece (a signal, a give-way sign): milliseconds for each direction of travel
/// past it, at shape point `shapePoint`. The piece's arcs hold the sum; a route that starts or ends inside the piece
/// pays the delays it passes, as OSRM charges them at their nodes.
public struct InteriorDelay: Equatable, Sendable {
    public var shapePoint: UInt32
    public var forward: UInt32
    public var backward: UInt32

    public init(shapePoint: UInt32, forward: UInt32, backward: UInt32) {
        self.shapePoint = shapePoint; self.forward = forward; self.backward = backward
    }
}

/// How a hierarchy edge a→b unpacks, kept beside `HierarchyEdge` (only unpacking reads it): `middle` is the node
/// a shortcut skips, `first` the index in the down edges of the edge a→middle (stored at middle), `second` the
/// index in the up edges of middle→b (stored at middle). All `noIndex` for an original transition. Unpacking then
/// goes straight from edge to edge, one record each, where finding each half among the middle's edges cost two
/// or three cache misses a step on large graphs.
public struct HierarchyShortcut: Equatable, Sendable {
    public var middle: UInt32
    public var first: UInt32
    public var second: UInt32

    public static let original = HierarchyShortcut(middle: noIndex, first: noIndex, second: noIndex)

    public init(middle: UInt32, first: UInt32, second: UInt32) {
        self.middle = middle; self.first = first; self.second = second
    }
}

/// A memory-mapped graph for one travel mode. Buffers point into the mapping, which `file` keeps alive.
public struct RoadGraph: @unchecked Sendable {
    public let file: MappedFile
    public let metadata: GraphMetadata
    public let vertexLatitudes: UnsafeBufferPointer<Int32>, vertexLongitudes: UnsafeBufferPointer<Int32>
    public let edgeShapeStart: UnsafeBufferPointer<UInt32>
    public let shapeLatitudes: UnsafeBufferPointer<Int32>, shapeLongitudes: UnsafeBufferPointer<Int32>
    public let shapeNodeIDs: UnsafeBufferPointer<Int64>
    public let edgeLength: UnsafeBufferPointer<Float>, edgeLabel: UnsafeBufferPointer<UInt32>
    public let edgeFlags: UnsafeBufferPointer<UInt8>
    public let edgeRef: UnsafeBufferPointer<UInt32>, edgeClass: UnsafeBufferPointer<UInt8>
    public let edgeForwardArc: UnsafeBufferPointer<UInt32>, edgeBackwardArc: UnsafeBufferPointer<UInt32>
    public let arcEdge: UnsafeBufferPointer<UInt32>, arcHead: UnsafeBufferPointer<UInt32>
    public let arcWeight: UnsafeBufferPointer<UInt32>, arcBase: UnsafeBufferPointer<UInt32>
    public let arcDuration: UnsafeBufferPointer<UInt32>, arcClasses: UnsafeBufferPointer<UInt8>
    public let arcDestinations: UnsafeBufferPointer<UInt32>, arcTurnLanes: UnsafeBufferPointer<UInt32>
    public let edgeLanes: UnsafeBufferPointer<UInt8>
    public let edgePronunciation: UnsafeBufferPointer<UInt32>, edgeExits: UnsafeBufferPointer<UInt32>
    public let arcComponent: UnsafeBufferPointer<UInt32>, componentSize: UnsafeBufferPointer<UInt32>
    public let arcInCore: UnsafeBufferPointer<UInt8>
    /// Junctions the core reaches (heads of its arcs): OSRM counts a component's size in these, and a map whose
    /// largest strongly connected part has under 1,000 of them has no big component at all.
    public private(set) var coreVertexCount = 0
    public let transitionStart: UnsafeBufferPointer<UInt32>, transitionTargets: UnsafeBufferPointer<UInt32>
    public let transitionWeight: UnsafeBufferPointer<UInt32>
    public let stringOffsets: UnsafeBufferPointer<UInt32>, stringBytes: UnsafeBufferPointer<UInt8>
    public let labelStart: UnsafeBufferPointer<UInt32>, labelEntries: UnsafeBufferPointer<UInt32>
    public let vertexEdgeStart: UnsafeBufferPointer<UInt32>, vertexEdges: UnsafeBufferPointer<UInt32>
    public let edgeEnds: UnsafeBufferPointer<EdgeEnd>
    public let maneuverStart: UnsafeBufferPointer<UInt32>, maneuverPath: UnsafeBufferPointer<UInt32>
    public let maneuverVia: UnsafeBufferPointer<UInt32>, maneuverKind: UnsafeBufferPointer<UInt8>
    /// The maneuver overrides by their via vertex (worked out at load: a map has few).
    public let maneuversAtVertex: [UInt32: [Int]]

    /// Override k's directed edges (`arcEdge` values), in the order a route travels them.
    public func maneuverPath(_ k: Int) -> UnsafeBufferPointer<UInt32>.SubSequence {
        maneuverPath[Int(maneuverStart[k])..<Int(maneuverStart[k + 1])]
    }
    public let gridCellStart: UnsafeBufferPointer<UInt32>, gridSegments: UnsafeBufferPointer<UInt32>
    public let chNode: UnsafeBufferPointer<UInt32>, chOriginal: UnsafeBufferPointer<UInt32>
    public let chUpStart: UnsafeBufferPointer<UInt32>, chUpEdges: UnsafeBufferPointer<HierarchyEdge>
    public let chUpLength: UnsafeBufferPointer<Float>, chUpDuration: UnsafeBufferPointer<UInt32>
    public let chDownStart: UnsafeBufferPointer<UInt32>, chDownEdges: UnsafeBufferPointer<HierarchyEdge>
    public let chDownLength: UnsafeBufferPointer<Float>, chDownDuration: UnsafeBufferPointer<UInt32>
    public let chUpShortcuts: UnsafeBufferPointer<HierarchyShortcut>, chDownShortcuts: UnsafeBufferPointer<HierarchyShortcut>
    public let chVertexCost: UnsafeBufferPointer<UInt32>, chArcTail: UnsafeBufferPointer<UInt32>
    /// See `GraphArrays`: empty unless the graph was customized.
    public let importArcWeight: UnsafeBufferPointer<UInt32>, importArcDuration: UnsafeBufferPointer<UInt32>
    public let importTransitionStart: UnsafeBufferPointer<UInt32>, importTransitionTargets: UnsafeBufferPointer<UInt32>
    public let importTransitionWeight: UnsafeBufferPointer<UInt32>
    public let cchUpStart: UnsafeBufferPointer<UInt32>, cchUpHead: UnsafeBufferPointer<UInt32>
    public let segmentWeight: UnsafeBufferPointer<UInt32>, segmentDuration: UnsafeBufferPointer<UInt32>
    public let importSegmentWeight: UnsafeBufferPointer<UInt32>, importSegmentDuration: UnsafeBufferPointer<UInt32>
    public let segmentSplitFromLast: UnsafeBufferPointer<UInt8>, interiorDelays: UnsafeBufferPointer<InteriorDelay>
    public let timedRuleList: UnsafeBufferPointer<TimedRule>, conditionNotes: UnsafeBufferPointer<UInt32>
    public let timeZoneBytes: UnsafeBufferPointer<UInt8>
    /// See `GraphArrays`: empty unless the graph was customized with historical speeds.
    public let historyStart: UnsafeBufferPointer<UInt32>, historySlots: UnsafeBufferPointer<HistorySlot>
    /// See `GraphArrays`.
    public let edgeUnpaved: UnsafeBufferPointer<UInt8>
    /// See `GraphArrays`: empty unless historical speeds make some arc cheaper than the metric.
    public let boundUpStart: UnsafeBufferPointer<UInt32>, boundUpEdges: UnsafeBufferPointer<HierarchyEdge>
    public let boundDownStart: UnsafeBufferPointer<UInt32>, boundDownEdges: UnsafeBufferPointer<HierarchyEdge>
    /// The timed rules, indexed for searches (empty for most graphs).
    public private(set) var timedRules: TimedRules
    /// The grid's cells that hold a segment, grouped by blocks of `SegmentGrid.blockSide`² cells (`occupiedBlocks`
    /// names each block's first cell there), and half the longest diagonal of a cell in metres: what snapping a
    /// point far from every road searches instead of every cell (`nearestSegment`). Worked out at load.
    public let occupiedCells: [UInt32], occupiedBlocks: [(row: UInt32, column: UInt32, first: UInt32)]
    public let halfCellDiagonal: Double

    /// The most a single turn may cost (a sanity bound checked at load, so that sums of weights cannot overflow).
    public static let maxTurnWeight: UInt32 = 600_000

    /// The most one arc counts in length searches, centimetres (10,737 km): with `maxTurnWeight` and a search
    /// limit below 2^31, sums stay below 2^32. Only a damaged or absurd file has an edge that long.
    public static let maxArcCentimetres: UInt32 = 1 << 30

    /// Arc `a`'s length in whole centimetres, as length searches (isochrones, matching, their oracle) count it.
    @inlinable public func arcCentimetres(_ a: Int) -> UInt32 {
        let centimetres = (Double(edgeLength[Int(arcEdge[a] >> 1)]) * 100).rounded()
        return centimetres < Double(Self.maxArcCentimetres) ? UInt32(centimetres) : Self.maxArcCentimetres
    }

    /// Whether the hierarchy's nodes are vertices, not arcs: imported so for a mode whose turns all cost the same
    /// at each vertex and are all allowed but U-turns (walking), where a path through a vertex costs the same
    /// whichever way it arrived; a quarter of the nodes to contract, and smaller searches.
    public var hierarchyOverVertices: Bool { !chVertexCost.isEmpty }

    /// The hierarchy's nodes: vertices or arcs.
    public var hierarchyNodeCount: Int { hierarchyOverVertices ? vertexCount : arcCount }

    /// The hierarchy node of an arc, or of a vertex over vertices (nodes have numbers of their own: `chNode`).
    @inlinable public func hierarchyNode(of arcOrVertex: UInt32) -> UInt32 { chNode[Int(arcOrVertex)] }

    /// Whether the graph knows the OSM node of each shape point (an import does; a graph drawn in code may not).
    public var hasNodeIDs: Bool { !shapeLatitudes.isEmpty && shapeNodeIDs.count == shapeLatitudes.count }

    /// Whether the graph carries a contraction hierarchy.
    public var hasHierarchy: Bool { arcCount > 0 && chNode.count == hierarchyNodeCount }

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
        shapeNodeIDs = try sections.buffer(.shapeNodeIDs)
        edgeLength = try sections.buffer(.edgeLength)
        edgeLabel = try sections.buffer(.edgeLabel)
        edgeFlags = try sections.buffer(.edgeFlags)
        edgeRef = try sections.buffer(.edgeRef)
        edgeClass = try sections.buffer(.edgeClass)
        edgeForwardArc = try sections.buffer(.edgeForwardArc)
        edgeBackwardArc = try sections.buffer(.edgeBackwardArc)
        arcEdge = try sections.buffer(.arcEdge)
        arcHead = try sections.buffer(.arcHead)
        arcWeight = try sections.buffer(.arcWeight)
        arcBase = try sections.buffer(.arcBase)
        arcDuration = try sections.buffer(.arcDuration)
        arcClasses = try sections.buffer(.arcClasses)
        arcDestinations = try sections.buffer(.arcDestinations)
        arcTurnLanes = try sections.buffer(.arcTurnLanes)
        edgeLanes = try sections.buffer(.edgeLanes)
        edgePronunciation = try sections.buffer(.edgePronunciation)
        edgeExits = try sections.buffer(.edgeExits)
        arcComponent = try sections.buffer(.arcComponent)
        componentSize = try sections.buffer(.componentSize)
        arcInCore = try sections.buffer(.arcInCore)
        transitionStart = try sections.buffer(.transitionStart)
        transitionTargets = try sections.buffer(.transitionTargets)
        transitionWeight = try sections.buffer(.transitionWeight)
        stringOffsets = try sections.buffer(.stringOffsets)
        stringBytes = try sections.buffer(.stringBytes)
        labelStart = try sections.buffer(.labelStart)
        labelEntries = try sections.buffer(.labelEntries)
        vertexEdgeStart = try sections.buffer(.vertexEdgeStart)
        vertexEdges = try sections.buffer(.vertexEdges)
        edgeEnds = try sections.buffer(.edgeEnds)
        maneuverStart = try sections.buffer(.maneuverStart)
        maneuverPath = try sections.buffer(.maneuverPath)
        maneuverVia = try sections.buffer(.maneuverVia)
        maneuverKind = try sections.buffer(.maneuverKind)
        var byVertex: [UInt32: [Int]] = [:]
        for (k, v) in maneuverVia.enumerated() { byVertex[v, default: []].append(k) }
        maneuversAtVertex = byVertex
        gridCellStart = try sections.buffer(.gridCellStart)
        gridSegments = try sections.buffer(.gridSegments)
        let grid = metadata.grid
        // Before `validate`: a damaged header's grid may claim more cells than an Int holds.
        let claimed = Int(grid.rows).multipliedReportingOverflow(by: Int(grid.columns))
        let cells = min(claimed.overflow ? Int.max : claimed.partialValue, max(0, gridCellStart.count - 1))
        (occupiedCells, occupiedBlocks) = SegmentGrid.occupied(gridCellStart, cells: cells, columns: max(1, Int(grid.columns)))
        let top = grid.originLatitude + Double(grid.rows) * grid.cellHeight
        let nearestToEquator = grid.originLatitude <= 0 && top >= 0 ? 0 : min(abs(grid.originLatitude), abs(top))
        let widest = grid.cellWidth * cos(min(90, nearestToEquator) * Double.pi / 180)
        halfCellDiagonal = (grid.cellHeight * grid.cellHeight + widest * widest).squareRoot() * Geo.earthRadius * Double.pi / 180 / 2
        chNode = try sections.buffer(.chNode)
        chOriginal = try sections.buffer(.chOriginal)
        chUpStart = try sections.buffer(.chUpStart)
        chUpEdges = try sections.buffer(.chUpEdges)
        chUpLength = try sections.buffer(.chUpLength)
        chUpDuration = try sections.buffer(.chUpDuration)
        chDownStart = try sections.buffer(.chDownStart)
        chDownEdges = try sections.buffer(.chDownEdges)
        chDownLength = try sections.buffer(.chDownLength)
        chDownDuration = try sections.buffer(.chDownDuration)
        chUpShortcuts = try sections.buffer(.chUpShortcuts)
        chDownShortcuts = try sections.buffer(.chDownShortcuts)
        chVertexCost = try sections.buffer(.chVertexCost)
        chArcTail = try sections.buffer(.chArcTail)
        importArcWeight = try sections.optionalBuffer(.importArcWeight)
        importArcDuration = try sections.optionalBuffer(.importArcDuration)
        importTransitionStart = try sections.optionalBuffer(.importTransitionStart)
        importTransitionTargets = try sections.optionalBuffer(.importTransitionTargets)
        importTransitionWeight = try sections.optionalBuffer(.importTransitionWeight)
        cchUpStart = try sections.optionalBuffer(.cchUpStart)
        cchUpHead = try sections.optionalBuffer(.cchUpHead)
        segmentWeight = try sections.optionalBuffer(.segmentWeight)
        segmentDuration = try sections.optionalBuffer(.segmentDuration)
        importSegmentWeight = try sections.optionalBuffer(.importSegmentWeight)
        importSegmentDuration = try sections.optionalBuffer(.importSegmentDuration)
        timedRuleList = try sections.optionalBuffer(.timedRules)
        conditionNotes = try sections.optionalBuffer(.conditionNotes)
        timeZoneBytes = try sections.optionalBuffer(.timeZoneName)
        segmentSplitFromLast = try sections.optionalBuffer(.segmentSplitFromLast)
        interiorDelays = try sections.optionalBuffer(.interiorDelays)
        historyStart = try sections.optionalBuffer(.historyStart)
        historySlots = try sections.optionalBuffer(.historySlots)
        edgeUnpaved = try sections.optionalBuffer(.edgeUnpaved)
        boundUpStart = try sections.optionalBuffer(.boundUpStart)
        boundUpEdges = try sections.optionalBuffer(.boundUpEdges)
        boundDownStart = try sections.optionalBuffer(.boundDownStart)
        boundDownEdges = try sections.optionalBuffer(.boundDownEdges)
        timedRules = TimedRules(UnsafeBufferPointer(start: nil, count: 0), arcCount: 0) { _ in "" }
        try validate()
        let strings = stringOffsets
        let bytes = stringBytes
        timedRules = TimedRules(timedRuleList, arcCount: arcHead.count) { id in
            String(decoding: bytes[Int(strings[Int(id)])..<Int(strings[Int(id) + 1])], as: UTF8.self)
        }
        var seen = [Bool](repeating: false, count: vertexLatitudes.count)
        for a in 0..<arcHead.count where arcInCore[a] == 1 && !seen[Int(arcHead[a])] {
            seen[Int(arcHead[a])] = true
            coreVertexCount += 1
        }
    }

    /// The most one arc may cost, milliseconds (74 hours): sums along any path then stay far from overflow.
    public static let maxArcWeight: UInt32 = 1 << 28

    /// A segment that costs this much (37 hours, more than any road takes) was closed by a traffic file
    /// (`segmentWeight`).
    public static let closedSegmentWeight: UInt32 = 1 << 27

    /// Structural checks behind the checksums, so that even a file with valid checksums but inconsistent arrays
    /// (a bug, or a file made by hand) is refused at load instead of trapping a search: every index in range, every
    /// CSR table non-decreasing, every number finite, and a hierarchy whose edges point up and whose shortcuts
    /// unpack within bounds and end.
    private func validate() throws {
        let edges = edgeLength.count, arcs = arcHead.count, vertices = vertexLatitudes.count
        func require(_ condition: Bool, _ what: String) throws {
            if !condition { throw GraphFileError.corrupt("inconsistent graph file: \(what)") }
        }
        /// A CSR start table: `count + 1` entries from 0, non-decreasing, ending at `total`.
        func requireTable(_ start: UnsafeBufferPointer<UInt32>, _ count: Int, _ total: Int, _ what: String) throws {
            try require(start.count == count + 1 && start[0] == 0 && Int(start[count]) == total
                        && zip(start, start.dropFirst()).allSatisfy { $0 <= $1 }, what)
        }
        let m = metadata
        try require(m.bounds == .empty || [m.bounds.minLatitude, m.bounds.minLongitude, m.bounds.maxLatitude,
                                           m.bounds.maxLongitude].allSatisfy(\.isFinite), "bounds")
        try require(m.grid.originLatitude.isFinite && m.grid.originLongitude.isFinite, "grid origin")
        try require(m.maxSpeed.isFinite && m.maxSpeed >= 0 && m.maxSpeed <= 300 && (arcs == 0 || m.maxSpeed >= 0.1), "top speed")
        try require(m.grid.cellHeight.isFinite && m.grid.cellWidth.isFinite && m.grid.cellHeight >= 1e-6
                    && m.grid.cellWidth >= 1e-6 && m.grid.rows >= 1 && m.grid.columns >= 1, "grid geometry")
        let (cells, overflow) = Int(m.grid.rows).multipliedReportingOverflow(by: Int(m.grid.columns))
        try require(!overflow && cells <= 1 << 31, "grid size")
        try require(vertexLongitudes.count == vertices, "vertex arrays")
        try require(shapeLongitudes.count == shapeLatitudes.count, "shape arrays")
        try require(shapeNodeIDs.isEmpty || shapeNodeIDs.count == shapeLatitudes.count, "shape node ids")
        try requireTable(edgeShapeStart, edges, shapeLatitudes.count, "edge shapes")
        try require(zip(edgeShapeStart, edgeShapeStart.dropFirst()).allSatisfy { $1 - $0 >= 2 }, "edge shape lengths")
        try require([edgeLabel.count, edgeRef.count, edgeClass.count, edgeFlags.count, edgeForwardArc.count,
                     edgeBackwardArc.count, edgePronunciation.count, edgeExits.count, edgeLanes.count]
            .allSatisfy { $0 == edges }, "edge arrays")
        try require(edgeLength.allSatisfy { $0.isFinite && $0 >= 0 }, "edge lengths")
        try require(edgeForwardArc.allSatisfy { $0 == noIndex || Int($0) < arcs }
                    && edgeBackwardArc.allSatisfy { $0 == noIndex || Int($0) < arcs }, "edge arcs")
        try require([arcEdge.count, arcWeight.count, arcBase.count, arcComponent.count, arcInCore.count, arcDuration.count,
                     arcClasses.count, arcDestinations.count, arcTurnLanes.count].allSatisfy { $0 == arcs }, "arc arrays")
        try require(arcWeight.allSatisfy { $0 <= Self.maxArcWeight } && arcDuration.allSatisfy { $0 <= Self.maxArcWeight },
                    "arc weights")
        try require(arcBase.allSatisfy { Int($0) < arcs }, "arc copies")
        try requireTable(transitionStart, arcs, transitionTargets.count, "transitions")
        let strings = stringOffsets.count - 1
        try requireTable(stringOffsets, strings, stringBytes.count, "strings")
        try require(strings >= 1, "string table")
        let labels = labelStart.count - 1
        try require(labels >= 0 && Int(labelStart[labels]) * 2 == labelEntries.count, "labels")
        try requireTable(labelStart, labels, labelEntries.count / 2, "label table")
        try require(labelEntries.allSatisfy { Int($0) < strings }, "label strings")
        try require(edgeLabel.allSatisfy { Int($0) < labels } && edgeRef.allSatisfy { Int($0) < strings }
                    && edgePronunciation.allSatisfy { Int($0) < strings } && edgeExits.allSatisfy { Int($0) < strings }
                    && arcDestinations.allSatisfy { Int($0) < strings } && arcTurnLanes.allSatisfy { Int($0) < strings },
                    "edge names")
        try requireTable(vertexEdgeStart, vertices, vertexEdges.count, "vertex edges")
        try require(vertexEdges.allSatisfy { Int($0 >> 1) < edges }, "vertex edge indices")
        try require(edgeEnds.count == 2 * edges && edgeEnds.allSatisfy {
            $0.bearing >= 0 && $0.bearing < 360 && $0.initialBearing >= 0 && $0.initialBearing < 360 && $0.reach.isFinite && $0.reach >= 0 && $0.shapeLength.isFinite && $0.shapeLength >= 0
        }, "edge ends")
        try requireTable(gridCellStart, cells, gridSegments.count, "grid")
        let maneuvers = maneuverStart.count - 1
        try require(maneuvers >= 0 && maneuverVia.count == maneuvers && maneuverKind.count == maneuvers, "maneuver arrays")
        try requireTable(maneuverStart, maneuvers, maneuverPath.count, "maneuver paths")
        try require(maneuverPath.allSatisfy { Int($0 >> 1) < edges } && maneuverVia.allSatisfy { Int($0) < vertices }
                    && maneuverKind.allSatisfy { ManeuverOverride(packed: $0) != nil }, "maneuver overrides")
        try require(arcHead.allSatisfy { Int($0) < vertices }, "arc heads")
        try require(transitionTargets.allSatisfy { Int($0) < arcs }, "transition targets")
        try require(transitionWeight.count == transitionTargets.count && transitionWeight.allSatisfy { $0 <= Self.maxTurnWeight },
                    "turn weights")
        try require(arcEdge.allSatisfy { Int($0 >> 1) < edges }, "arc edges")
        try require(arcComponent.allSatisfy { Int($0) < componentSize.count }, "components")
        try require(chVertexCost.isEmpty && chArcTail.isEmpty
                    || chVertexCost.count == vertices && chArcTail.count == arcs && !chNode.isEmpty, "hierarchy over vertices")
        try require(chVertexCost.allSatisfy { $0 <= Self.maxTurnWeight || $0 == noIndex }
                    && chArcTail.allSatisfy { Int($0) < vertices }, "vertex costs")
        // Told apart by the turns' table, which has an entry even for a graph without arcs.
        if importTransitionStart.isEmpty {
            try require(importArcWeight.isEmpty && importArcDuration.isEmpty && importTransitionTargets.isEmpty
                        && importTransitionWeight.isEmpty, "import metric")
        } else {
            try require(importArcDuration.count == arcs && importArcWeight.count == arcs, "import metric")
            try requireTable(importTransitionStart, arcs, importTransitionTargets.count, "import turns")
            try require(importTransitionWeight.count == importTransitionTargets.count
                        && importTransitionTargets.allSatisfy { Int($0) < arcs }, "import turns")
        }
        try require(importArcWeight.allSatisfy { $0 <= Self.maxArcWeight } && importArcDuration.allSatisfy { $0 <= Self.maxArcWeight }
                    && importTransitionWeight.allSatisfy { $0 <= Self.maxTurnWeight }, "import weights")
        let stringCount = stringOffsets.count - 1
        try require(timedRuleList.allSatisfy { Int($0.from) < arcs && ($0.to == noIndex || Int($0.to) < arcs)
                        && Int($0.condition) < stringCount && $0.reserved == 0 }, "timed rules")
        try require(conditionNotes.allSatisfy { Int($0) < stringCount }, "condition notes")
        try require(String(validating: timeZoneBytes, as: UTF8.self) != nil, "time zone name")
        let segments = 2 * (shapeLatitudes.count - edges)
        try require(segmentWeight.isEmpty && segmentDuration.isEmpty
                    || segmentWeight.count == segments && segmentDuration.count == segments, "segment costs")
        try require(importSegmentWeight.isEmpty && importSegmentDuration.isEmpty
                    || importSegmentWeight.count == segments && importSegmentDuration.count == segments, "import segment costs")
        try require(segmentSplitFromLast.isEmpty || segmentSplitFromLast.count == (segments / 2 + 7) / 8, "segment ends")
        try require(interiorDelays.indices.allSatisfy { k in
            let d = interiorDelays[k]
            return Int(d.shapePoint) < shapeLatitudes.count && d.forward <= Self.maxArcWeight && d.backward <= Self.maxArcWeight
                && (k == 0 || interiorDelays[k - 1].shapePoint < d.shapePoint)
        }, "interior delays")
        try require(edgeUnpaved.isEmpty || edgeUnpaved.count == (edges + 7) / 8, "unpaved edges")
        try require(historyStart.isEmpty == historySlots.isEmpty, "historical speeds")
        if !historyStart.isEmpty {
            try requireTable(historyStart, arcs, historySlots.count, "historical speeds")
            try require((0..<arcs).allSatisfy { a in
                let runs = Int(historyStart[a])..<Int(historyStart[a + 1])
                return runs.isEmpty || arcBase[a] == UInt32(a) && historySlots[runs.lowerBound].slot == 0
                    && runs.allSatisfy { k in
                        let run = historySlots[k]
                        return Int(run.slot) < WeekSlots.count && run.reserved == 0 && run.duration <= Self.maxArcWeight
                            && (run.weight == HistorySlot.current || run.weight <= Self.maxArcWeight)
                            && (k == runs.lowerBound || historySlots[k - 1].slot < run.slot)
                    }
            }, "historical speeds")
        }
        if !cchUpStart.isEmpty {
            let nodes = hierarchyNodeCount
            try require(chNode.count == nodes, "customizable hierarchy without an order")
            try requireTable(cchUpStart, nodes, cchUpHead.count, "customizable hierarchy")
            try require((0..<nodes).allSatisfy { u in
                let range = Int(cchUpStart[u])..<Int(cchUpStart[u + 1])
                return range.allSatisfy { k in Int(cchUpHead[k]) > u && Int(cchUpHead[k]) < nodes
                    && (k == range.lowerBound || cchUpHead[k - 1] < cchUpHead[k]) }
            }, "customizable hierarchy edges")
        } else {
            try require(cchUpHead.isEmpty, "customizable hierarchy")
        }
        if !chNode.isEmpty {
            let nodes = hierarchyNodeCount
            try require(chNode.count == nodes && chOriginal.count == nodes, "hierarchy")
            // The numbering is a permutation: each node stands for one arc (or vertex), and back.
            try require(chOriginal.allSatisfy { Int($0) < nodes }, "hierarchy numbering")
            try require((0..<nodes).allSatisfy { chNode[Int(chOriginal[$0])] == UInt32($0) }, "hierarchy numbering")
            let up = chUpEdges.count, down = chDownEdges.count
            try requireTable(chUpStart, nodes, up, "hierarchy edges up")
            try requireTable(chDownStart, nodes, down, "hierarchy edges down")
            try require(chUpLength.count == up && chUpDuration.count == up && chDownLength.count == down && chDownDuration.count == down
                        && chUpShortcuts.count == up && chDownShortcuts.count == down, "hierarchy arrays")
            try require(chUpLength.allSatisfy(\.isFinite) && chDownLength.allSatisfy(\.isFinite), "hierarchy lengths")
            // Edges go up in number. A shortcut a→b skips a node below both ends, and its halves are a→middle and
            // middle→b, stored at the middle: unpacking stays in bounds and ends. Nodes in chunks on every core (a
            // third of a second on one for the 8.7M-node extract's 20 million edges).
            let (upStart, upEdges, upHalves) = (chUpStart, chUpEdges, chUpShortcuts)
            let (downStart, downEdges, downHalves) = (chDownStart, chDownEdges, chDownShortcuts)
            func halvesFit(_ s: HierarchyShortcut, _ a: UInt32, _ b: UInt32, below owner: Int) -> Bool {
                guard s.middle != noIndex else { return true }
                let m = Int(s.middle)
                return m < owner && Int(downStart[m]) <= Int(s.first) && Int(s.first) < Int(downStart[m + 1])
                    && Int(upStart[m]) <= Int(s.second) && Int(s.second) < Int(upStart[m + 1])
                    && downEdges[Int(s.first)].node == a && upEdges[Int(s.second)].node == b
            }
            func nodeFits(_ u: Int) -> Bool {
                for k in Int(upStart[u])..<Int(upStart[u + 1]) {
                    let v = upEdges[k].node
                    guard Int(v) > u && Int(v) < nodes && halvesFit(upHalves[k], UInt32(u), v, below: u) else { return false }
                }
                for k in Int(downStart[u])..<Int(downStart[u + 1]) {
                    let v = downEdges[k].node
                    guard Int(v) > u && Int(v) < nodes && halvesFit(downHalves[k], v, UInt32(u), below: u) else { return false }
                }
                return true
            }
            let fault = Locked(false)
            parallelChunks(nodes) { range in
                for u in range where !nodeFits(u) { fault.mutate { $0 = true }; return }
            }
            try require(!fault.value, "hierarchy edges and shortcuts")
        }
        if !boundUpStart.isEmpty || !boundDownStart.isEmpty {
            // Searched upwards only, as the hierarchy's own edges: every edge goes up in number.
            let nodes = hierarchyNodeCount
            try require(!chNode.isEmpty && !historyStart.isEmpty, "bounds without historical speeds")
            try requireTable(boundUpStart, nodes, boundUpEdges.count, "bound hierarchy up")
            try requireTable(boundDownStart, nodes, boundDownEdges.count, "bound hierarchy down")
            func goesUp(_ start: UnsafeBufferPointer<UInt32>, _ edges: UnsafeBufferPointer<HierarchyEdge>, _ u: Int) -> Bool {
                for k in Int(start[u])..<Int(start[u + 1]) {
                    let v = Int(edges[k].node)
                    if v <= u || v >= nodes { return false }
                }
                return true
            }
            try require((0..<nodes).allSatisfy { goesUp(boundUpStart, boundUpEdges, $0) && goesUp(boundDownStart, boundDownEdges, $0) },
                        "bound hierarchy edges")
        }
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

    /// String `id` of the string table (names, refs, languages).
    public func string(_ id: UInt32) -> String {
        let i = Int(id)
        guard i + 1 < stringOffsets.count else { return "" }
        let start = Int(stringOffsets[i]), end = Int(stringOffsets[i + 1])
        return String(decoding: UnsafeBufferPointer(rebasing: stringBytes[start..<end]), as: UTF8.self)
    }

    /// An edge's name in `language` (`name:xx`) where the data has one, else its plain `name` ("" if unnamed).
    /// Chinese also accepts the script variants `zh-Hans`/`zh_Hans`.
    public func name(ofEdge e: Int, language: String? = nil) -> String {
        let label = Int(edgeLabel[e])
        let range = Int(labelStart[label])..<Int(labelStart[label + 1])
        var plain = ""
        var fallback: String?
        for i in range {
            let lang = string(labelEntries[2 * i])
            if lang.isEmpty { plain = string(labelEntries[2 * i + 1]); continue }
            guard let language else { continue }
            if lang == language { return string(labelEntries[2 * i + 1]) }
            if lang.hasPrefix(language + "-") || lang.hasPrefix(language + "_") { fallback = string(labelEntries[2 * i + 1]) }
        }
        return fallback ?? plain
    }

    public func ref(ofEdge e: Int) -> String { string(edgeRef[e]) }

    public func pronunciation(ofEdge e: Int) -> String { string(edgePronunciation[e]) }

    /// `junction:ref`: the exit number on a ramp ("12", "12A; 12B").
    public func exits(ofEdge e: Int) -> String { string(edgeExits[e]) }

    /// The signs along a direction of a oneway ("A1: Porto, Lisboa").
    public func destinations(ofArc a: UInt32) -> String { string(arcDestinations[Int(a)]) }

    public func classes(ofArc a: UInt32) -> ArcClasses { ArcClasses(rawValue: arcClasses[Int(a)]) }

    /// Whether the graph knows which roads are paved (graphs imported before it do not).
    public var knowsSurfaces: Bool { !edgeUnpaved.isEmpty }

    /// Whether edge `e`'s way is not paved (false where the graph does not know).
    @inlinable public func isUnpaved(edge e: Int) -> Bool {
        e / 8 < edgeUnpaved.count && edgeUnpaved[e / 8] & (1 << UInt8(e % 8)) != 0
    }

    /// The `turn:lanes` of a direction ("left|through|through;right"), "" where none is mapped.
    public func turnLanes(ofArc a: UInt32) -> String { string(arcTurnLanes[Int(a)]) }

    public func flags(ofEdge e: Int) -> EdgeFlags { EdgeFlags(rawValue: edgeFlags[e]) }

    public func roadClass(ofEdge e: Int) -> RoadClass { RoadClass(rawValue: edgeClass[e]) ?? .other }

    /// Edges at a vertex, each with whether the vertex is the edge's last shape point.
    public func edges(atVertex v: UInt32) -> VertexEdges {
        VertexEdges(entries: vertexEdges, range: Int(vertexEdgeStart[Int(v)])..<Int(vertexEdgeStart[Int(v) + 1]))
    }

    /// Bearing of an edge leaving a vertex (from the vertex along the edge), degrees.
    public func bearing(ofEdge e: Int, leavingFromEnd atEnd: Bool, lookahead: Double = 0) -> Double {
        // The closure holds the two buffers only: `shapePoint` would copy the whole graph value into it.
        let latitudes = shapeLatitudes, longitudes = shapeLongitudes
        return Geo.bearing(intoLine: shapeRange(ofEdge: e), fromLast: atEnd, lookahead: lookahead) {
            Coordinate(fixedLatitude: latitudes[$0], fixedLongitude: longitudes[$0])
        }
    }

    /// Arcs copied for via-way restrictions, by the arc they copy. Copies follow all original arcs, so only the
    /// tail of the arc array is read.
    public func arcCopies() -> [UInt32: [UInt32]] {
        var map: [UInt32: [UInt32]] = [:]
        var a = arcCount - 1
        while a >= 0 && arcBase[a] != UInt32(a) {
            map[arcBase[a], default: []].append(UInt32(a))
            a -= 1
        }
        return map
    }

    @inlinable public func isMainNetwork(arc: UInt32) -> Bool {
        componentSize[Int(arcComponent[Int(arc)])] >= metadata.mainComponentMinimumSize
    }
}
