import Foundation

/// The process's peak resident set size so far, in bytes, from `getrusage(2)`.
///
/// Linux reports `ru_maxrss` in kilobytes, macOS in bytes.
func peakResidentBytes() -> Int {
    let usage = resourceUsage()
    #if os(Linux)
    return Int(usage.ru_maxrss) * 1024
    #else
    return Int(usage.ru_maxrss)
    #endif
}

/// User plus system CPU seconds used so far by every thread of the process.
func processCPUSeconds() -> Double {
    let usage = resourceUsage()
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) * 1e-6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

private func resourceUsage() -> rusage {
    var usage = rusage()
    #if os(Linux)
    _ = getrusage(RUSAGE_SELF.rawValue, &usage)
    #else
    _ = getrusage(RUSAGE_SELF, &usage)
    #endif
    return usage
}

/// Keeps the optimiser from removing work whose result is otherwise unused.
@inline(never)
func blackHole<Value>(_ value: Value) {
    withExtendedLifetime(value) {}
}

/// CPU seconds (user + system) the calling thread has used: a write's own work, without the
/// compactions LevelDB runs on its background thread.
func threadCPUSeconds() -> Double {
    var time = timespec()
    _ = clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
}
