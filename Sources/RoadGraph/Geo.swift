import Foundation

/// A WGS84 position in degrees.
public struct Coordinate: Equatable, Sendable, CustomStringConvertible {
    public var latitude: Double
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// From OSM's fixed-point representation (1e-7 degrees), divided as libosmium divides it: OSRM rounds that
    /// double to millionths, and a product with 1e-7 can fall an ulp to the other side of a tie (`Geo.micro`).
    @inlinable
    public init(fixedLatitude: Int32, fixedLongitude: Int32) {
        latitude = Double(fixedLatitude) / 1e7
        longitude = Double(fixedLongitude) / 1e7
    }

    public var isValid: Bool {
        latitude.isFinite && longitude.isFinite && abs(latitude) <= 90 && abs(longitude) <= 180
    }

    public var description: String { String(format: "%.6f,%.6f", latitude, longitude) }
}

public enum Geo {
    /// Douglas–Peucker: the points of `line` that deviate more than `tolerance` metres from the simplified line,
    /// the ends always kept.
    public static func douglasPeucker(_ line: [Coordinate], tolerance: Double) -> [Coordinate] {
        guard line.count > 2 else { return line }
        var keep = [Bool](repeating: false, count: line.count)
        keep[0] = true
        keep[line.count - 1] = true
        var stack = [(0, line.count - 1)]
        while let (first, last) = stack.popLast() {
            guard last > first + 1 else { continue }
            var farthest = first, distance = 0.0
            for i in (first + 1)..<last {
                let (_, projected) = project(line[i], ontoSegmentFrom: line[first], to: line[last])
                let d = Geo.distance(line[i], projected)
                if d > distance { distance = d; farthest = i }
            }
            if distance > tolerance {
                keep[farthest] = true
                stack.append((first, farthest))
                stack.append((farthest, last))
            }
        }
        return line.indices.filter { keep[$0] }.map { line[$0] }
    }

    /// Area of a polygon (outer ring, then holes), square metres: rings projected around their first point, so
    /// exact enough for a city-sized contour.
    public static func polygonArea(_ rings: [[Coordinate]]) -> Double {
        guard let origin = rings.first?.first else { return 0 }
        let toRadians = Double.pi / 180, radius = 6_371_008.8
        let kx = cos(origin.latitude * toRadians) * radius * toRadians, ky = radius * toRadians
        func area(_ ring: [Coordinate]) -> Double {
            var sum = 0.0
            for i in 0..<max(0, ring.count - 1) {
                let x0 = (ring[i].longitude - origin.longitude) * kx, y0 = (ring[i].latitude - origin.latitude) * ky
                let x1 = (ring[i + 1].longitude - origin.longitude) * kx, y1 = (ring[i + 1].latitude - origin.latitude) * ky
                sum += x0 * y1 - x1 * y0
            }
            return abs(sum) / 2
        }
        return rings.enumerated().reduce(0) { $0 + ($1.offset == 0 ? area($1.element) : -area($1.element)) }
    }

    /// Mean Earth radius (IUGG), metres.
    public static let earthRadius = 6_371_008.8

    /// A coordinate in whole millionths of a degree, as OSRM holds it: the degrees times a million, rounded. OSM's
    /// seven decimals that end in 5 are ties only on paper: OSRM rounds the double libosmium divides out
    /// (`Coordinate(fixedLatitude:fixedLongitude:)`), 41.1668225 to 41166823 and -8.3859605 to -8385960, and a
    /// 121.88 m segment measured 2.5 cm apart is 6.7 s or 6.8 s.
    @inlinable public static func micro(_ degrees: Double) -> Double {
        (degrees * 1e6).rounded()
    }

    /// OSRM's distance, for its segment lengths and its table fallback alike: the WGS84 "cheap ruler" at the
    /// centre of the 0.05° band of latitude the two points' midpoint lies in, on coordinates held to
    /// micro-degrees. Route lengths and travel times use it, so that the same path measures as in OSRM.
    /// Each coordinate is turned into degrees before the two are subtracted, as OSRM does: two offsets of the
    /// same micro-degrees then measure apart in the last bit, and OSRM's shape tests compare such lengths
    /// (a curve whose two points lie equally far off its chord).
    @inlinable
    public static func osrmRulerDistance(_ a: Coordinate, _ b: Coordinate) -> Double {
        let (kx, ky) = rulerScale(a, b)
        let dx = (micro(a.longitude) / 1e6 - micro(b.longitude) / 1e6) * kx
        let dy = (micro(a.latitude) / 1e6 - micro(b.latitude) / 1e6) * ky
        return (dx * dx + dy * dy).squareRoot()
    }

    /// OSRM's bearing, degrees 0..<360: the same ruler's, atan2 of the east and north metres between the points
    /// held to micro-degrees. It differs from the sphere's initial bearing by up to a tenth of a degree (at 45°
    /// in Porto), and OSRM prices a turn by its angle to the tenth of a second.
    @inlinable
    public static func osrmRulerBearing(from a: Coordinate, to b: Coordinate) -> Double {
        let (kx, ky) = rulerScale(a, b)
        let dx = remainder(micro(b.longitude) / 1e6 - micro(a.longitude) / 1e6, 360) * kx
        let dy = (micro(b.latitude) / 1e6 - micro(a.latitude) / 1e6) * ky
        let degrees = atan2(dx, dy) * 180 / Double.pi
        return degrees < 0 ? degrees + 360 : degrees
    }

    /// The ruler's metres per degree east and north for two points: at the centre of the band their midpoint's
    /// latitude lies in.
    @inlinable static func rulerScale(_ a: Coordinate, _ b: Coordinate) -> (kx: Double, ky: Double) {
        let middle = (Int(micro(a.latitude)) + Int(micro(b.latitude))) / 2
        return rulerScales[min(rulerScales.count - 1, (abs(middle) - 1) / rulerBand)]
    }

    /// The width of the ruler's bands of latitude, micro-degrees: 90° in 1800 bands.
    @usableFromInline static let rulerBand = 50_000

    /// The ruler's metres per degree east and north at each band's centre, worked out once, since every
    /// segment of every route end and import is measured with them.
    @usableFromInline static let rulerScales: [(kx: Double, ky: Double)] = (0..<1800).map { index in
        // In the order OSRM's ruler computes them (kilometres, then metres): a bit apart decides ties.
        let radian = Double.pi / 180, flattening = 1 / 298.257223563
        let e2 = flattening * (2 - flattening)
        let bandLatitude = Double(rulerBand) * (Double(index) + 0.5) / 1e6
        let c = cos(bandLatitude * radian)
        let w2 = 1 / (1 - e2 * (1 - c * c)), w = w2.squareRoot()
        let metresPerDegree = radian * 6378.137 * 1000
        return (metresPerDegree * w * c, metresPerDegree * w * w2 * (1 - e2))
    }

    /// Where OSRM places a point along a segment, 0...1 from `a`: the projection in web Mercator of coordinates
    /// rounded to millionths of a degree, as OSRM holds them. OSRM splits a segment's time at a route's end by it.
    public static func osrmRatio(of point: Coordinate, alongSegmentFrom a: Coordinate, to b: Coordinate) -> Double {
        osrmProjection(of: osrmMercator(point), ontoSegmentFrom: osrmMercator(a), to: osrmMercator(b)).ratio
    }

    /// Where OSRM puts a point snapped onto a segment (its waypoint's `location`, and where its route's line begins
    /// or ends): the projection's foot in OSRM's web Mercator, taken back to degrees by the exact inverse and
    /// rounded to millionths. The approximant there and the exact formula back do not quite meet, so a point on the
    /// road can come back a millionth of a degree (11 cm) away from itself, as it does in OSRM.
    public static func osrmSnappedLocation(of point: Coordinate, onSegmentFrom a: Coordinate, to b: Coordinate) -> Coordinate {
        let foot = osrmProjection(of: osrmMercator(point), ontoSegmentFrom: osrmMercator(a), to: osrmMercator(b)).point
        return Coordinate(latitude: micro(osrmLatitude(mercatorY: foot.y)) / 1e6, longitude: micro(foot.x) / 1e6)
    }

    /// OSRM's way back from a Mercator y (degrees) to a latitude: the exact inverse, clamped where Mercator ends.
    static func osrmLatitude(mercatorY y: Double) -> Double {
        1 / osrmRadiansPerDegree * 2 * atan(exp(max(-180, min(180, y)) * osrmRadiansPerDegree)) - 90
    }

    /// OSRM's degree in radians, to its last digit (its Mercator's arithmetic, bit for bit).
    static let osrmRadiansPerDegree = 0.017453292519943295769236907684886

    /// How OSRM ranks a segment as the nearest to a point: the squared distance from the point to its projection on
    /// the segment, in web Mercator, both rounded to whole millionths of a degree (OSRM's R-tree). It differs from
    /// the metres between them by the rounding (a few centimetres) and by Mercator's scale across the distance, so
    /// where two roads are nearly as near it may choose the other (a point 30 m from a bend, 1 cm nearer one
    /// segment than the node where the next begins: OSRM takes the node).
    public static func osrmNearnessRank(of point: Coordinate, onSegmentFrom a: Coordinate, to b: Coordinate) -> Int64 {
        let p = osrmMercator(point)
        let foot = osrmProjection(of: p, ontoSegmentFrom: osrmMercator(a), to: osrmMercator(b)).point
        let dx = Int64((p.x * 1e6).rounded()) - Int64((foot.x * 1e6).rounded())
        let dy = Int64((p.y * 1e6).rounded()) - Int64((foot.y * 1e6).rounded())
        return dx * dx + dy * dy
    }

    /// A coordinate held as OSRM holds it (millionths of a degree), in its web Mercator: longitude, and the
    /// latitude's Mercator y in degrees.
    static func osrmMercator(_ c: Coordinate) -> (x: Double, y: Double) {
        (micro(c.longitude) / 1e6, osrmMercatorY(micro(c.latitude) / 1e6))
    }

    /// OSRM's Mercator y of a latitude, degrees: a Padé approximant within ±70°, the formula beyond (clamped where
    /// Mercator ends), in OSRM's order of operations.
    static func osrmMercatorY(_ latitude: Double) -> Double {
        guard abs(latitude) <= 70 else {
            let clamped = max(-85.051128779806592378, min(85.051128779806592378, latitude))
            let f = sin(osrmRadiansPerDegree * clamped)
            return 1 / osrmRadiansPerDegree * 0.5 * log((1 + f) / (1 - f))
        }
        func horner(_ coefficients: [Double]) -> Double {
            var value = coefficients[coefficients.count - 1]
            for c in coefficients.dropLast().reversed() { value = value * latitude + c }
            return value
        }
        return horner(mercatorNumerator) / horner(mercatorDenominator)
    }

    /// The approximant's coefficients, lowest power first.
    static let mercatorNumerator: [Double] = [
        0, 1.00000000000089108431373566e+00, 2.34439410386997223035693483e-06, -3.21291701673364717170998957e-04,
        -6.62778508496089940141103135e-10, 3.68188055470304769936079078e-08, 6.31192702320492485752941578e-14,
        -1.77274453235716299127325443e-12, -2.24563810831776747318521450e-18, 3.13524754818073129982475171e-17,
        2.09014225025314211415458228e-23, -9.82938075991732185095509716e-23,
    ]
    static let mercatorDenominator: [Double] = [
        1, 2.34439410398970701719081061e-06, -3.72061271627251952928813333e-04, -7.81802389685429267252612620e-10,
        5.18418724186576447072888605e-08, 9.37468561198098681003717477e-14, -3.30833288607921773936702558e-12,
        -4.78446279888774903983338274e-18, 9.32999229169156878168234191e-17, 9.17695141954265959600965170e-23,
        -8.72130728982012387640166055e-22, -3.23083224835967391884404730e-28,
    ]

    /// A point's projection onto a segment in a plane, clamped to the segment, as OSRM works it out.
    static func osrmProjection(of p: (x: Double, y: Double), ontoSegmentFrom s: (x: Double, y: Double),
                               to t: (x: Double, y: Double)) -> (ratio: Double, point: (x: Double, y: Double)) {
        let (dx, dy) = (t.x - s.x, t.y - s.y)
        let squared = dx * dx + dy * dy
        guard squared >= .ulpOfOne else { return (0, s) }
        let ratio = min(1, max(0, ((p.x - s.x) * dx + (p.y - s.y) * dy) / squared))
        return (ratio, ((1 - ratio) * s.x + t.x * ratio, (1 - ratio) * s.y + t.y * ratio))
    }

    /// Great-circle distance in metres. A metric, so it never exceeds the length of any path between the points:
    /// that is what makes the A* heuristic admissible.
    @inlinable
    public static func distance(_ a: Coordinate, _ b: Coordinate) -> Double {
        distance(a, b, cosLatitudeA: cos(a.latitude * (Double.pi / 180)))
    }

    /// `distance` with the cosine of `a`'s latitude worked out by the caller (the same for every candidate when
    /// snapping one point: trigonometry was a fifth of a route request).
    @inlinable
    public static func distance(_ a: Coordinate, _ b: Coordinate, cosLatitudeA: Double) -> Double {
        distance(a, b, cosLatitudeA: cosLatitudeA, cosLatitudeB: cos(b.latitude * (Double.pi / 180)))
    }

    /// `distance` with both cosines from the caller: along a line each point's is worked out once, not twice.
    @inlinable
    public static func distance(_ a: Coordinate, _ b: Coordinate, cosLatitudeA: Double, cosLatitudeB: Double) -> Double {
        let toRadians = Double.pi / 180
        let dLat = (b.latitude - a.latitude) * toRadians
        let dLon = (b.longitude - a.longitude) * toRadians
        let sinLat = sin(dLat / 2), sinLon = sin(dLon / 2)
        let h = sinLat * sinLat + cosLatitudeA * cosLatitudeB * sinLon * sinLon
        return 2 * earthRadius * asin(min(1, h.squareRoot()))
    }

    /// At most `distance(a, b, cosLatitudeA:)`, without trigonometry, and within a few millionths of it for points
    /// less than 100 km apart: for skipping candidates that cannot be nearer than one already found. It bounds each
    /// term of the haversine from below (sin t ≥ t − t³/6 for t ≥ 0; cos φb ≥ cos φa − |Δφ|; asin s ≥ s), and
    /// gives up a billionth more than any rounding of either computation could.
    @inlinable
    public static func distanceLowerBound(_ a: Coordinate, _ b: Coordinate, cosLatitudeA: Double) -> Double {
        let toRadians = Double.pi / 180
        let y = abs(b.latitude - a.latitude) * toRadians / 2, x = abs(b.longitude - a.longitude) * toRadians / 2
        let sinY = max(0, y - y * y * y / 6), sinX = max(0, x - x * x * x / 6)
        let cosLatitudeB = max(0, cosLatitudeA - 2 * y)
        let h = sinY * sinY + cosLatitudeA * cosLatitudeB * sinX * sinX
        return 2 * earthRadius * min(1, h).squareRoot() * (1 - 1e-9)
    }

    /// The cosine of a point's latitude, as `distance` takes it.
    @inlinable
    public static func cosLatitude(_ c: Coordinate) -> Double { cos(c.latitude * (Double.pi / 180)) }

    /// The bearing from one end of a line into it (degrees): towards the point `lookahead` metres along it (the
    /// line's far end if it is shorter), or with no lookahead towards the first point that differs from the end,
    /// so a repeated point at a junction does not decide it. A lookahead gives the bearing a person perceives
    /// rather than that of the first metre of drawing. `point(k)` gives the line's points over `range`. The one
    /// bearing function: the importer's turn costs and guidance both use it.
    public static func bearing(intoLine range: Range<Int>, fromLast: Bool, lookahead: Double = 0,
                               point: (Int) -> Coordinate) -> Double {
        let origin = fromLast ? range.upperBound - 1 : range.lowerBound
        let step = fromLast ? -1 : 1
        let end = fromLast ? range.lowerBound : range.upperBound - 1
        let start = point(origin)
        var k = origin + step
        while k != end && point(k) == start { k += step }
        guard lookahead > 0 else { return bearing(from: start, to: point(k)) }
        var walked = 0.0
        let startCos = cosLatitude(start)
        var previous = start, previousCos = startCos
        var i = origin + step
        while true {
            let here = point(i)
            let hereCos = cosLatitude(here)
            let d = distance(previous, here, cosLatitudeA: previousCos, cosLatitudeB: hereCos)
            if walked + d >= lookahead && d > 0 {
                let t = (lookahead - walked) / d
                let target = Coordinate(latitude: previous.latitude + (here.latitude - previous.latitude) * t,
                                        longitude: previous.longitude + (here.longitude - previous.longitude) * t)
                return target == start ? bearing(from: start, to: point(k))
                    : bearing(from: start, to: target, cosLatitudeA: startCos)
            }
            walked += d
            (previous, previousCos) = (here, hereCos)
            if i == end { break }
            i += step
        }
        return previous == start ? bearing(from: start, to: point(k))
            : bearing(from: start, to: previous, cosLatitudeA: startCos)
    }

    /// OSRM's angle between the bearing of travel arriving at a junction and the bearing of a road leaving it, on
    /// its turn circle: 180 straight on, 90 to the right, 0 back.
    @inlinable public static func osrmAngleBetween(_ arriving: Double, _ leaving: Double) -> Double {
        fmod(arriving - leaving + 540, 360)
    }

    /// `osrmAngleBetween` held to 1e-8 degrees, as OSRM holds a turn's angle.
    @inlinable public static func osrmTurnAngle(_ arriving: Double, _ leaving: Double) -> Double {
        fmod((osrmAngleBetween(arriving, leaving) * 1e8).rounded() / 1e8, 360)
    }

    /// The smallest difference between two bearings or angles, 0...180.
    public static func deviation(_ a: Double, _ b: Double) -> Double {
        let d = remainder360(abs(a - b))
        return min(d, 360 - d)
    }

    /// Initial bearing from `a` to `b`, degrees clockwise from north in [0, 360).

    public static func bearing(from a: Coordinate, to b: Coordinate) -> Double {
        bearing(from: a, to: b, cosLatitudeA: cosLatitude(a))
    }

    /// `bearing` with the cosine of `a`'s latitude from the caller (as `distance` takes it: the same number).
    @inlinable
    public static func bearing(from a: Coordinate, to b: Coordinate, cosLatitudeA: Double) -> Double {
        let toRadians = Double.pi / 180
        let lat1 = a.latitude * toRadians, lat2 = b.latitude * toRadians
        let dLon = (b.longitude - a.longitude) * toRadians
        let y = sin(dLon) * cos(lat2)
        let x = cosLatitudeA * sin(lat2) - sin(lat1) * cos(lat2) * cos(dLon)
        let degrees = atan2(y, x) * 180 / Double.pi
        return remainder360(degrees + 360)
    }

    /// `x.truncatingRemainder(dividingBy: 360)`, the same number, without a call to `fmod` for the angles guidance
    /// sums (0 up to 1080): there `x - 360` and `x - 720` are exact, as `fmod` is.
    @inlinable
    public static func remainder360(_ x: Double) -> Double {
        if x >= 0 && x < 360 { return x }
        if x >= 360 && x < 720 { return x - 360 }
        if x >= 720 && x < 1080 { return x - 720 }
        return x.truncatingRemainder(dividingBy: 360)
    }

    /// Metres from `point` to the line through `line`'s points, its first and last segments drawn on straight
    /// beyond its ends (to the one point where all are one). Local equirectangular, as `project`.
    public static func distance(from point: Coordinate, toLineExtended line: [Coordinate]) -> Double {
        guard let first = line.first else { return .infinity }
        let scale = cos(point.latitude * Double.pi / 180), metresPerDegree = earthRadius * Double.pi / 180
        var nearest = Double.infinity
        for i in line.indices.dropLast() {
            let ax = (line[i].longitude - point.longitude) * scale, ay = line[i].latitude - point.latitude
            let dx = (line[i + 1].longitude - line[i].longitude) * scale, dy = line[i + 1].latitude - line[i].latitude
            let lengthSquared = dx * dx + dy * dy
            guard lengthSquared > 0 else { continue }
            var t = -(ax * dx + ay * dy) / lengthSquared
            if i > 0 { t = max(0, t) }
            if i + 2 < line.count { t = min(1, t) }
            nearest = min(nearest, ((ax + t * dx) * (ax + t * dx) + (ay + t * dy) * (ay + t * dy)).squareRoot() * metresPerDegree)
        }
        return nearest.isFinite ? nearest : Geo.distance(point, first)
    }

    /// Where `point` projects onto the segment `a`–`b`: the fraction along it (0...1) and the projected position.
    /// A local equirectangular projection is exact enough at road-segment scale.
    @inlinable
    public static func project(_ point: Coordinate, ontoSegmentFrom a: Coordinate, to b: Coordinate)
        -> (fraction: Double, position: Coordinate)
    {
        project(point, ontoSegmentFrom: a, to: b, cosLatitude: cos(point.latitude * Double.pi / 180))
    }

    /// `project` with the cosine of the point's latitude worked out by the caller.
    @inlinable
    public static func project(_ point: Coordinate, ontoSegmentFrom a: Coordinate, to b: Coordinate, cosLatitude scale: Double)
        -> (fraction: Double, position: Coordinate)
    {
        let ax = (a.longitude - point.longitude) * scale, ay = a.latitude - point.latitude
        let bx = (b.longitude - point.longitude) * scale, by = b.latitude - point.latitude
        let dx = bx - ax, dy = by - ay
        let lengthSquared = dx * dx + dy * dy
        var t = lengthSquared > 0 ? -(ax * dx + ay * dy) / lengthSquared : 0
        t = min(1, max(0, t))
        return (t, Coordinate(latitude: a.latitude + (b.latitude - a.latitude) * t,
                              longitude: a.longitude + (b.longitude - a.longitude) * t))
    }
}

/// A latitude/longitude box.
public struct BoundingBox: Equatable, Sendable {
    public var minLatitude: Double, minLongitude: Double, maxLatitude: Double, maxLongitude: Double

    public init(minLatitude: Double, minLongitude: Double, maxLatitude: Double, maxLongitude: Double) {
        self.minLatitude = minLatitude
        self.minLongitude = minLongitude
        self.maxLatitude = maxLatitude
        self.maxLongitude = maxLongitude
    }

    public static let empty = BoundingBox(minLatitude: .infinity, minLongitude: .infinity,
                                          maxLatitude: -.infinity, maxLongitude: -.infinity)

    public var isEmpty: Bool { minLatitude > maxLatitude }

    public mutating func extend(_ c: Coordinate) {
        minLatitude = min(minLatitude, c.latitude)
        maxLatitude = max(maxLatitude, c.latitude)
        minLongitude = min(minLongitude, c.longitude)
        maxLongitude = max(maxLongitude, c.longitude)
    }

    public func contains(_ c: Coordinate) -> Bool {
        c.latitude >= minLatitude && c.latitude <= maxLatitude && c.longitude >= minLongitude
            && c.longitude <= maxLongitude
    }
}

/// A value shared between threads behind a lock.
public final class Locked<T>: @unchecked Sendable {
    private var stored: T
    private let lock = NSLock()
    public init(_ value: T) { stored = value }
    public var value: T { lock.lock(); defer { lock.unlock() }; return stored }
    public func mutate(_ body: (inout T) -> Void) { lock.lock(); defer { lock.unlock() }; body(&stored) }
}
