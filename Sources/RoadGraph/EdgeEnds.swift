import Foundation

/// An edge as seen from the vertex at one of its ends, as guidance reads every road at a junction the route
/// passes: the bearing a person perceives along it and how far its other end lies; and its length walked from
/// that end, as a route adds it up. All depend only on the graph, so the import works them out once
/// (`GraphArrays.computeEdgeEnds`) instead of every route at every junction and every arc (a haversine per shape
/// segment and an `atan2`: 6 % of a route request with steps, 15 % of one without).
/// `edgeEnds[2 * e]` is edge e seen from its first shape point, `edgeEnds[2 * e + 1]` from its last.
public struct EdgeEnd: Sendable, Equatable {
    /// Degrees, 0..<360: the bearing a driver at the junction perceives (`PerceivedBearing`).
    public var bearing: Double
    /// Degrees, 0..<360: the bearing towards the point 2 m along the road (OSRM's initial bearing), which guidance
    /// reads where a road bends at once; a merged carriageway's is its merged bearing.
    public var initialBearing: Double
    /// Straight-line metres from the vertex to the edge's far end.
    public var reach: Double
    /// Metres along the shape from this end, the segments summed in that order from zero: to the bit what a
    /// route travelling the whole edge this way adds up (the router's leg assembly reads it for every whole arc).
    public var shapeLength: Double
}

extension GraphArrays {
    /// Per vertex, whether its only two edges are one road to OSRM, which joins such pieces into one edge and so
    /// has no turn there (a way's end where the next way has the same name, class, classes and one-way rule; lanes
    /// and bridges do not part them, measured against OSRM on drawn maps).
    public func verticesJoiningOneRoad(classesPart: Bool) -> [Bool] {
        let reader = EdgeEndReader(graph: self, endVertex: [], classesPart: classesPart, breaks: OSRMEdgeBreaks())
        return (0..<vertexLatitudes.count).map { v in
            let range = Int(vertexEdgeStart[v])..<Int(vertexEdgeStart[v + 1])
            guard range.count == 2 else { return false }
            let a = vertexEdges[range.lowerBound], b = vertexEdges[range.lowerBound + 1]
            guard a >> 1 != b >> 1 else { return false }
            return reader.sameRoad(Int(a >> 1), leftAtStart: a & 1 == 1, Int(b >> 1), enteredAtStart: b & 1 == 0, lanesPart: false)
        }
    }

    /// Fills `edgeEnds` from the shapes, the classes and flags, and the edges at each vertex (which must be
    /// built). Each end is worked out at the vertex that lists it, as a junction there reads it; on every core for
    /// a large graph.
    /// `classesPart`: whether OSRM's classes (tunnel, toll…) tell pieces of a road apart in this mode: the car
    /// profile has classes, the foot profile none.
    /// `breaks`: where OSRM's edges end inside the graph's (`OSRMEdgeBreaks`); a bearing is read along OSRM's edge.
    public mutating func computeEdgeEnds(classesPart: Bool, breaks: OSRMEdgeBreaks = OSRMEdgeBreaks()) {
        let vertices = vertexLatitudes.count
        var ends = [EdgeEnd](repeating: EdgeEnd(bearing: 0, initialBearing: 0, reach: 0, shapeLength: 0), count: 2 * edgeLength.count)
        // The vertex at each edge end, from the lists of edges at each vertex (two nodes may share a position).
        var endVertex = [UInt32](repeating: noIndex, count: 2 * edgeLength.count)
        for v in 0..<vertices {
            for entry in vertexEdges[Int(vertexEdgeStart[v])..<Int(vertexEdgeStart[v + 1])] { endVertex[Int(entry)] = UInt32(v) }
        }
        let reader = EdgeEndReader(graph: self, endVertex: endVertex, classesPart: classesPart, breaks: breaks)
        ends.withUnsafeMutableBufferPointer { out in
            // Each edge end is listed at one vertex, so ranges of vertices write disjoint slots.
            parallelChunks(vertices) { range in
                for v in range { reader.computeEnds(atVertex: v, into: out) }
            }
        }
        edgeEnds = ends
    }
}

/// Where OSRM ends an edge that Wayfinder's graph runs on through: a node it keeps so as not to lay a second edge
/// beside another between the same two junctions (`ModeGraphBuilder.osrmChains`). OSRM reads a road's bearing at a
/// junction along its own edge only, so a short last piece after a kept node decides the turn's angle there.
public struct OSRMEdgeBreaks: Sendable {
    /// Indices of shape points inside edges, sorted.
    public var shapePoints: [UInt32] = []
    /// Per vertex where two edges of one road meet, whether OSRM ends its edge there (empty: nowhere).
    public var vertices: [Bool] = []

    public init(shapePoints: [UInt32] = [], vertices: [Bool] = []) {
        self.shapePoints = shapePoints
        self.vertices = vertices
    }

    /// The break nearest the end an edge with shape points `shape` is read from, if one is inside it.
    func first(inside shape: Range<Int>, fromLast: Bool) -> Int? {
        guard shape.count > 2, !shapePoints.isEmpty else { return nil }
        // The first break at or after the edge's second point.
        var low = 0, high = shapePoints.count
        while low < high {
            let mid = (low + high) / 2
            if Int(shapePoints[mid]) < shape.lowerBound + 1 { low = mid + 1 } else { high = mid }
        }
        guard low < shapePoints.count, Int(shapePoints[low]) < shape.upperBound - 1 else { return nil }
        guard fromLast else { return Int(shapePoints[low]) }
        var last = low
        while last + 1 < shapePoints.count, Int(shapePoints[last + 1]) < shape.upperBound - 1 { last += 1 }
        return Int(shapePoints[last])
    }
}

/// What OSRM compares before it joins two edges that meet end to end, with nothing else at the vertex, into one:
/// the same names, class, lanes and flags, and the same directions open along the way through the vertex.
struct RoadPiece: Equatable {
    /// The class as OSRM's profiles give it (`road_priority_class`): a footway, a pedestrian street and steps are
    /// one class, a track and a path another, a cycleway and an unknown road a third (`connectivity`).
    static func priorityClass(_ raw: UInt8) -> UInt8 {
        switch RoadClass(rawValue: raw) {
        case .pedestrian?, .steps?: return RoadClass.footway.rawValue
        case .path?: return RoadClass.track.rawValue
        case .other?: return RoadClass.cycleway.rawValue
        default: return raw
        }
    }

    /// OSRM tells roads apart by `name` (string id, `plainName`), not by its translations (`name:xx`), which
    /// Wayfinder's label carries too: two pieces of one footway, one with `name:fi` and one with `name:da`, are one
    /// road to OSRM (measured on Helsinki against osrm-routed: no turn cost between them).
    var name: UInt32, ref: UInt32, roadClass: UInt8, flags: UInt8, lanes: UInt8
    /// The rest of what OSRM keeps with a name (its `string_view_id`): the signs of a oneway (`destination`),
    /// `name:pronunciation` and `junction:ref`. A oneway whose signs end where the road goes on is two roads to
    /// OSRM (Avenue du Port, Monaco: the turn onto it is read over its 17 m up to there).
    var destinations: UInt32, pronunciation: UInt32, exits: UInt32
    /// OSRM's classes (tunnel, toll, motorway, ferry…) where the mode has them: a tunnel's ends are junctions to
    /// OSRM's car profile.
    /// Along the direction of travel in the low byte, against it in the high one: a bike pushed one way only (a
    /// oneway ridden with its traffic) is another mode there, as OSRM compares both directions.
    var classes: UInt16
    /// Open in the direction of travel through the vertex, and against it.
    var along: Bool, against: Bool

    /// Edge `e` of a graph (its arrays, held or mapped), travelled through the vertex forward or backward; OSRM's
    /// classes only where they part roads in this mode (`classesPart`).
    init<Table: RandomAccessCollection<UInt32>, Bytes: RandomAccessCollection<UInt8>>(
        edge e: Int, labelStart: Table, labelEntries: Table, edgeLabel: Table, edgeRef: Table, edgeClass: Bytes, flags: UInt8,
        lanes: Bytes, forwardArcs: Table, backwardArcs: Table, arcDestinations: Table, pronunciations: Table, exits: Table,
        arcClasses: Bytes, classesPart: Bool, travelledForward: Bool) where Table.Index == Int, Bytes.Index == Int
    {
        let forwardArc = forwardArcs[e], backwardArc = backwardArcs[e]
        let anyArc = forwardArc != noIndex ? forwardArc : backwardArc
        self.init(name: plainName(label: edgeLabel[e], labelStart: labelStart, labelEntries: labelEntries), ref: edgeRef[e],
                  roadClass: edgeClass[e], flags: flags, lanes: lanes.isEmpty ? 0 : lanes[e],
                  destinations: anyArc != noIndex && Int(anyArc) < arcDestinations.count ? arcDestinations[Int(anyArc)] : 0,
                  pronunciation: pronunciations.isEmpty ? 0 : pronunciations[e], exits: exits.isEmpty ? 0 : exits[e],
                  forwardArc: forwardArc, backwardArc: backwardArc,
                  arcClasses: { $0 == noIndex || !classesPart ? 0 : arcClasses[Int($0)] }, travelledForward: travelledForward)
    }

    private init(name: UInt32, ref: UInt32, roadClass: UInt8, flags: UInt8, lanes: UInt8, destinations: UInt32, pronunciation: UInt32,
         exits: UInt32, forwardArc: UInt32, backwardArc: UInt32, arcClasses: (UInt32) -> UInt8, travelledForward: Bool) {
        (self.name, self.ref, self.flags, self.lanes) = (name, ref, flags, lanes)
        (self.destinations, self.pronunciation, self.exits) = (destinations, pronunciation, exits)
        self.roadClass = Self.priorityClass(roadClass)
        let (forward, backward) = (forwardArc != noIndex, backwardArc != noIndex)
        let forwardClasses = UInt16(forward ? arcClasses(forwardArc) : 0), backwardClasses = UInt16(backward ? arcClasses(backwardArc) : 0)
        classes = travelledForward ? forwardClasses | backwardClasses << 8 : backwardClasses | forwardClasses << 8
        (along, against) = travelledForward ? (forward, backward) : (backward, forward)
    }
}

/// The string id of a label's plain `name`: its entry in language "", which is string 0 of every graph's table;
/// 0 (the empty string) where the label has none.
func plainName<Table: RandomAccessCollection<UInt32>>(label: UInt32, labelStart: Table, labelEntries: Table) -> UInt32
where Table.Index == Int {
    guard Int(label) + 1 < labelStart.count else { return 0 }
    for i in Int(labelStart[Int(label)])..<Int(labelStart[Int(label) + 1]) where labelEntries[2 * i] == 0 {
        return labelEntries[2 * i + 1]
    }
    return 0
}

extension RoadGraph {
    /// Only two edges meet at v, and they are one road to OSRM (`RoadPiece`): it joins them, so no junction is
    /// there for it, and none is listed.
    public func joinsOneRoad(atVertex v: UInt32) -> Bool {
        let here = edges(atVertex: v)
        guard here.count == 2 else { return false }
        let ends = (here[0], here[1])
        guard ends.0.edge != ends.1.edge else { return false }
        // Travelling through v from the first edge into the second.
        func piece(_ e: Int, forward: Bool) -> RoadPiece {
            RoadPiece(edge: e, labelStart: labelStart, labelEntries: labelEntries, edgeLabel: edgeLabel, edgeRef: edgeRef,
                      edgeClass: edgeClass, flags: edgeFlags[e], lanes: edgeLanes, forwardArcs: edgeForwardArc,
                      backwardArcs: edgeBackwardArc, arcDestinations: arcDestinations, pronunciations: edgePronunciation,
                      exits: edgeExits, arcClasses: arcClasses, classesPart: mode == .driving, travelledForward: forward)
        }
        return piece(ends.0.edge, forward: ends.0.atEnd) == piece(ends.1.edge, forward: !ends.1.atEnd)
    }
}

/// Reads the graph's arrays, which threads may share, to work out edge ends.
private struct EdgeEndReader: @unchecked Sendable {
    let graph: GraphArrays
    /// The vertex at each edge end (`2 * edge`, `2 * edge + 1` for its last point); `noIndex` for an edge no
    /// junction lists (a road mapped twice).
    let endVertex: [UInt32]
    let classesPart: Bool
    let breaks: OSRMEdgeBreaks

    func point(_ i: Int) -> Coordinate {
        Coordinate(fixedLatitude: graph.shapeLatitudes[i], fixedLongitude: graph.shapeLongitudes[i])
    }

    /// The edge's shape from one end.
    func points(ofEdge edge: Int, fromLast: Bool) -> [Coordinate] {
        let shape = Int(graph.edgeShapeStart[edge])..<Int(graph.edgeShapeStart[edge + 1])
        return (fromLast ? Array(shape.reversed()) : Array(shape)).map(point)
    }

    /// The edge's shape from one end up to the first node where OSRM's edge ends (`cut`), or all of it.
    func osrmPoints(ofEdge edge: Int, fromLast: Bool) -> (points: [Coordinate], cut: Bool) {
        let shape = Int(graph.edgeShapeStart[edge])..<Int(graph.edgeShapeStart[edge + 1])
        guard let k = breaks.first(inside: shape, fromLast: fromLast) else { return (points(ofEdge: edge, fromLast: fromLast), false) }
        return ((fromLast ? Array((k..<shape.upperBound).reversed()) : Array(shape.lowerBound...k)).map(point), true)
    }

    /// The road from a junction as OSRM sees it: the edge (`line`, read from that end, `length` long), continued
    /// through vertices where it only meets the next piece of the same road (a way's end, where the next way has
    /// the same name, ref, class, lanes and one-way rule). OSRM joins such pieces into one edge and reads the
    /// bearing along the whole, up to where its edge ends (`breaks`).
    func road(ofEdge edge: Int, fromLast: Bool, line: [Coordinate], length: Double) -> [Coordinate] {
        var line = line
        var current = edge, currentFromLast = fromLast
        var walked = length
        // Far enough for the longest stretch the bearing reads (40 m plus eight lanes of motorway).
        for _ in 0..<64 where walked < 120 {
            // The far end of the piece walked last.
            let v = endVertex[2 * current + (currentFromLast ? 0 : 1)]
            guard v != noIndex, breaks.vertices.isEmpty || !breaks.vertices[Int(v)] else { break }
            let range = Int(graph.vertexEdgeStart[Int(v)])..<Int(graph.vertexEdgeStart[Int(v) + 1])
            guard range.count == 2,
                  let next = graph.vertexEdges[range].first(where: { Int($0 >> 1) != current }) else { break }
            let nextEdge = Int(next >> 1), nextFromLast = next & 1 == 1
            guard nextEdge != edge, sameRoad(current, leftAtStart: !currentFromLast, nextEdge, enteredAtStart: !nextFromLast, lanesPart: false)
            else { break }
            let (more, cut) = osrmPoints(ofEdge: nextEdge, fromLast: nextFromLast)
            for k in 1..<more.count { walked += Geo.osrmRulerDistance(more[k - 1], more[k]) }
            line += more.dropFirst()
            if cut { break }
            (current, currentFromLast) = (nextEdge, nextFromLast)
        }
        return line
    }

    /// Two edges that meet end to end are one road: the same labels, class, lanes (unless `lanesPart` is false) and
    /// flags, and the same directions allowed along the line through them.
    func sameRoad(_ a: Int, leftAtStart aForward: Bool, _ b: Int, enteredAtStart bForward: Bool, lanesPart: Bool = true) -> Bool {
        func piece(_ e: Int, forward: Bool) -> RoadPiece {
            // A bridge is guidance's fact, not OSRM's: a road goes on across it as one.
            RoadPiece(edge: e, labelStart: graph.labelStart, labelEntries: graph.labelEntries, edgeLabel: graph.edgeLabel,
                      edgeRef: graph.edgeRef, edgeClass: graph.edgeClass, flags: graph.edgeFlags[e] & ~EdgeFlags.bridge.rawValue,
                      lanes: lanesPart ? graph.edgeLanes : [], forwardArcs: graph.edgeForwardArc,
                      backwardArcs: graph.edgeBackwardArc, arcDestinations: graph.arcDestinations,
                      pronunciations: graph.edgePronunciation, exits: graph.edgeExits, arcClasses: graph.arcClasses,
                      classesPart: classesPart, travelledForward: forward)
        }
        return piece(a, forward: aForward) == piece(b, forward: bForward)
    }

    func computeEnds(atVertex v: Int, into out: UnsafeMutableBufferPointer<EdgeEnd>) {
        let range = Int(graph.vertexEdgeStart[v])..<Int(graph.vertexEdgeStart[v + 1])
        let origin = Coordinate(fixedLatitude: graph.vertexLatitudes[v], fixedLongitude: graph.vertexLongitudes[v])
        let originCos = Geo.cosLatitude(origin)
        let entries = graph.vertexEdges[range]
        // A graph drawn in code may have no lanes.
        let lanesHere = graph.edgeLanes.isEmpty ? 0 : Int(entries.lazy.map { graph.edgeLanes[Int($0 >> 1)] }.max() ?? 0)
        for entry in entries {
            let edge = Int(entry >> 1), atEnd = entry & 1 == 1
            let flags = EdgeFlags(rawValue: graph.edgeFlags[edge])
            // The whole edge, and OSRM's: the same line unless OSRM's edge ends at a node it keeps.
            let (osrmLine, cut) = osrmPoints(ofEdge: edge, fromLast: atEnd)
            let line = cut ? points(ofEdge: edge, fromLast: atEnd) : osrmLine
            var length = 0.0
            // Measured as the import measured it (OSRM's ruler): a route's length is the sum of these.
            for k in 1..<line.count { length += Geo.osrmRulerDistance(line[k - 1], line[k]) }
            let along = range.count > 2 && !cut ? road(ofEdge: edge, fromLast: atEnd, line: line, length: length) : osrmLine
            let road = PerceivedBearing.Road(
                roadClass: RoadClass(rawValue: graph.edgeClass[edge]) ?? .other, isLink: flags.contains(.link),
                onRing: flags.contains(.roundabout) || flags.contains(.circular), roadsHere: range.count,
                lanesHere: lanesHere, isLoop: osrmLine.count > 2 && osrmLine[0] == osrmLine[osrmLine.count - 1])
            let bearings = PerceivedBearing.bearings(along: along, road: road)
            out[Int(entry)] = EdgeEnd(bearing: bearings.perceived, initialBearing: bearings.initial,
                                      reach: Geo.distance(origin, line[line.count - 1], cosLatitudeA: originCos),
                                      shapeLength: length)
        }
    }
}
