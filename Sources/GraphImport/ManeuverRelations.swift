import Foundation
import RoadGraph

/// A `type=maneuver` relation (or `manoeuvre`): a mapper's instruction for the route from one way, through a via
/// node (and via ways), onto another, in terms of OSM ids. OSRM reads them for every profile, and so do we.
struct ManeuverRelation {
    var id: Int64
    var from: Int64
    var viaNode: Int64
    /// In order, joined end to end; empty for a relation through a node alone.
    var viaWays: [Int64]
    var to: Int64
    var override: ManeuverOverride
}

enum ManeuverRelationParser {
    /// OSRM's reading: one `from` way, one `to` way, exactly one `via` node (also where via ways lead), and the
    /// `manoeuvre` value before `maneuver`. A relation with none of OSRM's values and no direction changes nothing
    /// and is dropped here.
    static func parse(_ osm: OSMData) -> [ManeuverRelation] {
        (0..<osm.relationCount).compactMap { relation(from: osm.relation($0)) }
    }

    static func relation(from relation: OSMData.Relation) -> ManeuverRelation? {
        let tags = relation.tags
        guard tags["type"] == "maneuver" || tags["type"] == "manoeuvre" else { return nil }
        let override = ManeuverOverride(maneuver: tags["manoeuvre"] ?? tags["maneuver"] ?? "", direction: tags["direction"] ?? "")
        guard override.changesAnything else { return nil }
        let from = relation.refs(role: "from", type: "w"), to = relation.refs(role: "to", type: "w")
        let viaNodes = relation.refs(role: "via", type: "n"), viaWays = relation.refs(role: "via", type: "w")
        guard from.count == 1, to.count == 1, viaNodes.count == 1 else { return nil }
        return ManeuverRelation(id: relation.id, from: from[0], viaNode: viaNodes[0], viaWays: viaWays, to: to[0], override: override)
    }
}
