import Foundation
import RoadGraph

/// House numbers along `addr:interpolation` lines: between two addressed nodes of a line, the numbers the scheme
/// allows (odd, even, all, a step such as "3", or alphabetic suffixes), spaced evenly by length along the line.
enum AddressInterpolation {
    /// More numbers than this between two nodes is a tagging mistake, not a street.
    static let maximumPerSegment = 500

    static func expand(lines: [PlaceIndexBuilder.Feature], features: [PlaceIndexBuilder.Feature],
                       known: Set<String>, streets: NearestStreet) -> [PlaceEntry]
    {
        guard !lines.isEmpty else { return [] }
        var anchors: [Int64: [String: String]] = [:]
        for feature in features where feature.kind == "n" && feature.tags["addr:housenumber"] != nil {
            anchors[feature.id] = feature.tags
        }
        // A number mapped on its own (`known`: street and number keys) wins over the interpolated one.
        var known = known
        var entries: [PlaceEntry] = []
        for line in lines {
            let scheme = line.tags["addr:interpolation"] ?? "all"
            let stops = line.nodeIDs.indices.filter { anchors[line.nodeIDs[$0]] != nil }
            for (from, to) in zip(stops, stops.dropFirst()) {
                let a = anchors[line.nodeIDs[from]]!, b = anchors[line.nodeIDs[to]]!
                let numbers = between(a["addr:housenumber"]!, b["addr:housenumber"]!, scheme: scheme)
                guard !numbers.isEmpty else { continue }
                var tags: [String: String] = [:]
                for field in ["addr:street", "addr:place", "addr:postcode", "addr:city"] {
                    if let value = line.tags[field] ?? a[field] ?? b[field] { tags[field] = value }
                }
                let path = Array(line.points[from...to])
                guard let street = tags["addr:street"] ?? tags["addr:place"]
                    ?? streets.name(near: position(along: path, fraction: 0.5)) else { continue }
                let inferred = tags["addr:street"] == nil && tags["addr:place"] == nil
                if inferred { tags["addr:street"] = street }
                for (housenumber, fraction) in numbers where !known.contains(key(street, housenumber)) {
                    tags["addr:housenumber"] = housenumber
                    let point = position(along: path, fraction: fraction)
                    let feature = PlaceIndexBuilder.Feature(kind: "w", id: line.id, tags: tags, points: [point], rings: [])
                    guard var entry = PlaceEntry(feature: feature) else { continue }
                    entry.category = "addr:interpolation"
                    entry.importance = 0.05
                    entry.streetInferred = inferred
                    entries.append(entry)
                    known.insert(key(street, housenumber))
                }
            }
        }
        return entries
    }

    static func key(_ street: String, _ housenumber: String) -> String {
        TextNormalizer.fold(street) + "\u{1}" + TextNormalizer.fold(housenumber)
    }

    /// The numbers strictly between two house numbers, each with its fraction of the way from the first.
    static func between(_ first: String, _ last: String, scheme: String) -> [(String, Double)] {
        let a = split(first), b = split(last)
        guard let start = a.number, let end = b.number else { return [] }
        if scheme == "alphabetic" {
            // "12a" … "12e": the letters between, on one number.
            guard start == end, let x = a.suffix.unicodeScalars.first?.value, let y = b.suffix.unicodeScalars.first?.value,
                  a.suffix.count == 1, b.suffix.count == 1, x != y, abs(Int(y) - Int(x)) <= 26 else { return [] }
            let step = y > x ? 1 : -1
            let count = abs(Int(y) - Int(x))
            return (1..<count).compactMap { k in
                UnicodeScalar(Int(x) + step * k).map { ("\(start)\(Character($0))", Double(k) / Double(count)) }
            }
        }
        let step: Int
        switch scheme {
        case "odd", "even": step = 2
        case "all": step = 1
        default:
            guard let n = Int(scheme), n > 0 else { return [] }
            step = n
        }
        guard start != end, abs(end - start) <= maximumPerSegment * step else { return [] }
        let direction = end > start ? 1 : -1
        // Odd/even go by parity, so that ends which disagree with the scheme (a data error) still give its numbers.
        return stride(from: start + direction, to: end, by: direction).compactMap { n in
            let wanted: Bool
            switch scheme {
            case "odd": wanted = n % 2 != 0
            case "even": wanted = n % 2 == 0
            default: wanted = (n - start) % step == 0
            }
            return wanted ? (String(n), Double(n - start) / Double(end - start)) : nil
        }
    }

    /// "12a" → (12, "a"); "12" → (12, ""); "a" → (nil, …).
    static func split(_ housenumber: String) -> (number: Int?, suffix: String) {
        let trimmed = housenumber.trimmingCharacters(in: .whitespaces)
        let digits = trimmed.prefix { $0.isASCII && $0.isNumber }
        let suffix = trimmed.dropFirst(digits.count).trimmingCharacters(in: .whitespaces).lowercased()
        return (Int(digits), suffix)
    }

    /// The point a fraction of the way along a polyline, by length.
    static func position(along path: [Coordinate], fraction: Double) -> Coordinate {
        guard path.count > 1 else { return path.first ?? Coordinate(latitude: 0, longitude: 0) }
        let lengths = zip(path, path.dropFirst()).map { Geo.distance($0, $1) }
        var remaining = lengths.reduce(0, +) * fraction
        for (i, length) in lengths.enumerated() {
            if remaining <= length || i == lengths.count - 1 {
                let t = length > 0 ? min(1, remaining / length) : 0
                return Coordinate(latitude: path[i].latitude + (path[i + 1].latitude - path[i].latitude) * t,
                                  longitude: path[i].longitude + (path[i + 1].longitude - path[i].longitude) * t)
            }
            remaining -= length
        }
        return path[path.count - 1]
    }
}
