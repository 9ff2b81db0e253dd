import Foundation
import Guidance
import RoadGraph
import Routing

/// GPX 1.1: the steps as route points (instruction as name) and the full line as a track.
public enum RouteGPX {
    public static func make(_ guided: GuidedRoute) -> String {
        let (route, directions) = (guided.route, guided.directions)
        func escape(_ s: String) -> String {
            s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
                .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
        }
        func position(_ c: Coordinate) -> String { String(format: "lat=\"%.7f\" lon=\"%.7f\"", c.latitude, c.longitude) }
        let summary = directions.phrases.summary(distance: route.distance, duration: route.duration, mode: route.mode,
                                                 units: directions.options.units)
        var out = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="wayfinder" xmlns="http://www.topografix.com/GPX/1/1">
          <metadata><name>\(escape(summary))</name></metadata>
          <rte>
            <name>\(escape(summary))</name>

        """
        for step in directions.legs.joined() {
            out += "    <rtept \(position(step.maneuver.location))><name>\(escape(step.instruction))</name>"
            out += "<desc>\(escape(directions.phrases.distance(step.distance, units: directions.options.units)))</desc>"
            out += "<type>\(escape(step.maneuver.type.rawValue))</type></rtept>\n"
        }
        out += "  </rte>\n  <trk>\n    <name>\(escape(summary))</name>\n    <trkseg>\n"
        for c in route.coordinates { out += "      <trkpt \(position(c))/>\n" }
        out += "    </trkseg>\n  </trk>\n</gpx>"
        return out
    }
}
