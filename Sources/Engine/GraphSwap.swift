import Foundation
import RoadGraph

/// What `Engine.refresh` did.
public enum GraphRefresh: Sendable, Equatable {
    /// The graphs on disk are the ones in use (or the ones last refused): nothing was loaded.
    case unchanged
    /// A new generation now answers new requests; requests that started before finish on the old one, whose
    /// mappings go with the last of them.
    case installed(GraphGeneration?)
    /// The new graphs could not be used (damaged, missing a mode, unreadable): the old ones keep answering.
    case refused(String)
}

extension Engine {
    /// Maps the graph directory's current generation if it is not the one in use, verifies it, and switches new
    /// requests to it: what `serve` does on SIGHUP (`force`, which also retries a generation once refused) and
    /// when an import renames a new generation into place. A generation that fails to load is refused, and not
    /// tried again until its files change or `force` is given. Never throws: the graphs in use stay in use.
    public func refresh(force: Bool = false) -> GraphRefresh {
        guard let directory else { return .unchanged }
        return refreshLock.withLock {
            let identity = directory.identity(modes: modes)
            if !force && (identity == loadedIdentity || refusedIdentity == .some(identity)) { return .unchanged }
            isSwapping = true
            defer { isSwapping = false }
            do {
                let set = try GraphSet.load(directory, modes: modes, privateCopies: privateCopies)
                // Opened now, while its file is certainly there: the next import removes this generation's files,
                // and an open index keeps working on a removed file.
                _ = set.hasPlaceIndex
                install(set)
                loadedIdentity = identity
                refusedIdentity = .none
                return .installed(set.generation)
            } catch {
                refusedIdentity = identity
                return .refused("\(error)")
            }
        }
    }

    /// What a load balancer or orchestrator probes: which graphs answer, and whether the engine is ready.
    public var health: EngineHealth {
        let set = current
        let graphs = TravelMode.allCases.compactMap { set.graphs[$0] }
        return EngineHealth(swapping: isSwapping, source: graphs.first?.metadata.sourceName ?? "",
                            buildTime: graphs.map(\.metadata.buildTime).max() ?? 0,
                            formatVersion: GraphFormat.version, modes: graphs.map(\.metadata.mode),
                            generation: set.generation?.name, hasPlaceIndex: set.hasPlaceIndex,
                            importRules: graphs.first?.metadata.compatibility ?? .wayfinder,
                            metrics: graphs.map { ($0.metadata.mode, $0.metadata.metric.isEmpty ? "import" : $0.metadata.metric) })
    }
}

public struct EngineHealth: Sendable {
    /// A new generation is being mapped and verified: the old one still answers, but a balancer may prefer others.
    public var swapping: Bool
    public var source: String
    /// When the import wrote the graphs, seconds since 1970.
    public var buildTime: Int64
    public var formatVersion: UInt32
    public var modes: [TravelMode]
    public var generation: String?
    public var hasPlaceIndex: Bool
    /// Whose rules the import followed (`import --compat`).
    public var importRules: Compatibility = .wayfinder
    /// Per mode, the metric its costs are: `import`, or the name `wayfinder customize` gave it.
    public var metrics: [(mode: TravelMode, name: String)] = []
}
