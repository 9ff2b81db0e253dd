import RoadGraph

/// Route ends at a time of the week: with historical speeds, the part of an arc a route starts or ends on costs
/// the arc's cost in that slot in the proportion its metric's part bears to the metric's whole arc (`proportion`),
/// so that a source's part, a target's part and the pieces of a leg all agree, as they do without a time.
extension RoadGraph {
    /// A source endpoint's weight and time to its arc's head, leaving in week slot `slot`.
    public func source(_ s: SearchEndpoint, inSlot slot: Int) -> (weight: UInt32, duration: UInt32) {
        let arc = Int(s.arc), (w, d) = costs(ofArc: s.arc, inSlot: slot)
        return (w - proportion(arcWeight[arc] - s.cost, of: arcWeight[arc], scaledTo: w),
                d - proportion(arcDuration[arc] - sourceDuration(s), of: arcDuration[arc], scaledTo: d))
    }

    /// A target endpoint's weight and time from its arc's tail, the arc entered in week slot `slot`.
    public func target(_ t: SearchEndpoint, inSlot slot: Int) -> (weight: UInt32, duration: UInt32) {
        let arc = Int(t.arc), (w, d) = costs(ofArc: t.arc, inSlot: slot)
        return (proportion(t.cost, of: arcWeight[arc], scaledTo: w), proportion(targetDuration(t), of: arcDuration[arc], scaledTo: d))
    }

    /// `cellWithinArc` leaving in week slot `slot`.
    public func cellWithinArc(from s: SearchEndpoint, to t: SearchEndpoint, inSlot slot: Int) -> TableCell? {
        guard var cell = cellWithinArc(from: s, to: t) else { return nil }
        let arc = Int(s.arc), (w, d) = costs(ofArc: s.arc, inSlot: slot)
        cell.weight = proportion(t.cost, of: arcWeight[arc], scaledTo: w)
            &- proportion(arcWeight[arc] - s.cost, of: arcWeight[arc], scaledTo: w)
        cell.duration = proportion(targetDuration(t), of: arcDuration[arc], scaledTo: d)
            &- proportion(arcDuration[arc] - sourceDuration(s), of: arcDuration[arc], scaledTo: d)
        return cell
    }

    /// The part of arc `a` from fraction `from` to `to` of its length, weight (or with `time`, time) at its costs
    /// `(weight, duration)` of some slot.
    func part(ofArc a: UInt32, from: Double, to: Double, time: Bool, at costs: (weight: UInt32, duration: UInt32)) -> UInt32 {
        let whole = time ? arcDuration[Int(a)] : arcWeight[Int(a)], scaled = time ? costs.duration : costs.weight
        return proportion(partialCost(ofArc: a, fraction: to, time: time), of: whole, scaledTo: scaled)
            - proportion(partialCost(ofArc: a, fraction: from, time: time), of: whole, scaledTo: scaled)
    }
}

/// A lower bound made for the graph's metric, scaled to hold at every time of the week (`RoadGraph.historyFloor`).
/// One millisecond less, for the rounding of route ends' parts (`proportion`).
struct ScaledHeuristic<Base: SearchHeuristic>: SearchHeuristic {
    let base: Base
    let factor: Double

    func estimate(fromVertex v: UInt32) -> UInt32 { scale(base.estimate(fromVertex: v)) }
    func estimate(fromArc a: UInt32, head: UInt32) -> UInt32 { scale(base.estimate(fromArc: a, head: head)) }
    private func scale(_ e: UInt32) -> UInt32 {
        let scaled = UInt32(Double(e) * factor)
        return scaled > 0 ? scaled - 1 : 0
    }
}
