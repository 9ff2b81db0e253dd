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
}
