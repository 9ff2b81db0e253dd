/// The tags of one OSM object, as decoded strings. Objects carry a handful of tags, so a linear scan beats hashing.
public struct Tags: Sendable, ExpressibleByDictionaryLiteral {
    public var pairs: [(key: String, value: String)]

    public init(_ pairs: [(key: String, value: String)]) { self.pairs = pairs }

    public init(dictionaryLiteral elements: (String, String)...) {
        pairs = elements.map { (key: $0.0, value: $0.1) }
    }

    public subscript(key: String) -> String? {
        for pair in pairs where pair.key == key { return pair.value }
        return nil
    }

    /// The value of the most specific key present, from a hierarchy listed general → specific
    /// (e.g. access → vehicle → motor_vehicle → motorcar).
    public func mostSpecific(_ hierarchy: [String]) -> String? {
        for key in hierarchy.reversed() { if let value = self[key] { return value } }
        return nil
    }
}
