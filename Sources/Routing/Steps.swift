import Foundation
import RoadGraph

/// One instruction of a leg: depart, one per change of road, arrive. (Turn guidance proper builds on this.)
public struct RouteStep: Sendable {
    public enum Kind: String, Sendable {
        case depart, turn, newName = "new name", continueOn = "continue", arrive
    }
    public var kind: Kind
    /// OSRM modifiers: uturn, sharp right, right, slight right, straight, slight left, left, sharp left.
    public var modifier: String?
    public var location: Coordinate
    public var bearingBefore: Int
    public var bearingAfter: Int
    public var name: String
    public var ref: String
    public var distance: Double
    public var duration: Double
    public var coordinates: [Coordinate]
}

extension RouteLeg {
    /// Steps grouped by road name: the stretches of one road make one step.
    public var steps: [RouteStep] {
        var groups: [[Stretch]] = []
        for stretch in stretches {
            if let last = groups.last?.last, last.name == stretch.name, last.ref == stretch.ref {
                groups[groups.count - 1].append(stretch)
            } else {
                groups.append([stretch])
            }
        }
        var steps: [RouteStep] = []
        var previousBearing = 0
        for (i, group) in groups.enumerated() {
            let range = group.first!.coordinates.lowerBound...group.last!.coordinates.upperBound
            let line = Array(coordinates[range])
            let after = Self.bearing(leaving: line)
            var kind = RouteStep.Kind.depart
            var modifier: String? = nil
            if i > 0 {
                let turn = (after - previousBearing + 360) % 360
                modifier = Self.modifier(forTurn: turn)
                kind = modifier == "straight" ? .newName : .turn
            }
            steps.append(RouteStep(kind: kind, modifier: modifier, location: line[0],
                                   bearingBefore: i == 0 ? 0 : previousBearing, bearingAfter: after,
                                   name: group[0].name, ref: group[0].ref,
                                   distance: group.reduce(0) { $0 + $1.distance },
                                   duration: group.reduce(0) { $0 + $1.duration }, coordinates: line))
            previousBearing = Self.bearing(arriving: line)
        }
        let end = coordinates.last ?? target.location
        steps.append(RouteStep(kind: .arrive, modifier: nil, location: end, bearingBefore: previousBearing,
                               bearingAfter: 0, name: stretches.last?.name ?? "", ref: stretches.last?.ref ?? "",
                               distance: 0, duration: 0, coordinates: [end, end]))
        return steps
    }

    static func bearing(leaving line: [Coordinate]) -> Int {
        for k in 1..<max(1, line.count) where line[k] != line[0] {
            return Int(Geo.bearing(from: line[0], to: line[k]).rounded()) % 360
        }
        return 0
    }

    static func bearing(arriving line: [Coordinate]) -> Int {
        let last = line.count - 1
        for k in stride(from: last - 1, through: 0, by: -1) where line[k] != line[last] {
            return Int(Geo.bearing(from: line[k], to: line[last]).rounded()) % 360
        }
        return 0
    }

    /// Turn angle (clockwise change of heading, 0..<360) → OSRM modifier.
    static func modifier(forTurn angle: Int) -> String {
        switch angle {
        case 0..<20, 340..<360: return "straight"
        case 20..<60: return "slight right"
        case 60..<140: return "right"
        case 140..<170: return "sharp right"
        case 170..<190: return "uturn"
        case 190..<220: return "sharp left"
        case 220..<300: return "left"
        default: return "slight left"
        }
    }
}
