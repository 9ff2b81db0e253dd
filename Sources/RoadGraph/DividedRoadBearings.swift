import Foundation

// Divided roads as OSRM's extractor reads them at a junction (its mergeable-road detector), before it prices a
// turn and before its guidance names one: the two carriageways of a road, one arriving and one leaving, are one
// road at their mean bearing; and a short road into a junction where such a pair meets is turned by the angle
// the merge turns it there. The rules and their limits were taken from OSRM 26.10 and checked against
// osrm-routed on drawn maps and extracts (`DividedRoadTests`): a reproduction of what the reference does,
// including where it follows a road by its "straightmost" continuation.

extension GraphArrays {
    /// Turns the bearings in `edgeEnds` of divided roads as OSRM reads them (see above). `joining`: per vertex,
    /// whether OSRM joins its two road pieces into one (`verticesJoiningOneRoad`), so that no junction is there;
    /// `strings`: the string table, by id (the import's, before it is written into the graph).
    /// Returns, per edge end, whether OSRM leaves it out of its junction's roads: of each merged pair, the
    /// carriageway that only arrives. A turn counts the roads at a junction without them (car.lua charges no turn
    /// where only two roads are left).
    public mutating func mergeDividedRoadBearings(joining: [Bool], strings: [String],
                                                  breaks: OSRMEdgeBreaks = OSRMEdgeBreaks()) -> [Bool] {
        let vertices = vertexLatitudes.count
        var mergedAway = [Bool](repeating: false, count: 2 * edgeLength.count)
        guard vertices > 0, !edgeEnds.isEmpty else { return mergedAway }
        var endVertex = [UInt32](repeating: noIndex, count: 2 * edgeLength.count)
        for v in 0..<vertices {
            for entry in vertexEdges[Int(vertexEdgeStart[v])..<Int(vertexEdgeStart[v + 1])] { endVertex[Int(entry)] = UInt32(v) }
        }
        let reader = DividedRoadReader(graph: self, endVertex: endVertex, joining: joining, strings: strings, breaks: breaks)
        // NaN where a junction leaves the bearing as imported.
        var bearings = [Double](repeating: .nan, count: edgeEnds.count)
        bearings.withUnsafeMutableBufferPointer { out in
            mergedAway.withUnsafeMutableBufferPointer { away in
                // Each edge end is listed at one vertex, and every junction reads the bearings as imported: ranges
                // of vertices write disjoint slots.
                parallelChunks(vertices) { range in
                    for v in range where !joining[v] { reader.adjust(atVertex: v, into: out, mergedAway: away) }
                }
            }
        }
        // OSRM sets a turned road's initial bearing to its perceived one.
        for i in edgeEnds.indices where !bearings[i].isNaN {
            edgeEnds[i].bearing = bearings[i]
            edgeEnds[i].initialBearing = bearings[i]
        }
        return mergedAway
    }
}

/// Reads a graph, which threads may share, as OSRM's node-based graph: its junctions are the vertices OSRM does
/// not join through, and a road runs from one junction to the next.
private struct DividedRoadReader: @unchecked Sendable {
    let graph: GraphArrays
    let endVertex: [UInt32]
    let joining: [Bool]
    let strings: [String]
    let breaks: OSRMEdgeBreaks

    static let mergeableAngle = 95.0, narrowTurn = 40.0, fuzzyAngle = 25.0, groupAngle = 60.0
    static let laneWidth = 3.25

    /// A road from a junction to the next one, as OSRM's edge: `entry` is its first edge end (`2 * edge + 1` where
    /// it leaves from the edge's last point), `farEntry` the edge end it arrives by at `target`.
    struct Road {
        var entry: Int, farEntry: Int, target: Int
        /// From the junction to the target, in millionths of a degree, no point repeated.
        var line: [Coordinate]
        var length: Double
        /// OSRM's edge ends before `target`, at a node it keeps (`OSRMEdgeBreaks`): to OSRM the road leads there,
        /// not to `target`.
        var cut = false

        /// The road leads to `junction` as OSRM's edge, with nothing kept on the way.
        func leads(to junction: Int) -> Bool { !cut && target == junction }
    }

    /// A road at a junction, as OSRM's intersection lists it for one road arriving there: its angle to the
    /// arriving road (180 straight on, 90 right, 0 the way back) and its bearing.
    struct Turn {
        var road: Road, angle: Double, bearing: Double
    }

    // MARK: The graph as OSRM's

    func entries(at v: Int) -> ArraySlice<UInt32> {
        graph.vertexEdges[Int(graph.vertexEdgeStart[v])..<Int(graph.vertexEdgeStart[v + 1])]
    }

    func point(_ i: Int) -> Coordinate {
        PerceivedBearing.micro(Coordinate(fixedLatitude: graph.shapeLatitudes[i], fixedLongitude: graph.shapeLongitudes[i]))
    }

    func vertexPoint(_ v: Int) -> Coordinate {
        PerceivedBearing.micro(Coordinate(fixedLatitude: graph.vertexLatitudes[v], fixedLongitude: graph.vertexLongitudes[v]))
    }

    /// The road that leaves by edge end `entry`, through every vertex OSRM joins through.
    func road(from entry: Int) -> Road {
        var line: [Coordinate] = []
        var current = entry
        let start = Int(endVertex[entry])
        var cut = false
        for _ in 0..<10_000 {
            let edge = current >> 1
            let shape = Int(graph.edgeShapeStart[edge])..<Int(graph.edgeShapeStart[edge + 1])
            cut = cut || breaks.first(inside: shape, fromLast: false) != nil
            let indices = current & 1 == 1 ? Array(shape.reversed()) : Array(shape)
            for i in indices {
                let p = point(i)
                if line.last != p { line.append(p) }
            }
            let far = current ^ 1
            let v = Int(endVertex[far])
            guard v != Int(noIndex), v != start, joining[v],
                  let next = entries(at: v).first(where: { Int($0) != far }), Int(next) >> 1 != edge else {
                break
            }
            current = Int(next)
        }
        if line.count == 1 { line.append(line[0]) }
        var length = 0.0
        for k in 1..<line.count { length += Geo.osrmRulerDistance(line[k - 1], line[k]) }
        let far = current ^ 1
        let target = endVertex[far] == noIndex ? start : Int(endVertex[far])
        return Road(entry: entry, farEntry: far, target: target, line: line, length: length, cut: cut)
    }

    /// The road may not be driven (walked) from its junction.
    func isReversed(_ entry: Int) -> Bool {
        let edge = entry >> 1
        return (entry & 1 == 1 ? graph.edgeBackwardArc[edge] : graph.edgeForwardArc[edge]) == noIndex
    }

    func outDegree(_ v: Int) -> Int { entries(at: v).count }

    /// OSRM's bearing of the road as perceived at its junction: the import's.
    func perceived(_ entry: Int) -> Double { graph.edgeEnds[entry].bearing }

    /// The bearing towards the first point more than a metre along the road (OSRM's close coordinate).
    func closeBearing(_ road: Road) -> Double {
        let origin = road.line[0]
        let close = road.line.dropFirst().first { Geo.osrmRulerDistance(origin, $0) > 1 } ?? road.line[road.line.count - 1]
        return Geo.osrmRulerBearing(from: origin, to: close)
    }

    /// What OSRM's string id stands for: the same name, ref, pronunciation, exits and destinations (a one-way's
    /// signs: the same street with other signs is another string to OSRM's walk along a road).
    struct NameKey: Equatable { var label, ref, pronunciation, exits, destinations: UInt32 }

    func nameKey(_ entry: Int) -> NameKey {
        let e = entry >> 1
        return NameKey(label: graph.edgeLabel[e], ref: graph.edgeRef[e],
                       pronunciation: graph.edgePronunciation.isEmpty ? 0 : graph.edgePronunciation[e],
                       exits: graph.edgeExits.isEmpty ? 0 : graph.edgeExits[e], destinations: destinations(ofEdge: e))
    }

    /// The signs of the edge's one direction of travel (OSRM gives them to one-ways only).
    func destinations(ofEdge e: Int) -> UInt32 {
        let forward = graph.edgeForwardArc[e], arc = forward != noIndex ? forward : graph.edgeBackwardArc[e]
        return arc != noIndex && Int(arc) < graph.arcDestinations.count ? graph.arcDestinations[Int(arc)] : 0
    }

    func string(_ id: UInt32) -> String { Int(id) < strings.count ? strings[Int(id)] : "" }

    func fields(_ entry: Int) -> OSRMNames.Fields {
        let e = entry >> 1
        let label = Int(graph.edgeLabel[e])
        var name = ""
        if label + 1 < graph.labelStart.count {
            for i in Int(graph.labelStart[label])..<Int(graph.labelStart[label + 1]) where string(graph.labelEntries[2 * i]).isEmpty {
                name = string(graph.labelEntries[2 * i + 1])
            }
        }
        return OSRMNames.Fields(name: name, ref: string(graph.edgeRef[e]),
                                pronunciation: graph.edgePronunciation.isEmpty ? "" : string(graph.edgePronunciation[e]),
                                exits: graph.edgeExits.isEmpty ? "" : string(graph.edgeExits[e]))
    }

    func lanes(_ entry: Int) -> Int { graph.edgeLanes.isEmpty ? 0 : Int(graph.edgeLanes[entry >> 1]) }

    func flags(_ entry: Int) -> EdgeFlags { EdgeFlags(rawValue: graph.edgeFlags[entry >> 1]) }

    /// The roads at the junction a road arrives at, with their angles to it, the way back first and the rest by
    /// angle (OSRM's connected roads). Bearings are read close to the junction, or as perceived (`perceived`: as
    /// OSRM reads the next junction of a slip road).
    func connectedRoads(arrivingBy road: Road, perceived usePerceived: Bool = false) -> [Turn] {
        func bearing(_ entry: Int, _ along: Road) -> Double { usePerceived ? perceived(entry) : closeBearing(along) }
        let arriving = Geo.remainder360(bearing(road.farEntry, usePerceived ? road : self.road(from: road.farEntry)) + 180)
        var back: Turn?
        var turns: [Turn] = []
        let from = Int(endVertex[road.entry])
        for entry in entries(at: road.target) {
            let next = self.road(from: Int(entry))
            let leaving = bearing(Int(entry), next)
            let angle = Geo.osrmTurnAngle(arriving, leaving)
            if Int(entry) == road.farEntry {
                back = Turn(road: next, angle: 0, bearing: leaving)
                continue
            }
            // Other roads back to where it came from: OSRM keeps one way back only.
            if next.leads(to: from) && !road.cut { continue }
            if !isReversed(Int(entry)) || abs(angle) >= Double.ulpOfOne {
                turns.append(Turn(road: next, angle: angle, bearing: leaving))
            }
        }
        turns.sort { $0.angle < $1.angle }
        if let back { turns.insert(back, at: 0) }
        return turns
    }

    static func closest(_ turns: [Turn], to angle: Double) -> Turn? {
        turns.min { Geo.deviation($0.angle, angle) < Geo.deviation($1.angle, angle) }
    }

    // MARK: Walking along a road

    /// Follows a road from a junction, choosing at each junction with `select`, until `update` (fed each road
    /// travelled and the junction it leads to) says it has enough (OSRM's graph walker).
    func traverse(from road: Road, update: (Road, [Turn]) -> Void, terminate: () -> Bool, select: ([Turn]) -> Road?) {
        let stop = Int(endVertex[road.entry])
        var current = road
        for _ in 0..<1000 {
            let view = connectedRoads(arrivingBy: current)
            update(current, view)
            if current.target == stop { return }
            if view.count <= 1 { return }
            guard let next = select(view) else { return }
            if terminate() { return }
            current = next
        }
    }

    /// OSRM's straightmost road of the name it starts on, or the only one of that name close to straight.
    func straightmost(name: NameKey, initialBearing: Double, stopOnAmbiguousTurns: Bool) -> ([Turn]) -> Road? {
        { view in
            guard view.count > 1 else { return nil }
            let count = view.count { nameKey($0.road.entry) == name }
            if count > 2 { return nil }
            func score(_ t: Turn) -> Double {
                (nameKey(t.road.entry) == name ? 0 : 180) + Geo.deviation(t.angle, 180)
            }
            guard let best = view.dropFirst().min(by: { score($0) < score($1) }) else { return nil }
            let closest = Self.closest(view, to: 180)
            let validAngle = (view.count == 2 || closest?.road.entry == best.road.entry)
                && Geo.deviation(best.angle, 180) < Self.narrowTurn
                && Geo.deviation(initialBearing, best.bearing) < Self.narrowTurn
            if validAngle { return best.road }
            let onlyChoice = nameKey(best.road.entry) == name && Geo.deviation(best.angle, 180) < 100
            if stopOnAmbiguousTurns && Geo.deviation(180, best.angle) > Self.groupAngle {
                let reverse = best.angle >= 180 ? best.angle - 180 : best.angle + 180
                if let opposite = Self.closest(view, to: reverse),
                   Geo.deviation(best.angle, opposite.angle) > 180 - Self.fuzzyAngle { return nil }
                if let straight = closest, Geo.deviation(straight.angle, 180) < Self.fuzzyAngle { return nil }
            }
            return onlyChoice ? best.road : nil
        }
    }

    /// The next junction of more than two roads along a road, within a few hops (OSRM's intersection finder).
    final class JunctionFinder {
        var hops = 0
        let limit: Int
        var via: Road?
        var view: [Turn] = []
        init(limit: Int) { self.limit = limit }
    }

    func find(_ finder: JunctionFinder, from road: Road, select: ([Turn]) -> Road?) {
        traverse(from: road, update: { r, view in
            finder.hops += 1
            finder.via = r
            finder.view = view
        }, terminate: {
            if finder.view.count > 2 || finder.hops == finder.limit {
                finder.hops = 0
                return true
            }
            return false
        }, select: select)
    }

    /// The points along a road up to `limit` metres, each road travelled added whole (OSRM's length-limited
    /// accumulator): the length walked and the points.
    func points(along road: Road, limit: Double, select: ([Turn]) -> Road?) -> (Double, [Coordinate]) {
        var walked = 0.0
        var points: [Coordinate] = []
        traverse(from: road, update: { r, _ in
            var line = r.line
            if r.length + walked > limit { line = Self.trim(line, to: limit - walked) }
            points += line
            walked = min(walked + r.length, limit)
        }, terminate: { walked >= limit }, select: select)
        return (walked, points)
    }

    static func trim(_ line: [Coordinate], to metres: Double) -> [Coordinate] {
        var walked = 0.0
        for i in 1..<line.count {
            let next = walked + Geo.osrmRulerDistance(line[i - 1], line[i])
            if next >= metres {
                let t = max(0, min(1, (metres - walked) / (next - walked)))
                return Array(line[0..<i]) + [PerceivedBearing.interpolate(line[i - 1], line[i], t.isNaN ? 0 : t)]
            }
            walked = next
        }
        return line
    }

    /// The first road from `road`'s junction on whose far junction more or fewer than two roads meet (OSRM's
    /// skip over degree-two nodes): its target.
    func skipDegreeTwo(_ road: Road) -> Road {
        let start = Int(endVertex[road.entry])
        var current = road
        var seen = Set<Int>()
        while outDegree(current.target) == 2 && current.target != start && seen.insert(current.target).inserted {
            guard let next = entries(at: current.target).first(where: { Int($0) != current.farEntry }) else { break }
            current = self.road(from: Int(next))
        }
        return current
    }

    // MARK: The detector

    /// OSRM's `IsDistinctFrom`: far apart, or not of one name.
    func isDistinct(_ a: (entry: Int, bearing: Double), _ b: (entry: Int, bearing: Double)) -> Bool {
        Geo.deviation(a.bearing, b.bearing) > Self.mergeableAngle || !OSRMNames.identical(fields(a.entry), fields(b.entry))
    }

    /// OSRM's `EdgeDataSupportsMerge`: no roundabout, one mode, one name, one class.
    func supportsMerge(_ a: Int, _ b: Int) -> Bool {
        let fa = flags(a), fb = flags(b)
        guard !fa.contains(.roundabout), !fb.contains(.roundabout) else { return false }
        guard pushing(a) == pushing(b) else { return false }
        guard OSRMNames.identical(fields(a), fields(b)) else { return false }
        return graph.edgeClass[a >> 1] == graph.edgeClass[b >> 1] && fa.contains(.link) == fb.contains(.link)
    }

    /// A bike pushed along the road in the direction it may be travelled.
    func pushing(_ entry: Int) -> Bool {
        let e = entry >> 1
        let along = entry & 1 == 1 ? graph.edgeBackwardArc[e] : graph.edgeForwardArc[e]
        let arc = along != noIndex ? along : (entry & 1 == 1 ? graph.edgeForwardArc[e] : graph.edgeBackwardArc[e])
        guard arc != noIndex, Int(arc) < graph.arcClasses.count else { return false }
        return ArcClasses(rawValue: graph.arcClasses[Int(arc)]).contains(.pushing)
    }

    /// OSRM's `CanMergeRoad` for two neighbouring roads at junction v.
    func canMerge(at v: Int, _ lhs: (entry: Int, bearing: Double), _ rhs: (entry: Int, bearing: Double)) -> Bool {
        guard Geo.deviation(lhs.bearing, rhs.bearing) <= Self.mergeableAngle else { return false }
        guard isReversed(lhs.entry) != isReversed(rhs.entry), supportsMerge(lhs.entry, rhs.entry) else { return false }
        let left = road(from: lhs.entry), right = road(from: rhs.entry)
        if left.target == v || right.target == v { return false }
        if skipDegreeTwo(left).target == v || skipDegreeTwo(right).target == v { return false }
        if isTrafficIsland(at: v, left, right) { return true }
        if isLinkRoad(left) || isLinkRoad(right) { return false }
        if isNarrowTriangle(at: v, left, lhs.bearing, right, rhs.bearing) { return true }
        return haveSameDirection(at: v, left, lhs.bearing, right, rhs.bearing)
            && !isCircularShape(at: v, left, lhs.bearing, right)
    }

    /// Both carriageways meet again within a few metres, at a junction of three roads of one name at either end.
    func isTrafficIsland(at v: Int, _ left: Road, _ right: Road) -> Bool {
        let a = skipDegreeTwo(left).target, b = skipDegreeTwo(right).target
        guard a == b, a != v else { return false }
        func sameNameAndDegreeThree(_ n: Int) -> Bool {
            let here = entries(at: n)
            guard here.count == 3, let first = here.first else { return false }
            let required = fields(Int(first))
            return here.allSatisfy { entry in
                let f = fields(Int(entry))
                if required.name.isEmpty && f.name.isEmpty { return false }
                return !OSRMNames.requiresAnnouncement(from: required, to: f) || !OSRMNames.requiresAnnouncement(from: f, to: required)
            }
        }
        let atStart = sameNameAndDegreeThree(v), atEnd = sameNameAndDegreeThree(a)
        guard atStart || atEnd else { return false }
        let distance = Geo.osrmRulerDistance(vertexPoint(v), vertexPoint(a))
        return atStart && atEnd ? distance < 30 : distance < 15
    }

    /// The road only links to a road of its name that goes straight on through the next junction (a slip road).
    func isLinkRoad(_ road: Road) -> Bool {
        let next = skipDegreeTwo(road)
        let view = connectedRoads(arrivingBy: next, perceived: true)
        let name = fields(road.entry)
        // OSRM's filter: roads without a name, or of another, are out.
        func excluded(_ t: Turn) -> Bool {
            let other = fields(t.road.entry)
            if name.name.isEmpty || other.name.isEmpty { return true }
            return OSRMNames.requiresAnnouncement(from: name, to: other) || OSRMNames.requiresAnnouncement(from: other, to: name)
        }
        guard let along = view.min(by: { (excluded($0) ? 1 : 0, Geo.deviation($0.angle, 180)) < (excluded($1) ? 1 : 0, Geo.deviation($1.angle, 180)) }),
              !excluded(along) else { return false }
        let opposite = Self.closest(view, to: along.angle + 180 > 360 ? along.angle - 180 : along.angle + 180)!
        if opposite.road.leads(to: Int(endVertex[next.entry])) && !next.cut { return false }
        if Geo.deviation(Geo.deviation(along.angle, 180), Geo.deviation(opposite.angle, 0)) < Self.fuzzyAngle { return false }
        return Geo.deviation(opposite.angle, along.angle) >= 180 - Self.fuzzyAngle
            && isReversed(along.road.entry) == isReversed(opposite.road.entry)
            && supportsMerge(along.road.entry, opposite.road.entry)
    }

    /// The road splits just before a junction into two that a short road joins: a narrow triangle.
    func isNarrowTriangle(at v: Int, _ left: Road, _ leftBearing: Double, _ right: Road, _ rightBearing: Double) -> Bool {
        let select = straightmost(name: nameKey(left.entry), initialBearing: leftBearing, stopOnAmbiguousTurns: false)
        let leftFinder = JunctionFinder(limit: 5), rightFinder = JunctionFinder(limit: 5)
        // The next junction along one side; past it once more where no road there turns towards the other side
        // (a small side street).
        func corner(along road: Road, towards side: Double, _ finder: JunctionFinder) -> Int? {
            find(finder, from: road, select: select)
            guard finder.via != nil else { return nil }
            if let turn = Self.closest(finder.view, to: side), Geo.deviation(turn.angle, side) > Self.narrowTurn,
               let straight = Self.closest(finder.view, to: 180) {
                find(finder, from: straight.road, select: select)
            }
            return finder.via!.target
        }
        guard let leftCorner = corner(along: left, towards: 90, leftFinder) else { return false }
        if Geo.osrmRulerDistance(vertexPoint(v), vertexPoint(leftCorner)) > 80 { return false }
        guard let rightCorner = corner(along: right, towards: 270, rightFinder) else { return false }
        guard let connector = Self.closest(leftFinder.view, to: 90), Geo.deviation(connector.angle, 90) <= Self.narrowTurn else {
            return false
        }
        let width = Double(max(lanes(left.entry), 1) + max(lanes(right.entry), 1)) * Self.laneWidth
        if Geo.osrmRulerDistance(vertexPoint(leftCorner), vertexPoint(rightCorner)) > width + 10 { return false }
        let connect = JunctionFinder(limit: 5)
        find(connect, from: connector.road, select: select)
        return connect.via?.target == rightCorner
    }

    /// The two roads run side by side, close and parallel, for a while.
    func haveSameDirection(at v: Int, _ left: Road, _ leftBearing: Double, _ right: Road, _ rightBearing: Double) -> Bool {
        guard Geo.deviation(leftBearing, rightBearing) <= Self.mergeableAngle else { return false }
        func along(_ road: Road) -> (Double, [Coordinate]) {
            points(along: road, limit: 120,
                   select: straightmost(name: nameKey(road.entry), initialBearing: leftBearing, stopOnAmbiguousTurns: true))
        }
        let (leftWalked, leftLine) = along(left)
        if leftWalked <= 40 { return false }
        let (rightWalked, rightLine) = along(right)
        if rightWalked <= 40 { return false }
        var leftPoints = leftLine, rightPoints = rightLine
        let connectAgain = leftPoints.last == rightPoints.last
        leftPoints = PerceivedBearing.samples(along: leftPoints, limit: 120, every: 5)
        rightPoints = PerceivedBearing.samples(along: rightPoints, limit: 120, every: 5)
        guard leftPoints.count >= 3, rightPoints.count >= 3 else { return false }
        if !connectAgain {
            leftPoints.removeFirst(leftPoints.count / 3)
            rightPoints.removeFirst(rightPoints.count / 3)
        }
        guard Self.areParallel(leftPoints, rightPoints) else { return false }
        let midLeft = Self.closestDistance(leftPoints[leftPoints.count / 2], rightPoints)
        let midRight = Self.closestDistance(rightPoints[rightPoints.count / 2], leftPoints)
        let width = 0.5 * Double(max(1, lanes(left.entry)) + max(1, lanes(right.entry))) * Self.laneWidth
        return min(midLeft, midRight) <= width + 12
    }

    /// The two roads close into a ring about as round as a circle: a roundabout drawn without its tag.
    func isCircularShape(at v: Int, _ left: Road, _ leftBearing: Double, _ right: Road) -> Bool {
        func along(_ road: Road) -> (Double, [Coordinate]) {
            points(along: road, limit: 120,
                   select: straightmost(name: nameKey(road.entry), initialBearing: leftBearing, stopOnAmbiguousTurns: false))
        }
        let (leftWalked, leftPoints) = along(left)
        let (_, rightPoints) = along(right)
        guard leftPoints.last == rightPoints.last, leftPoints.first == leftPoints.last, leftWalked > 0 else { return false }
        let ratio = abs(Self.area(leftPoints)) / (leftWalked * leftWalked)
        return ratio >= 0.85 / (4 * Double.pi)
    }

    // MARK: Geometry, as OSRM computes it

    /// OSRM's test of two lines' least-squares fits: the second's slope, with the first turned level, under 20 %.
    static func areParallel(_ a: [Coordinate], _ b: [Coordinate]) -> Bool {
        let (a0, a1) = PerceivedBearing.fittedSegment(a), (b0, b1) = PerceivedBearing.fittedSegment(b)
        func difference(_ p: Coordinate, _ q: Coordinate) -> (lon: Double, lat: Double) {
            (Geo.micro(p.longitude) - Geo.micro(q.longitude), Geo.micro(p.latitude) - Geo.micro(q.latitude))
        }
        let da = difference(a0, a1), db = difference(b0, b1)
        let bearing = Geo.osrmRulerBearing(from: Coordinate(latitude: 0, longitude: 0),
                                           to: Coordinate(latitude: da.lat / 1e6, longitude: da.lon / 1e6))
        let angle = (bearing - 90) * Double.pi / 180
        let lon = db.lon / 1e6, lat = db.lat / 1e6
        let rotatedLon = Geo.micro(cos(angle) * lon - sin(angle) * lat)
        let rotatedLat = Geo.micro(sin(angle) * lon + cos(angle) * lat)
        guard rotatedLon != 0 else { return false }
        return abs(rotatedLat / rotatedLon) < 0.2
    }

    /// The distance from a point to the nearest point of a line.
    static func closestDistance(_ p: Coordinate, _ line: [Coordinate]) -> Double {
        var best = Double.greatestFiniteMagnitude
        for i in 1..<line.count {
            best = min(best, Geo.osrmRulerDistance(p, PerceivedBearing.project(p, line[i - 1], line[i])))
        }
        return best
    }

    /// The signed area of a closed line, square metres, by trapezoids down to its southernmost latitude.
    static func area(_ ring: [Coordinate]) -> Double {
        guard let south = ring.map(\.latitude).min() else { return 0 }
        var area = 0.0
        var previousBase = Coordinate(latitude: south, longitude: ring[0].longitude)
        var previousY = Geo.osrmRulerDistance(previousBase, ring[0])
        for p in ring.dropFirst() {
            let base = Coordinate(latitude: south, longitude: p.longitude)
            let y = Geo.osrmRulerDistance(base, p)
            let chunk = Geo.osrmRulerDistance(previousBase, base) * (previousY + y)
            area += base.longitude >= previousBase.longitude ? chunk : -chunk
            previousBase = base
            previousY = y
        }
        return area / 2
    }

    // MARK: Bearings at a junction

    /// The bisector of two bearings.
    static func bisector(_ a: Double, _ b: Double) -> Double {
        let (x, y) = (sin(a * .pi / 180) + sin(b * .pi / 180), cos(a * .pi / 180) + cos(b * .pi / 180))
        return fmod(180 * atan2(x, y) / .pi + 360, 360)
    }

    static func reverse(_ bearing: Double) -> Double { bearing >= 180 ? bearing - 180 : bearing + 180 }

    /// OSRM's merged bearing of the pair `i`, `j` at a junction (`findMergedBearing`): whether it may turn a
    /// neighbour's road, and the bearing.
    func mergedBearing(_ roads: [(entry: Int, bearing: Double)], _ i: Int, _ j: Int, neighbour: Bool) -> (Bool, Double) {
        let lhs = roads[i], rhs = roads[j]
        let entry = isReversed(lhs.entry) ? rhs : lhs
        let reversedEntry = Self.reverse(entry.bearing)
        let closestOpposite = roads.min { Geo.deviation($0.bearing, reversedEntry) < Geo.deviation($1.bearing, reversedEntry) }!
        let opposite = Self.reverse(closestOpposite.bearing)
        let merged = Self.bisector(rhs.bearing, lhs.bearing)
        if Geo.deviation(Geo.osrmAngleBetween(opposite, entry.bearing), 180) < 3 { return (false, entry.bearing) }
        if neighbour {
            let new = Geo.deviation(Geo.osrmAngleBetween(opposite, merged), 180)
            if Geo.deviation(Geo.osrmAngleBetween(opposite, lhs.bearing), 180) < new
                || Geo.deviation(Geo.osrmAngleBetween(opposite, rhs.bearing), 180) < new { return (false, opposite) }
        }
        return (true, merged)
    }

    /// OSRM's `isRoadsPairMergeable`: roads `index` and the next, in clockwise order, merge, and each is distinct
    /// from its other neighbour.
    func isPairMergeable(at v: Int, _ roads: [(entry: Int, bearing: Double)], _ index: Int) -> Bool {
        let n = roads.count
        let llhs = roads[(index + n - 1) % n], lhs = roads[index], rhs = roads[(index + 1) % n], rrhs = roads[(index + 2) % n]
        return isDistinct(llhs, lhs) && canMerge(at: v, lhs, rhs) && isDistinct(rhs, rrhs)
    }

    /// The roads at v by their perceived bearings, clockwise.
    func sortedRoads(at v: Int) -> [(entry: Int, bearing: Double)] {
        entries(at: v).map { (entry: Int($0), bearing: perceived(Int($0))) }.sorted { $0.bearing < $1.bearing }
    }

    /// Whether any pair of roads at v could merge at all: two of one name, one of them one-way in, the other out.
    /// Nearly every junction has none, and is passed over without walking any road.
    func hasCandidatePair(at v: Int) -> Bool {
        let here = entries(at: v)
        guard here.count >= 3 else { return false }
        let reversed = here.filter { isReversed(Int($0)) }
        guard !reversed.isEmpty, reversed.count < here.count else { return false }
        for a in reversed {
            for b in here where !isReversed(Int(b)) && graph.edgeClass[Int(a) >> 1] == graph.edgeClass[Int(b) >> 1] {
                if OSRMNames.identical(fields(Int(a)), fields(Int(b))) { return true }
            }
        }
        return false
    }

    /// The bearings OSRM gives the roads at v (`getIntersectionGeometries`), written into `out` for the roads it
    /// merges or turns.
    func adjust(atVertex v: Int, into out: UnsafeMutableBufferPointer<Double>, mergedAway: UnsafeMutableBufferPointer<Bool>) {
        var roads = sortedRoads(at: v)
        let n = roads.count
        guard n >= 2 else { return }
        var merged = [Bool](repeating: false, count: n), turned = merged
        if n >= 3 && hasCandidatePair(at: v) {
            for index in 0..<n where isPairMergeable(at: v, roads, index) {
                let next = (index + 1) % n
                merged[index] = true
                merged[next] = true
                let bearing = mergedBearing(roads, index, next, neighbour: false).1
                roads[index].bearing = bearing
                roads[next].bearing = bearing
                mergedAway[isReversed(roads[index].entry) ? roads[index].entry : roads[next].entry] = true
            }
        }
        // The edge alone is as long as the road it starts, or shorter: most are too long to walk at all.
        for index in 0..<n where !merged[index] && graph.edgeEnds[roads[index].entry].shapeLength <= 30 {
            let road = self.road(from: roads[index].entry)
            guard road.length <= 30 else { continue }
            let w = road.target
            guard w != v, !joining[w], hasCandidatePair(at: w) else { continue }
            let there = sortedRoads(at: w)
            let count = there.count
            guard count > 1, let current = there.firstIndex(where: { $0.entry == road.farEntry }) else { continue }
            let previous = (current + count - 1) % count, next = (current + 1) % count
            if isPairMergeable(at: w, there, previous) {
                let (usable, bearing) = mergedBearing(there, previous, current, neighbour: true)
                if usable {
                    let offset = Geo.deviation(bearing, there[current].bearing)
                    roads[index].bearing = fmod(roads[index].bearing + 360 - offset, 360)
                    turned[index] = true
                }
            } else if isPairMergeable(at: w, there, current) {
                let (usable, bearing) = mergedBearing(there, current, next, neighbour: true)
                if usable {
                    let offset = Geo.deviation(bearing, there[current].bearing)
                    roads[index].bearing = fmod(roads[index].bearing + offset, 360)
                    turned[index] = true
                }
            }
        }
        for (index, road) in roads.enumerated() where merged[index] || turned[index] { out[road.entry] = road.bearing }
    }
}
