import Engine
import Foundation
import GraphImport
import HTTPService
import RoadGraph
import Routing

/// A small map drawn as an ASCII grid, written as OSM XML and imported through the real pipeline.
///
///     let map = TestMap("""
///         a   b
///
///         c   d
///         """)
///     map.way("ab", ["highway": "primary"])
///
/// Each letter is a node; one character is `gridSize` metres horizontally, one line `gridSize` metres vertically.
final class TestMap {
    let gridSize: Double
    let origin = Coordinate(latitude: 60.0, longitude: 25.0)
    private(set) var nodes: [Character: (id: Int64, position: Coordinate)] = [:]
    private var nodeOrder: [Character] = []
    private var nodeTags: [Character: [String: String]] = [:]
    private var ways: [(id: Int64, refs: [Int64], tags: [String: String])] = []
    private var relations: [(id: Int64, members: [(type: String, ref: Int64, role: String)], tags: [String: String])] = []
    /// Writes the ways in descending id order, as an unsorted extract has them.
    var waysUnsorted = false

    init(_ picture: String, gridSize: Double = 10) {
        self.gridSize = gridSize
        let metresPerDegree = Geo.earthRadius * Double.pi / 180
        for (row, line) in picture.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            for (column, character) in line.enumerated() where character.isLetter {
                let lat = origin.latitude - Double(row) * gridSize / metresPerDegree
                let lon = origin.longitude
                    + Double(column) * gridSize / (metresPerDegree * cos(origin.latitude * Double.pi / 180))
                nodes[character] = (Int64(nodes.count + 1), Coordinate(latitude: lat, longitude: lon))
                nodeOrder.append(character)
            }
        }
    }

    func position(_ node: Character) -> Coordinate { nodes[node]!.position }

    /// A point `fraction` of the way from one node to another.
    func position(between a: Character, _ b: Character, at fraction: Double) -> Coordinate {
        let p = position(a), q = position(b)
        return Coordinate(latitude: p.latitude + (q.latitude - p.latitude) * fraction,
                          longitude: p.longitude + (q.longitude - p.longitude) * fraction)
    }

    /// Adds a way through the named nodes; returns its id for relations.
    @discardableResult
    func way(_ path: String, _ tags: [String: String], missingNodes: [Int64] = []) -> Int64 {
        let id = Int64(ways.count + 1)
        ways.append((id, path.map { nodes[$0]!.id } + missingNodes, tags))
        return id
    }

    func tagNode(_ node: Character, _ tags: [String: String]) { nodeTags[node] = tags }

    /// Moves a drawn node to `metres` from another, along `bearing` (degrees): shapes finer than the grid.
    /// Moves a node to a coordinate of the real map (written to OSM XML with its seven decimals).
    func put(_ node: Character, at position: Coordinate) { nodes[node]!.position = position }

    func place(_ node: Character, metres: Double, bearing: Double, from origin: Character) {
        let metresPerDegree = Geo.earthRadius * Double.pi / 180, o = position(origin)
        let north = metres * cos(bearing * Double.pi / 180), east = metres * sin(bearing * Double.pi / 180)
        nodes[node]!.position = Coordinate(latitude: o.latitude + north / metresPerDegree,
                                           longitude: o.longitude + east / (metresPerDegree * cos(o.latitude * Double.pi / 180)))
    }

    func restriction(_ kind: String, from: Int64, viaNode: Character, to: Int64, extraTags: [String: String] = [:]) {
        relations.append((Int64(relations.count + 1),
                          [("way", from, "from"), ("node", nodes[viaNode]!.id, "via"), ("way", to, "to")],
                          ["type": "restriction", "restriction": kind].merging(extraTags) { $1 }))
    }

    /// Any relation, e.g. a boundary: members as (type, ref, role).
    func relation(_ members: [(type: String, ref: Int64, role: String)], _ tags: [String: String]) {
        relations.append((Int64(relations.count + 1), members, tags))
    }

    /// A maneuver relation (`type=maneuver`): from a way, through a via node and any via ways, onto a way.
    func maneuver(from: Int64, viaNode: Character, viaWays: [Int64] = [], to: Int64, _ tags: [String: String]) {
        relations.append((Int64(relations.count + 1),
                          [("way", from, "from"), ("node", nodes[viaNode]!.id, "via")] + viaWays.map { ("way", $0, "via") }
                            + [("way", to, "to")],
                          ["type": "maneuver"].merging(tags) { $1 }))
    }

    func restriction(_ kind: String, from: Int64, viaWays: [Int64], to: Int64) {
        relations.append((Int64(relations.count + 1),
                          [("way", from, "from")] + viaWays.map { ("way", $0, "via") } + [("way", to, "to")],
                          ["type": "restriction", "restriction": kind]))
    }

    func xml() -> String {
        func escape(_ s: String) -> String {
            s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
                .replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
        }
        func tagLines(_ tags: [String: String]) -> String {
            tags.sorted { $0.key < $1.key }.map { "    <tag k=\"\(escape($0.key))\" v=\"\(escape($0.value))\"/>\n" }.joined()
        }
        var out = "<?xml version='1.0' encoding='UTF-8'?>\n<osm version=\"0.6\" generator=\"wayfinder-tests\">\n"
        for name in nodeOrder {
            let node = nodes[name]!
            let tags = nodeTags[name] ?? [:]
            out += String(format: "  <node id=\"%lld\" version=\"1\" lat=\"%.8f\" lon=\"%.8f\"", node.id,
                          node.position.latitude, node.position.longitude)
            out += tags.isEmpty ? "/>\n" : ">\n\(tagLines(tags))  </node>\n"
        }
        for way in waysUnsorted ? ways.reversed() : ways {
            out += "  <way id=\"\(way.id)\" version=\"1\">\n"
            out += way.refs.map { "    <nd ref=\"\($0)\"/>\n" }.joined()
            out += tagLines(way.tags) + "  </way>\n"
        }
        for relation in relations {
            out += "  <relation id=\"\(relation.id)\" version=\"1\">\n"
            out += relation.members.map { "    <member type=\"\($0.type)\" ref=\"\($0.ref)\" role=\"\($0.role)\"/>\n" }.joined()
            out += tagLines(relation.tags) + "  </relation>\n"
        }
        return out + "</osm>\n"
    }

    /// Where the last `build()` imported to (kept as long as the map).
    private(set) var directory: TemporaryDirectory?
    var graphDirectory: String { directory!.path + "/graph" }

    /// Imports the map (with Wayfinder's import rules, or OSRM's) and loads the driving and walking graphs.
    func build(compatibility: Compatibility = .wayfinder, modes: [TravelMode] = [.driving, .walking],
               timeZone: TimeZoneChoice? = nil) throws
        -> (driving: RoadGraph, walking: RoadGraph)
    {
        let directory = try TemporaryDirectory()
        self.directory = directory
        let input = directory.path + "/map.osm"
        try xml().write(toFile: input, atomically: true, encoding: .utf8)
        _ = try GraphImporter.importGraphs(from: input, to: directory.path + "/graph", compatibility: compatibility, modes: modes,
                                           timeZone: timeZone)
        let driving = try RoadGraph(contentsOf: try graphFile(directory.path + "/graph", .driving))
        let walking = try RoadGraph(contentsOf: try graphFile(directory.path + "/graph", .walking))
        return (driving, walking)
    }
}

/// OSRM's travel time along a line at one speed, as the import now times roads: each segment measured with OSRM's
/// ruler, its time rounded to a tenth of a second and at least a tenth.
func osrmSeconds(_ points: [Coordinate], kmh: Double) -> Double {
    zip(points, points.dropFirst()).reduce(0) { $0 + max(1, (Geo.osrmRulerDistance($1.0, $1.1) / (kmh / 3.6) * 10).rounded()) / 10 }
}

/// The file of a mode's graph in the current generation of a graph directory.
func graphFile(_ directory: String, _ mode: TravelMode) throws -> String {
    try GraphDirectory(directory).current().graphPath(for: mode)
}

/// A directory under the system temp dir, removed when the last reference goes.
final class TemporaryDirectory {
    let path: String
    init() throws {
        path = NSTemporaryDirectory() + "wayfinder-test-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// Routes with the contraction hierarchy, checks the cost against A*, the fast Dijkstra and the reference
/// Dijkstra (all avoiding `excluding`), and returns the route.
func checkedRoute(_ graph: RoadGraph, _ points: [Coordinate], continueStraight: Bool? = nil,
                  excluding: ArcClasses = []) throws -> Route {
    var router = Router(graph: graph)
    router.excluding = excluding
    let route = try router.route(points, algorithm: graph.hasHierarchy ? .ch : .astar, continueStraight: continueStraight)
    let astar = try router.route(points, algorithm: .astar, continueStraight: continueStraight)
    let dijkstra = try router.route(points, algorithm: .dijkstra, continueStraight: continueStraight)
    guard route.weight == dijkstra.weight, astar.weight == dijkstra.weight else {
        throw OracleMismatch(message: "CH \(route.weight), A* \(astar.weight), Dijkstra \(dijkstra.weight)")
    }
    for leg in route.legs {
        let oracle = ReferenceDijkstra.cost(in: graph, from: graph.sourceEndpoints(leg.source),
                                            to: graph.targetEndpoints(leg.target), excluding: excluding)
        guard oracle == leg.weight else { throw OracleMismatch(message: "A* \(leg.weight) ≠ oracle \(String(describing: oracle))") }
        let stretchSum = leg.stretches.reduce(0.0) { $0 + $1.duration }
        guard abs(stretchSum - leg.duration) < 0.0015 else { throw OracleMismatch(message: "stretches \(stretchSum) ≠ leg \(leg.duration)") }
        let weightSum = leg.stretches.reduce(0.0) { $0 + $1.weight * 1000 }
        guard abs(weightSum - Double(leg.weight)) < 0.5 else { throw OracleMismatch(message: "stretch weights \(weightSum) ≠ leg \(leg.weight)") }
        for stretch in leg.stretches where !stretch.classes.intersection(excluding).isEmpty {
            throw OracleMismatch(message: "the route uses an excluded road")
        }
    }
    return route
}

struct OracleMismatch: Error, CustomStringConvertible { var message: String; var description: String { message } }

/// Names of the roads a route uses, in order, without repeats.
func roadNames(_ route: Route) -> [String] {
    var names: [String] = []
    for leg in route.legs {
        for s in leg.stretches where names.last != s.name { names.append(s.name) }
    }
    return names
}

/// Starts `count` clients, each on a thread of its own, and returns the group to wait on. Load clients block on
/// sockets for their whole life; on GCD's global queues they can wait for a worker behind other tests' blocked
/// work (seen in CI: a load that sent 3 requests in 40 s), so they are not queued there.
func startClients(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) -> DispatchGroup {
    let group = DispatchGroup()
    for client in 0..<count {
        group.enter()
        Thread { body(client); group.leave() }.start()
    }
    return group
}

extension TestMap {
    /// The map imported with Wayfinder's rules and answered as `wayfinder serve` answers it, without a socket.
    func served() throws -> WayfinderService {
        _ = try build()
        return WayfinderService(engine: try Engine(directory: graphDirectory))
    }
}
