import Dispatch
import Foundation
import RoadGraph

/// The scratch of tables on one graph: upward searches for the hierarchy's, and plain searches for graphs without
/// one and for the rare cells the buckets cannot give. Share one between tables (a server keeps one per graph);
/// nothing is allocated until a table needs it.
public final class TableScratch: @unchecked Sendable {
    let upward: Pool<UpwardSearch>
    public let plain = Pool { TableSearch() }

    public init(graph: RoadGraph) {
        let count = graph.hierarchyNodeCount
        upward = Pool { UpwardSearch(count: count) }
    }
}
