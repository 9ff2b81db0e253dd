/// The tags of one OSM object, as decoded strings. Objects carry a handful of tags, so a linear scan beats hashing.
/// A tag with an empty value counts as absent everywhere (as OSRM's tag lookup treats it).
public struct Tags: Sendable, ExpressibleByDictionaryLiteral {
    public var pairs: [(key: String, value: String)]

    public init(_ pairs: [(key: String, value: String)]) { self.pairs = pairs }

    public init(dictionaryLiteral elements: (String, String)...) {
        pairs = elements.map { (key: $0.0, value: $0.1) }
    }

    public subscript(key: String) -> String? {
        for pair in pairs where pair.key == key { return pair.value.isEmpty ? nil : pair.value }
        return nil
    }

    /// The first key of `keys` that is present, in order (most specific first).
    public func first(_ keys: [String]) -> String? {
        for key in keys { if let value = self[key] { return value } }
        return nil
    }

    /// Per direction, the first of `key:forward` (or `key:backward`) and `key` present, for each key in order:
    /// `motorcar:forward` > `motorcar` > `motor_vehicle:forward` > … (OSRM's `get_forward_backward_by_set`).
    public func forwardBackward(_ keys: [String]) -> (forward: String?, backward: String?) {
        var forward: String?, backward: String?
        for key in keys {
            if forward == nil { forward = self[key + ":forward"] }
            if backward == nil { backward = self[key + ":backward"] }
            if forward == nil || backward == nil {
                let common = self[key]
                forward = forward ?? common
                backward = backward ?? common
            }
            if forward != nil && backward != nil { break }
        }
        return (forward, backward)
    }

    /// `key:forward`/`key:backward`, with the plain `key` standing for the directions the way may be travelled in
    /// (OSRM's `get_forward_backward_by_key`): on a oneway, `key` describes only its direction of travel.
    public func forwardBackward(_ key: String, oneway: Oneway) -> (forward: String?, backward: String?) {
        var forward = self[key + ":forward"], backward = self[key + ":backward"]
        if forward == nil || backward == nil {
            let common = self[key]
            switch oneway {
            case .forward: forward = forward ?? common
            case .backward: backward = backward ?? common
            case .none: forward = forward ?? common; backward = backward ?? common
            }
        }
        return (forward, backward)
    }
}

/// Which way a oneway runs, as far as its tags say.
public enum Oneway: Sendable {
    case none, forward, backward
}
