import Foundation
import RoadGraph

/// A `type=restriction` relation that applies to a mode, in terms of OSM ids.
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
    /// Most specific first: a `restriction:motorcar` overrides the generic `restriction`. Bikes read only their own
    /// key and the generic one, as bicycle.lua's `restrictions` says.
    static func keys(for mode: TravelMode) -> [String] {
        mode == .cycling ? ["restriction:bicycle", "restriction"]
            : ["restriction:motorcar", "restriction:motor_vehicle", "restriction:vehicle", "restriction"]
    }
    static func exemptions(for mode: TravelMode) -> Set<String> {
        mode == .cycling ? ["bicycle"] : ["motorcar", "motor_vehicle", "vehicle"]
    }

    /// The relations that restrict the mode; the rest (other vehicles, exemptions, time-dependent, malformed) are
    /// dropped.
    static func parse(_ osm: OSMData, mode: TravelMode) -> [TurnRestriction] {
        (0..<osm.relationCount).compactMap { restriction(from: osm.relation($0), mode: mode) }
    }

    static func restriction(from relation: OSMData.Relation, mode: TravelMode = .driving) -> TurnRestriction? {
        guard let value = keys(for: mode).lazy.compactMap({ relation.tags[$0] }).first else { return nil }
        return restriction(from: relation, value: value, mode: mode)
    }

    /// The relation's members as a restriction of kind `value` (`no_left_turn`, `only_straight_on`).
    static func restriction(from relation: OSMData.Relation, value: String, mode: TravelMode) -> TurnRestriction? {
        let tags = relation.tags
        let exemptions = exemptions(for: mode)
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

/// A restriction that holds only while its condition does (`restriction:conditional=no_left_turn @ (Mo-Fr
/// 07:00-09:00)`).
struct TimedTurnRestriction {
    var restriction: TurnRestriction
    var condition: String
}

extension RestrictionParser {
    /// The mode's conditional restrictions, most specific key first as for the plain ones; and a line for each
    /// that cannot be applied, with why.
    static func parseTimed(_ osm: OSMData, mode: TravelMode) -> (restrictions: [TimedTurnRestriction], notes: [String]) {
        let keys = keys(for: mode).map { $0 + ":conditional" }
        var restrictions: [TimedTurnRestriction] = [], notes: [String] = []
        for i in 0..<osm.relationCount {
            let relation = osm.relation(i)
            guard relation.tags["type"] == "restriction",
                  let key = keys.first(where: { relation.tags[$0] != nil }), let text = relation.tags[key] else { continue }
            let what = "relation \(relation.id) \(key)=\(text)"
            guard let parts = ConditionalValue.parse(text) else { notes.append("\(what): no `value @ condition`"); continue }
            for part in parts {
                guard OpeningHours(part.condition) != nil else {
                    notes.append("\(what): `\(part.condition)` is not a time condition this engine reads")
                    continue
                }
                guard part.value.hasPrefix("no_") || part.value.hasPrefix("only_") else {
                    notes.append("\(what): `\(part.value)` is not a restriction")
                    continue
                }
                guard let restriction = restriction(from: relation, value: part.value, mode: mode) else { continue }
                restrictions.append(TimedTurnRestriction(restriction: restriction, condition: part.condition))
            }
        }
        return (restrictions, notes)
    }
}
