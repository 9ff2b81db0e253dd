import Engine
import RoadGraph
import Routing
import Testing

/// Searches at a request's prices (a departure time on historical speeds, weights by kind of road) against the
/// reference Dijkstra at the same prices: what `HistoricalSpeedsTests` and `WeightFactorsTests` share.
enum PricedOracle {
    /// A point uniform over the graph's bounds (out at sea at times: snapping and unroutable pairs get exercised).
    static func point(_ graph: RoadGraph, _ random: inout SplitMix64) -> Coordinate {
        let b = graph.metadata.bounds
        return Coordinate(latitude: b.minLatitude + Double(random.next() % 10_000) / 10_000 * (b.maxLatitude - b.minLatitude),
                          longitude: b.minLongitude + Double(random.next() % 10_000) / 10_000 * (b.maxLongitude - b.minLongitude))
    }

    /// One leg by every algorithm at the prices: each must cost what the oracle says, its pieces adding up to it.
    /// The oracle's cost and the legs, in `SearchAlgorithm.allCases` order.
    static func legs(_ router: inout Router, from source: Snap, to target: Snap, departure: Departure? = nil,
                     factors: WeightFactors? = nil) -> (oracle: UInt64?, legs: [RouteLeg?]) {
        let graph = router.graph
        let oracle = ReferenceDijkstra.cost(in: graph, from: graph.sourceEndpoints(source), to: graph.targetEndpoints(target),
                                            departure: departure, factors: factors)
        router.departure = departure
        router.weightFactors = factors
        defer { router.departure = nil; router.weightFactors = nil }
        let legs = SearchAlgorithm.allCases.map { router.routeLeg(from: source, to: target, algorithm: $0) }
        for (algorithm, leg) in zip(SearchAlgorithm.allCases, legs) {
            #expect(leg?.weight == oracle, "\(algorithm) at \(String(describing: departure?.local)): \(String(describing: leg?.weight)) ≠ oracle \(String(describing: oracle))")
            if let leg {
                #expect(abs(leg.stretches.reduce(0.0) { $0 + $1.weight * 1000 } - Double(leg.weight)) < 0.5, "pieces add up")
                #expect(abs(leg.stretches.reduce(0.0) { $0 + $1.duration } - leg.duration) < 0.001)
            }
        }
        return (oracle, legs)
    }

    /// An engine table at the query's prices, cell by cell against the oracle where both points are on the core (a
    /// point off it is also searched from a second snap on it). The number of cells compared.
    static func table(_ engine: Engine, _ graph: RoadGraph, _ query: TableQuery, departure: Departure? = nil) throws -> Int {
        let table = try engine.table(query)
        let cells = try table.rows(0..<query.points.count)
        var compared = 0
        for i in query.points.indices {
            for j in query.points.indices where i != j {
                guard let source = table.sources[i], let target = table.destinations[j],
                      graph.isInCore(edge: source.edge) && graph.isInCore(edge: target.edge) else { continue }
                compared += 1
                let oracle = ReferenceDijkstra.cost(in: graph, from: graph.sourceEndpoints(source), to: graph.targetEndpoints(target),
                                                    departure: departure, factors: query.weightFactors)
                #expect(cells[i][j].map { UInt64($0.weight) } == oracle, "cell \(i),\(j) at \(String(describing: departure?.local))")
            }
        }
        return compared
    }
}
