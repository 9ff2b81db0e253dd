import Foundation
import RoadGraph

/// Builds `places.sqlite` beside the graphs: every named place, street (the ways of one street merged per
/// neighbourhood), address and POI, with the administrative areas that contain it, in an FTS5 full-text index and
/// an R*Tree. Boundaries are libosmium-assembled areas, tested point-in-polygon. Reading them from an OSM file is
/// the importer's part (GraphImport), so that answering from the index needs no OSM reader.
public enum PlaceIndexBuilder {
    public struct Statistics: Sendable {
        public var places = 0, streets = 0, addresses = 0, pois = 0, areas = 0
        /// Of the addresses, those placed along `addr:interpolation` lines.
        public var interpolated = 0
        public var seconds = 0.0
        /// Boundaries could not be assembled (unsorted input).
        public var areasSkipped = false
    }

    static let poiKeys = ["amenity", "shop", "tourism", "leisure", "office", "public_transport", "railway", "historic",
                          "craft", "healthcare", "sport", "man_made", "natural", "aeroway"]
    static let nameKeys = ["name", "alt_name", "old_name", "short_name", "official_name", "loc_name", "int_name"]

    /// One OSM object as the importer read it: `n`ode, `w`ay or assembled `a`rea.
    public struct Feature {
        var kind: Character
        var id: Int64
        var tags: [String: String]
        var points: [Coordinate]
        /// The node id of each point of an interpolation line, whose ends are addressed nodes (empty otherwise).
        var nodeIDs: [Int64] = []
        var rings: [(outer: Bool, points: [Coordinate])]

        public init(kind: Character, id: Int64, tags: [String: String], points: [Coordinate], nodeIDs: [Int64] = [],
                    rings: [(outer: Bool, points: [Coordinate])]) {
            (self.kind, self.id, self.tags, self.points, self.nodeIDs, self.rings) = (kind, id, tags, points, nodeIDs, rings)
        }
    }

    /// Writes the index of `features` to `databasePath`; `areasSkipped` says the reader could not assemble areas.
    public static func build(features: [Feature], areasSkipped: Bool, databasePath: String, started: Date = Date()) throws
        -> Statistics
    {
        let areas = features.filter { $0.kind == "a" }.compactMap(AdminArea.init).filter { !$0.bounds.isEmpty }
        let locator = AreaLocator(areas: areas)
        var entries: [PlaceEntry] = []
        var streetWays: [Feature] = [], interpolationLines: [Feature] = []
        for feature in features where feature.kind != "a" {
            let tags = feature.tags
            if feature.kind == "w" && tags["addr:interpolation"] != nil && tags["addr:housenumber"] == nil {
                interpolationLines.append(feature)
                continue
            }
            if tags["highway"] != nil, feature.kind == "w" {
                if tags["name"] != nil { streetWays.append(feature) }
                continue
            }
            if let entry = PlaceEntry(feature: feature) { entries.append(entry) }
        }
        entries += mergeStreets(streetWays)
        let streets = NearestStreet(streets: entries)
        // A guess that repeats a mapped address ("Dorfstrasse 43" where Dorfstrasse 43 is mapped) is a wrong guess.
        let mapped = Set(entries.filter { !$0.street.isEmpty && !$0.housenumber.isEmpty }
            .map { AddressInterpolation.key($0.street, $0.housenumber) })
        var known = mapped
        for i in entries.indices where entries[i].street.isEmpty && !entries[i].housenumber.isEmpty {
            if let street = streets.name(near: entries[i].center),
               !mapped.contains(AddressInterpolation.key(street, entries[i].housenumber))
            {
                entries[i].inferStreet(street)
                known.insert(AddressInterpolation.key(street, entries[i].housenumber))
            }
        }
        let interpolated = AddressInterpolation.expand(lines: interpolationLines, features: features, known: known,
                                                       streets: streets)
        entries += interpolated
        // An administrative area is searchable by name unless a place node of that name lies inside it (the
        // usual way a town is mapped): then the node stands for it, and takes the area's extent.
        for area in areas where area.kind == .administrative && !area.name.isEmpty {
            if let i = entries.firstIndex(where: { $0.kind == .place && $0.name == area.name && area.contains($0.center) }) {
                entries[i].bounds = area.bounds
            } else {
                entries.append(PlaceEntry(area: area))
            }
        }
        // Objects whose nodes are all missing from a clipped extract have no position.
        entries.removeAll { $0.bounds.isEmpty || !$0.center.isValid }
        for i in entries.indices { locator.fill(&entries[i]) }

        try? FileManager.default.removeItem(atPath: databasePath)
        let db = try SQLiteDatabase(path: databasePath, readOnly: false)
        try db.execute("""
            PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;
            CREATE TABLE place(id INTEGER PRIMARY KEY, kind TEXT, category TEXT, name TEXT, names TEXT, housenumber TEXT,
              street TEXT, postcode TEXT, locality TEXT, sublocality TEXT, region TEXT, subregion TEXT, country TEXT,
              country_code TEXT, lat REAL, lon REAL, minlat REAL, minlon REAL, maxlat REAL, maxlon REAL,
              importance REAL, osm_type TEXT, osm_id INTEGER, geometry BLOB, street_inferred INTEGER);
            CREATE VIRTUAL TABLE place_fts USING fts5(names, address, content='', tokenize='unicode61 remove_diacritics 2', prefix='1 2 3');
            CREATE VIRTUAL TABLE place_vocab USING fts5vocab(place_fts, 'row');
            CREATE VIRTUAL TABLE place_rtree USING rtree(id, minlat, maxlat, minlon, maxlon);
            CREATE TABLE area(id INTEGER PRIMARY KEY, kind TEXT, name TEXT, level INTEGER, iso TEXT, postcode TEXT,
              minlat REAL, minlon REAL, maxlat REAL, maxlon REAL, rings BLOB);
            BEGIN;
            """)
        var stats = Statistics()
        stats.areasSkipped = areasSkipped
        stats.interpolated = interpolated.count
        for (index, entry) in entries.enumerated() {
            let id = Int64(index + 1)
            try db.query("INSERT INTO place VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", [
                .integer(id), .text(entry.kind.rawValue), .text(entry.category), .text(entry.name),
                .text(entry.namesJSON), .text(entry.housenumber), .text(entry.street), .text(entry.postcode),
                .text(entry.locality), .text(entry.sublocality), .text(entry.region), .text(entry.subregion),
                .text(entry.country), .text(entry.countryCode), .real(entry.center.latitude), .real(entry.center.longitude),
                .real(entry.bounds.minLatitude), .real(entry.bounds.minLongitude), .real(entry.bounds.maxLatitude),
                .real(entry.bounds.maxLongitude), .real(entry.importance), .text(entry.osmType), .integer(entry.osmID),
                .blob(entry.geometryBlob), .integer(entry.streetInferred ? 1 : 0),
            ])
            try db.query("INSERT INTO place_fts(rowid, names, address) VALUES (?,?,?)",
                         [.integer(id), .text(entry.nameTokens.joined(separator: " ")), .text(entry.addressTokens.joined(separator: " "))])
            try db.query("INSERT INTO place_rtree VALUES (?,?,?,?,?)", [
                .integer(id), .real(entry.bounds.minLatitude), .real(entry.bounds.maxLatitude),
                .real(entry.bounds.minLongitude), .real(entry.bounds.maxLongitude),
            ])
            switch entry.kind {
            case .place, .area: stats.places += 1
            case .street: stats.streets += 1
            case .address: stats.addresses += 1
            case .poi: stats.pois += 1
            }
        }
        for (index, area) in areas.enumerated() {
            try db.query("INSERT INTO area VALUES (?,?,?,?,?,?,?,?,?,?,?)", [
                .integer(Int64(index + 1)), .text(area.kind.rawValue), .text(area.name), .integer(Int64(area.level)),
                .text(area.iso), .text(area.postcode), .real(area.bounds.minLatitude), .real(area.bounds.minLongitude),
                .real(area.bounds.maxLatitude), .real(area.bounds.maxLongitude), .blob(area.ringBlob),
            ])
        }
        stats.areas = areas.count
        try db.execute("COMMIT; INSERT INTO place_fts(place_fts) VALUES('optimize');")
        stats.seconds = Date().timeIntervalSince(started)
        return stats
    }

    /// Ways of one street name merged where they lie within a few hundred metres of each other (one entry per
    /// neighbourhood, not one per OSM way).
    static func mergeStreets(_ ways: [Feature]) -> [PlaceEntry] {
        var byName: [String: [Int]] = [:]
        for (i, way) in ways.enumerated() { byName[TextNormalizer.fold(way.tags["name"]!), default: []].append(i) }
        var entries: [PlaceEntry] = []
        let joinDistance = 300.0
        for (_, members) in byName {
            var parent = Array(members.indices)
            func root(_ x: Int) -> Int { var x = x; while parent[x] != x { parent[x] = parent[parent[x]]; x = parent[x] }; return x }
            let boxes = members.map { m -> BoundingBox in
                var b = BoundingBox.empty
                for p in ways[m].points { b.extend(p) }
                return b
            }
            for a in members.indices {
                for b in (a + 1)..<members.count where boxesNear(boxes[a], boxes[b], metres: joinDistance) {
                    let ra = root(a), rb = root(b)
                    if ra != rb { parent[ra] = rb }
                }
            }
            var clusters: [Int: [Int]] = [:]
            for k in members.indices { clusters[root(k), default: []].append(members[k]) }
            for cluster in clusters.values {
                entries.append(PlaceEntry(street: cluster.map { ways[$0] }))
            }
        }
        return entries
    }

    static func boxesNear(_ a: BoundingBox, _ b: BoundingBox, metres: Double) -> Bool {
        guard !a.isEmpty, !b.isEmpty else { return false }
        let dLat = max(0, max(a.minLatitude, b.minLatitude) - min(a.maxLatitude, b.maxLatitude)) * 111_195
        let scale = cos(a.minLatitude * Double.pi / 180) * 111_195
        let dLon = max(0, max(a.minLongitude, b.minLongitude) - min(a.maxLongitude, b.maxLongitude)) * scale
        return (dLat * dLat + dLon * dLon).squareRoot() <= metres
    }
}

/// An administrative or postal-code boundary.
struct AdminArea {
    enum Kind: String { case administrative, postal }
    var kind: Kind
    var name: String
    var level: Int
    var iso: String
    var postcode: String
    var rings: [(outer: Bool, points: [Coordinate])]
    var bounds: BoundingBox
}

extension AdminArea {
    init?(_ feature: PlaceIndexBuilder.Feature) {
        let tags = feature.tags
        guard !feature.rings.isEmpty else { return nil }
        if tags["boundary"] == "postal_code" {
            kind = .postal
            level = 99
        } else if tags["boundary"] == "administrative", let level = tags["admin_level"].flatMap({ Int($0) }) {
            kind = .administrative
            self.level = level
        } else {
            return nil
        }
        name = tags["name"] ?? ""
        iso = tags["ISO3166-1:alpha2"] ?? tags["ISO3166-1"] ?? tags["country_code"]?.uppercased() ?? ""
        postcode = tags["postal_code"] ?? ""
        rings = feature.rings
        var b = BoundingBox.empty
        for ring in rings where ring.outer { for p in ring.points { b.extend(p) } }
        bounds = b
    }

    /// Even-odd rule over all rings: holes come out right without matching them to their outer ring.
    func contains(_ p: Coordinate) -> Bool {
        guard bounds.contains(p) else { return false }
        var inside = false
        for ring in rings {
            let points = ring.points
            guard points.count >= 3 else { continue }
            var j = points.count - 1
            for i in 0..<points.count {
                let a = points[i], b = points[j]
                if (a.latitude > p.latitude) != (b.latitude > p.latitude) {
                    let x = (b.longitude - a.longitude) * (p.latitude - a.latitude) / (b.latitude - a.latitude) + a.longitude
                    if p.longitude < x { inside.toggle() }
                }
                j = i
            }
        }
        return inside
    }

    var ringBlob: [UInt8] {
        var values: [Double] = []
        for ring in rings {
            values.append(ring.outer ? 1 : 0)
            values.append(Double(ring.points.count))
            for p in ring.points { values += [p.latitude, p.longitude] }
        }
        return values.withUnsafeBytes { Array($0) }
    }
}

/// Which areas contain a point, smallest (highest admin level) last.
struct AreaLocator {
    let areas: [AdminArea]

    func containing(_ p: Coordinate) -> [AdminArea] {
        areas.filter { $0.contains(p) }.sorted { $0.level < $1.level }
    }

    /// Placemark fields from the containing areas: country (2), region (3-4), subregion (5-6), locality (7-8),
    /// sublocality (9-10), postal code; address tags win where the object has them.
    func fill(_ entry: inout PlaceEntry) {
        for area in containing(entry.center) {
            switch (area.kind, area.level) {
            case (.postal, _): if entry.postcode.isEmpty { entry.postcode = area.postcode.isEmpty ? area.name : area.postcode }
            case (_, 2):
                entry.country = area.name
                if entry.countryCode.isEmpty { entry.countryCode = area.iso }
            case (_, 3...4): entry.region = area.name
            case (_, 5...6): entry.subregion = area.name
            case (_, 7...8): if entry.locality.isEmpty || entry.localityFromTag { entry.locality = area.name; entry.localityFromTag = false }
            case (_, 9...10): if entry.sublocality.isEmpty { entry.sublocality = area.name }
            default: break
            }
        }
        entry.addressTokens += [entry.locality, entry.sublocality, entry.region, entry.country]
            .filter { !$0.isEmpty }.flatMap(TextNormalizer.tokens)
        entry.addressTokens = Array(NSOrderedSet(array: entry.addressTokens)) as? [String] ?? entry.addressTokens
    }
}
