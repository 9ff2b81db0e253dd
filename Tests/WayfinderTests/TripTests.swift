import Engine
import Foundation
import RoadGraph
import Routing
import Testing
import Trips

/// Trips: the exact solver against brute force on every kind of trip, the heuristic against nearest neighbour on
/// real tables, and OSRM's trip service.
@Suite struct TripTests {
    static func randomMatrix(_ n: Int, seed: UInt64, missing: Double = 0) -> [[Int64?]] {
        var random = SplitMix64(seed: seed)
        return (0..<n).map { i in (0..<n).map { j in
            if i == j { return 0 }
            if missing > 0 && Double(random.next() % 1000) / 1000 < missing { return nil }
            return Int64(1 + random.next() % 1000)
        } }
    }

    /// Every order allowed by the kind of trip, tried.
    static func bruteForce(_ m: [[Int64?]], roundtrip: Bool, fixedStart: Bool, fixedEnd: Bool) -> Int64? {
        let n = m.count
        var best: Int64?
        func cost(_ order: [Int]) -> Int64? {
            var total: Int64 = 0
            for k in 0..<(order.count - 1) { guard let c = m[order[k]][order[k + 1]] else { return nil }; total += c }
            if roundtrip { guard let c = m[order.last!][order[0]] else { return nil }; total += c }
            return total
        }
        func permute(_ prefix: [Int], _ rest: Set<Int>) {
            if rest.isEmpty {
                if fixedStart && prefix.first != 0 { return }
                if fixedEnd && prefix.last != n - 1 { return }
                if let c = cost(prefix), c < best ?? .max { best = c }
                return
            }
            for r in rest { permute(prefix + [r], rest.subtracting([r])) }
        }
        permute([], Set(0..<n))
        return best
    }

    static let kinds: [(roundtrip: Bool, fixedStart: Bool, fixedEnd: Bool)] = [
        (true, false, false), (true, true, false), (true, false, true), (true, true, true),
        (false, true, true), (false, true, false), (false, false, true), (false, false, false),
    ]

    @Test func exactSolverEqualsBruteForce() throws {
        for n in 2...8 {
            for (k, kind) in Self.kinds.enumerated() {
                for seed in 0..<3 {
                    let m = Self.randomMatrix(n, seed: UInt64(100 * n + 10 * k + seed), missing: seed == 2 ? 0.3 : 0)
                    let problem = TripSolver.Problem(count: n, roundtrip: kind.roundtrip, fixedStart: kind.fixedStart,
                                                     fixedEnd: kind.fixedEnd) { m[$0][$1] }
                    let expected = Self.bruteForce(m, roundtrip: kind.roundtrip, fixedStart: kind.fixedStart, fixedEnd: kind.fixedEnd)
                    let solved = TripSolver.solve(problem)
                    #expect(solved?.cost == expected, "n \(n) \(kind) seed \(seed)")
                    guard let solved else { continue }
                    #expect(Set(solved.order) == Set(0..<n) && solved.order.count == n, "every point once")
                    if kind.fixedStart { #expect(solved.order.first == 0) }
                    if kind.fixedEnd { #expect(solved.order.last == n - 1) }
                    // The heuristic, made to run on the same small problem, is never better than the optimum.
                    if let heuristic = TripSolver.solve(problem, exactUpTo: 0), let expected {
                        #expect(heuristic.cost >= expected)
                        #expect(Set(heuristic.order) == Set(0..<n))
                        if kind.fixedStart { #expect(heuristic.order.first == 0) }
                        if kind.fixedEnd { #expect(heuristic.order.last == n - 1) }
                    }
                }
            }
        }
    }

    @Test(.enabled(if: Available.porto, "needs ../shared/data/r5-porto_portugal.osm.pbf"))
    func portoHundredPointsNoLongerThanNearestNeighbour() throws {
        let porto = OracleTests.sharedData.appendingPathComponent("r5-porto_portugal.osm.pbf")
        let (directory, driving, _) = try OracleTests.graphs(for: porto)
        defer { _ = directory }
        // Points on the core (where every road reaches every other), so that one round trip visits them all.
        var random = SplitMix64(seed: 23)
        let core = (0..<UInt32(driving.arcCount)).filter { driving.arcInCore[Int($0)] == 1 && driving.arcBase[Int($0)] == $0 }
        let snaps = try Router(graph: driving).snapWaypoints((0..<100).map { _ in
            driving.arcPoints(core[Int(random.next() % UInt64(core.count))], from: 0, to: 0.5).last!
        })
        let engine = Engine(graphs: [.driving: driving])
        var query = TripQuery(mode: .driving, points: snaps.map(\.location))
        query.threads = 2
        let answer = try engine.trip(query)
        // The same table the trip used, to price both tours.
        let table = try engine.table(TableQuery(mode: .driving, points: query.points))
        let cells = try table.rows(0..<100)
        let problem = TripSolver.Problem(count: 100, roundtrip: true, fixedStart: false, fixedEnd: false) {
            cells[$0][$1].map { Int64($0.weight) }
        }
        let nearest = try #require(TripSolver.nearestNeighbour(problem))
        let cost = answer.trips.reduce(Int64(0)) { $0 + $1.cost }
        #expect(answer.trips.count == 1, "random main-network points form one trip")
        #expect(cost <= nearest, "trip \(cost) ms against nearest neighbour \(nearest) ms")
        #expect(Set(answer.trips[0].stops) == Set(0..<100))
        #expect(answer.trips[0].guided.route.legs.count == 100, "a round trip: one leg per stop, the last back to the start")
    }

    @Test func disconnectedPointsMakeSeveralRoundTrips() throws {
        let map = TestMap("""
            a          b                              c          d
            """)
        map.way("ab", ["highway": "residential"])
        map.way("cd", ["highway": "residential"])
        let (driving, _) = try map.build()
        let engine = Engine(graphs: [.driving: driving])
        let points = [map.position(between: "a", "b", at: 0.2), map.position(between: "c", "d", at: 0.5),
                      map.position(between: "a", "b", at: 0.8)]
        let answer = try engine.trip(TripQuery(mode: .driving, points: points))
        #expect(answer.trips.count == 2)
        #expect(answer.trips.map(\.stops) == [[0, 2], [1]] || answer.trips.map(\.stops) == [[2, 0], [1]])
        #expect(answer.placement[1].trip == 1)
        var fixed = TripQuery(mode: .driving, points: points)
        fixed.fixedStart = true
        #expect(throws: EngineError.self) { try engine.trip(fixed) }
        do { _ = try engine.trip(fixed) } catch let error as EngineError { #expect(error.code == "NoTrips") }
    }

    @Test func tripServiceAnswersAsOSRM() throws {
        let server = try ServerTests.Server()
        defer { _ = server.stop() }
        let coordinates = "24.9384,60.1699;24.9412,60.1756;24.9450,60.1720;24.9500,60.1680"
        let (status, body) = try ServerTests.json("\(server.base)/trip/v1/driving/\(coordinates)?steps=true")
        #expect(status == 200 && body["code"] as? String == "Ok", "\(body)")
        let trips = try #require(body["trips"] as? [[String: Any]])
        #expect(trips.count == 1)
        #expect((trips[0]["legs"] as? [Any])?.count == 4, "a round trip of four points has four legs")
        let waypoints = try #require(body["waypoints"] as? [[String: Any]])
        #expect(waypoints.count == 4)
        #expect(Set(waypoints.compactMap { $0["waypoint_index"] as? Int }) == [0, 1, 2, 3])
        #expect(waypoints.allSatisfy { $0["trips_index"] as? Int == 0 })
        let open = try ServerTests.json("\(server.base)/trip/v1/foot/\(coordinates)?roundtrip=false&source=first&destination=last")
        let openWaypoints = try #require(open.object["waypoints"] as? [[String: Any]])
        #expect(openWaypoints.first?["waypoint_index"] as? Int == 0 && openWaypoints.last?["waypoint_index"] as? Int == 3)
        #expect(((open.object["trips"] as? [[String: Any]])?.first?["legs"] as? [Any])?.count == 3)
        for (query, code) in [("source=middle", "InvalidQuery"), ("roundtrip=perhaps", "InvalidQuery"), ("tsp=1", "InvalidQuery")] {
            let (status, body) = try ServerTests.json("\(server.base)/trip/v1/driving/\(coordinates)?\(query)")
            #expect(status == 400 && body["code"] as? String == code, "\(query): \(body)")
        }
        let many = (0..<101).map { "24.94\($0 % 10),60.16\($0 % 9)" }.joined(separator: ";")
        let (tooBig, big) = try ServerTests.json("\(server.base)/trip/v1/driving/\(many)")
        #expect(tooBig == 400 && big["code"] as? String == "TooBig")
        // OSRM 26.10 answers InvalidOptions here.
        let (single, one) = try ServerTests.json("\(server.base)/trip/v1/driving/24.9384,60.1699")
        #expect(single == 400 && one["code"] as? String == "InvalidOptions")
    }
}
