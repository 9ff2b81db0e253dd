import Foundation
import Geocoding
import OSMReaderShim
import RoadGraph

/// An OSM file whose places libosmium could not read.
struct PlaceReadError: Error, CustomStringConvertible {
    var description: String
}

/// The places of an OSM file, read with libosmium (boundaries assembled into areas) for the place index.
extension PlaceIndexBuilder {
    public static func build(osmFile: String, databasePath: String) throws -> Statistics {
        let started = Date()
        var error = [CChar](repeating: 0, count: 512)
        guard let raw = wf_places_read(osmFile, &error, error.count) else {
            throw PlaceReadError(description: "cannot read places: \(String(cString: error))")
        }
        defer { wf_places_free(raw) }
        return try build(features: features(raw.pointee), areasSkipped: raw.pointee.areas_skipped != 0,
                         databasePath: databasePath, started: started)
    }

    static func features(_ d: wf_place_data) -> [PlaceIndexBuilder.Feature] {
        var cache = [String?](repeating: nil, count: d.string_count)
        func string(_ id: UInt32) -> String {
            if let s = cache[Int(id)] { return s }
            let s = String(cString: d.strings + Int(d.string_offsets[Int(id)]))
            cache[Int(id)] = s
            return s
        }
        func point(_ i: Int) -> Coordinate { Coordinate(fixedLatitude: d.point_lats[i], fixedLongitude: d.point_lons[i]) }
        var features: [PlaceIndexBuilder.Feature] = []
        features.reserveCapacity(d.feature_count)
        for f in 0..<d.feature_count {
            var tags: [String: String] = [:]
            for t in Int(d.feature_tag_offsets[f])..<Int(d.feature_tag_offsets[f + 1]) {
                tags[string(d.tags[t].key)] = string(d.tags[t].value)
            }
            let kind = Character(UnicodeScalar(UInt8(bitPattern: d.feature_kinds[f])))
            let pointRange = Int(d.feature_point_offsets[f])..<Int(d.feature_point_offsets[f + 1])
            var rings: [(outer: Bool, points: [Coordinate])] = []
            var ringStart = pointRange.lowerBound
            for r in Int(d.feature_ring_offsets[f])..<Int(d.feature_ring_offsets[f + 1]) {
                let end = Int(d.ring_ends[r])
                rings.append((d.ring_is_outer[r] == 1, (ringStart..<end).map(point)))
                ringStart = end
            }
            features.append(PlaceIndexBuilder.Feature(kind: kind, id: d.feature_ids[f], tags: tags,
                                    points: kind == "a" ? [] : pointRange.map(point),
                                    nodeIDs: kind == "w" && tags["addr:interpolation"] != nil
                                        ? pointRange.map { d.point_node_ids[$0] } : [],
                                    rings: rings))
        }
        return features
    }
}
