import RoadGraph
import RouteFormats
import Testing

@Suite struct PolylineTests {
    // Google's documented example (Encoded Polyline Algorithm Format).
    let points = [Coordinate(latitude: 38.5, longitude: -120.2), Coordinate(latitude: 40.7, longitude: -120.95),
                  Coordinate(latitude: 43.252, longitude: -126.453)]

    @Test func encodesGooglesExample() {
        #expect(Polyline.encode(points) == "_p~iF~ps|U_ulLnnqC_mqNvxq`@")
    }

    @Test func decodesGooglesExample() throws {
        let decoded = try #require(Polyline.decode("_p~iF~ps|U_ulLnnqC_mqNvxq`@"))
        #expect(decoded.count == 3)
        for (a, b) in zip(decoded, points) {
            #expect(abs(a.latitude - b.latitude) < 1e-9 && abs(a.longitude - b.longitude) < 1e-9)
        }
    }

    @Test func polyline6RoundTripsAtMicrodegrees() throws {
        let helsinki = [Coordinate(latitude: 60.169857, longitude: 24.938379), Coordinate(latitude: 60.170123, longitude: 24.941234)]
        let decoded = try #require(Polyline.decode(Polyline.encode(helsinki, precision: 6), precision: 6))
        for (a, b) in zip(decoded, helsinki) {
            #expect(abs(a.latitude - b.latitude) < 5e-7 && abs(a.longitude - b.longitude) < 5e-7)
        }
        #expect(Polyline.encode(helsinki, precision: 6) != Polyline.encode(helsinki, precision: 5))
    }

    @Test func rejectsMalformedInput() {
        #expect(Polyline.decode("_p~iF~ps|U_") == nil)
        #expect(Polyline.decode(" ") == nil)
    }

    /// Numbers are written digit by digit (two at a time, zero-padded in fractions) as the text of Swift's shortest
    /// form: integers of every length, and values of up to six decimals as the formats round them.
    @Test func numbersAreWrittenAsTheirShortestText() {
        var integers: [Int] = [0, Int.max, Int.min + 1]
        var power = 1
        for _ in 0..<18 {
            integers += [power - 1, power, power + 1, -power, 7 * power]
            power *= 10
        }
        var generator = SystemRandomNumberGenerator()
        integers += (0..<2_000).map { _ in Int.random(in: -10_000_000_000...10_000_000_000, using: &generator) }
        for n in integers {
            var out = JSONWriter()
            out.number(n)
            #expect(String(decoding: out.bytes(), as: UTF8.self) == String(n))
        }
        let doubles: [Double] = [0.5, 0.05, 0.000001, 1.000001, 123.4, -0.000125, 24.938379, 60.1, 999_999_999.999999, 1e9, 1e20, 0.1 + 0.2]
            + (0..<4_000).map { k in (Double.random(in: -200...200, using: &generator) * 1e6).rounded() / [1e6, 1e5, 1e3, 10][k % 4] }
        for x in doubles {
            let text = JSON.number(x).serialized()
            // Below 10⁻⁴ Swift's text has an exponent; the writer keeps to decimals, the same number.
            if x == 0 || abs(x) >= 1e-4 {
                #expect(text == JSON.format(x), "\(x)")
            } else {
                #expect(Double(text) == x && !text.contains("e"), "\(x): \(text)")
            }
        }
    }

    /// Rounding to a number of decimals while writing gives the text of the rounded number: coordinates, times and
    /// distances of every size and sign, halves, values near 10⁹ and beyond, and what is not a number.
    @Test func roundedNumbersAreWrittenAsTheRoundedValue() {
        var generator = SystemRandomNumberGenerator()
        var values: [Double] = [0, -0.0, 0.5, -0.5, 0.05, 0.15, 2.5, -2.5, 1e-7, -4e-7, 0.0000005, -0.0000005, 41.1491375,
                                -8.6094875, 999_999_999.95, 999_999_999.9999996, 1e9, -1e9, 1e15, 1e20, .nan, .infinity,
                                -.infinity, 0.1 + 0.2, 1234.5678]
        values += (0..<3_000).map { k in
            let magnitude = [1e-6, 1e-2, 1, 200, 1e5, 1e9][k % 6]
            return Double.random(in: -magnitude...magnitude, using: &generator)
        }
        for x in values {
            for decimals in [0, 1, 2, 5, 6, 7] {
                var out = JSONWriter()
                out.number(x, decimals: decimals)
                #expect(String(decoding: out.bytes(), as: UTF8.self) == JSON.number(x, decimals: decimals).serialized(),
                        "\(x) to \(decimals) decimals")
            }
        }
    }

    /// The encoder rounds each scaled coordinate as `rounded()` does (halves away from zero), at both precisions:
    /// halves, their neighbours one bit either side, and random points of every sign.
    @Test func encodedCoordinatesAreRoundedHalfAwayFromZero() throws {
        var generator = SystemRandomNumberGenerator()
        for precision in [5, 6] {
            let factor = precision == 6 ? 1e6 : 1e5
            var values: [Double] = [0, -0.0, 89.99999, -179.999995]
            for n in [0.0, 1, 2, 41, 4_114_913, -1, -2, -860_948, 17_999_999] {
                let half = (n + (n < 0 ? -0.5 : 0.5)) / factor
                values += [half, half.nextUp, half.nextDown]
            }
            values += (0..<2_000).map { _ in Double.random(in: -90...90, using: &generator) }
            let points = stride(from: 0, to: values.count - 1, by: 1).map {
                Coordinate(latitude: values[$0], longitude: values[$0 + 1])
            }
            let decoded = try #require(Polyline.decode(Polyline.encode(points, precision: precision), precision: precision))
            #expect(decoded.count == points.count)
            for (point, back) in zip(points, decoded) {
                let expected = (Int((point.latitude * factor).rounded()), Int((point.longitude * factor).rounded()))
                let got = (Int((back.latitude * factor).rounded()), Int((back.longitude * factor).rounded()))
                #expect(got == expected, "\(point) at precision \(precision)")
            }
        }
    }
}
