import Foundation
import Guidance
import RoadGraph
import Routing

/// Directions as a maps app lists them: the total, then numbered steps with their distances, then the arrival.
public enum RouteText {
    public static func make(_ guided: GuidedRoute) -> String {
        let (route, directions) = (guided.route, guided.directions)
        let phrases = directions.phrases, units = directions.options.units
        var lines = [phrases.summary(distance: route.distance, duration: route.duration, mode: route.mode, units: units)]
        var number = 1
        for (legIndex, steps) in directions.legs.enumerated() {
            if directions.legs.count > 1 {
                let leg = route.legs[legIndex]
                lines.append("")
                lines.append("\(legIndex + 1)/\(directions.legs.count): "
                    + phrases.summary(distance: leg.distance, duration: leg.duration, mode: route.mode, units: units))
            }
            for step in steps {
                if step.maneuver.type == .arrive {
                    lines.append("    \(step.instruction)")
                } else {
                    let label = String(format: "%3d. ", number)
                    lines.append("\(label)\(step.instruction) — \(phrases.distance(step.distance, units: units))")
                    number += 1
                }
            }
        }
        return lines.joined(separator: "\n")
    }
}
