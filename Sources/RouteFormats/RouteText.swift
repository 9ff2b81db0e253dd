import Foundation
import RoadGraph
import Routing

/// The human-readable route: a summary line, then the roads travelled with their lengths.
public enum RouteText {
    public static func make(_ route: Route) -> String {
        var lines = ["\(formatDistance(route.distance)), \(formatDuration(route.duration)) by \(route.mode == .driving ? "car" : "foot")"]
        for (i, snap) in route.waypoints.enumerated() {
            let label = i == 0 ? "From" : i == route.waypoints.count - 1 ? "To" : "Via"
            lines.append("\(label): \(snap.location) on \(display(snap.name)) (\(formatDistance(snap.distance)) from \(snap.input))")
        }
        var number = 1
        for (legIndex, leg) in route.legs.enumerated() {
            if route.legs.count > 1 { lines.append("Leg \(legIndex + 1): \(formatDistance(leg.distance)), \(formatDuration(leg.duration))") }
            for step in leg.steps where step.kind != .arrive {
                lines.append("  \(number). \(display(step.name, ref: step.ref)) — \(formatDistance(step.distance))")
                number += 1
            }
        }
        return lines.joined(separator: "\n")
    }

    static func display(_ name: String, ref: String = "") -> String {
        switch (name.isEmpty, ref.isEmpty) {
        case (false, false): return "\(name) (\(ref))"
        case (false, true): return name
        case (true, false): return ref
        case (true, true): return "unnamed road"
        }
    }

    public static func formatDistance(_ metres: Double) -> String {
        if metres < 1000 { return "\(Int((metres).rounded())) m" }
        return String(format: "%.1f km", metres / 1000)
    }

    public static func formatDuration(_ seconds: Double) -> String {
        let minutes = Int((seconds / 60).rounded())
        if seconds < 60 { return "\(Int(seconds.rounded())) s" }
        if minutes < 60 { return "\(minutes) min" }
        return "\(minutes / 60) h \(minutes % 60) min"
    }
}
