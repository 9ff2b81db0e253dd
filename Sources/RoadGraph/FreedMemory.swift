import Glibc

/// Hands memory freed between the phases of an import or a customization back to the system: glibc keeps freed
/// blocks in its arenas, so without this the peak is the sum of the phases' peaks, not the largest.
public func releaseFreedMemory() {
    _ = mallocTrim(0)
}

/// Hands back the pages wholly inside `bytes`, memory of the caller's that nothing reads again (what is read there
/// afterwards is zero). Pages shared with bytes outside are kept.
public func releaseWholePages(_ bytes: UnsafeRawBufferPointer) {
    guard let base = bytes.baseAddress else { return }
    let page = Int(sysconf(Int32(_SC_PAGESIZE)))
    let address = Int(bitPattern: base)
    let start = (address + page - 1) / page * page, end = (address + bytes.count) / page * page
    guard end > start else { return }
    _ = madvise(UnsafeMutableRawPointer(bitPattern: start), end - start, MADV_DONTNEED)
}

/// glibc's `malloc_trim` (its header is not in Swift's Glibc module).
@_silgen_name("malloc_trim") private func mallocTrim(_ pad: Int) -> Int32
