import Foundation

/// The process's peak resident set size so far, in bytes, from `getrusage(2)`.
///
/// Linux reports `ru_maxrss` in kilobytes, macOS in bytes.
func peakResidentBytes() -> Int {
    var usage = rusage()
    #if os(Linux)
    guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return 0 }
    return Int(usage.ru_maxrss) * 1024
    #else
    guard getrusage(RUSAGE_SELF, &usage) == 0 else { return 0 }
    return Int(usage.ru_maxrss)
    #endif
}

/// Keeps the optimiser from removing work whose result is otherwise unused.
@inline(never)
func blackHole<Value>(_ value: Value) {
    withExtendedLifetime(value) {}
}
