/// Hands memory freed between the phases of an import or a customization back to the system: glibc keeps freed
/// blocks in its arenas, so without this the peak is the sum of the phases' peaks, not the largest.
public func releaseFreedMemory() {
    _ = mallocTrim(0)
}

/// glibc's `malloc_trim` (its header is not in Swift's Glibc module).
@_silgen_name("malloc_trim") private func mallocTrim(_ pad: Int) -> Int32
