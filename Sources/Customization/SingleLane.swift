/// One lane, for a metric with a single exclusion set (a graph whose roads have no class to avoid: cycling's,
/// or the week's bounds): the triangle kernels and the assembly run on it as on `SIMD2`, with half the memory
/// per edge (four of its arrays per topology edge hold a customization's weights). Its comparisons give a
/// `SingleLane` of the scalar's mask type, as SIMD masks are.
struct SingleLane<Scalar: SIMDScalar & FixedWidthInteger & Sendable>: SIMD, Sendable {
    typealias MaskStorage = SingleLane<Scalar.SIMDMaskScalar>
    typealias ArrayLiteralElement = Scalar

    var value: Scalar = 0

    init() {}

    static var scalarCount: Int { 1 }
    var scalarCount: Int { 1 }

    subscript(index: Int) -> Scalar {
        get { value }
        set { value = newValue }
    }
}
