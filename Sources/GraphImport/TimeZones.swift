import Foundation
import RoadGraph

/// Where an import learns the extract's time zone, for `depart_at` and conditional tags: a name, or a GeoJSON file
/// of time-zone boundaries as OSRM takes it (`osrm-contract --time-zone-file`: polygons with a `tzid` property).
public enum TimeZoneChoice: Sendable, Equatable {
    case named(String)
    case boundaries(path: String)

    /// The IANA name for an extract centred at `point`.
    func name(at point: Coordinate) throws -> String {
        switch self {
        case .named(let name):
            try check()
            return name
        case .boundaries(let path):
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ImportError.invalidOption("cannot read the time zone file \(path)")
            }
            guard let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                  let features = json["features"] as? [[String: Any]] else {
                throw ImportError.invalidOption("\(path) is not a GeoJSON FeatureCollection")
            }
            for feature in features {
                let properties = feature["properties"] as? [String: Any]
                guard let name = (properties?["tzid"] ?? properties?["TZID"]) as? String,
                      let geometry = feature["geometry"] as? [String: Any],
                      let coordinates = geometry["coordinates"] as? [Any] else { continue }
                // OSRM reads Polygons only; a MultiPolygon (how many real boundary files give a zone) counts too.
                let polygons = geometry["type"] as? String == "MultiPolygon" ? coordinates : [coordinates]
                for rings in polygons.compactMap({ Self.rings($0) }) where Self.contains(rings, point) {
                    guard TimeZone(identifier: name) != nil else {
                        throw ImportError.invalidOption("\(path) names an unknown time zone '\(name)'")
                    }
                    return name
                }
            }
            throw ImportError.invalidOption(
                "no time zone in \(path) contains the extract's centre (\(point.latitude),\(point.longitude))")
        }
    }

    /// What can be checked before the extract is read: a name is known, a file is there.
    public func check() throws {
        switch self {
        case .named(let name):
            guard TimeZone(identifier: name) != nil else {
                throw ImportError.invalidOption("unknown time zone '\(name)': give an IANA name such as Europe/Lisbon")
            }
        case .boundaries(let path):
            guard FileManager.default.isReadableFile(atPath: path) else {
                throw ImportError.invalidOption("cannot read the time zone file \(path)")
            }
        }
    }

    private static func rings(_ polygon: Any) -> [[[Double]]]? {
        (polygon as? [Any])?.compactMap { ($0 as? [Any])?.compactMap { ($0 as? [Any])?.compactMap { ($0 as? NSNumber)?.doubleValue } } }
    }

    /// Even-odd rule over the outer ring and its holes, GeoJSON's [lon, lat] order.
    private static func contains(_ rings: [[[Double]]], _ p: Coordinate) -> Bool {
        var inside = false
        for ring in rings where ring.count >= 3 && ring.allSatisfy({ $0.count >= 2 }) {
            var j = ring.count - 1
            for i in ring.indices {
                let (xi, yi, xj, yj) = (ring[i][0], ring[i][1], ring[j][0], ring[j][1])
                if (yi > p.latitude) != (yj > p.latitude) && p.longitude < (xj - xi) * (p.latitude - yi) / (yj - yi) + xi {
                    inside.toggle()
                }
                j = i
            }
        }
        return inside
    }
}
