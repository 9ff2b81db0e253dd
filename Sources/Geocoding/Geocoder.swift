import Foundation
import RoadGraph

/// A geocoding result with the fields of a maps SDK's placemark.
public struct Placemark: Sendable {
    public var name: String
    public var kind: String  // place, street, address, poi, area
    public var category: String  // the OSM tag that made it one, e.g. amenity=school
    public var coordinate: Coordinate
    public var bounds: BoundingBox
    public var thoroughfare: String  // street
    public var subThoroughfare: String  // house number
    public var postalCode: String
    public var locality: String
    public var subLocality: String
    public var administrativeArea: String
    public var subAdministrativeArea: String
    public var country: String
    public var isoCountryCode: String
    public var osmType: String
    public var osmID: Int64
    /// Metres from the reference point (reverse geocoding, `near`, local search).
    public var distance: Double?
    /// Degrees clockwise from north, from the reference point.
    public var bearing: Double?
    public var score = 0.0

    /// "Street 5, Locality" — the line under a map pin's title.
    public var subtitle: String {
        var parts: [String] = []
        let street = [thoroughfare, subThoroughfare].filter { !$0.isEmpty }.joined(separator: " ")
        if !street.isEmpty && street != name { parts.append(street) }
        for part in [subLocality, locality, country] where !part.isEmpty && part != name && !parts.contains(part) { parts.append(part) }
        return parts.joined(separator: ", ")
    }
}

public enum GeocodingError: Error, CustomStringConvertible {
    case noIndex(String)
    case noMatch(String, closest: [String])

    public var description: String {
        switch self {
        case .noIndex(let directory): return "no place index in \(directory): re-run wayfinder import"
        case .noMatch(let query, let closest):
            return closest.isEmpty ? "no place matches '\(query)'"
                : "no place matches '\(query)'; closest: \(closest.joined(separator: "; "))"
        }
    }
}

/// Forward, reverse and local search over `places.sqlite`. Thread-safe (queries are serialised on one connection).
public final class Geocoder: @unchecked Sendable {
    public static let fileName = GraphDirectory.placesFileName
    let db: SQLiteDatabase
    private let areas: [AdminArea]
    private let categories: [String: [String]]

    /// The words that name a kind of place (`school` → `amenity=school`), or nil where this binary was copied
    /// without its resources.
    public static var categoriesFile: URL? {
        ResourceDirectory.url(module: "Geocoding", resource: "Data", sourceFile: #filePath)?.appendingPathComponent("categories.json")
    }

    public init(path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else { throw GeocodingError.noIndex(path) }
        db = try SQLiteDatabase(path: path, readOnly: true)
        areas = try db.query("SELECT kind, name, level, iso, postcode, rings FROM area").compactMap(Self.area)
        if let url = Self.categoriesFile,
           let data = try? Data(contentsOf: url),
           let table = try? JSONSerialization.jsonObject(with: data) as? [String: [String]]
        {
            var folded: [String: [String]] = [:]
            for (word, tags) in table { folded[TextNormalizer.fold(word)] = tags }
            categories = folded
        } else {
            categories = [:]
        }
    }

    /// The place index of a graph directory's current generation.
    public convenience init(graphDirectory: String) throws {
        let path = try GraphDirectory(graphDirectory).current().placesPath
        guard FileManager.default.fileExists(atPath: path) else { throw GeocodingError.noIndex(graphDirectory) }
        try self.init(path: path)
    }

    static func area(_ row: [SQLiteDatabase.Value]) -> AdminArea? {
        guard let bytes = row[5].bytes else { return nil }
        let values: [Double] = bytes.withUnsafeBytes { Array($0.bindMemory(to: Double.self)) }
        var rings: [(outer: Bool, points: [Coordinate])] = []
        var i = 0
        while i + 1 < values.count {
            let outer = values[i] == 1, count = Int(values[i + 1])
            i += 2
            var points: [Coordinate] = []
            for k in 0..<count where i + 2 * k + 1 < values.count {
                points.append(Coordinate(latitude: values[i + 2 * k], longitude: values[i + 2 * k + 1]))
            }
            i += 2 * count
            rings.append((outer, points))
        }
        var b = BoundingBox.empty
        for ring in rings where ring.outer { for p in ring.points { b.extend(p) } }
        return AdminArea(kind: AdminArea.Kind(rawValue: row[0].string ?? "") ?? .administrative, name: row[1].string ?? "",
                         level: Int(row[2].int ?? 99), iso: row[3].string ?? "", postcode: row[4].string ?? "",
                         rings: rings, bounds: b)
    }

    static let columns = "p.id, p.kind, p.category, p.name, p.names, p.housenumber, p.street, p.postcode, p.locality, p.sublocality, p.region, p.subregion, p.country, p.country_code, p.lat, p.lon, p.minlat, p.minlon, p.maxlat, p.maxlon, p.importance, p.osm_type, p.osm_id"

    func placemark(_ row: [SQLiteDatabase.Value], language: String?) -> Placemark {
        var name = row[3].string ?? ""
        if let language, let json = row[4].string, let data = json.data(using: .utf8),
           let names = try? JSONSerialization.jsonObject(with: data) as? [String: String], let local = names[language]
        {
            name = local
        }
        return Placemark(
            name: name, kind: row[1].string ?? "", category: row[2].string ?? "",
            coordinate: Coordinate(latitude: row[14].double ?? 0, longitude: row[15].double ?? 0),
            bounds: BoundingBox(minLatitude: row[16].double ?? 0, minLongitude: row[17].double ?? 0,
                                maxLatitude: row[18].double ?? 0, maxLongitude: row[19].double ?? 0),
            thoroughfare: row[1].string == "street" ? (row[3].string ?? "") : (row[6].string ?? ""),
            subThoroughfare: row[5].string ?? "", postalCode: row[7].string ?? "", locality: row[8].string ?? "",
            subLocality: row[9].string ?? "", administrativeArea: row[10].string ?? "",
            subAdministrativeArea: row[11].string ?? "", country: row[12].string ?? "", isoCountryCode: row[13].string ?? "",
            osmType: row[21].string ?? "", osmID: row[22].int ?? 0, distance: nil, bearing: nil, score: row[20].double ?? 0)
    }

    // MARK: Forward

    /// Ranked candidates for free text ("Mannerheimintie 5, Helsinki", "Lonnrotinkatu", "北京").
    public func forward(_ query: String, near: Coordinate? = nil, limit: Int = 5, language: String? = nil) throws -> [Placemark] {
        let tokens = TextNormalizer.tokens(query)
        guard !tokens.isEmpty else { return [] }
        let numbers = tokens.filter { $0.first?.isNumber == true }
        // Try all words; then with misspelt words corrected; then without house numbers; then fewer words.
        var corrections: [String: String] = [:]
        let corrected = try tokens.map { token in
            if let known = corrections[token] { return known }
            let fixed = try correct(token)
            corrections[token] = fixed
            return fixed
        }
        let words = corrected.filter { $0.first?.isNumber != true }
        var attempts: [[String]] = [tokens]
        if corrected != tokens { attempts.append(corrected) }
        if !words.isEmpty && words.count < corrected.count { attempts.append(words) }
        func ranked(_ rows: [[SQLiteDatabase.Value]]) -> [Placemark] {
            let queryWords = Set(corrected.filter { $0.first?.isNumber != true })
            var results = rows.map { row -> Placemark in
                var p = placemark(row, language: language)
                p.score = score(p, row: row, queryTokens: corrected, words: queryWords, numbers: numbers, near: near)
                if let near { p.distance = Geo.distance(near, p.coordinate); p.bearing = Geo.bearing(from: near, to: p.coordinate) }
                return p
            }
            results.sort { $0.score > $1.score }
            return Array(results.prefix(limit))
        }
        for attempt in attempts {
            if WorkBudget.exceeded() { return [] }
            let rows = try match(attempt, limit: 200)
            if !rows.isEmpty { return ranked(rows) }
        }
        // Fewer words: the longest leading run of words that still matches. A run that matches has every shorter
        // one matching too (all words must be present), so a binary search finds it in log(n) queries.
        var found: [[SQLiteDatabase.Value]] = []
        var low = 1, high = words.count - 1
        while low <= high, !WorkBudget.exceeded() {
            let middle = (low + high) / 2
            let rows = try match(Array(words.prefix(middle)), limit: 200)
            if rows.isEmpty { high = middle - 1 } else { found = rows; low = middle + 1 }
        }
        return found.isEmpty ? [] : ranked(found)
    }

    /// Structured search: street, house number, city, postcode.
    public func structured(street: String?, housenumber: String?, city: String?, postcode: String?,
                           near: Coordinate? = nil, limit: Int = 5, language: String? = nil) throws -> [Placemark]
    {
        let text = [street, housenumber, postcode, city].compactMap { $0 }.joined(separator: " ")
        var results = try forward(text, near: near, limit: 50, language: language)
        if let housenumber {
            let wanted = TextNormalizer.fold(housenumber)
            results = results.filter { TextNormalizer.fold($0.subThoroughfare) == wanted } + results.filter { TextNormalizer.fold($0.subThoroughfare) != wanted }
        }
        return Array(results.prefix(limit))
    }

    private func match(_ tokens: [String], limit: Int) throws -> [[SQLiteDatabase.Value]] {
        let expression = tokens.map { token -> String in
            let quoted = "\"" + token.replacingOccurrences(of: "\"", with: "") + "\""
            return TextNormalizer.isCJKToken(token) ? quoted : quoted + "*"
        }.joined(separator: " AND ")
        return try db.query("""
            SELECT \(Self.columns), bm25(place_fts, 10.0, 4.0) FROM place_fts JOIN place p ON p.id = place_fts.rowid
            WHERE place_fts MATCH ? ORDER BY bm25(place_fts, 10.0, 4.0) - 3 * p.importance LIMIT ?
            """, [.text(expression), .integer(Int64(limit))])
    }

    /// A word the index does not know, replaced by the closest one it does (one or two edits), if any.
    private func correct(_ token: String) throws -> String {
        if TextNormalizer.isCJKToken(token) || token.first?.isNumber == true || token.count < 4 { return token }
        let known = try db.query("SELECT 1 FROM place_vocab WHERE term >= ? AND term < ? LIMIT 1", [.text(token), .text(token + "\u{10FFFF}")])
        if !known.isEmpty { return token }
        let first = String(token.prefix(1))
        let candidates = try db.query("SELECT term, doc FROM place_vocab WHERE term >= ? AND term < ?",
                                      [.text(first), .text(first + "\u{10FFFF}")])
        let limit = token.count > 6 ? 2 : 1
        let chars = Array(token)
        var best: (String, Int, Int64)?
        for row in candidates {
            guard let term = row[0].string else { continue }
            let d = TextNormalizer.editDistance(chars, Array(term), limit: limit)
            guard d <= limit else { continue }
            let docs = row[1].int ?? 0
            if best == nil || d < best!.1 || (d == best!.1 && docs > best!.2) { best = (term, d, docs) }
        }
        return best?.0 ?? token
    }

    private func score(_ p: Placemark, row: [SQLiteDatabase.Value], queryTokens: [String], words: Set<String>,
                       numbers: [String], near: Coordinate?) -> Double {
        let bm25 = row.last?.double ?? 0
        var s = -bm25 + 3 * p.score
        // Every name variant counts: "Senate Square" is Senaatintori's name:en.
        let variants = ((row[4].string?.data(using: .utf8)).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: String] }
            .map { Array($0.values) } ?? []) + [p.name]
            // A POI with an address is also called by it: "Gässle 16" is the school at Gässle 16.
            + (p.kind != "street" && !p.thoroughfare.isEmpty ? ["\(p.thoroughfare) \(p.subThoroughfare)"] : [])
        let variantTokens = variants.map(TextNormalizer.tokens)
        let variantSets = variantTokens.map(Set.init)
        let nameTokens = Set(variantTokens.joined())
        let streetTokens = Set(TextNormalizer.tokens(p.thoroughfare))
        if !words.isEmpty && words.allSatisfy({ nameTokens.contains($0) || streetTokens.contains($0) }) { s += 3 }
        // "Gässle 16" is on Gässle, not on Im Gässle.
        if !words.isEmpty && words == streetTokens { s += 2 }
        if variantTokens.contains(queryTokens) { s += 8 }
        // Of names holding every word, the one the words cover most: "Senate Square" is the square
        // ("Helsinki Senate Square") before the "Senate Square city bike station".
        let coverage = zip(variantTokens, variantSets).map { tokens, set -> Double in
            guard !tokens.isEmpty, words.isSubset(of: set) else { return 0 }
            return Double(queryTokens.filter(set.contains).count) / Double(tokens.count)
        }.max() ?? 0
        s += 4 * coverage
        if !numbers.isEmpty {
            let house = TextNormalizer.fold(p.subThoroughfare).replacingOccurrences(of: " ", with: "")
            if numbers.contains(house) { s += 8 } else if p.kind == "address" { s -= 4 }
        }
        if let near { s -= Geo.distance(near, p.coordinate) / 2000 }
        return s
    }

    // MARK: Reverse

    /// The nearest address within `radius`, else the nearest street within twice that (100 m at least), else the
    /// containing area.
    public func reverse(_ point: Coordinate, radius: Double = 50, language: String? = nil) throws -> Placemark? {
        let areaFields = placemarkFromAreas(point)
        for (kinds, limit) in [(["address", "poi"], radius), (["street"], max(2 * radius, 100.0))] {
            let dLat = limit / 111_195, dLon = limit / (111_195 * max(0.01, cos(point.latitude * Double.pi / 180)))
            let rows = try db.query("""
                SELECT \(Self.columns), p.geometry FROM place_rtree r JOIN place p ON p.id = r.id
                WHERE r.minlat <= ? AND r.maxlat >= ? AND r.minlon <= ? AND r.maxlon >= ?
                """, [.real(point.latitude + dLat), .real(point.latitude - dLat), .real(point.longitude + dLon), .real(point.longitude - dLon)])
            var best: (Placemark, Double)?
            for row in rows where kinds.contains(row[1].string ?? "") {
                if kinds == ["address", "poi"] && (row[5].string ?? "").isEmpty { continue }  // POIs count only with an address
                let p = placemark(row, language: language)
                let d = row[1].string == "street" ? distance(point, toLines: row.last?.bytes ?? []) : Geo.distance(point, p.coordinate)
                if d <= limit && d < (best?.1 ?? .infinity) { best = (p, d) }
            }
            if let (found, d) = best {
                var p = found
                p.distance = d
                p.bearing = Geo.bearing(from: point, to: p.coordinate)
                if p.locality.isEmpty { p.locality = areaFields.locality }
                if p.country.isEmpty { p.country = areaFields.country; p.isoCountryCode = areaFields.isoCountryCode }
                return p
            }
        }
        return areaFields.name.isEmpty ? nil : areaFields
    }

    private func distance(_ point: Coordinate, toLines blob: [UInt8]) -> Double {
        let values: [Double] = blob.withUnsafeBytes { Array($0.bindMemory(to: Double.self)) }
        var best = Double.infinity
        var i = 0
        while i + 3 < values.count {
            let a = Coordinate(latitude: values[i], longitude: values[i + 1]), b = Coordinate(latitude: values[i + 2], longitude: values[i + 3])
            if !a.latitude.isNaN && !b.latitude.isNaN {
                let (_, projected) = Geo.project(point, ontoSegmentFrom: a, to: b)
                best = min(best, Geo.distance(point, projected))
            }
            i += 2
        }
        if values.count == 2 { best = Geo.distance(point, Coordinate(latitude: values[0], longitude: values[1])) }
        return best
    }

    /// The placemark of the areas containing a point: the smallest one's name, and the fields above it.
    func placemarkFromAreas(_ point: Coordinate) -> Placemark {
        var p = Placemark(name: "", kind: "area", category: "boundary=administrative", coordinate: point, bounds: .empty,
                          thoroughfare: "", subThoroughfare: "", postalCode: "", locality: "", subLocality: "",
                          administrativeArea: "", subAdministrativeArea: "", country: "", isoCountryCode: "", osmType: "",
                          osmID: 0)
        for area in areas.filter({ $0.contains(point) }).sorted(by: { $0.level < $1.level }) {
            switch (area.kind, area.level) {
            case (.postal, _): p.postalCode = area.postcode.isEmpty ? area.name : area.postcode
            case (_, 2): p.country = area.name; p.isoCountryCode = area.iso
            case (_, 3...4): p.administrativeArea = area.name
            case (_, 5...6): p.subAdministrativeArea = area.name
            case (_, 7...8): p.locality = area.name
            case (_, 9...10): p.subLocality = area.name
            default: break
            }
            if area.kind == .administrative { p.name = area.name; p.bounds = area.bounds }
        }
        return p
    }

    // MARK: Local search

    /// Places within `radius` metres of `center` matching a category word ("school", "学校", "pharmacy") or names.
    public func search(_ query: String, near center: Coordinate, radius: Double = 2000, limit: Int = 10,
                       language: String? = nil) throws -> [Placemark]
    {
        let folded = TextNormalizer.fold(query).trimmingCharacters(in: .whitespaces)
        let tags = categories[folded] ?? (folded.hasSuffix("s") ? categories[String(folded.dropLast())] : nil)
        let dLat = radius / 111_195, dLon = radius / (111_195 * max(0.01, cos(center.latitude * Double.pi / 180)))
        let box: [SQLiteDatabase.Value] = [.real(center.latitude + dLat), .real(center.latitude - dLat),
                                            .real(center.longitude + dLon), .real(center.longitude - dLon)]
        var results: [Placemark] = []
        if let tags {
            let rows = try db.query("""
                SELECT \(Self.columns) FROM place_rtree r JOIN place p ON p.id = r.id
                WHERE r.minlat <= ? AND r.maxlat >= ? AND r.minlon <= ? AND r.maxlon >= ?
                """, box)
            for row in rows {
                let category = row[2].string ?? ""
                guard tags.contains(where: { $0 == category || ($0.hasSuffix("=*") && category.hasPrefix(String($0.dropLast()))) }) else { continue }
                results.append(placemark(row, language: language))
            }
        } else {
            results = try forward(query, near: center, limit: 200, language: language)
        }
        results = results.compactMap { p in
            var p = p
            let d = Geo.distance(center, p.coordinate)
            guard d <= radius else { return nil }
            p.distance = d
            p.bearing = Geo.bearing(from: center, to: p.coordinate)
            return p
        }
        if tags != nil { results.sort { ($0.distance ?? 0) < ($1.distance ?? 0) } }
        return Array(results.prefix(limit))
    }

    /// Every object mapped with a street and house number (addresses, and POIs with an address; not the numbers
    /// placed along interpolation lines, nor those given the nearest street), for the benchmark: id, street, housenumber, position.
    public func allAddresses() throws -> [(osmID: Int64, street: String, housenumber: String, locality: String, position: Coordinate)] {
        try db.query("""
            SELECT osm_id, street, housenumber, locality, lat, lon FROM place
            WHERE housenumber != '' AND street != '' AND category != 'addr:interpolation' AND street_inferred = 0
            """).map {
            ($0[0].int ?? 0, $0[1].string ?? "", $0[2].string ?? "", $0[3].string ?? "",
             Coordinate(latitude: $0[4].double ?? 0, longitude: $0[5].double ?? 0))
        }
    }

    /// Named places with their name:xx variants, for the benchmark.
    public func placesWithNames() throws -> [(name: String, variants: [String], position: Coordinate)] {
        try db.query("SELECT name, names, lat, lon FROM place WHERE kind = 'place'").map { row in
            let names = (row[1].string?.data(using: .utf8)).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: String] } ?? [:]
            let variants = names.filter { $0.key.count >= 2 && $0.key.count <= 7 && !$0.key.contains("_") }.map(\.value)
            return (row[0].string ?? "", Array(Set(variants)), Coordinate(latitude: row[2].double ?? 0, longitude: row[3].double ?? 0))
        }
    }
}
