import Foundation
import RoadGraph

/// Turn lanes: `turn:lanes` read into OSRM's indications, matched to the roads of a junction to say which lanes
/// serve the route's turn there, and anticipated over close maneuvers.
enum Lanes {
    static let indicationNames: [String: String] = [
        "": "none", "none": "none", "through": "straight", "sharp_left": "sharp left", "left": "left",
        "slight_left": "slight left", "slight_right": "slight right", "right": "right", "sharp_right": "sharp right",
        "reverse": "uturn", "merge_to_left": "merge to left", "merge_to_right": "merge to right",
    ]
    /// OSRM's ideal turn angle for each indication (0 back, 180 straight on, below 180 right).
    static let idealAngle: [String: Double] = [
        "uturn": 0, "sharp right": 35, "right": 90, "slight right": 135, "straight": 180, "slight left": 225,
        "left": 270, "sharp left": 315,
    ]
    /// The order OSRM lists indications in.
    static let order = ["none", "straight", "sharp left", "left", "slight left", "slight right", "right", "sharp right",
                        "uturn", "merge to left", "merge to right"]

    /// `left|through|through;right` → [["left"], ["straight"], ["straight", "right"]], left to right.
    static func parse(_ text: String) -> [[String]] {
        guard !text.isEmpty else { return [] }
        return text.split(separator: "|", omittingEmptySubsequences: false).map { lane in
            var words: [String] = []
            for w in lane.split(separator: ";", omittingEmptySubsequences: false) {
                let name = indicationNames[String(w)] ?? "none"
                if !words.contains(name) { words.append(name) }
            }
            return order.filter(words.contains)
        }
    }

    /// Whether an indication may serve a road with this instruction (OSRM's `isValidMatch`; a merge says the
    /// side it merges towards, so its lanes are those of the other side).
    static func isValid(_ indication: String, for instruction: TurnInstruction) -> Bool {
        let m = instruction.modifier, kind = instruction.kind
        switch indication {
        case "uturn": return m == .uturn || m.isLeft
        case "sharp right", "right", "slight right":
            return kind == .merge ? m.isLeft : kind.leavesRing || m.isRight
        case "sharp left", "left", "slight left":
            return kind == .merge ? m.isRight : kind == .stayOnRing || m.isLeft
        default:
            return m == .straight || [.suppressed, .newName, .stayOnRing, .noTurn].contains(kind) || kind.entersRing
                || ((kind == .fork || kind == .continueOn) && (m == .slightLeft || m == .slightRight))
        }
    }

    /// For each lane (left to right), whether it serves the route's road at the junction; nil where the approach
    /// has no lanes, they only go on past a bend, or they cannot all be matched to the roads there (then they
    /// describe a junction further on, and OSRM says nothing either).
    static func valid(at junction: GuidanceJunction, instructions: [TurnInstruction], next: GuidanceStretch) -> [Bool]? {
        var lanes = junction.approachLanes
        guard !lanes.isEmpty, !(lanes.count == 1 && lanes[0] == ["none"]) else { return nil }
        if junction.roads.count == 2 && lanes == next.turnLanes && Geo.deviation(junction.takenRoad.angle, 180) < 25 { return nil }
        if lanes.joined().contains(where: { $0.hasPrefix("merge") }) { return nil }
        let roads = junction.roads.indices.filter { junction.roads[$0].entryAllowed }
        guard !roads.isEmpty else { return nil }
        func instruction(_ i: Int) -> TurnInstruction {
            let given = instructions[i]
            return given.kind == .invalid ? TurnInstruction(.turn, i == 0 ? .uturn : Modifier(angle: junction.roads[i].angle)) : given
        }
        func modifier(_ i: Int) -> Modifier { instruction(i).modifier }
        // Lanes with no arrows take what they must mean: the outermost lane a turn to its side no lane names,
        // the others straight on (OSRM's renaming of `none` lanes at simple junctions).
        let named = Set(lanes.joined())
        for k in lanes.indices where lanes[k] == ["none"] {
            if k == lanes.count - 1, !named.contains(where: { $0.contains("right") }),
               roads.contains(where: { modifier($0).isRight }) {
                lanes[k] = ["right"]
            } else if k == 0, lanes.count > 1, !named.contains(where: { $0.contains("left") }),
                      roads.contains(where: { modifier($0).isLeft }) {
                lanes[k] = ["left"]
            } else {
                lanes[k] = ["straight"]
            }
        }
        // Each indication goes to the road it matches best: a valid match first, then the nearest ideal angle.
        func bestRoad(_ indication: String) -> Int? {
            let target = idealAngle[indication] ?? 180
            let candidates = roads.filter { isValid(indication, for: instruction($0)) }
            return candidates.min { a, b in
                Geo.deviation(junction.roads[a].angle, target) < Geo.deviation(junction.roads[b].angle, target)
            }
        }
        // Every arrow must lead somewhere here (U-turn arrows aside, which a closed U-turn leaves unserved).
        for indication in Set(lanes.joined()) where indication != "uturn" && bestRoad(indication) == nil { return nil }
        let taken = junction.taken
        let result = lanes.map { lane in lane.contains { indication in bestRoad(indication) == taken } }
        return result.contains(true) ? result : nil
    }

    /// The lanes to show at a junction: indications as mapped, valid where they serve the route's road.
    static func lanes(at junction: GuidanceJunction, instructions: [TurnInstruction], next: GuidanceStretch) -> [Lane] {
        guard let valid = valid(at: junction, instructions: instructions, next: next) else { return [] }
        return zip(junction.approachLanes, valid).map { Lane(indications: $0, valid: $1) }
    }

    /// Where the valid lanes are: all of them (nothing to say), or the leftmost, rightmost or middle `count`.
    enum Position: Equatable { case all, left(Int), right(Int), middle(Int) }

    static func position(_ lanes: [Lane]) -> Position? {
        let valid = lanes.indices.filter { lanes[$0].valid }
        guard !lanes.isEmpty, !valid.isEmpty else { return nil }
        if valid.count == lanes.count { return .all }
        // Only a contiguous run can be named.
        guard valid.last! - valid.first! + 1 == valid.count else { return nil }
        if valid.first == 0 { return .left(valid.count) }
        if valid.last == lanes.count - 1 { return .right(valid.count) }
        return .middle(valid.count)
    }
}
