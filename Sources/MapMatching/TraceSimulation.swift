import Foundation
import RoadGraph
import Routing

/// GPS traces made from known routes, and how much of a route a match found: what the matcher's tests and
/// benchmark measure it with.
public enum TraceSimulation {
    /// Fixes along `route` every `interval` seconds of its travel time (drawn uniformly), each moved by Gaussian
    /// noise of `noise` metres in each of east and north, some dropped (`dropRate`; never the first or last).
    public static func trace(along route: Route, interval: ClosedRange<Double>, noise: Double, dropRate: Double,
                             seed: UInt64) -> [TracePoint] {
        var random = SplitMix64(seed: seed)
        func uniform() -> Double { Double(random.next() >> 11) / Double(1 << 53) }
        func gaussian() -> Double {
            let u = max(uniform(), 1e-12), v = uniform()
            return (-2 * log(u)).squareRoot() * cos(2 * Double.pi * v)
        }
        // Time at every point of the line: each stretch's time shared out by length.
        var points: [Coordinate] = [], times: [Double] = []
        var clock = 0.0
        for leg in route.legs {
            for stretch in leg.stretches {
                let range = stretch.coordinates
                let line = Array(leg.coordinates[range])
                var lengths = [0.0]
                for k in 1..<line.count { lengths.append(lengths[k - 1] + Geo.distance(line[k - 1], line[k])) }
                let total = lengths.last ?? 0
                for k in line.indices where !(k == 0 && !points.isEmpty) {
                    points.append(line[k])
                    times.append(clock + (total > 0 ? stretch.duration * lengths[k] / total : 0))
                }
                clock += stretch.duration
            }
        }
        guard let end = times.last, points.count >= 2 else { return [] }
        func position(at t: Double) -> Coordinate {
            var k = 1
            while k < times.count - 1 && times[k] < t { k += 1 }
            let span = times[k] - times[k - 1]
            let f = span > 0 ? min(1, max(0, (t - times[k - 1]) / span)) : 0
            return Coordinate(latitude: points[k - 1].latitude + (points[k].latitude - points[k - 1].latitude) * f,
                              longitude: points[k - 1].longitude + (points[k].longitude - points[k - 1].longitude) * f)
        }
        var fixes: [TracePoint] = []
        var t = 0.0
        let metresPerDegree = 6_371_008.8 * Double.pi / 180
        while true {
            let last = t >= end
            let p = position(at: min(t, end))
            let dx = gaussian() * noise, dy = gaussian() * noise
            let noisy = Coordinate(latitude: p.latitude + dy / metresPerDegree,
                                   longitude: p.longitude + dx / (metresPerDegree * cos(p.latitude * Double.pi / 180)))
            if fixes.isEmpty || last || uniform() >= dropRate {
                fixes.append(TracePoint(coordinate: noisy, time: min(t, end), accuracy: nil))
            }
            if last { break }
            t += interval.lowerBound + uniform() * (interval.upperBound - interval.lowerBound)
        }
        return fixes
    }

    /// The share of `truth`'s length on roads the matched routes use (by edge, either direction).
    public static func overlap(of truth: Route, with matched: [Route], in graph: RoadGraph) -> Double {
        let used = Set(matched.flatMap { $0.legs.flatMap { $0.stretches.map { graph.edge(ofArc: $0.arc).edge } } })
        let stretches = truth.legs.flatMap(\.stretches)
        let total = stretches.reduce(0) { $0 + $1.distance }
        let found = stretches.filter { used.contains(graph.edge(ofArc: $0.arc).edge) }.reduce(0) { $0 + $1.distance }
        return total > 0 ? found / total : 1
    }
}
