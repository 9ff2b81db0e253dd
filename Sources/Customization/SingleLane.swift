/// One lane, for a metric with a single exclusion set (a graph whose roads have no class to avoid: cycling's,
/// or the week's bounds): the triangle kernels and the assembly run on it as on `SIMD2`, with half the memory
/// per edge (four of its arrays per topology edge hold a customization's weights).
struct SingleLane: SIMD, Sendable {
    typealias Scalar = UInt32
    typealias MaskStorage = SingleLaneMask
    typealias ArrayLiteralElement = UInt32

    var value: UInt32 = 0

    init() {}

    static var scalarCount: Int { 1 }
    var scalarCount: Int { 1 }

    subscript(index: Int) -> UInt32 {
        get { value }
        set { value = newValue }
    }
}

/// `SingleLane`'s comparisons: one signed lane, as SIMD masks are.
struct SingleLaneMask: SIMD, Sendable {
    typealias Scalar = Int32
    typealias MaskStorage = SingleLaneMask
    typealias ArrayLiteralElement = Int32

    var value: Int32 = 0

    init() {}

    static var scalarCount: Int { 1 }
    var scalarCount: Int { 1 }

    subscript(index: Int) -> Int32 {
        get { value }
        set { value = newValue }
    }
}
