import Engine
import Foundation
import GraphImport
import HTTPService
import RoadGraph
import Routing
import Testing

/// The defects of the second hostile round (issue 27), each pinned by a test that failed before its fix.
@Suite(.serialized) struct HardeningRoundTwoTests {
    static func run(_ arguments: [String]) throws -> CommandLineTests.Run { try CommandLineTests.run(arguments) }

    // MARK: Totals past 32 bits

    /// A line of 13 stops 300 km apart: each leg is some 60 hours on foot (2.2 × 10⁸ ms, under the most one arc may
    /// cost), and 24 of them add up to 5.2 × 10⁹ ms, past 2³². A 32-bit sum trapped (SIGILL, exit 132).
    static func longLine() throws -> (TestMap, [Coordinate]) {
        let letters = Array("abcdefghijklm")
        let map = TestMap(letters.map(String.init).joined(separator: "  "), gridSize: 100_000)
        for (a, b) in zip(letters, letters.dropFirst()) { map.way(String([a, b]), ["highway": "residential"]) }
        return (map, letters.map { map.position($0) })
    }

    @Test func routeAndTripTotalsPastTwoToThe32Milliseconds() throws {
        let (map, stops) = try Self.longLine()
        let (_, walking) = try map.build()
        let there = stops + stops.reversed().dropFirst()
        var limits = EngineLimits()
        limits.maxRouteWaypoints = 100
        let engine = Engine(graphs: [.walking: walking], limits: limits)
        let route = try engine.route(RouteQuery(mode: .walking, points: there)).route
        #expect(route.legs.count == 24)
        #expect(route.weight > UInt64(UInt32.max), "\(route.weight) ms")
        #expect(route.weight == route.legs.reduce(UInt64(0)) { $0 + $1.weight })
        // Each leg is exact: the reference Dijkstra's cost between its ends.
        for leg in route.legs {
            let expected = ReferenceDijkstra.cost(in: walking, from: walking.sourceEndpoints(leg.source),
                                                  to: walking.targetEndpoints(leg.target))
            #expect(expected == leg.weight)
        }
        let trip = try engine.trip(TripQuery(mode: .walking, points: stops))
        #expect(trip.trips.count == 1)
        #expect(trip.trips[0].cost > Int64(UInt32.max))
        #expect(UInt64(trip.trips[0].cost) == trip.trips[0].route.weight)

        // Table cells past 24 days (2³¹ ms) are exact too: such a label used to be clamped in its bucket.
        let table = try engine.table(TableQuery(mode: .walking, points: stops))
        let rows = try table.rows(0..<stops.count)
        var past31 = 0
        for i in stops.indices {
            for j in stops.indices {
                let oracle = ReferenceDijkstra.cost(in: walking, from: walking.sourceEndpoints(table.sources[i]!),
                                                    to: walking.targetEndpoints(table.destinations[j]!))
                #expect(rows[i][j].map { UInt64($0.weight) } == oracle, "cell \(i),\(j)")
                if (oracle ?? 0) > UInt64(Int32.max) { past31 += 1 }
            }
        }
        #expect(past31 >= 12)

        // The command line, through OSRM's JSON: the route's weight and duration are the legs' sums.
        let arguments = ["route", "--graph", map.graphDirectory, "--mode", "walking", "--format", "json"]
            + there.map { "\($0.latitude),\($0.longitude)" }
        let run = try Self.run(arguments)
        #expect(run.status == 0, "\(run.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let answer = try #require((json["routes"] as? [[String: Any]])?.first)
        let weight = try #require(answer["weight"] as? Double)
        #expect(weight > Double(UInt32.max) / 1000)
        #expect(abs(weight - Double(route.weight) / 1000) < 0.2)
    }
}
