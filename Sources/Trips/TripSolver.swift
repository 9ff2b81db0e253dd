/// The order to visit points in (OSRM's `trip`): a travelling-salesman tour over a table of costs, asymmetric
/// where one-way streets make it so. Exact by dynamic programming (Held–Karp) up to `exactLimit` stops, beyond
/// that farthest insertion improved by 2-opt and Or-opt moves until none helps.
public enum TripSolver {
    /// Tours of at most this many stops (the stand-in stop of an open trip included) are solved exactly.
    public static let exactLimit = 11
    /// A cost standing for "no path": larger than any sum of real costs, small enough not to overflow.
    public static let unreachable: Int64 = 1 << 50

    public struct Problem {
        public var count: Int
        /// Row-major, `count` × `count`; nil where there is no path.
        public var cost: (Int, Int) -> Int64?
        /// Come back to the start (OSRM's `roundtrip`).
        public var roundtrip: Bool
        /// Start at the first point (`source=first`), end at the last (`destination=last`).
        public var fixedStart: Bool
        public var fixedEnd: Bool

        public init(count: Int, roundtrip: Bool, fixedStart: Bool, fixedEnd: Bool, cost: @escaping (Int, Int) -> Int64?) {
            self.count = count
            self.roundtrip = roundtrip
            self.fixedStart = fixedStart
            self.fixedEnd = fixedEnd
            self.cost = cost
        }
    }

    /// The visiting order (indices into the points, starting where the trip starts), and its cost: the legs between
    /// consecutive stops, plus the way back for a round trip. Nil when no order connects them all.
    public static func solve(_ problem: Problem, exactUpTo limit: Int = exactLimit) -> (order: [Int], cost: Int64)? {
        let n = problem.count
        guard n > 0 else { return nil }
        if n == 1 { return ([0], 0) }
        // Everything becomes one cyclic tour: an open trip, or a round trip whose last stop is fixed as well as its
        // first (its way back is then given), gets a stand-in stop `n` that closes the cycle: reached from the
        // permitted last stops and leading to the permitted first ones at no cost.
        let open = !problem.roundtrip || (problem.fixedStart && problem.fixedEnd)
        let size = open ? n + 1 : n
        var matrix = [Int64](repeating: unreachable, count: size * size)
        for i in 0..<n {
            for j in 0..<n where i != j { matrix[i * size + j] = problem.cost(i, j) ?? unreachable }
        }
        if open {
            for i in 0..<n {
                if !problem.fixedEnd || i == n - 1 { matrix[i * size + n] = 0 }
                if !problem.fixedStart || i == 0 { matrix[n * size + i] = 0 }
            }
        }
        let tour = size <= min(limit, 16) ? exact(matrix, size) : heuristic(matrix, size)
        // Rotate so that the trip starts where it must: after the stand-in, or at the first point, or (a round trip
        // with a fixed end only) just after the last point.
        var start = 0
        if open { start = (tour.firstIndex(of: n)! + 1) % size }
        else if problem.fixedStart { start = tour.firstIndex(of: 0)! }
        else if problem.fixedEnd { start = (tour.firstIndex(of: n - 1)! + 1) % size }
        let order = (0..<size).map { tour[(start + $0) % size] }.filter { $0 != n || !open }
        var total: Int64 = 0
        for k in 0..<(order.count - 1) { total += matrix[order[k] * size + order[k + 1]] }
        if problem.roundtrip { total += open ? (problem.cost(order.last!, order[0]) ?? unreachable) : matrix[order.last! * size + order[0]] }
        return total >= unreachable ? nil : (order, total)
    }

    static func cycleCost(_ tour: [Int], _ m: [Int64], _ n: Int) -> Int64 {
        var total: Int64 = 0
        for k in 0..<tour.count { total += m[tour[k] * n + tour[(k + 1) % tour.count]] }
        return total
    }

    /// Held–Karp: the cheapest cycle through all `n` stops, starting and ending at stop 0.
    static func exact(_ m: [Int64], _ n: Int) -> [Int] {
        let full = 1 << (n - 1)  // subsets of stops 1…n-1
        var best = [Int64](repeating: .max, count: full * n)
        var parent = [Int8](repeating: -1, count: full * n)
        for j in 1..<n { best[(1 << (j - 1)) * n + j] = m[j] }
        for set in 1..<full {
            for j in 1..<n where set & (1 << (j - 1)) != 0 {
                let here = best[set * n + j]
                if here == .max { continue }
                for k in 1..<n where set & (1 << (k - 1)) == 0 {
                    let next = set | (1 << (k - 1))
                    let c = here + m[j * n + k]
                    if c < best[next * n + k] { best[next * n + k] = c; parent[next * n + k] = Int8(j) }
                }
            }
        }
        var last = 1, bestTotal = Int64.max
        for j in 1..<n {
            let c = best[(full - 1) * n + j]
            if c != .max && c + m[j * n] < bestTotal { bestTotal = c + m[j * n]; last = j }
        }
        var tour: [Int] = []
        var set = full - 1, j = last
        while j > 0 {
            tour.append(j)
            let p = Int(parent[set * n + j])
            set &= ~(1 << (j - 1))
            j = p
        }
        return [0] + tour.reversed()
    }

    /// Farthest insertion, then 2-opt and Or-opt until no move shortens the cycle.
    static func heuristic(_ m: [Int64], _ n: Int) -> [Int] {
        func c(_ i: Int, _ j: Int) -> Int64 { m[i * n + j] }
        // Start from the pair farthest apart (both ways), then repeatedly insert the stop farthest from the tour
        // where it adds least.
        var a = 0, b = 1, far: Int64 = -1
        for i in 0..<n { for j in (i + 1)..<n where c(i, j) + c(j, i) > far { far = c(i, j) + c(j, i); a = i; b = j } }
        var tour = [a, b]
        var inTour = [Bool](repeating: false, count: n)
        inTour[a] = true; inTour[b] = true
        var distance = (0..<n).map { min(c($0, a) + c(a, $0), c($0, b) + c(b, $0)) }
        for _ in 2..<n {
            var pick = -1, pickDistance: Int64 = -1
            for k in 0..<n where !inTour[k] && distance[k] > pickDistance { pick = k; pickDistance = distance[k] }
            var at = 0, added = Int64.max
            for p in 0..<tour.count {
                let u = tour[p], v = tour[(p + 1) % tour.count]
                let d = c(u, pick) + c(pick, v) - c(u, v)
                if d < added { added = d; at = p + 1 }
            }
            tour.insert(pick, at: at)
            inTour[pick] = true
            for k in 0..<n where !inTour[k] { distance[k] = min(distance[k], c(k, pick) + c(pick, k)) }
        }
        improve(&tour, m, n)
        return tour
    }

    /// How many nearest stops (by the cost both ways) a move may join a stop to: the candidate lists that make the
    /// local search O(n·k) a pass instead of O(n²).
    static let neighbourCount = 16

    /// Each stop's `neighbourCount` nearest other stops by the cost there and back, nearest first.
    static func neighbours(_ m: [Int64], _ n: Int) -> [[Int]] {
        let k = min(neighbourCount, n - 1)
        return (0..<n).map { i in
            // A bounded max-heap would do; a partial insertion into k slots is as fast at k = 16.
            var best: [(cost: Int64, stop: Int)] = []
            best.reserveCapacity(k + 1)
            for j in 0..<n where j != i {
                let cost = m[i * n + j] + m[j * n + i]
                if best.count == k && cost >= best[k - 1].cost { continue }
                let at = best.firstIndex { $0.cost > cost } ?? best.count
                best.insert((cost, j), at: at)
                if best.count > k { best.removeLast() }
            }
            return best.map(\.stop)
        }
    }

    /// Local search on a cycle with asymmetric costs: 2-opt (reverse a stretch; its inside then runs the other way,
    /// priced by prefix sums of both directions) and Or-opt (move a run of 1–3 stops elsewhere, either way round).
    /// A move only makes a new side between a stop and one of its nearest stops (`neighbours`), so a pass costs
    /// O(n·k) rather than O(n²): 3,000 stops took 19 s and 10,000 did not finish. Every move shortens the cycle,
    /// so it ends; a pass goes on from a move rather than starting over.
    static func improve(_ tour: inout [Int], _ m: [Int64], _ n: Int) {
        func c(_ i: Int, _ j: Int) -> Int64 { m[i * n + j] }
        let near = neighbours(m, n)
        // forward[k]: cost along the tour from stop 0 to stop k; backward[k]: the same stretch driven backwards.
        var forward = [Int64](repeating: 0, count: n), backward = [Int64](repeating: 0, count: n)
        var position = [Int](repeating: 0, count: n)
        func sums() {
            for k in 0..<n { position[tour[k]] = k }
            for k in 1..<n {
                forward[k] = forward[k - 1] + c(tour[k - 1], tour[k])
                backward[k] = backward[k - 1] + c(tour[k], tour[k - 1])
            }
        }
        var improved = true, rounds = 0
        while improved && rounds < 100 {
            improved = false
            rounds += 1
            sums()
            var i = 0
            while i < n - 2 {
                var moved = false
                // Reverse tour[i+1...j]: sides (i, i+1) and (j, j+1) become (i, j) and (i+1, j+1); the new side
                // (i, j) joins tour[i] to one of its nearest stops.
                for stop in near[tour[i]] {
                    let j = position[stop]
                    if j < i + 2 { continue }
                    let next = (j + 1) % n
                    if next == i { continue }
                    let before = c(tour[i], tour[i + 1]) + c(tour[j], tour[next]) + forward[j] - forward[i + 1]
                    let after = c(tour[i], tour[j]) + c(tour[i + 1], tour[next]) + backward[j] - backward[i + 1]
                    if after < before {
                        tour[(i + 1)...j].reverse()
                        sums()
                        improved = true
                        moved = true
                        break
                    }
                }
                if !moved { i += 1 }
            }
            for length in 1...3 where length < n - 1 {
                var start = 0
                while start < n {
                    defer { start += 1 }
                    let run = (0..<length).map { tour[(start + $0) % n] }
                    let prev = tour[(start - 1 + n) % n], after = tour[(start + length) % n]
                    var inner: Int64 = 0, innerBack: Int64 = 0
                    for k in 0..<(length - 1) { inner += c(run[k], run[k + 1]); innerBack += c(run[k + 1], run[k]) }
                    let removed = c(prev, run[0]) + c(run[length - 1], after) + inner - c(prev, after)
                    // Where to put the run back (either way round): beside one of its ends' nearest stops, on
                    // either side of it. Stops of the run itself, and the gap it came from, are no place.
                    var bestGain: Int64 = 0, bestAfter = -1, bestReversed = false
                    for end in [run[0], run[length - 1]] {
                        for stop in near[end] {
                            let at = position[stop]
                            for u in [at, (at - 1 + n) % n] {
                                let v = (u + 1) % n
                                // u and v must both lie outside the run, and u → v must not be the gap prev → run.
                                let offset = (u - start + n) % n, offsetV = (v - start + n) % n
                                if offset < length || offsetV < length || tour[u] == prev { continue }
                                let a = tour[u], b = tour[v]
                                let straight = c(a, run[0]) + inner + c(run[length - 1], b) - c(a, b)
                                let reversed = c(a, run[length - 1]) + innerBack + c(run[0], b) - c(a, b)
                                let gain = removed - min(straight, reversed)
                                if gain > bestGain { bestGain = gain; bestAfter = tour[u]; bestReversed = reversed < straight }
                            }
                        }
                    }
                    if bestAfter >= 0 {
                        let rest = (0..<(n - length)).map { tour[(start + length + $0) % n] }
                        let piece = bestReversed ? Array(run.reversed()) : run
                        let at = rest.firstIndex(of: bestAfter)!
                        tour = Array(rest[...at]) + piece + Array(rest[(at + 1)...])
                        for k in 0..<n { position[tour[k]] = k }
                        improved = true
                    }
                }
            }
        }
    }

    /// A plain nearest-neighbour tour from the first stop: the baseline a trip must not be worse than.
    public static func nearestNeighbour(_ problem: Problem) -> Int64? {
        let n = problem.count
        var visited = [Bool](repeating: false, count: n)
        var at = 0, total: Int64 = 0
        visited[0] = true
        for _ in 1..<n {
            var next = -1, best = Int64.max
            for j in 0..<n where !visited[j] && (!problem.fixedEnd || j != n - 1 || visited.filter { !$0 }.count == 1) {
                if let d = problem.cost(at, j), d < best { best = d; next = j }
            }
            guard next >= 0 else { return nil }
            total += best
            visited[next] = true
            at = next
        }
        if problem.roundtrip { guard let back = problem.cost(at, 0) else { return nil }; total += back }
        return total
    }
}

extension TripSolver {
    /// A lower bound on any round trip's cost: the cheapest assignment of a successor to every stop (a round trip
    /// is one such assignment), by the Hungarian method in O(n³). For benchmarks: the gap between a trip and
    /// this bound bounds how far the trip can be from the best one.
    public static func assignmentLowerBound(_ count: Int, cost: (Int, Int) -> Int64?) -> Int64? {
        let n = count
        guard n >= 2 else { return 0 }
        let big = unreachable
        func c(_ i: Int, _ j: Int) -> Int64 { i == j ? big : (cost(i, j) ?? big) }
        // Potentials u (rows) and v (columns), 1-based with a sentinel column 0 (the e-maxx formulation).
        var u = [Int64](repeating: 0, count: n + 1), v = [Int64](repeating: 0, count: n + 1)
        var p = [Int](repeating: 0, count: n + 1), way = [Int](repeating: 0, count: n + 1)
        for i in 1...n {
            p[0] = i
            var j0 = 0
            var minv = [Int64](repeating: .max, count: n + 1)
            var used = [Bool](repeating: false, count: n + 1)
            repeat {
                used[j0] = true
                let i0 = p[j0]
                var delta = Int64.max, j1 = 0
                for j in 1...n where !used[j] {
                    let cur = c(i0 - 1, j - 1) - u[i0] - v[j]
                    if cur < minv[j] { minv[j] = cur; way[j] = j0 }
                    if minv[j] < delta { delta = minv[j]; j1 = j }
                }
                for j in 0...n {
                    if used[j] { u[p[j]] += delta; v[j] -= delta } else { minv[j] -= delta }
                }
                j0 = j1
            } while p[j0] != 0
            repeat {
                let j1 = way[j0]
                p[j0] = p[j1]
                j0 = j1
            } while j0 != 0
        }
        var total: Int64 = 0
        for j in 1...n { total += c(p[j] - 1, j - 1) }
        return total >= big ? nil : total
    }
}
