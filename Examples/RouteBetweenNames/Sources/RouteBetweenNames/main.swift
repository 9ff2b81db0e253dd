import Foundation
import WayfinderEngine

// route-between-names GRAPH_DIR FROM TO [driving|walking|cycling]: the fastest route between two places, by name.
let arguments = CommandLine.arguments.dropFirst()
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: RouteBetweenNames GRAPH_DIR FROM TO [driving|walking|cycling]\n".utf8))
    exit(2)
}
let words = Array(arguments)
guard let mode = Mode(profileName: words.count > 3 ? words[3] : "driving") else {
    FileHandle.standardError.write(Data("unknown mode \(words[3])\n".utf8))
    exit(2)
}
/// Prints the route and its steps.
func printRoute(in directory: String, from origin: String, to destination: String, mode: Mode) throws(WayfinderError) {
    let wayfinder = try Wayfinder(directory: directory)
    let route = try wayfinder.route(from: .name(origin), to: .name(destination), options: RouteOptions(mode: mode))
    print(String(format: "%.1f km, %.0f min", route.distance / 1000, route.duration / 60))
    for step in route.legs.flatMap(\.steps) {
        print("  " + step.instruction + (step.distance > 0 ? String(format: " (%.0f m)", step.distance) : ""))
    }
}

do {
    try printRoute(in: words[0], from: words[1], to: words[2], mode: mode)
} catch {
    FileHandle.standardError.write(Data("\(error.code): \(error.message)\n".utf8))
    exit(error.code == "NoRoute" ? 3 : 1)
}
