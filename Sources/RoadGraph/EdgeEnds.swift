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
    /// Straight-line metres from the vertex to the edge's far end.
    public var reach: Double
    /// Metres along the shape from this end, the segments summed in that order from zero: to the bit what a
    /// route travelling the whole edge this way adds up (the router's leg assembly reads it for every whole arc).
    public var shapeLength: Double

    /// How far along a road a plain lookahead reads its bearing, where OSRM reads one point at a fixed distance
    /// (the arms of a small roundabout): short for service roads and circles, long for motorways; 1 m where only
    /// two roads meet.
    public static func perceivedLookahead(_ roadClass: RoadClass, isLink: Bool, onRing: Bool, roadsHere: Int) -> Double {
        if roadsHere <= 2 { return 1 }
        if onRing { return 2 }
        if roadClass.isLowPriority { return 10 }
        if roadClass == .motorway || roadClass == .trunk { return isLink ? 20 : 30 }
        return 20
    }
}

extension GraphArrays {
    /// Fills `edgeEnds` from the shapes, the classes and flags, and the edges at each vertex (which must be
    /// built). Each end is worked out at the vertex that lists it, as a junction there reads it; on every core for
    /// a large graph.
    public mutating func computeEdgeEnds() {
        let vertices = vertexLatitudes.count
        var ends = [EdgeEnd](repeating: EdgeEnd(bearing: 0, reach: 0, shapeLength: 0), count: 2 * edgeLength.count)
        withUnsafeArrays { graph in
            ends.withUnsafeMutableBufferPointer { out in
                // Each edge end is listed at one vertex, so ranges of vertices write disjoint slots.
                parallelChunks(vertices) { range in
                    for v in range { graph.computeEnds(atVertex: v, into: out) }
                }
            }
        }
        edgeEnds = ends
    }

    /// The arrays `computeEdgeEnds` reads, as buffers that threads may share.
    private func withUnsafeArrays(_ body: (EdgeEndInputs) -> Void) {
        vertexLatitudes.withUnsafeBufferPointer { vlat in
        vertexLongitudes.withUnsafeBufferPointer { vlon in
        shapeLatitudes.withUnsafeBufferPointer { slat in
        shapeLongitudes.withUnsafeBufferPointer { slon in
        edgeShapeStart.withUnsafeBufferPointer { shapeStart in
        edgeClass.withUnsafeBufferPointer { classes in
        edgeLanes.withUnsafeBufferPointer { lanes in
        edgeFlags.withUnsafeBufferPointer { flags in
        vertexEdgeStart.withUnsafeBufferPointer { start in
        vertexEdges.withUnsafeBufferPointer { entries in
            body(EdgeEndInputs(vertexLatitudes: vlat, vertexLongitudes: vlon, shapeLatitudes: slat, shapeLongitudes: slon,
                               edgeShapeStart: shapeStart, edgeClass: classes, edgeLanes: lanes, edgeFlags: flags,
                               vertexEdgeStart: start, vertexEdges: entries))
        }}}}}}}}}}
    }
}

private struct EdgeEndInputs: @unchecked Sendable {
    let vertexLatitudes: UnsafeBufferPointer<Int32>, vertexLongitudes: UnsafeBufferPointer<Int32>
    let shapeLatitudes: UnsafeBufferPointer<Int32>, shapeLongitudes: UnsafeBufferPointer<Int32>
    let edgeShapeStart: UnsafeBufferPointer<UInt32>
    let edgeClass: UnsafeBufferPointer<UInt8>, edgeLanes: UnsafeBufferPointer<UInt8>, edgeFlags: UnsafeBufferPointer<UInt8>
    let vertexEdgeStart: UnsafeBufferPointer<UInt32>, vertexEdges: UnsafeBufferPointer<UInt32>

    func computeEnds(atVertex v: Int, into out: UnsafeMutableBufferPointer<EdgeEnd>) {
        let range = Int(vertexEdgeStart[v])..<Int(vertexEdgeStart[v + 1])
        let origin = Coordinate(fixedLatitude: vertexLatitudes[v], fixedLongitude: vertexLongitudes[v])
        let originCos = Geo.cosLatitude(origin)
        let entries = vertexEdges[range]
        // A graph drawn in code may have no lanes.
        let lanesHere = edgeLanes.isEmpty ? 0 : Int(entries.lazy.map { self.edgeLanes[Int($0 >> 1)] }.max() ?? 0)
        let latitudes = shapeLatitudes, longitudes = shapeLongitudes
        for entry in entries {
            let edge = Int(entry >> 1), atEnd = entry & 1 == 1
            let flags = EdgeFlags(rawValue: edgeFlags[edge])
            let shape = Int(edgeShapeStart[edge])..<Int(edgeShapeStart[edge + 1])
            let line = (atEnd ? Array(shape.reversed()) : Array(shape)).map {
                Coordinate(fixedLatitude: latitudes[$0], fixedLongitude: longitudes[$0])
            }
            let road = PerceivedBearing.Road(
                roadClass: RoadClass(rawValue: edgeClass[edge]) ?? .other, isLink: flags.contains(.link),
                onRing: flags.contains(.roundabout) || flags.contains(.circular), roadsHere: range.count,
                lanesHere: lanesHere, isLoop: line.count > 2 && line[0] == line[line.count - 1])
            let bearing = PerceivedBearing.bearing(along: line, road: road)
            let farIndex = atEnd ? shape.lowerBound : shape.upperBound - 1
            let far = Coordinate(fixedLatitude: latitudes[farIndex], fixedLongitude: longitudes[farIndex])
            var length = 0.0
            var previous = Coordinate(fixedLatitude: latitudes[shape.lowerBound], fixedLongitude: longitudes[shape.lowerBound])
            if atEnd { previous = Coordinate(fixedLatitude: latitudes[shape.upperBound - 1], fixedLongitude: longitudes[shape.upperBound - 1]) }
            // Measured as the import measured it (OSRM's ruler): a route's length is the sum of these.
            for k in 1..<shape.count {
                let i = atEnd ? shape.upperBound - 1 - k : shape.lowerBound + k
                let point = Coordinate(fixedLatitude: latitudes[i], fixedLongitude: longitudes[i])
                length += Geo.osrmRulerDistance(previous, point)
                previous = point
            }
            out[Int(entry)] = EdgeEnd(bearing: bearing, reach: Geo.distance(origin, far, cosLatitudeA: originCos), shapeLength: length)
        }
    }
}
