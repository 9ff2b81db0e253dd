import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A cap on the CPU time that the work of one request may take on its thread: the server sets it per request,
/// and long loops (searches, table rows, geocoder attempts) ask `exceeded()` now and then and stop early. The
/// caller then sees `wasExceeded` and answers with an error instead of a result. Per thread, so nothing needs
/// to be passed down; a thread without a budget never stops.
public enum WorkBudget {
    final class State {
        var limit: UInt64 = 0  // thread CPU nanoseconds at which the work must stop; 0: no budget
        var exceededFlag = false
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            if let pointer { Unmanaged<State>.fromOpaque(pointer).release() }
        }
        return key
    }()

    private static var state: State {
        if let pointer = pthread_getspecific(key) { return Unmanaged<State>.fromOpaque(pointer).takeUnretainedValue() }
        let state = State()
        pthread_setspecific(key, Unmanaged.passRetained(state).toOpaque())
        return state
    }

    /// CPU time used by the calling thread, nanoseconds.
    public static func threadCPUTime() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// Runs `body` with at most `milliseconds` of this thread's CPU time for the loops that check (nil: no cap).
    /// Within another `run`, the earlier end stands: a request's parts (snapping, a table, a route) share the
    /// request's budget rather than each getting a fresh one.
    public static func run<T>(milliseconds: Double?, _ body: () throws -> T) rethrows -> T {
        let s = state
        let saved = (s.limit, s.exceededFlag)
        if let milliseconds {
            let end = threadCPUTime() + UInt64(max(0, min(milliseconds, 1e12)) * 1_000_000)
            s.limit = saved.0 != 0 ? min(saved.0, end) : end
        }
        s.exceededFlag = saved.1
        defer { (s.limit, s.exceededFlag) = saved }
        return try body()
    }

    /// Whether this thread's budget is spent. Costs a system call: call it every few thousand steps.
    public static func exceeded() -> Bool {
        guard let pointer = pthread_getspecific(key) else { return false }
        let s = Unmanaged<State>.fromOpaque(pointer).takeUnretainedValue()
        if s.exceededFlag { return true }
        guard s.limit != 0, threadCPUTime() >= s.limit else { return false }
        s.exceededFlag = true
        return true
    }

    /// Whether a loop on this thread stopped because the budget ran out (within the current `run`).
    public static var wasExceeded: Bool {
        guard let pointer = pthread_getspecific(key) else { return false }
        return Unmanaged<State>.fromOpaque(pointer).takeUnretainedValue().exceededFlag
    }
}
