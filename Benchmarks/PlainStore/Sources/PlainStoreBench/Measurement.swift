import Foundation

/// One workload's cost per operation, in µs (ns for the cache-hit workloads): CPU time (user +
/// system, every thread of the process, LevelDB's background compactions included) and wall time.
struct Timing: Sendable {
    var cpu: Double
    var wall: Double
}

struct BenchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Times `body`: CPU and wall time per operation, in µs (`scale` 1e3: ns).
///
/// The one function every timed region runs in, so that callgrind can count it alone:
/// `valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*measuredRegion*'`.
@inline(never)
func measuredRegion(_ operations: Int, scale: Double = 1, _ body: () throws -> Void) throws -> Timing {
    let cpuStart = processCPUSeconds()
    let clock = ContinuousClock()
    let start = clock.now
    try body()
    let elapsed = clock.now - start
    let cpu = processCPUSeconds() - cpuStart
    let wall = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let perOperation = 1e6 * scale / Double(operations)
    return Timing(cpu: cpu * perOperation, wall: wall * perOperation)
}

/// ``measuredRegion(_:scale:_:)`` for an async body (the import).
@inline(never)
func measuredRegionAsync(_ operations: Int, _ body: () async throws -> Void) async throws -> Timing {
    let cpuStart = processCPUSeconds()
    let clock = ContinuousClock()
    let start = clock.now
    try await body()
    let elapsed = clock.now - start
    let cpu = processCPUSeconds() - cpuStart
    let wall = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    return Timing(cpu: cpu * 1e6 / Double(operations), wall: wall * 1e6 / Double(operations))
}

/// User plus system CPU seconds used so far by every thread of the process.
func processCPUSeconds() -> Double {
    var usage = rusage()
    #if os(Linux)
    _ = getrusage(RUSAGE_SELF.rawValue, &usage)
    #else
    _ = getrusage(RUSAGE_SELF, &usage)
    #endif
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) * 1e-6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// Keeps the optimiser from removing work whose result is otherwise unused.
@inline(never)
func blackHole<Value>(_ value: Value) {
    withExtendedLifetime(value) {}
}

/// The median of `values` (the mean of the middle two for an even count).
func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}
