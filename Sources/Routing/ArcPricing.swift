import RoadGraph

/// Weights a request gives roads by their kind (`avoid=unpaved`, `prefer=major_roads:1.5`): an arc's weight in the
/// route choice is its metric's times the product of its factors. Every factor is at least 1, so the metric's
/// bounds (the hierarchy's, A*'s) stay bounds. Durations stay the roads' own.
public struct WeightFactors: Sendable, Equatable {
    /// The kinds of road a request may weigh.
    public enum Kind: String, CaseIterable, Sendable {
        case toll, motorway, ferry, tunnel, unpaved
        /// Roads other than motorways, trunk, primary and secondary roads and their links: `prefer=major_roads`
        /// weighs these.
        case minorRoads = "minor_roads"
    }

    /// Factors in 1/1024ths, per kind.
    private var factors: [Kind: UInt32] = [:]
    /// Per arc class byte and per road class: the product of the factors they bring, in 1/1024ths.
    private var byClasses = [UInt32](repeating: 1024, count: 256), byRoad = [UInt32](repeating: 1024, count: 32)
    private var unpaved: UInt32 = 1024

    public static let largestFactor = 100.0

    public init() {}

    public var isEmpty: Bool { factors.isEmpty }

    /// Whether roads of `kind` are weighed.
    public func weighs(_ kind: Kind) -> Bool { factors[kind] != nil }

    /// Gives roads of `kind` the factor (1 to `largestFactor`; factors of one kind multiply).
    public mutating func weigh(_ kind: Kind, by factor: Double) {
        let f = UInt32((min(max(factor, 1), Self.largestFactor) * 1024).rounded())
        let combined = UInt32(min(UInt64(Self.largestFactor * 1024), UInt64(factors[kind] ?? 1024) * UInt64(f) / 1024))
        factors[kind] = combined
        byClasses = (0..<256).map { raw in
            let c = ArcClasses(rawValue: UInt8(raw))
            var m: UInt64 = 1024
            for (kind, class_) in [(Kind.toll, ArcClasses.toll), (.motorway, .motorway), (.ferry, .ferry), (.tunnel, .tunnel)]
                where c.contains(class_) { m = m * UInt64(factors[kind] ?? 1024) / 1024 }
            return UInt32(min(m, UInt64(UInt32.max)))
        }
        let major: Set<RoadClass> = [.motorway, .trunk, .primary, .secondary]
        byRoad = (0..<32).map { raw in
            guard let road = RoadClass(rawValue: UInt8(raw)), !major.contains(road) else { return 1024 }
            return factors[.minorRoads] ?? 1024
        }
        unpaved = factors[.unpaved] ?? 1024
    }

    /// The factor of arc `a`, in 1/1024ths (links count as the roads they join: their class is the road's).
    func multiplier(ofArc a: UInt32, in graph: RoadGraph) -> UInt64 {
        let e = Int(graph.arcEdge[Int(a)] >> 1), road = Int(graph.edgeClass[e])
        var m = UInt64(byClasses[Int(graph.arcClasses[Int(a)])]) * UInt64(road < byRoad.count ? byRoad[road] : 1024) / 1024
        if graph.isUnpaved(edge: e) { m = m * UInt64(unpaved) / 1024 }
        return m
    }

    /// Reads `kind[:factor][,kind[:factor]…]` (an `avoid=` or `prefer=` value), each kind one of `kinds`, the factor
    /// `defaultFactor` where none is given. Nil (with the reason) for anything else.
    public mutating func read(_ text: String, kinds: [String: Kind], defaultFactor: Double) -> String? {
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let parts = item.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            guard let kind = kinds[String(parts[0])] else {
                return "'\(parts[0])' is not one of \(kinds.keys.sorted().joined(separator: ", "))"
            }
            var factor = defaultFactor
            if parts.count == 2 {
                guard let f = Double(parts[1]), f.isFinite, f >= 1, f <= Self.largestFactor else {
                    return "the factor of \(parts[0]) must be a number from 1 to \(Int(Self.largestFactor))"
                }
                factor = f
            }
            weigh(kind, by: factor)
        }
        return nil
    }

    /// The weights an `avoid=` and a `prefer=` value give (nil where neither is), or the first problem with them,
    /// with the option it is in.
    public static func reading(avoid: String?, prefer: String?) -> Result<WeightFactors?, Problem> {
        var factors = WeightFactors()
        for (option, text, kinds, factor) in [(Option.avoid, avoid, avoidable, avoidFactor), (.prefer, prefer, preferable, preferFactor)] {
            guard let text else { continue }
            if let problem = factors.read(text, kinds: kinds, defaultFactor: factor) { return .failure(Problem(option: option, message: problem)) }
        }
        return .success(factors.isEmpty ? nil : factors)
    }

    /// Which of the two options a problem is in.
    public enum Option: String, Sendable { case avoid, prefer }

    /// What is wrong with an `avoid=` or `prefer=` value.
    public struct Problem: Error, Sendable {
        public var option: Option
        public var message: String
    }

    /// `avoid=`'s kinds and the factor an avoided road gets without one.
    public static let avoidable: [String: Kind] = [
        "toll": .toll, "motorway": .motorway, "ferry": .ferry, "tunnel": .tunnel, "unpaved": .unpaved,
    ]
    public static let avoidFactor = 10.0
    /// `prefer=`'s kinds: preferring major roads weighs the others.
    public static let preferable: [String: Kind] = ["major_roads": .minorRoads]
    public static let preferFactor = 1.5
}

/// What a request makes arcs cost beyond the graph's metric: historical speeds at the time each arc is entered
/// (with a departure, on a graph that has them), and weight factors (`WeightFactors`). The part of an arc a route
/// starts or ends on costs the arc's cost in the proportion the metric's part bears to the metric's whole arc
/// (`proportion`), so that sources, targets, legs' pieces and tables agree, as they do at the metric.
/// A class, made once per search: as a struct holding the graph it was copied at each arc the searches priced,
/// which made a plain search (no pricing at all) a quarter slower.
public final class ArcPricing {
    let graph: RoadGraph
    let departure: Departure?
    let factors: WeightFactors?

    /// Nil where the request changes no cost: the searches then read the metric as it is.
    public init?(graph: RoadGraph, departure: Departure?, factors: WeightFactors?) {
        let departure = graph.hasHistory ? departure : nil
        let factors = factors?.isEmpty == false ? factors : nil
        guard departure != nil || factors != nil else { return nil }
        self.graph = graph
        self.departure = departure
        self.factors = factors
    }

    /// The metric's costs of arc `a` (an original) at the time it is entered, `ms` after the departure.
    func slotCosts(ofArc a: UInt32, after ms: UInt32) -> (weight: UInt32, duration: UInt32) {
        departure.map { graph.costs(ofArc: a, inSlot: $0.slot(after: UInt64(ms))) } ?? (graph.arcWeight[Int(a)], graph.arcDuration[Int(a)])
    }

    /// The weight of the first `part` of arc `a` (an original), as the metric counts it (`partialCost`), at the arc's
    /// costs `slot`: in proportion, then weighed.
    func weight(_ part: UInt32, ofArc a: UInt32, at slot: (weight: UInt32, duration: UInt32)) -> UInt32 {
        let scaled = proportion(part, of: graph.arcWeight[Int(a)], scaledTo: slot.weight)
        guard let factors else { return scaled }
        let m = factors.multiplier(ofArc: a, in: graph)
        return UInt32(min(UInt64(RoadGraph.maxArcWeight), (UInt64(scaled) * m + 512) / 1024))
    }

    /// The time of the first `part` of arc `a`'s metric time, at the arc's costs `slot`.
    func duration(_ part: UInt32, ofArc a: UInt32, at slot: (weight: UInt32, duration: UInt32)) -> UInt32 {
        proportion(part, of: graph.arcDuration[Int(a)], scaledTo: slot.duration)
    }

    /// Arc `b` (a copy: its original's costs, and what entering the copy costs), entered `ms` after the departure.
    public func costs(ofArc b: UInt32, after ms: UInt32) -> (weight: UInt32, duration: UInt32) {
        let base = graph.arcBase[Int(b)], slot = slotCosts(ofArc: base, after: ms)
        let whole = graph.arcWeight[Int(base)]
        return (weight(whole, ofArc: base, at: slot) + graph.entryWeight(ofArc: b), slot.duration)
    }

    /// A source endpoint's weight and time to its arc's head, leaving at the departure.
    public func source(_ s: SearchEndpoint) -> (weight: UInt32, duration: UInt32) {
        let arc = Int(s.arc), slot = slotCosts(ofArc: s.arc, after: 0)
        let (w, d) = (graph.arcWeight[arc], graph.arcDuration[arc])
        return (weight(w, ofArc: s.arc, at: slot) - weight(w - s.cost, ofArc: s.arc, at: slot),
                duration(d, ofArc: s.arc, at: slot) - duration(d - graph.sourceDuration(s), ofArc: s.arc, at: slot))
    }

    /// A target endpoint's weight and time from its arc's tail, the arc entered `ms` after the departure.
    public func target(_ t: SearchEndpoint, after ms: UInt32) -> (weight: UInt32, duration: UInt32) {
        let slot = slotCosts(ofArc: t.arc, after: ms)
        return (weight(t.cost, ofArc: t.arc, at: slot), duration(graph.targetDuration(t), ofArc: t.arc, at: slot))
    }

    /// `cellWithinArc`, leaving at the departure.
    public func cellWithinArc(from s: SearchEndpoint, to t: SearchEndpoint) -> TableCell? {
        guard var cell = graph.cellWithinArc(from: s, to: t) else { return nil }
        let arc = Int(s.arc), slot = slotCosts(ofArc: s.arc, after: 0)
        cell.weight = weight(t.cost, ofArc: s.arc, at: slot) &- weight(graph.arcWeight[arc] - s.cost, ofArc: s.arc, at: slot)
        cell.duration = duration(graph.targetDuration(t), ofArc: s.arc, at: slot)
            &- duration(graph.arcDuration[arc] - graph.sourceDuration(s), ofArc: s.arc, at: slot)
        return cell
    }

    /// The weight (or with `time`, the time) of arc `a` (an original) from fraction `from` to `to` of its length,
    /// entered `ms` after the departure.
    func part(ofArc a: UInt32, from: Double, to: Double, time: Bool, after ms: UInt32) -> UInt32 {
        let slot = slotCosts(ofArc: a, after: ms)
        func at(_ f: Double) -> UInt32 {
            let metric = graph.partialCost(ofArc: a, fraction: f, time: time)
            return time ? duration(metric, ofArc: a, at: slot) : weight(metric, ofArc: a, at: slot)
        }
        return at(to) - at(from)
    }
}

/// A lower bound one millisecond less: the week's bounds meet route ends' parts, which are rounded to the
/// millisecond in proportion (`proportion`).
struct LooserByOne<Base: SearchHeuristic>: SearchHeuristic {
    let base: Base

    func estimate(fromVertex v: UInt32) -> UInt32 { lower(base.estimate(fromVertex: v)) }
    func estimate(fromArc a: UInt32, head: UInt32) -> UInt32 { lower(base.estimate(fromArc: a, head: head)) }
    private func lower(_ e: UInt32) -> UInt32 { e > 0 ? e - 1 : 0 }
}
