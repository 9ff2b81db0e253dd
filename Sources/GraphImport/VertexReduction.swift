import RoadGraph

/// A mode's arc graph seen as a graph of vertices, for a contraction hierarchy over vertices (a quarter of the
/// nodes of one over arcs, for walking). Possible where, at every vertex, each arc arriving may go on along every
/// arc leaving but its own way back, all at one cost (the vertex's: a traffic signal), or along its own way back
/// only (a barrier that lets nothing through, or a dead end). A path over vertices then costs what the same path
/// over arcs costs: arriving at a vertex costs the arc plus the vertex, and a U-turn, the only turn the vertex
/// graph allows and the arc graph does not, never shortens a path (it comes back to a vertex already passed).
/// Turn costs that depend on the turn, turn restrictions and copied arcs (driving) rule it out.
/// `ModeGraphBuilder.vertexReduction()` checks a built graph and makes one.
struct VertexReduction {
    /// Per vertex: what passing it costs (milliseconds), `noIndex` where nothing passes.
    var cost: [UInt32]
    /// Per arc: the vertex it leaves.
    var tail: [UInt32]
}
