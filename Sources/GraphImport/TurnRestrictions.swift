import Foundation

/// A `type=restriction` relation that applies to cars, in terms of OSM ids.
struct TurnRestriction {
    enum Via {
        case node(Int64)
        case ways([Int64])
    }
    var id: Int64
    var from: [Int64]  // several for no_entry
    var via: Via
    var to: [Int64]  // several for no_exit
    var isOnly: Bool

    var isViaNode: Bool {
        if case .node = via { return true }
        return false
    }
}

enum RestrictionParser {
    /// Most specific first: a `restriction:motorcar` overrides the generic `restriction`.
    static let keys = ["restriction:motorcar", "restriction:motor_vehicle", "restriction:vehicle", "restriction"]
    static let exemptions: Set<String> = ["motorcar", "motor_vehicle", "vehicle"]

    /// The relations that restrict cars; the rest (other vehicles, exempted cars, time-dependent, malformed) are dropped.
    static func parse(_ osm: OSMData) -> [TurnRestriction] {
        (0..<osm.relationCount).compactMap { restriction(from: osm.relation($0)) }
    }

    static func restriction(from relation: OSMData.Relation) -> TurnRestriction? {
        let tags = relation.tags
        guard let value = keys.lazy.compactMap({ tags[$0] }).first else { return nil }
        if let except = tags["except"],
           except.split(separator: ";").contains(where: { exemptions.contains($0.trimmingCharacters(in: .whitespaces)) })
        {
            return nil
        }
        // Time-dependent restrictions need the time of travel; routing ignores them rather than guess.
        if tags["day_on"] != nil || tags["hour_on"] != nil { return nil }
        let isOnly: Bool
        if value.hasPrefix("only_") { isOnly = true } else if value.hasPrefix("no_") { isOnly = false } else { return nil }
        let from = relation.refs(role: "from", type: "w"), to = relation.refs(role: "to", type: "w")
        let viaNodes = relation.refs(role: "via", type: "n"), viaWays = relation.refs(role: "via", type: "w")
        guard !from.isEmpty, !to.isEmpty else { return nil }
        if viaNodes.count == 1 && viaWays.isEmpty {
            return TurnRestriction(id: relation.id, from: from, via: .node(viaNodes[0]), to: to, isOnly: isOnly)
        }
        if viaNodes.isEmpty && !viaWays.isEmpty {
            return TurnRestriction(id: relation.id, from: from, via: .ways(viaWays), to: to, isOnly: isOnly)
        }
        return nil
    }
}
