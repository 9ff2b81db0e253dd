import Foundation
import GraphImport
import RoadGraph
import WayfinderEngine

/// What an import wrote, per mode.
public struct ImportedGraph: Sendable, Hashable {
    /// The mode of this graph.
    public var mode: Mode
    /// Junctions and road ends.
    public var vertices: Int
    /// Road pieces between them.
    public var edges: Int
    /// Allowed turns between road pieces.
    public var turns: Int
}

/// An import's summary: what was read and what was written.
public struct ImportReport: Sendable, Hashable {
    /// Highway ways read.
    public var ways: Int
    /// Nodes read.
    public var nodes: Int
    /// Restriction and maneuver relations read.
    public var relations: Int
    /// One entry per graph written.
    public var graphs: [ImportedGraph]
    /// Places, streets, addresses and POIs indexed for names (nil when the input had none to index).
    public var places: Int?
    /// Wall-clock seconds.
    public var seconds: Double
}

/// Reads an OpenStreetMap extract (`.osm.pbf`, `.osm`, `.osm.gz`, `.osm.bz2`) with libosmium and writes the graph
/// directory a `Wayfinder` opens: one graph per mode, with its contraction hierarchy, and the place index.
public enum GraphImporting {
    /// Imports `input` into `directory`, which is replaced only when the import succeeds (a failed import leaves
    /// the previous graphs in place).
    ///
    /// - Parameters:
    ///   - modes: the graphs to build; every mode by default.
    ///   - compatibility: `.osrm` follows OSRM's rules where PROFILES.md lists a deviation decided at import.
    ///   - contract: builds the contraction hierarchies (without them routes use A*, and tables are slow).
    /// - Throws: `InvalidValue` with the reason when the input cannot be read or the output written.
    @discardableResult
    public static func importGraphs(from input: String, to directory: String, modes: [Mode] = Mode.allCases,
                                    compatibility: WayfinderEngine.Compatibility = .wayfinder, contract: Bool = true)
        throws(WayfinderError) -> ImportReport
    {
        guard !modes.isEmpty else { throw WayfinderError(code: "InvalidValue", message: "an import needs at least one mode") }
        do {
            let summary = try GraphImporter.importGraphs(
                from: input, to: directory, contract: contract, compatibility: compatibility == .osrm ? .osrm : .wayfinder,
                modes: modes.map { TravelMode(rawValue: $0.rawValue)! }) { _ in }
            let places = summary.places.map { $0.places + $0.streets + $0.addresses + $0.pois }
            return ImportReport(ways: summary.ways, nodes: summary.nodes, relations: summary.relations,
                                graphs: summary.modes.map {
                                    ImportedGraph(mode: Mode(profileName: $0.mode.rawValue)!, vertices: $0.vertices,
                                                  edges: $0.edges, turns: $0.transitions)
                                },
                                places: places, seconds: summary.seconds)
        } catch {
            throw WayfinderError(code: "InvalidValue", message: "import of \(input) failed: \(error)")
        }
    }
}
