import Foundation
import RoadGraph

public enum SearchAlgorithm: String, CaseIterable, Sendable {
    /// The contraction hierarchy where the graph has one, else A*.
    case automatic = "auto"
    case ch, astar, dijkstra
}

/// A stretch of a leg along one arc (part of one at the ends).
public struct Stretch: Sendable {
    public var arc: UInt32
    public var name: String
    public var ref: String
    public var roadClass: RoadClass?
    public var classes: ArcClasses = []
    /// Metres and seconds (of travel, without penalties), and the weight the search counted (seconds).
    public var distance: Double
    public var duration: Double
    public var weight: Double
    /// Indices into the leg's coordinates.
    public var coordinates: ClosedRange<Int>
    /// The part of the arc travelled, as fractions of its length from its tail (`0...1` for the whole arc).
    public var part: ClosedRange<Double> = 0...1
    /// Seconds of `duration` (and of `weight`) that the turn onto this arc costs, with the delays at its junction.
    public var turnDuration: Double = 0
    /// Seconds of `weight` only that entering this arc costs (`RoadGraph.entryWeight`).
    public var entryWeight: Double = 0
}

public struct RouteLeg: Sendable {
    public var source: Snap
    public var target: Snap
    /// What the search minimised (travel time with the profile's penalties), milliseconds: its exact cost. One
    /// search's cost fits 32 bits; the leg is 64 so that a walk appended to it, and any total of legs, cannot wrap.
    public var weight: UInt64
    public var distance: Double
    /// Seconds of travel, without the penalties.
    public var duration: Double
    public var coordinates: [Coordinate]
    public var stretches: [Stretch]
    public var settled: Int
    /// The OSM nodes of the walk appended to a drive (`Route.continueOnFoot`), whose stretches name another
    /// graph's arcs; empty otherwise.
    public var footNodeIDs: [Int64] = []
    /// How many of the last stretches are such a walk.
    public var footStretchCount = 0
}

extension RouteLeg {
    /// OSRM's leg summary: the two roads (name, or ref where unnamed) the leg spends longest on, in route order,
    /// from the roads themselves, so it is the same whether or not steps were asked for.
    public var summary: String {
        var time: [String: (seconds: Double, first: Int)] = [:]
        // Room for a long leg's roads at once: growing the table a few times was a fifth of the summary's work.
        time.reserveCapacity(min(stretches.count, 64))
        // Runs of stretches along one road are summed without a hash per stretch, in the same order of additions.
        var run: (label: String, total: (seconds: Double, first: Int))?
        var runLabel = ""
        // Read in place, and compared with the run's road without taking the label out: a stretch copied, or its
        // label, was a retain and a release of each string.
        stretches.withUnsafeBufferPointer { s in
            for k in s.indices {
                let named = !s[k].name.isEmpty
                if !named && s[k].ref.isEmpty { continue }
                if run == nil || (named ? s[k].name != runLabel : s[k].ref != runLabel) {
                    let label = named ? s[k].name : s[k].ref
                    if let run { time[run.label] = run.total }
                    run = (label, time[label] ?? (0, k))
                    runLabel = label
                }
                run!.total.seconds += s[k].duration
            }
        }
        if let run { time[run.label] = run.total }
        let longest = time.sorted { $0.value.seconds > $1.value.seconds || ($0.value.seconds == $1.value.seconds && $0.value.first < $1.value.first) }
            .prefix(2)
        return longest.sorted { $0.value.first < $1.value.first }.map(\.key).joined(separator: ", ")
    }
}

public struct Route: Sendable {
    public var mode: TravelMode
    public var legs: [RouteLeg]
    public var waypoints: [Snap]
    public var distance: Double { legs.reduce(0) { $0 + $1.distance } }
    public var duration: Double { legs.reduce(0) { $0 + $1.duration } }
    public var weight: UInt64 { legs.reduce(0) { $0 + $1.weight } }
    /// The classes of the roads the route uses (tolls, motorways, ferries…), as a maps app's route summary says.
    public var classes: ArcClasses { legs.reduce([]) { $0.union($1.stretches.reduce([]) { $0.union($1.classes) }) } }

    public init(mode: TravelMode, legs: [RouteLeg], waypoints: [Snap]) {
        self.mode = mode
        self.legs = legs
        self.waypoints = waypoints
    }

    /// The whole route's line, legs joined without repeating the via points.
    public var coordinates: [Coordinate] {
        var all: [Coordinate] = []
        for leg in legs {
            all.append(contentsOf: all.isEmpty ? leg.coordinates[...] : leg.coordinates.dropFirst())
        }
        return all
    }
}

/// Snaps waypoints, searches each leg and assembles geometry and per-road stretches. One per thread.
public struct Router {
    public let graph: RoadGraph
    public var maxSnapDistance = RoadGraph.defaultSnapDistance
    /// Roads of these classes are avoided (OSRM's `exclude`): not snapped to, not searched.
    public var excluding: ArcClasses = []
    /// How much farther than its nearest road a waypoint may be moved to reach the core network, metres.
    public static let coreSlack = 100.0
    /// Snapping as OSRM snaps (`compat=osrm`): the nearest road even where a restricted one is only a little
    /// nearer than one open to all; and a trapped point moved as OSRM's second snap on its big component, within
    /// the radius however far, where that core has 1,000 junctions or more (`RoadGraph.hasBigCore`: a small map
    /// has no big component). Otherwise Wayfinder's: open roads preferred by 10 m, trapped points moved at most
    /// `coreSlack`.
    public var snapsAsOSRM = false
    /// When the route leaves: the graph's timed rules (conditional restrictions and closures) then hold at the time
    /// each road and junction is reached, and roads cost what their historical speeds say for that time; without it
    /// both are ignored, as OSRM ignores conditional tags unless told the time.
    public var departure: Departure?
    /// Weights by kind of road this request gives (`avoid=`, `prefer=`): routes are then searched by A* guided by
    /// the hierarchy, at these weights.
    public var weightFactors: WeightFactors?
    private var search = PathSearch()
    private var hierarchySearch = HierarchySearch()
    /// For searches at a departure time whose hierarchy path the rules close: made on first use.
    private var potential: HierarchyPotential?
    /// For searches at a departure time on a graph whose historical speeds are somewhere faster than its metric:
    /// bounds at every time of the week (`RoadGraph.hasWeekBounds`). Made on first use.
    private var weekPotential: HierarchyPotential?

    public init(graph: RoadGraph) { self.graph = graph }

    /// Candidates per waypoint; throws `noSegment` for a point with no usable road nearby. `known`: places found
    /// before, per point, kept where they are places on this graph (`RoadGraph.snapPoints`).
    public func snapWaypoints(_ points: [Coordinate], filters: [WaypointFilter]? = nil, known: [Snap?]? = nil) throws -> [Snap] {
        let snaps = graph.snapPoints(points, maxDistance: maxSnapDistance, filters: withExclusion(filters, count: points.count),
                                     restrictedMargin: snapsAsOSRM ? 0 : RoadGraph.restrictedSnapMargin, known: known)
        if let i = snaps.firstIndex(where: { $0 == nil }) {
            throw RoutingError.noSegment(index: i, coordinate: points[i], maxDistance: filters?[i].radius ?? maxSnapDistance)
        }
        return snaps.map { $0! }
    }

    /// The filters with this router's exclusion in each.
    func withExclusion(_ filters: [WaypointFilter]?, count: Int) -> [WaypointFilter]? {
        guard !excluding.isEmpty else { return filters }
        return (0..<count).map { i in
            var filter = filters?[i] ?? WaypointFilter()
            filter.excluding.formUnion(excluding)
            return filter
        }
    }

    /// The fastest route through `points` in order. With `continueStraight` (OSRM's `continue_straight`; by
    /// default on for driving, off for walking) a via point is passed without turning back there: the leg leaving it
    /// starts in the direction the leg before arrived in. `known`: places on this graph already found for some
    /// points, which are not looked for again.
    public mutating func route(_ points: [Coordinate], algorithm: SearchAlgorithm = .automatic,
                               filters: [WaypointFilter]? = nil, continueStraight: Bool? = nil, known: [Snap?]? = nil) throws -> Route
    {
        let continueStraight = continueStraight ?? (graph.mode == .driving)
        guard points.count >= 2 else { throw RoutingError.tooFewWaypoints }
        var snaps = try snapWaypoints(points, filters: filters, known: known)
        if snapsAsOSRM { snaps = movedToCoreAsOSRM(snaps, points: points, filters: filters) }
        var outcome = routeLegs(snaps, algorithm: algorithm, continueStraight: continueStraight)
        if case .failure = outcome {
            // A point that cannot be reached or left (a one-way trap, a corner of a clipped extract) moves to the
            // nearest road of the core network, where every other core road can be reached, and we try again; but
            // only a short way, so that a truly unconnected place still answers NoRoute.
            let moved = movedToCore(snaps, points: points, filters: filters, asOSRM: snapsAsOSRM)
            if zip(moved, snaps).contains(where: { $0.edge != $1.edge || $0.offset != $1.offset }) {
                snaps = moved
                outcome = routeLegs(snaps, algorithm: algorithm, continueStraight: continueStraight)
            }
        }
        switch outcome {
        case .success(let legs): return Route(mode: graph.mode, legs: legs, waypoints: snaps)
        case .failure(let error): throw error
        }
    }

    /// OSRM moves every point off its big component onto it before it searches, reached or not, unless all the
    /// points share one small component: where some point is on the core, the others off it are moved at once (a
    /// dead end entered by a one-way street is left for the nearest road of the core, as OSRM leaves it).
    private func movedToCoreAsOSRM(_ snaps: [Snap], points: [Coordinate], filters: [WaypointFilter]?) -> [Snap] {
        guard graph.hasBigCore, snaps.contains(where: { graph.isInCore(edge: $0.edge) }),
              snaps.contains(where: { !graph.isInCore(edge: $0.edge) }) else { return snaps }
        return movedToCore(snaps, points: points, filters: filters, asOSRM: true)
    }

    /// Each snap off the core replaced by its `RoadGraph.coreSnap` where it has one.
    private func movedToCore(_ snaps: [Snap], points: [Coordinate], filters: [WaypointFilter]?, asOSRM: Bool) -> [Snap] {
        let excludingFilters = withExclusion(filters, count: points.count)
        return snaps.enumerated().map { i, snap in
            graph.coreSnap(for: snap, at: points[i], filter: excludingFilters?[i] ?? WaypointFilter(), radius: maxSnapDistance,
                           asOSRM: asOSRM) ?? snap
        }
    }

    private mutating func routeLegs(_ snaps: [Snap], algorithm: SearchAlgorithm, continueStraight: Bool)
        -> Result<[RouteLeg], RoutingError>
    {
        if continueStraight && snaps.count > 2 { return straightThroughLegs(snaps, algorithm: algorithm) }
        var legs: [RouteLeg] = []
        var elapsed = 0.0
        for i in 0..<(snaps.count - 1) {
            guard !WorkBudget.exceeded(),
                  let leg = routeLeg(from: snaps[i], to: snaps[i + 1], algorithm: algorithm, after: elapsed) else {
                return .failure(.noRoute(fromWaypoint: i, toWaypoint: i + 1))
            }
            elapsed += leg.duration
            legs.append(leg)
        }
        return .success(legs)
    }

    /// Legs that pass each via point in one direction of its road. A via point has two states (the directions it
    /// may be passed in); the cheapest sequence of states is found by dynamic programming over the legs, at most
    /// four searches a leg. The origin and the destination are not constrained.
    private mutating func straightThroughLegs(_ snaps: [Snap], algorithm: SearchAlgorithm) -> Result<[RouteLeg], RoutingError> {
        func directions(_ snap: Snap) -> [Snap] {
            var result: [Snap] = []
            // A state is one direction of one road: a via point's alternatives would pass it on another.
            var snap = snap
            snap.alternatives = []
            if snap.allowsForward && graph.edgeForwardArc[snap.edge] != noIndex {
                var s = snap
                s.allowsBackward = false
                result.append(s)
            }
            if snap.allowsBackward && graph.edgeBackwardArc[snap.edge] != noIndex {
                var s = snap
                s.allowsForward = false
                result.append(s)
            }
            return result.isEmpty ? [snap] : result
        }
        let states = snaps.indices.map { i in i == 0 || i == snaps.count - 1 ? [snaps[i]] : directions(snaps[i]) }
        // reached[i][k]: the cheapest way to state k of waypoint i, as its weight, the state of waypoint i - 1 it
        // came from and the leg between them. Legs are kept once each, and the route read back at the end, so
        // memory grows with the number of waypoints, not with its square.
        var reached: [[(weight: UInt64, from: Int, leg: RouteLeg?, elapsed: Double)?]] = [[(0, 0, nil, 0)]]
        for i in 0..<(snaps.count - 1) {
            if WorkBudget.exceeded() { return .failure(.noRoute(fromWaypoint: i, toWaypoint: i + 1)) }
            var next = [(weight: UInt64, from: Int, leg: RouteLeg?, elapsed: Double)?](repeating: nil, count: states[i + 1].count)
            for (u, from) in states[i].enumerated() {
                guard let here = reached[i][u] else { continue }
                for (v, to) in states[i + 1].enumerated() {
                    guard let leg = routeLeg(from: from, to: to, algorithm: algorithm, after: here.elapsed) else { continue }
                    let weight = here.weight + UInt64(leg.weight)
                    if weight < next[v]?.weight ?? .max { next[v] = (weight, u, leg, here.elapsed + leg.duration) }
                }
            }
            guard next.contains(where: { $0 != nil }) else { return .failure(.noRoute(fromWaypoint: i, toWaypoint: i + 1)) }
            reached.append(next)
        }
        var legs: [RouteLeg] = []
        var state = 0
        for i in stride(from: snaps.count - 1, to: 0, by: -1) {
            let step = reached[i][state]!
            legs.append(step.leg!)
            state = step.from
        }
        return .success(legs.reversed())
    }

    /// Up to `count` other reasonable routes between two points, besides `main`: each found by making the roads of
    /// the routes found so far dearer and searching again (the penalty method), kept only if its true duration is
    /// within 30 % of the main route's and at most 75 % of its length is shared with a route already kept.
    public mutating func alternatives(to main: Route, count: Int) -> [Route] {
        guard count > 0, main.legs.count == 1, let leg = main.legs.first, leg.weight > 0 else { return [] }
        let sources = graph.sourceEndpoints(leg.source), targets = graph.targetEndpoints(leg.target)
        let heuristic = GreatCircleHeuristic(graph: graph, target: leg.target.location)
        var kept: [RouteLeg] = [leg]
        var penalties: [UInt32: UInt32] = [:]
        func penalise(_ leg: RouteLeg) {
            for s in leg.stretches { penalties[s.arc] = max(penalties[s.arc] ?? 0, graph.arcWeight[Int(s.arc)] / 2 + 1) }
        }
        penalise(leg)
        for _ in 0..<(count * 3) where kept.count <= count {
            guard !WorkBudget.exceeded(), let result = search.shortestPath(in: graph, from: sources, to: targets, heuristic: heuristic,
                                                   penalties: penalties, excluding: excluding, departure: timedDeparture(),
                                                   factors: weightFactors) else { break }
            let candidate = assembleLeg(result, source: leg.source, target: leg.target, departure: timedDeparture())
            penalise(candidate)
            guard Double(candidate.weight) <= 1.3 * Double(leg.weight) else { continue }
            let arcs = Set(candidate.stretches.map(\.arc))
            let isDistinct = kept.allSatisfy { other in
                let otherArcs = Set(other.stretches.map(\.arc))
                let shared = candidate.stretches.filter { otherArcs.contains($0.arc) }.reduce(0) { $0 + $1.distance }
                return shared <= 0.75 * candidate.distance && arcs != otherArcs
            }
            if isDistinct { kept.append(candidate) }
        }
        return kept.dropFirst().map { Route(mode: graph.mode, legs: [$0], waypoints: main.waypoints) }
    }

    /// The departure, if it has rules or historical speeds to apply on this graph.
    private func timedDeparture(after seconds: Double = 0) -> Departure? {
        guard var departure, graph.dependsOnTime else { return nil }
        departure.local = departure.local.adding(seconds: Int64(seconds.rounded(.down)))
        return departure
    }

    /// `after`: seconds from the route's departure to this leg's (the legs before it).
    public mutating func routeLeg(from source: Snap, to target: Snap, algorithm: SearchAlgorithm, after seconds: Double = 0) -> RouteLeg? {
        let sources = graph.sourceEndpoints(source), targets = graph.targetEndpoints(target)
        let departure = timedDeparture(after: seconds)
        var result: SearchResult?
        let astar = GreatCircleHeuristic(graph: graph, target: target.location)
        switch algorithm {
        case .ch where graph.hasHierarchy && hierarchyApplies(sources, targets),
             .automatic where graph.hasHierarchy && hierarchyApplies(sources, targets):
            if ArcPricing(graph: graph, departure: departure, factors: weightFactors) != nil {
                // Historical speeds (every cost changes with the time) or weight factors: the hierarchy only guides.
                result = guidedSearch(sources, targets, departure, fallback: astar)
                break
            }
            result = hierarchySearch.shortestPath(in: graph, from: sources, to: targets, excluding: excluding)
            // Timed rules only close roads and turns, so a fastest path they leave open stays the fastest; one they
            // close is searched again with them.
            if let departure, let found = result, graph.isBarred(found, from: sources, departure) {
                result = guidedSearch(sources, targets, departure, fallback: astar)
            }
        case .astar, .automatic, .ch:  // .ch without a hierarchy: callers check `hasHierarchy` first
            result = search.shortestPath(in: graph, from: sources, to: targets, heuristic: astar, excluding: excluding,
                                         departure: departure, factors: weightFactors)
        case .dijkstra:
            result = search.shortestPath(in: graph, from: sources, to: targets, heuristic: NoHeuristic(), excluding: excluding,
                                         departure: departure, factors: weightFactors)
        }
        guard let result else { return nil }
        return assembleLeg(result, source: source, target: target, departure: departure)
    }

    /// A search at a departure time or at weight factors, by A* guided by the hierarchy (`HierarchyPotential`): its
    /// own bounds, or the week's least weights where historical speeds are faster than the metric somewhere
    /// (`RoadGraph.hasWeekBounds`); by `fallback` where the hierarchy cannot guide. Weight factors are at least 1,
    /// so they leave the bounds as they are.
    private mutating func guidedSearch(_ sources: [SearchEndpoint], _ targets: [SearchEndpoint], _ departure: Departure?,
                                       fallback: GreatCircleHeuristic) -> SearchResult? {
        if departure != nil && graph.hasWeekBounds {
            if weekPotential == nil { weekPotential = HierarchyPotential(graph: graph, weekBounds: true) }
            if let weekPotential {
                weekPotential.prepare(targets: targets)
                return search.shortestPath(in: graph, from: sources, to: targets, heuristic: LooserByOne(base: weekPotential),
                                           excluding: excluding, departure: departure, factors: weightFactors)
            }
        }
        if potential == nil { potential = HierarchyPotential(graph: graph) }
        guard let potential else {
            return search.shortestPath(in: graph, from: sources, to: targets, heuristic: fallback, excluding: excluding,
                                       departure: departure, factors: weightFactors)
        }
        potential.prepare(targets: targets)
        return search.shortestPath(in: graph, from: sources, to: targets, heuristic: potential, excluding: excluding,
                                   departure: departure, factors: weightFactors)
    }

    /// Legs from several sources to one target, searched at the departure with the timed rules: what a table leaving
    /// at a time searches again. A* guided by the hierarchy (`HierarchyPotential`), its bounds worked out once for
    /// the target and shared by the legs; `routeLeg` where the hierarchy cannot guide.
    public mutating func timedLegs(from sources: [Snap], to target: Snap) -> [RouteLeg?] {
        if potential == nil { potential = HierarchyPotential(graph: graph) }
        // A week faster than the metric somewhere needs the week's bounds, target by target (`guidedSearch`).
        guard let potential, let departure = timedDeparture(), !graph.hasWeekBounds else {
            return sources.map { routeLeg(from: $0, to: target, algorithm: .automatic) }
        }
        let targets = graph.targetEndpoints(target)
        potential.prepare(targets: targets)
        return sources.map { source in
            search.shortestPath(in: graph, from: graph.sourceEndpoints(source), to: targets, heuristic: potential,
                                excluding: excluding, departure: departure, factors: weightFactors)
                .map { assembleLeg($0, source: source, target: target, departure: departure) }
        }
    }

    /// A hierarchy over vertices leaves legs between pinned directions to A* (see `endpointsFree`).
    private func hierarchyApplies(_ sources: [SearchEndpoint], _ targets: [SearchEndpoint]) -> Bool {
        !graph.hierarchyOverVertices
            || graph.endpointsFree(sources, excluded: excluding.rawValue) && graph.endpointsFree(targets, excluded: excluding.rawValue)
    }

    /// `departure`: where the graph has historical speeds, each arc costs what they say for the time it is
    /// entered (the search's clock: the leg's own time from its start).
    private func assembleLeg(_ result: SearchResult, source: Snap, target: Snap, departure: Departure?) -> RouteLeg {
        // The travelled part of each arc, with its exact share of the cost and of the time: the turn onto it,
        // then its part.
        struct Piece {
            var arc: UInt32, from: Double, to: Double, weight: UInt64, duration: UInt64, turn: UInt32
            var entry: UInt32 = 0
        }
        var pieces: [Piece] = []
        let last = result.arcs.count - 1
        let (source, target) = graph.usedCandidates(result.arcs, source: source, target: target)
        // Fractions are clamped so that a graph whose stored lengths disagree with its shapes (a damaged file
        // with valid checksums) cannot underflow the subtraction.
        let pricing = ArcPricing(graph: graph, departure: departure, factors: weightFactors)
        // With historical speeds, each arc's costs at the time it is entered: the clock run as the search ran it.
        var clock: UInt32 = 0
        func part(_ arc: UInt32, _ from: Double, _ to: Double, time: Bool) -> UInt32 {
            let from = from > 0 ? min(from, 1) : 0, to = to < 1 ? max(to, from) : 1
            if let pricing { return pricing.part(ofArc: arc, from: from, to: to, time: time, after: clock) }
            return graph.partialCost(ofArc: arc, fraction: to, time: time) - graph.partialCost(ofArc: arc, fraction: from, time: time)
        }
        for (i, arc) in result.arcs.enumerated() {
            let reversed = graph.edge(ofArc: arc).reversed
            let from = i == 0 ? source.fraction(alongArcReversed: reversed) : 0
            let to = i == last ? target.fraction(alongArcReversed: reversed) : 1
            let turn = result.turns[i]
            if i > 0 { clock &+= turn }
            let duration = part(arc, from, to, time: true)
            pieces.append(Piece(arc: arc, from: from, to: to,
                                weight: UInt64(part(arc, from, to, time: false)) + UInt64(turn) + UInt64(result.entries[i]),
                                duration: UInt64(duration) + UInt64(turn), turn: turn,
                                entry: result.entries[i]))
            if pricing != nil { clock &+= i == 0 ? duration : pricing!.costs(ofArc: arc, after: clock).duration }
        }
        // A point snapped exactly onto a junction leaves an empty piece of the neighbouring road: drop it (the time
        // of a turn onto a dropped last piece stays with the piece before).
        // (Coordinates are stored to 1e-7 degrees, so "exactly" means within a few centimetres.)
        func isEmpty(_ p: Piece) -> Bool {
            p.weight == UInt64(p.turn) + UInt64(p.entry) && (p.to - p.from) * Double(graph.edgeLength[graph.edge(ofArc: p.arc).edge]) < 0.05
        }
        if pieces.count > 1, isEmpty(pieces[0]) { pieces.removeFirst() }
        if pieces.count > 1, isEmpty(pieces[pieces.count - 1]) {
            pieces[pieces.count - 2].weight += pieces[pieces.count - 1].weight
            pieces[pieces.count - 2].duration += pieces[pieces.count - 1].duration
            pieces[pieces.count - 2].turn += pieces[pieces.count - 1].turn
            pieces[pieces.count - 2].entry += pieces[pieces.count - 1].entry
            pieces.removeLast()
        }

        var coordinates: [Coordinate] = []
        var stretches: [Stretch] = []
        stretches.reserveCapacity(pieces.count)
        // Consecutive arcs mostly share a street: decode its name and ref once.
        var label = (id: UInt32.max, name: ""), ref = (id: UInt32.max, text: "")
        for (index, piece) in pieces.enumerated() {
            let edge = graph.edge(ofArc: piece.arc).edge
            if graph.edgeLabel[edge] != label.id { label = (graph.edgeLabel[edge], graph.name(ofEdge: edge)) }
            if graph.edgeRef[edge] != ref.id { ref = (graph.edgeRef[edge], graph.ref(ofEdge: edge)) }
            let first = coordinates.isEmpty ? 0 : coordinates.count - 1
            // Lengths with OSRM's ruler, as the import measured the roads.
            var length = 0.0
            var previous: Coordinate?
            func add(_ point: Coordinate) {
                if let previous {
                    length += Geo.osrmRulerDistance(previous, point)
                    coordinates.append(point)
                } else if coordinates.isEmpty {
                    coordinates.append(point)
                }
                previous = point
            }
            if piece.from <= 0 && piece.to >= 1 {
                // A whole arc (most of them): its shape points straight from the graph, without an array, and its
                // length as the import summed it the same way.
                let (e, reversed) = graph.edge(ofArc: piece.arc)
                let range = graph.shapeRange(ofEdge: e)
                for k in (coordinates.isEmpty ? 0 : 1)..<range.count {
                    coordinates.append(graph.shapePoint(reversed ? range.upperBound - 1 - k : range.lowerBound + k))
                }
                length = graph.edgeEnds[2 * e + (reversed ? 1 : 0)].shapeLength
            } else {
                // A line that begins or ends inside a road does so where the snap put the point, as OSRM's does
                // (centimetres from the place along the road that the fraction gives).
                var points = graph.arcPoints(piece.arc, from: piece.from, to: piece.to)
                if index == 0 && piece.from > 0 { points[0] = source.location }
                if index == pieces.count - 1 && piece.to < 1 { points[points.count - 1] = target.location }
                for point in points { add(point) }
            }
            stretches.append(Stretch(arc: piece.arc, name: label.name,
                                     ref: ref.text, roadClass: graph.roadClass(ofEdge: edge),
                                     classes: graph.classes(ofArc: piece.arc),
                                     distance: length, duration: Double(piece.duration) / 1000,
                                     weight: Double(piece.weight) / 1000,
                                     coordinates: first...(coordinates.count - 1),
                                     part: piece.from...max(piece.from, piece.to), turnDuration: Double(piece.turn) / 1000,
                                     entryWeight: Double(piece.entry) / 1000))
        }
        // The pieces' shares add up to the search's cost, except where the search priced arcs differently (the
        // penalties that look for alternatives): the leg's weight is what its pieces truly cost.
        return RouteLeg(source: source, target: target, weight: pieces.reduce(0) { $0 + $1.weight },
                        distance: stretches.reduce(0) { $0 + $1.distance },
                        duration: Double(pieces.reduce(0) { $0 + $1.duration }) / 1000, coordinates: coordinates,
                        stretches: stretches, settled: result.settled)
    }
}

/// The cost of the first `fraction` of an arc: the one rounding rule shared by sources, targets and assembly.
/// The fraction is clamped to 0...1 (NaN counts as 0), so the result never exceeds `weight`, even on a graph whose
/// stored lengths disagree with its shapes.
func partialWeight(_ weight: UInt32, _ fraction: Double) -> UInt32 {
    guard fraction > 0 else { return 0 }
    return fraction < 1 ? UInt32((Double(weight) * fraction).rounded()) : weight
}

extension RoadGraph {
    /// Whether the timed rules close some road or turn of a path found without them, at the time it reaches them.
    func isBarred(_ result: SearchResult, from sources: [SearchEndpoint], _ departure: Departure) -> Bool {
        let path = result.searched
        guard let first = path.first else { return false }
        if isBarred(entering: first, from: nil, departure, after: 0) { return true }
        var elapsed = UInt64(sources.first { $0.arc == result.arcs[0] }.map(sourceDuration) ?? 0)
        for i in path.indices.dropFirst() {
            elapsed += UInt64(result.turns[i])
            if isBarred(entering: path[i], from: path[i - 1], departure, after: elapsed) { return true }
            elapsed += UInt64(arcDuration[Int(path[i])])
        }
        return false
    }

    /// Weight an arc charges beyond its original's for being entered (milliseconds): with OSRM's import rules, a
    /// restricted road entered from an open one (`import --compat osrm`); zero for every other arc. Charged whole,
    /// however little of the arc is travelled, as OSRM charges its turn.
    @inlinable public func entryWeight(ofArc a: UInt32) -> UInt32 {
        let w = arcWeight[Int(a)], base = arcWeight[Int(arcBase[Int(a)])]
        return w > base ? w - base : 0
    }

    /// What turning from arc `a` onto arc `b` costs (milliseconds); zero where `b` does not follow `a`.
    public func turnWeight(from a: UInt32, to b: UInt32) -> UInt32 {
        var best: UInt32?
        for i in Int(transitionStart[Int(a)])..<Int(transitionStart[Int(a) + 1]) where transitionTargets[i] == b {
            best = min(best ?? .max, transitionWeight[i])
        }
        return best ?? 0
    }

    /// Where a search may start from a snapped point: each usable direction of its edge (and of its alternatives'),
    /// minus the part behind it.
    public func sourceEndpoints(_ snap: Snap) -> [SearchEndpoint] {
        candidateArcs(at: snap).compactMap { arc, f in
            guard !passesClosedSegment(arc, from: f, to: 1) else { return nil }
            return SearchEndpoint(arc: arc, cost: arcWeight[Int(arc)] - partialCost(ofArc: arc, fraction: f), fraction: f)
        }
    }

    /// Where a search may end: each usable direction of the edge (and of its alternatives'), up to the snapped point.
    public func targetEndpoints(_ snap: Snap) -> [SearchEndpoint] {
        candidateArcs(at: snap).compactMap { arc, f in
            guard !passesClosedSegment(arc, from: 0, to: f) else { return nil }
            return SearchEndpoint(arc: arc, cost: partialCost(ofArc: arc, fraction: f), fraction: f)
        }
    }

    /// The arcs a search may use at a snapped point and at its alternatives, each with the point's place along it.
    public func candidateArcs(at snap: Snap) -> [(arc: UInt32, fraction: Double)] {
        guard !snap.alternatives.isEmpty else {
            return arcs(at: snap).map { arc, reversed in (arc, snap.fraction(alongArcReversed: reversed)) }
        }
        return snap.candidates.flatMap { candidate in
            arcs(at: candidate).map { arc, reversed in (arc, candidate.fraction(alongArcReversed: reversed)) }
        }
    }

    /// The candidates of a leg's ends that a search result used (`Snap.alternatives`): the source's on the first
    /// arc that lies latest along it (the cheapest start there), the target's on the last arc that lies earliest;
    /// on a leg within one arc, the nearest pair in travel order.
    public func usedCandidates(_ arcs: [UInt32], source: Snap, target: Snap) -> (source: Snap, target: Snap) {
        guard let first = arcs.first, let last = arcs.last, !source.alternatives.isEmpty || !target.alternatives.isEmpty
        else { return (source, target) }
        func on(_ arc: UInt32, _ group: Snap) -> [(snap: Snap, fraction: Double)] {
            group.candidates.compactMap { c in
                self.arcs(at: c).first { $0.0 == arc }.map { (c, c.fraction(alongArcReversed: $0.1)) }
            }
        }
        let starts = on(first, source), ends = on(last, target)
        var start = starts.max { $0.fraction < $1.fraction }, end = ends.min { $0.fraction < $1.fraction }
        if arcs.count == 1 {
            let pairs = starts.flatMap { s in ends.filter { $0.fraction >= s.fraction }.map { (s, $0) } }
            if let nearest = pairs.min(by: { $0.1.fraction - $0.0.fraction < $1.1.fraction - $1.0.fraction }) {
                (start, end) = (nearest.0, nearest.1)
            }
        }
        return (start.map { $0.snap.chosen(from: source) } ?? source, end.map { $0.snap.chosen(from: target) } ?? target)
    }

    /// Whether travel along arc `a` between two fractions of its length crosses a segment a traffic file closed
    /// (one that costs at least `RoadGraph.closedSegmentWeight`): no route does, as none does in OSRM.
    public func passesClosedSegment(_ a: UInt32, from: Double, to: Double) -> Bool {
        guard !segmentWeight.isEmpty, to > from else { return false }
        let (e, reversed) = edge(ofArc: a)
        let first = Int(edgeShapeStart[e]), count = Int(edgeShapeStart[e + 1]) - first - 1
        let base = first - e, direction = reversed ? 1 : 0
        guard (0..<count).contains(where: { segmentWeight[2 * (base + $0) + direction] >= RoadGraph.closedSegmentWeight }) else {
            return false
        }
        let length = Double(edgeLength[e])
        var travelled = 0.0
        for k in 0..<count {
            let shapeIndex = reversed ? count - 1 - k : k
            let p = first + shapeIndex + (reversed ? 1 : 0), q = first + shapeIndex + (reversed ? 0 : 1)
            let next = travelled + Geo.osrmRulerDistance(shapePoint(p), shapePoint(q))
            // The segment [travelled, next] overlaps the travel [from, to] (in metres).
            if next > from * length && travelled < to * length
                && segmentWeight[2 * (base + shapeIndex) + direction] >= RoadGraph.closedSegmentWeight { return true }
            travelled = next
        }
        return false
    }

    /// The travel time (no penalties) from a source endpoint's point to its arc's head, milliseconds.
    public func sourceDuration(_ s: SearchEndpoint) -> UInt32 {
        arcDuration[Int(s.arc)] - partialCost(ofArc: s.arc, fraction: s.fraction, time: true)
    }

    /// The travel time from a target endpoint's arc's tail to its point, milliseconds.
    public func targetDuration(_ t: SearchEndpoint) -> UInt32 { partialCost(ofArc: t.arc, fraction: t.fraction, time: true) }

    /// The weight (or, with `time`, the time) of arc `a` from its tail to the point `fraction` of its length along,
    /// segment by segment as OSRM counts it: the whole segments before the point, and of the segment the point is
    /// on, whole tenths of a second counted from its OSRM end (`GraphArrays.segmentSplitFromLast`), cut down. The
    /// segments are a traffic file's where it set the piece's (`segmentWeight`), else the import's. The delays at
    /// nodes inside the piece count where the point is past them (`interiorDelays`); what the arc costs beyond
    /// that (a copy's entry) is shared by length, as is the whole arc in a graph without segment costs.
    /// Non-decreasing in `fraction`, and the whole arc's at 1.
    public func partialCost(ofArc a: UInt32, fraction: Double, time: Bool = false) -> UInt32 {
        let total = time ? arcDuration[Int(a)] : arcWeight[Int(a)]
        guard fraction > 0 else { return 0 }
        guard fraction < 1 else { return total }
        guard let costs = SegmentCosts(self, arc: a, time: time), costs.segments + costs.delays <= Double(total) else {
            return partialWeight(total, fraction)
        }
        let (segments, delays) = costs.before(fraction)
        return min(total, UInt32((segments + delays + (Double(total) - costs.segments - costs.delays) * fraction).rounded()))
    }

    /// The time (or weight) of each segment of the line `arcPoints(arc, from:to:)` gives, as OSRM's annotations
    /// give them: the segments' own costs, split at the ends as `partialCost` splits them, without the delays at
    /// nodes. Nil where the graph has no segment costs for the arc.
    public func segmentCosts(ofArc arc: UInt32, from start: Double, to end: Double, time: Bool) -> [Double]? {
        guard let costs = SegmentCosts(self, arc: arc, time: time) else { return nil }
        let (shape, cut) = arcCut(arc, from: start, to: end)
        guard let cut else { return (0..<(shape.count - 1)).map(costs.segment) }
        // The cost up to each point of the line: the ends split, the shape points between them whole segments.
        var prefix = [0.0]
        for j in 0..<(shape.count - 1) { prefix.append(prefix[j] + costs.segment(j)) }
        func at(_ f: Double) -> Double { f <= 0 ? 0 : f >= 1 ? costs.segments : costs.before(f).segments }
        let marks = [at(start)] + cut.inner.map { prefix[$0] } + [at(end)]
        return zip(marks, marks.dropFirst()).map { max(0, $1 - $0) }
    }

    /// Per segment of a leg's line, its time (or with `weights`, its weight) in seconds, as OSRM's annotations
    /// give them: the segments' own costs (`segmentCosts`), or where the graph has none, the stretch's less its
    /// turn (and entry) shared by length. Turns and delays at nodes are in the leg's total only.
    public func segmentValues(along leg: RouteLeg, weights: Bool = false) -> [Double] {
        var values: [Double] = []
        // A walk at the end names the walking graph's arcs.
        let driven = leg.stretches.count - leg.footStretchCount
        for (i, stretch) in leg.stretches.enumerated() {
            let range = stretch.coordinates
            let lengths = (range.lowerBound..<range.upperBound).map {
                Geo.osrmRulerDistance(leg.coordinates[$0], leg.coordinates[$0 + 1])
            }
            if i < driven, let own = segmentCosts(ofArc: stretch.arc, from: stretch.part.lowerBound, to: stretch.part.upperBound,
                                                  time: !weights), own.count == lengths.count {
                values += own.map { $0 / 1000 }
                continue
            }
            let total = lengths.reduce(0, +)
            let value = weights ? stretch.weight - stretch.turnDuration - stretch.entryWeight : stretch.duration - stretch.turnDuration
            values += lengths.map { total > 0 ? value * $0 / total : value / Double(max(1, lengths.count)) }
        }
        return values
    }

    /// The delays at the inner shape points of edge `e` (`count` segments from shape point `first`).
    fileprivate func interiorDelays(ofEdge e: Int, first: Int, count: Int) -> ArraySlice<InteriorDelay> {
        guard !interiorDelays.isEmpty, count > 1 else { return [] }
        // The first delay at or after the edge's second shape point, by binary search.
        var low = 0, high = interiorDelays.count
        while low < high {
            let mid = (low + high) / 2
            if Int(interiorDelays[mid].shapePoint) <= first { low = mid + 1 } else { high = mid }
        }
        var end = low
        while end < interiorDelays.count && Int(interiorDelays[end].shapePoint) < first + count { end += 1 }
        return ArraySlice(interiorDelays[low..<end])
    }

    /// Travel within one arc, from a source point to a target point ahead of it: the only path no search sees
    /// (every search starts at the source arc's head). Nil on different arcs or with the target behind the source.
    public func weightWithinArc(from s: SearchEndpoint, to t: SearchEndpoint) -> UInt32? {
        guard s.arc == t.arc, t.fraction >= s.fraction else { return nil }
        // The target's cost from the tail less the part the source has already travelled.
        return t.cost &- (arcWeight[Int(s.arc)] &- s.cost)
    }

    /// `weightWithinArc` as a table cell, with the same travel's duration and length.
    public func cellWithinArc(from s: SearchEndpoint, to t: SearchEndpoint) -> TableCell? {
        guard let weight = weightWithinArc(from: s, to: t) else { return nil }
        let length = Double(edgeLength[edge(ofArc: s.arc).edge])
        return TableCell(weight: weight, duration: targetDuration(t) &- (arcDuration[Int(s.arc)] &- sourceDuration(s)),
                         distance: length * (t.fraction - s.fraction))
    }

    /// Targets by the arcs they lie on (each target's endpoints, with its index), so that a search or a table row
    /// looks only at the targets of the arc at hand.
    public func targetsByArc(_ targetEndpoints: [[SearchEndpoint]]) -> [UInt32: [(target: Int, endpoint: SearchEndpoint)]] {
        var byArc: [UInt32: [(target: Int, endpoint: SearchEndpoint)]] = [:]
        for (t, endpoints) in targetEndpoints.enumerated() {
            for e in endpoints { byArc[e.arc, default: []].append((t, e)) }
        }
        return byArc
    }

    /// Whether a target lies behind a source on the same arc, which needs a path that leaves the arc and comes back.
    public func liesBehind(_ t: SearchEndpoint, _ s: SearchEndpoint) -> Bool { t.arc == s.arc && t.fraction < s.fraction }

    /// The other direction of an arc's edge (noIndex where the edge is one-way for the mode).
    @inlinable public func twin(ofArc a: UInt32) -> UInt32 {
        let (e, reversed) = edge(ofArc: a)
        return reversed ? edgeForwardArc[e] : edgeBackwardArc[e]
    }

    /// Whether endpoints leave no usable direction of their roads out (no bearing or via point pinned one): a
    /// hierarchy over vertices is exact only then. It cannot forbid U-turns, and a path never needs one, except
    /// to turn round from a direction an endpoint was pinned to.
    public func endpointsFree(_ endpoints: [SearchEndpoint], excluded: UInt8) -> Bool {
        endpoints.allSatisfy { e in
            let back = twin(ofArc: e.arc)
            return back == noIndex || arcClasses[Int(back)] & excluded != 0 || endpoints.contains { $0.arc == back }
        }
    }

    /// Over vertices: where a search from a source endpoint starts (its arc's head, once passed) and what passing
    /// that vertex costs; nil where nothing passes there.
    @inlinable public func vertexStart(ofSource s: SearchEndpoint) -> (vertex: UInt32, pass: UInt32)? {
        let v = arcHead[Int(s.arc)], pass = chVertexCost[Int(v)]
        return pass == noIndex ? nil : (v, pass)
    }

    /// Over vertices: where a search towards a target endpoint starts (its arc's tail); nil where nothing passes.
    @inlinable public func vertexStart(ofTarget t: SearchEndpoint) -> UInt32? {
        let v = chArcTail[Int(t.arc)]
        return chVertexCost[Int(v)] == noIndex ? nil : v
    }

    /// The cheapest arc from vertex `u` to vertex `v` without `excluded` classes (parallel roads differ).
    public func cheapestArc(from u: UInt32, to v: UInt32, excluded: UInt8) -> UInt32? {
        var best: UInt32?
        for k in Int(vertexEdgeStart[Int(u)])..<Int(vertexEdgeStart[Int(u) + 1]) {
            let e = Int(vertexEdges[k] >> 1)
            let arc = vertexEdges[k] & 1 == 1 ? edgeBackwardArc[e] : edgeForwardArc[e]
            guard arc != noIndex, arcHead[Int(arc)] == v, arcClasses[Int(arc)] & excluded == 0 else { continue }
            if best.map({ arcWeight[Int(arc)] < arcWeight[Int($0)] }) ?? true { best = arc }
        }
        return best
    }

    /// The arcs a search may use at a snapped point.
    public func arcs(at snap: Snap) -> [(UInt32, Bool)] {
        var result: [(UInt32, Bool)] = []
        let e = snap.edge
        if edgeForwardArc[e] != noIndex && snap.allowsForward { result.append((edgeForwardArc[e], false)) }
        if edgeBackwardArc[e] != noIndex && snap.allowsBackward { result.append((edgeBackwardArc[e], true)) }
        return result
    }

    /// The arc's line between two fractions of its length (0 = its tail), in travel order.
    public func arcPoints(_ arc: UInt32, from start: Double = 0, to end: Double = 1) -> [Coordinate] {
        let (shape, cut) = arcCut(arc, from: start, to: end)
        guard let cut else { return shape.map(shapePoint) }
        func point(_ k: Int, _ t: Double) -> Coordinate {
            let a = shapePoint(shape[k - 1]), b = shapePoint(shape[k])
            return Coordinate(latitude: a.latitude + (b.latitude - a.latitude) * t,
                              longitude: a.longitude + (b.longitude - a.longitude) * t)
        }
        return [point(cut.first.segment, cut.first.t)] + cut.inner.map { shapePoint(shape[$0]) }
            + [point(cut.last.segment, cut.last.t)]
    }

    /// The OSM node of each point of a leg's line (OSRM's `nodes` annotation); empty where the graph has no
    /// node ids.
    public func nodeIDs(along leg: RouteLeg) -> [Int64] {
        guard hasNodeIDs else { return [] }
        var ids: [Int64] = []
        ids.reserveCapacity(leg.coordinates.count)
        for stretch in leg.stretches.prefix(leg.stretches.count - leg.footStretchCount) {
            let part = arcNodeIDs(stretch.arc, from: stretch.part.lowerBound, to: stretch.part.upperBound)
            ids += ids.isEmpty ? part[...] : part.dropFirst()
        }
        return ids + leg.footNodeIDs
    }

    /// The OSM nodes of `arcPoints(arc, from:to:)`, one per point, as OSRM's `nodes` annotation lists them: a
    /// point inside a segment stands for the segment's node behind it at the start, ahead of it at the end.
    /// Empty where the graph has no node ids.
    public func arcNodeIDs(_ arc: UInt32, from start: Double = 0, to end: Double = 1) -> [Int64] {
        guard hasNodeIDs else { return [] }
        let (shape, cut) = arcCut(arc, from: start, to: end)
        guard let cut else { return shape.map { shapeNodeIDs[$0] } }
        // A point exactly on a node (the segment's end at the start, its start at the end) is that node.
        let first = cut.first.t >= 1 ? cut.first.segment : cut.first.segment - 1
        let last = cut.last.t <= 0 ? cut.last.segment - 1 : cut.last.segment
        return [shapeNodeIDs[shape[first]]] + cut.inner.map { shapeNodeIDs[shape[$0]] } + [shapeNodeIDs[shape[last]]]
    }

    /// An arc's shape point indices in travel order and, for a part of it, where the part starts and ends (the
    /// segment, 1-based within `shape`, and how far along it) and which shape points lie strictly inside.
    fileprivate func arcCut(_ arc: UInt32, from start: Double, to end: Double)
        -> (shape: [Int], cut: (first: (segment: Int, t: Double), inner: [Int], last: (segment: Int, t: Double))?)
    {
        let (e, reversed) = edge(ofArc: arc)
        var shape = Array(shapeRange(ofEdge: e))
        if reversed { shape.reverse() }
        if start <= 0 && end >= 1 { return (shape, nil) }
        var cumulative = [0.0]
        for k in 1..<shape.count {
            cumulative.append(cumulative[k - 1] + Geo.osrmRulerDistance(shapePoint(shape[k - 1]), shapePoint(shape[k])))
        }
        let total = cumulative[cumulative.count - 1]
        func segment(at metres: Double) -> (Int, Double) {
            guard total > 0 else { return (1, 0) }
            var k = 1
            while k < shape.count - 1 && cumulative[k] < metres { k += 1 }
            let span = cumulative[k] - cumulative[k - 1]
            return (k, span > 0 ? min(1, max(0, (metres - cumulative[k - 1]) / span)) : 0)
        }
        let from = start * total, to = end * total
        let inner = (1..<(shape.count - 1)).filter { cumulative[$0] > from && cumulative[$0] < to }
        return (shape, (segment(at: from), inner, segment(at: to)))
    }
}

extension Route {
    /// Appends a walk (a one-leg walking route from where this route ends) to the last leg, for a destination the
    /// mode cannot reach. The walk's stretches name the walking graph's arcs: past this point only their lengths,
    /// times and geometry are read, and its OSM nodes come as `nodeIDs` (one per point of the walk's line).
    public mutating func continueOnFoot(_ walk: Route, nodeIDs: [Int64] = []) {
        guard var leg = legs.last, let w = walk.legs.first, let end = leg.coordinates.last, let start = w.coordinates.first
        else { return }
        // Start the walk exactly where the drive ends (both graphs share OSM's nodes, so this is rarely needed).
        let connector = Geo.distance(end, start)
        let joined = connector > 0.01 ? w.coordinates : Array(w.coordinates.dropFirst())
        let base = leg.coordinates.count - 1
        for (k, stretch) in w.stretches.enumerated() {
            var s = stretch
            let shift = connector > 0.01 ? base + 1 : base
            s.coordinates = (k == 0 ? base : stretch.coordinates.lowerBound + shift)...(stretch.coordinates.upperBound + shift)
            if k == 0 { s.distance += connector }
            leg.stretches.append(s)
        }
        leg.coordinates += joined
        leg.footStretchCount += w.stretches.count
        if nodeIDs.count == w.coordinates.count { leg.footNodeIDs = connector > 0.01 ? nodeIDs : Array(nodeIDs.dropFirst()) }
        leg.distance += w.distance + connector
        leg.duration += w.duration
        leg.weight += w.weight
        leg.target = w.target
        legs[legs.count - 1] = leg
        if let last = walk.waypoints.last { waypoints[waypoints.count - 1] = last }
    }
}

/// An arc's segments as OSRM costs them (`RoadGraph.partialCost`): a traffic file's where it set the piece's
/// (`segmentWeight`), else the import's, and the delays at nodes inside the piece.
private struct SegmentCosts {
    let graph: RoadGraph
    let values: UnsafeBufferPointer<UInt32>
    let reversed: Bool
    /// The edge's first shape point and segment count, its segments' first index, the direction's slot.
    let first: Int, count: Int, base: Int, direction: Int
    let length: Double
    /// The sums of the arc's segments and of its delays.
    let segments: Double, delays: Double
    let delayList: ArraySlice<InteriorDelay>

    init?(_ graph: RoadGraph, arc a: UInt32, time: Bool) {
        let (e, reversed) = graph.edge(ofArc: a)
        let first = Int(graph.edgeShapeStart[e]), count = Int(graph.edgeShapeStart[e + 1]) - first - 1
        let base = first - e, direction = reversed ? 1 : 0
        func sum(_ values: UnsafeBufferPointer<UInt32>) -> Double {
            values.isEmpty ? 0 : (0..<count).reduce(0) { $0 + Double(values[2 * (base + $1) + direction]) }
        }
        // A piece no traffic file changed has no segment costs of the metric's own.
        var values = time ? graph.segmentDuration : graph.segmentWeight
        var segments = sum(values)
        if segments == 0 {
            values = time ? graph.importSegmentDuration : graph.importSegmentWeight
            segments = sum(values)
        }
        guard segments > 0 else { return nil }
        self.graph = graph
        self.values = values
        self.reversed = reversed
        (self.first, self.count, self.base, self.direction) = (first, count, base, direction)
        length = Double(graph.edgeLength[e])
        self.segments = segments
        delayList = graph.interiorDelays(ofEdge: e, first: first, count: count)
        delays = delayList.reduce(0.0) { $0 + Double(reversed ? $1.backward : $1.forward) }
    }

    /// The cost of the arc's segment `j` in travel order (0: the one leaving its tail).
    func segment(_ j: Int) -> Double { Double(values[2 * (base + (reversed ? count - 1 - j : j)) + direction]) }

    /// The segments' cost and the delays passed from the arc's tail to `fraction` along it (0 < fraction < 1).
    func before(_ fraction: Double) -> (segments: Double, delays: Double) {
        // The segment the point is on, and the point's share of it, in shape order. Within a millimetre of a
        // shape point is at it: OSRM's coordinates are whole millionths of a degree.
        let target = (reversed ? 1 - fraction : fraction) * length
        var travelled = 0.0, before = 0.0, ratio = 1.0, k = 0
        while k < count {
            let length = Geo.osrmRulerDistance(graph.shapePoint(first + k), graph.shapePoint(first + k + 1))
            if travelled + length >= target - 0.001 || k == count - 1 {
                let into = target - travelled
                ratio = into <= 0.001 || length <= 0 ? 0 : into >= length - 0.001 ? 1 : into / length
                break
            }
            before += Double(values[2 * (base + k) + direction])
            travelled += length
            k += 1
        }
        // OSRM cuts the segment at whole tenths counted from its OSRM end, cut down.
        let value = Double(values[2 * (base + k) + direction])
        let split = graph.segmentSplitFromLast
        let fromLast = split.isEmpty ? false : split[(base + k) >> 3] >> UInt8((base + k) & 7) & 1 == 1
        let cut = 100 * (value / 100 * (fromLast ? 1 - ratio : ratio)).rounded(.towardZero)
        before += fromLast ? value - cut : cut
        // `before` runs from the shape's first point; a reversed arc starts at its last. Segment k runs from shape
        // point k to k + 1, so a point on it has passed the delays at points up to k, or, travelling backwards,
        // from k + 1.
        var passed = 0.0
        for d in delayList where reversed ? Int(d.shapePoint) > first + k : Int(d.shapePoint) <= first + k {
            passed += Double(reversed ? d.backward : d.forward)
        }
        return (reversed ? segments - before : before, passed)
    }
}
