import Foundation

/// The bearing of a road as a driver at a junction perceives it, as OSRM works it out: towards one representative
/// point of the road's first stretch, chosen by the shape of that stretch (straight, bent at the start, offset by a
/// lane, curved) and the width of the roads meeting there. Turn costs and turn instructions both read the angle
/// between two such bearings, so agreeing with OSRM on them is what makes the two engines price and name the
/// same junction the same way.
///
/// The rules were measured against osrm-routed 26.10 and OSRM's extractor, including its quirks (segment lengths
/// read as running totals when a line is cut, lines fitted in unscaled degrees): a reproduction of what the
/// reference does, not of what its comments intend.
public struct PerceivedBearing {
    /// What the rules need to know of the road and the junction.
    public struct Road {
        public var roadClass: RoadClass
        public var isLink: Bool
        /// On a roundabout or a circular junction.
        public var onRing: Bool
        /// Roads at the junction, counting this one.
        public var roadsHere: Int
        /// The most lanes any road at the junction has (0: none tagged).
        public var lanesHere: Int
        /// The road comes back to the junction it leaves.
        public var isLoop: Bool

        public init(roadClass: RoadClass, isLink: Bool, onRing: Bool, roadsHere: Int, lanesHere: Int, isLoop: Bool) {
            self.roadClass = roadClass
            self.isLink = isLink
            self.onRing = onRing
            self.roadsHere = roadsHere
            self.lanesHere = lanesHere
            self.isLoop = isLoop
        }
    }

    static let laneWidth = 3.25

    /// Degrees, 0..<360, from the junction (`line[0]`) along the road's line to the next junction.
    public static func bearing(along line: [Coordinate], road: Road) -> Double { bearings(along: line, road: road).perceived }

    /// Degrees, 0..<360, from the junction (`line[0]`) towards the point 2 m along the line: OSRM's initial bearing.
    public static func initialBearing(along line: [Coordinate]) -> Double {
        let points = microLine(line)
        guard points.count >= 2 else { return 0 }
        return Geo.osrmRulerBearing(from: points[0], to: point(points, atLength: 2))
    }

    /// `bearing` and `initialBearing` at once, the line read once.
    public static func bearings(along line: [Coordinate], road: Road) -> (perceived: Double, initial: Double) {
        let points = microLine(line)
        guard points.count >= 2 else { return (0, 0) }
        return (Geo.osrmRulerBearing(from: points[0], to: representativePoint(points, road)),
                Geo.osrmRulerBearing(from: points[0], to: point(points, atLength: 2)))
    }

    /// The line in millionths of a degree, no point repeated. OSRM holds coordinates so; over the 2 m it reads
    /// round a ring, that alone moves a bearing by degrees.
    static func microLine(_ line: [Coordinate]) -> [Coordinate] {
        var points: [Coordinate] = []
        points.reserveCapacity(line.count)
        for p in line.lazy.map(micro) where points.last != p { points.append(p) }
        return points
    }

    static func representativePoint(_ c: [Coordinate], _ road: Road) -> Coordinate {
        let node = c[0]
        if road.roadsHere <= 2 {
            return c.dropFirst().first { Geo.osrmRulerDistance(node, $0) > 1 } ?? c[c.count - 1]
        }
        if road.isLoop { return c[1] }
        if c.count <= 2 { return c[c.count - 1] }
        if road.onRing { return point(c, atLength: 2) }
        if road.roadClass.isLowPriority { return point(c, atLength: 10) }

        let factor = road.roadClass == .motorway || road.roadClass == .trunk ? 2.5
            : road.roadClass == .primary && !road.isLink ? 1.5 : 1.0
        let consideredLanes = factor * Double(road.lanesHere == 0 ? 2 : road.lanesHere)
        let width = consideredLanes * laneWidth
        if Geo.osrmRulerDistance(c[0], c[1]) > width + 10 { return c[1] }

        let lookahead = 40 + width
        var (trimmed, lengths) = cut(c, lengthsUpTo(c, metres: lookahead), at: lookahead)
        lengths[lengths.count - 1] = min(lengths[lengths.count - 1], lookahead)
        let total = lengths.reduce(0, +)
        let last = trimmed[trimmed.count - 1]
        if trimmed.count == 2 || total <= 2 { return last }

        if maxDeviation(trimmed, 0..<trimmed.count, from: node, to: last) < 0.5 * laneWidth {
            return node == last ? point(trimmed, atLength: 2) : last
        }

        // How far the road runs straight from the junction.
        var straightLength = lengths[1], straightIndex = 1
        for index in 2..<trimmed.count {
            guard maxDeviation(trimmed, 0..<index, from: node, to: trimmed[index]) < 0.25 * laneWidth else { break }
            straightLength += lengths[index]
            straightIndex = index
        }
        if straightLength >= width + 10 { return point(trimmed, atLength: 5) }

        let (front, back) = regressionLine(trimmed)
        if maxDeviation(trimmed, 0..<trimmed.count, from: front, to: back) < 0.35 * laneWidth {
            return corrected(node, base: front, head: back)
        }
        if let offset = directOffset(trimmed, lengths, total: total, straightIndex: straightIndex,
                                     straightLength: straightLength, lanes: Int(consideredLanes)) {
            return offset
        }
        if isCurve(trimmed, lengths, total: total, width: width) {
            let (head, headLengths) = cut(trimmed, lengths, at: 6)
            var baseLengths = headLengths
            baseLengths[baseLengths.count - 1] = Geo.osrmRulerDistance(head[head.count - 2], head[head.count - 1])
            let (base, _) = cut(head, baseLengths, at: 4)
            return corrected(node, base: base[base.count - 1], head: head[head.count - 1])
        }
        // The road fits a line once its first metres, bent by the junction's width, are left out.
        let skip = 0.64 * width
        if total >= 0.8 * width + 2, let rest = dropFront(trimmed, metres: skip), rest.count >= 2 {
            let (front, back) = regressionLine(rest)
            if maxDeviation(rest, 0..<rest.count, from: front, to: back) < 0.5 * laneWidth {
                return corrected(node, base: front, head: back)
            }
        }
        let fallback = point(trimmed, atLength: 10)
        return fallback != node ? fallback : (trimmed.first { $0 != node } ?? fallback)
    }

    // MARK: Lines

    /// The point `metres` along the line, or its end.
    static func point(_ c: [Coordinate], atLength metres: Double) -> Coordinate {
        var walked = 0.0
        for i in 1..<c.count {
            let d = Geo.osrmRulerDistance(c[i - 1], c[i])
            if walked + d >= metres && d > 0 { return interpolate(c[i - 1], c[i], (metres - walked) / d) }
            walked += d
        }
        return c[c.count - 1]
    }

    /// The point a fraction `t` of the way from a to b, cut to millionths of a degree towards zero (OSRM's integer
    /// interpolation).
    static func interpolate(_ a: Coordinate, _ b: Coordinate, _ t: Double) -> Coordinate {
        func along(_ x: Double, _ y: Double) -> Double {
            let (xm, ym) = (Geo.micro(x), Geo.micro(y))
            return (xm + (ym - xm) * t).rounded(.towardZero) / 1e6
        }
        return Coordinate(latitude: along(a.latitude, b.latitude), longitude: along(a.longitude, b.longitude))
    }

    /// A coordinate rounded to millionths of a degree.
    static func micro(_ p: Coordinate) -> Coordinate {
        Coordinate(latitude: Geo.micro(p.latitude) / 1e6, longitude: Geo.micro(p.longitude) / 1e6)
    }

    /// Each segment's own length, `[0, d1, d2, …]`.
    static func segmentLengths(_ c: [Coordinate]) -> [Double] {
        [0] + (1..<c.count).map { Geo.osrmRulerDistance(c[$0 - 1], c[$0]) }
    }

    /// The line's segment lengths up to the first point at least `metres` along it.
    static func lengthsUpTo(_ c: [Coordinate], metres: Double) -> [Double] {
        var lengths = [0.0], walked = 0.0
        for i in 1..<c.count where walked < metres {
            lengths.append(Geo.osrmRulerDistance(c[i - 1], c[i]))
            walked += lengths[i]
        }
        return lengths
    }

    /// OSRM's cut of a line at `metres`, as its extractor does it, given `lengths` of the segments it keeps: when the
    /// last of them is shorter than `metres` they are all kept as they are; otherwise the line ends on the first
    /// segment as long as that, moved back by a fraction reckoned from two segments' own lengths.
    static func cut(_ c: [Coordinate], _ lengths: [Double], at metres: Double) -> ([Coordinate], [Double]) {
        var points = Array(c[0..<lengths.count]), kept = lengths
        if let i = kept.indices.dropFirst().first(where: { kept[$0] >= metres }), kept[kept.count - 1] >= metres {
            let before = kept[i - 1]
            let t = min(1, max(0, (metres - before) / (kept[i] - before)))
            points = Array(points[0...i])
            points[i] = interpolate(points[i - 1], points[i], t)
            kept = Array(kept[0...i])
        }
        return (points, kept)
    }

    /// The line without its first `metres`, starting at the point that far along.
    static func dropFront(_ c: [Coordinate], metres: Double) -> [Coordinate]? {
        var walked = 0.0
        for i in 1..<c.count {
            let d = Geo.osrmRulerDistance(c[i - 1], c[i])
            if walked + d > metres && d > 0 {
                return [interpolate(c[i - 1], c[i], (metres - walked) / d)] + c[i...]
            }
            walked += d
        }
        return nil
    }

    /// The largest distance (metres) of `c[range]` from the segment a→b, each point projected in plain degrees.
    static func maxDeviation(_ c: [Coordinate], _ range: Range<Int>, from a: Coordinate, to b: Coordinate) -> Double {
        var worst = 0.0
        for i in range { worst = max(worst, Geo.osrmRulerDistance(c[i], project(c[i], a, b))) }
        return worst
    }

    /// The nearest point of the segment a→b to p, in plain degrees.
    static func project(_ p: Coordinate, _ a: Coordinate, _ b: Coordinate) -> Coordinate {
        let dx = b.longitude - a.longitude, dy = b.latitude - a.latitude
        let squared = dx * dx + dy * dy
        guard squared > 0 else { return a }
        let t = min(1, max(0, ((p.longitude - a.longitude) * dx + (p.latitude - a.latitude) * dy) / squared))
        return micro(Coordinate(latitude: a.latitude + t * dy, longitude: a.longitude + t * dx))
    }

    /// `head` moved back by nine tenths of the way from the junction to `base`: the direction of the line through
    /// base and head, seen from the junction.
    static func corrected(_ node: Coordinate, base: Coordinate, head: Coordinate) -> Coordinate {
        guard Geo.osrmRulerDistance(base, head) >= 2 else { return head }
        // In whole millionths, the nine tenths cut towards zero, as OSRM computes it.
        func moved(_ h: Double, _ b: Double, _ n: Double) -> Double {
            let (hm, bm, nm) = (Int(Geo.micro(h)), Int(Geo.micro(b)), Int(Geo.micro(n)))
            return Double(hm - 90 * (bm - nm) / 100) / 1e6
        }
        return Coordinate(latitude: moved(head.latitude, base.latitude, node.latitude),
                          longitude: moved(head.longitude, base.longitude, node.longitude))
    }

    /// A least-squares line through points every metre along the first 40 m of `c`; returns the line's nearest
    /// points to the first and the last point of `c`.
    static func regressionLine(_ c: [Coordinate]) -> (Coordinate, Coordinate) {
        let samples = Self.samples(along: c, limit: 40, every: 1)
        let (a, b) = fittedSegment(samples)
        return (project(c[0], a, b), project(c[c.count - 1], a, b))
    }

    /// Points every `rate` metres along the line up to about `limit` metres, the first point included, counted as
    /// OSRM counts them: a segment's samples from the metres left and carried over, so that a sample due exactly
    /// at the limit may fall to rounding (and with it a fitted line's far end).
    static func samples(along line: [Coordinate], limit: Double, every rate: Double) -> [Coordinate] {
        var samples = [line[0]]
        var carry = 0.0, total = 0.0
        for i in 1..<line.count {
            if total > limit { break }
            let d = Geo.osrmRulerDistance(line[i - 1], line[i])
            if carry + d >= rate {
                let base = rate - carry
                let count = Int(((min(limit - total, d) + carry) / rate).rounded(.down))
                for k in 0..<max(0, count) {
                    let t = d > 0 ? max(0, min(1, (base + Double(k) * rate) / d)) : 0
                    samples.append(interpolate(line[i - 1], line[i], t))
                }
                carry = (d + carry) - Double(max(0, count)) * rate
            } else {
                carry += d
            }
            total += d
        }
        return samples
    }

    /// Ordinary least squares of latitude on longitude, turned a quarter where the points run north-south.
    static func fittedSegment(_ points: [Coordinate]) -> (Coordinate, Coordinate) {
        let lats = points.map(\.latitude), lons = points.map(\.longitude)
        let steep = (lats.max()! - lats.min()!) > 2 * (lons.max()! - lons.min()!)
        // Turned: x = latitude, y = -longitude.
        let xs = steep ? lats : lons, ys = steep ? lons.map { -$0 } : lats
        let n = Double(points.count)
        let mx = xs.reduce(0, +) / n, my = ys.reduce(0, +) / n
        var sxx = 0.0, sxy = 0.0, syy = 0.0
        for (x, y) in zip(xs, ys) {
            sxx += (x - mx) * (x - mx)
            sxy += (x - mx) * (y - my)
            syy += (y - my) * (y - my)
        }
        guard sqrt(sxx / n) >= Double.ulpOfOne, sqrt(syy / n) >= Double.ulpOfOne else {
            return (points[0], points[points.count - 1])
        }
        let slope = sxy / sxx, intercept = my - slope * mx
        let x0 = xs.min()! - 0.00001, x1 = xs.max()! + 0.00001
        func unturned(_ x: Double) -> Coordinate {
            let y = slope * x + intercept
            return micro(steep ? Coordinate(latitude: x, longitude: -y) : Coordinate(latitude: y, longitude: x))
        }
        return (unturned(x0), unturned(x1))
    }

    // MARK: Shapes

    /// A road that starts with a short kink (a lane's offset) and then runs straight: read from after the kink.
    static func directOffset(_ c: [Coordinate], _ lengths: [Double], total: Double, straightIndex: Int,
                             straightLength: Double, lanes: Int) -> Coordinate? {
        let offset = max(1, straightIndex)
        guard offset + 1 < c.count else { return nil }
        let toOffset = lengths[1...offset].reduce(0, +)
        guard toOffset - 0.5 * Double(lanes) * laneWidth < laneWidth, total >= 16,
              total - max(straightLength, lengths[1]) >= 0.1 * total else { return nil }
        let end = (offset..<c.count).first { lengths[$0] >= 30 } ?? c.count - 1
        guard maxDeviation(c, offset..<(end + 1), from: c[offset], to: c[end]) < 0.5 * laneWidth else { return nil }
        return corrected(c[0], base: c[offset], head: c[offset + 1])
    }

    /// A road that bends one way, steadily, away from the chord of its first stretch.
    static func isCurve(_ c: [Coordinate], _ lengths: [Double], total: Double, width: Double) -> Bool {
        let n = c.count
        let first = Geo.osrmRulerBearing(from: c[0], to: c[1]), lastBearing = Geo.osrmRulerBearing(from: c[n - 2], to: c[n - 1])
        guard Geo.deviation(first, lastBearing) > 20 else { return false }
        let end = c[n - 1]
        if n > 3 {
            let side = isCounterClockwise(c[0], end, c[1])
            for i in 2...(n - 2) where isCounterClockwise(c[0], end, c[i]) != side { return false }
        }
        let deviations = (1..<n).map { Geo.osrmRulerDistance(c[$0], project(c[$0], c[0], end)) }
        var peak = n - 1, peakDeviation = 0.0
        if n == 3 {
            (peak, peakDeviation) = (1, deviations[0])
        } else if let drop = (1..<deviations.count).first(where: { deviations[$0] < deviations[$0 - 1] }) {
            guard deviations[drop...].indices.dropFirst().allSatisfy({ deviations[$0] <= deviations[$0 - 1] }) else {
                return false
            }
            (peak, peakDeviation) = (drop, deviations[drop - 1])
        }
        let toPeak = lengths[1...peak].reduce(0, +)
        if (toPeak <= 0.35 * total || peakDeviation < max(0.3 * width, 0.5 * laneWidth)) && total > 10 { return false }
        // Turn angles along the line (180 straight on): no zigzag, and no long straight part.
        let angles = (0..<(n - 2)).map { turnAngle(c[$0], c[$0 + 1], c[$0 + 2]) }
        var straight = max(0, lengths[1] - width)
        for k in angles.indices.dropFirst() {
            let before = angles[k - 1], here = angles[k], segment = lengths[min(k + 1, lengths.count - 1)]
            if abs(before - 180) > 25 && abs(here - 180) > 25 && (before < 180) != (here < 180) { return false }
            if abs(here - 180) < 5 {
                straight += segment
                if abs(before - 180) < 5 && straight > 0.3 * total { return false }
            } else {
                if straight > 0.3 * total { return false }
                straight = segment
            }
        }
        return total > 2 * width
    }

    static func isCounterClockwise(_ a: Coordinate, _ b: Coordinate, _ p: Coordinate) -> Bool {
        (b.longitude - a.longitude) * (p.latitude - a.latitude) - (b.latitude - a.latitude) * (p.longitude - a.longitude) > 0
    }

    /// The angle turned through at b going a → b → c, 180 for straight on, with latitudes as Mercator y.
    static func turnAngle(_ a: Coordinate, _ b: Coordinate, _ c: Coordinate) -> Double {
        func y(_ p: Coordinate) -> Double { log(tan(Double.pi / 4 + p.latitude * Double.pi / 360)) * 180 / Double.pi }
        let v1 = (a.longitude - b.longitude, y(a) - y(b)), v2 = (c.longitude - b.longitude, y(c) - y(b))
        let angle = (atan2(v2.1, v2.0) - atan2(v1.1, v1.0)) * 180 / Double.pi
        return (angle + 720).truncatingRemainder(dividingBy: 360)
    }
}
