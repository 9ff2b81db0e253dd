import Foundation
import RoadGraph

/// One row of the place index.
struct PlaceEntry {
    enum Kind: String { case place, street, address, poi, area }
    var kind: Kind
    var category = ""
    var name = ""
    var names: [String: String] = [:]  // "" for the plain name, else the language or name key
    var housenumber = "", street = "", postcode = ""
    var locality = "", sublocality = "", region = "", subregion = "", country = "", countryCode = ""
    var localityFromTag = false
    /// No `addr:street`: the street is the nearest named one.
    var streetInferred = false
    var center: Coordinate
    var bounds: BoundingBox
    var importance = 0.0
    var osmType = "", osmID: Int64 = 0
    var lines: [[Coordinate]] = []
    var nameTokens: [String] = []
    var addressTokens: [String] = []

    static let placeImportance: [String: Double] = [
        "country": 1.0, "state": 0.9, "region": 0.85, "province": 0.85, "county": 0.8, "city": 0.8, "town": 0.7,
        "municipality": 0.7, "borough": 0.6, "suburb": 0.6, "quarter": 0.55, "village": 0.55, "neighbourhood": 0.5,
        "island": 0.5, "square": 0.45, "hamlet": 0.4, "locality": 0.3, "isolated_dwelling": 0.2, "farm": 0.2,
    ]

    init(kind: Kind, center: Coordinate, bounds: BoundingBox) {
        self.kind = kind
        self.center = center
        self.bounds = bounds
    }

    /// A node or way: a place, a POI, an address (or a POI with an address). Nil when it is none of these.
    init?(feature: PlaceIndexBuilder.Feature) {
        let tags = feature.tags
        guard !feature.points.isEmpty else { return nil }
        var b = BoundingBox.empty
        for p in feature.points { b.extend(p) }
        // The centre of a closed way is the mean of its points (the closing point counted once); of a node, the node.
        let ring = feature.points.count > 2 && feature.points.first == feature.points.last ? feature.points.dropLast() : feature.points[...]
        let mean = Coordinate(latitude: ring.map(\.latitude).reduce(0, +) / Double(ring.count),
                              longitude: ring.map(\.longitude).reduce(0, +) / Double(ring.count))
        let poiKey = PlaceIndexBuilder.poiKeys.first { tags[$0] != nil && tags[$0] != "no" }
        let hasName = tags["name"] != nil
        if let place = tags["place"], hasName {
            self.init(kind: .place, center: mean, bounds: b)
            category = "place=\(place)"
            importance = Self.placeImportance[place] ?? 0.3
        } else if let key = poiKey, hasName {
            self.init(kind: .poi, center: mean, bounds: b)
            category = "\(key)=\(tags[key]!)"
            importance = 0.25
        } else if tags["addr:housenumber"] != nil {
            self.init(kind: .address, center: mean, bounds: b)
            category = tags["building"].map { "building=\($0)" } ?? "address"
            importance = 0.1
        } else if hasName, tags["building"] != nil {
            self.init(kind: .poi, center: mean, bounds: b)
            category = "building=\(tags["building"]!)"
            importance = 0.15
        } else {
            return nil
        }
        osmType = feature.kind == "n" ? "node" : feature.kind == "r" ? "relation" : "way"
        osmID = feature.id
        setNames(tags)
        housenumber = tags["addr:housenumber"] ?? ""
        street = tags["addr:street"] ?? tags["addr:place"] ?? ""
        postcode = tags["addr:postcode"] ?? ""
        if let city = tags["addr:city"] { locality = city; localityFromTag = true }
        addressTokens = TextNormalizer.tokens([housenumber, street, postcode, locality].joined(separator: " "))
        // An address reads "Street 5": its name is its street and number when it has no name of its own.
        if kind == .address && name.isEmpty { name = [street, housenumber].filter { !$0.isEmpty }.joined(separator: " ") }
    }

    mutating func inferStreet(_ name: String) {
        street = name
        streetInferred = true
        addressTokens = TextNormalizer.tokens(name) + addressTokens
        if kind == .address && (self.name.isEmpty || self.name == housenumber) { self.name = "\(name) \(housenumber)" }
    }

    /// The ways of one street, merged.
    init(street ways: [PlaceIndexBuilder.Feature]) {
        var b = BoundingBox.empty
        for way in ways { for p in way.points { b.extend(p) } }
        let middle = Coordinate(latitude: (b.minLatitude + b.maxLatitude) / 2, longitude: (b.minLongitude + b.maxLongitude) / 2)
        // The street's point: the one of its own points nearest the middle of its extent.
        let center = ways.flatMap(\.points).min { Geo.distance($0, middle) < Geo.distance($1, middle) } ?? middle
        self.init(kind: .street, center: center, bounds: b)
        category = "highway=\(ways[0].tags["highway"] ?? "road")"
        importance = 0.3
        osmType = "way"
        osmID = ways[0].id
        var tags: [String: String] = [:]
        for way in ways { tags.merge(way.tags) { current, _ in current } }
        setNames(tags)
        lines = ways.map(\.points)
    }

    /// An administrative area, findable by name ("Helsinki", "Liechtenstein").
    init(area: AdminArea) {
        let b = area.bounds
        // The centre of the largest outer ring's points.
        let ring = area.rings.filter(\.outer).max { $0.points.count < $1.points.count }?.points ?? []
        let center = ring.isEmpty ? Coordinate(latitude: (b.minLatitude + b.maxLatitude) / 2, longitude: (b.minLongitude + b.maxLongitude) / 2)
            : Coordinate(latitude: ring.map(\.latitude).reduce(0, +) / Double(ring.count),
                         longitude: ring.map(\.longitude).reduce(0, +) / Double(ring.count))
        self.init(kind: .area, center: center, bounds: b)
        category = "boundary=administrative"
        importance = max(0.2, 1.0 - Double(area.level) * 0.08)
        name = area.name
        names = ["": area.name]
        nameTokens = TextNormalizer.tokens(area.name)
        osmType = "relation"
        countryCode = area.level == 2 ? area.iso : ""
    }

    mutating func setNames(_ tags: [String: String]) {
        name = tags["name"] ?? ""
        var tokens: [String] = []
        for (key, value) in tags {
            if key == "name" { names[""] = value }
            else if key.hasPrefix("name:") { names[String(key.dropFirst(5))] = value }
            else if PlaceIndexBuilder.nameKeys.contains(key) { names[key] = value }
            else { continue }
            tokens += TextNormalizer.tokens(value)
        }
        var seen = Set<String>()
        nameTokens = tokens.filter { seen.insert($0).inserted }
    }

    var namesJSON: String {
        (try? String(decoding: JSONSerialization.data(withJSONObject: names, options: [.sortedKeys]), as: UTF8.self)) ?? "{}"
    }

    /// Street lines as latitude/longitude doubles, NaN between lines.
    var geometryBlob: [UInt8] {
        guard !lines.isEmpty else { return [] }
        var values: [Double] = []
        for line in lines {
            if !values.isEmpty { values += [.nan, .nan] }
            for p in line { values += [p.latitude, p.longitude] }
        }
        return values.withUnsafeBytes { Array($0) }
    }
}
