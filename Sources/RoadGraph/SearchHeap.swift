/// The priority queue of every search (plain, A*, hierarchy, tables, the contraction's witness searches and its
/// order): a binary min-heap of (key, item) with lazy deletion — a cheaper label is pushed again and the stale
/// entry skipped when popped, which measures faster here than decrease-key on graphs of a few million states.
/// Keys are signed so that hierarchy searches may start below zero. Entries compare by key alone: a tie-break by
/// item cost plain Dijkstra a fifth of its time, and the order stays deterministic (it follows the pushes).
public struct SearchHeap {
    @usableFromInline struct Entry {
        @usableFromInline var key: Int64
        @usableFromInline var item: UInt32
        @inlinable init(key: Int64, item: UInt32) { self.key = key; self.item = item }
        @inlinable func precedes(_ other: Entry) -> Bool { key < other.key }
    }

    @usableFromInline var entries: ContiguousArray<Entry> = []

    public init() {}

    public var isEmpty: Bool { entries.isEmpty }
    public var count: Int { entries.count }
    /// The smallest key, nil when empty.
    @inlinable public var minKey: Int64? { entries.first?.key }

    public mutating func removeAll() { entries.removeAll(keepingCapacity: true) }
    /// The items queued, in no order.
    public var items: [UInt32] { entries.map(\.item) }

    @inlinable @inline(__always)
    public mutating func push(_ key: Int64, _ item: UInt32) {
        let entry = Entry(key: key, item: item)
        entries.append(entry)
        entries.withUnsafeMutableBufferPointer { h in
            var i = h.count - 1
            while i > 0 {
                let p = (i - 1) >> 1
                if !entry.precedes(h[p]) { break }
                h[i] = h[p]
                i = p
            }
            h[i] = entry
        }
    }

    @inlinable @inline(__always)
    public mutating func pop() -> (key: Int64, item: UInt32)? {
        guard let last = entries.popLast() else { return nil }
        if entries.isEmpty { return (last.key, last.item) }
        return entries.withUnsafeMutableBufferPointer { h in
            let top = h[0]
            let n = h.count
            var i = 0
            while true {
                var c = 2 * i + 1
                if c >= n { break }
                if c + 1 < n && h[c + 1].precedes(h[c]) { c += 1 }
                if !h[c].precedes(last) { break }
                h[i] = h[c]
                i = c
            }
            h[i] = last
            return (top.key, top.item)
        }
    }
}

/// Which states a search has touched, cleared in O(1) between searches: a state is marked when its stamp equals the
/// current generation, and a new search moves to the next generation (wiping the stamps only when the counter
/// wraps, once in 2³² searches).
public struct SearchStamps {
    @usableFromInline var stamps: ContiguousArray<UInt32> = []
    @usableFromInline var generation: UInt32 = 0

    public init() {}

    /// Starts a new search over `count` states; true when the arrays were (re)allocated, so that a search's own
    /// per-state arrays know to follow.
    @discardableResult
    public mutating func reset(count: Int) -> Bool {
        var resized = false
        if stamps.count != count {
            stamps = ContiguousArray(repeating: 0, count: count)
            generation = 0
            resized = true
        }
        generation &+= 1
        if generation == 0 {
            for i in stamps.indices { stamps[i] = 0 }
            generation = 1
        }
        return resized
    }

    @inlinable @inline(__always) public func contains(_ state: Int) -> Bool { stamps[state] == generation }
    /// The stamps and the current generation, for a hot loop that would otherwise pay a bounds check per test.
    @inlinable public mutating func withUnsafeStamps<R>(_ body: (UnsafeMutableBufferPointer<UInt32>, UInt32) throws -> R) rethrows -> R {
        let current = generation
        return try stamps.withUnsafeMutableBufferPointer { try body($0, current) }
    }
    @inlinable @inline(__always) public mutating func insert(_ state: Int) { stamps[state] = generation }
    /// Marks `state`; false if it was already marked.
    @inlinable @inline(__always) public mutating func insertIfAbsent(_ state: Int) -> Bool {
        if stamps[state] == generation { return false }
        stamps[state] = generation
        return true
    }
}
