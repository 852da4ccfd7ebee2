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
func measuredRegion(_ operations: Int, scale: Double = 1, _ body: () throws -> Void) throws -> Timing {
    let cpuStart = processCPUSeconds()
    let clock = ContinuousClock()
    let start = clock.now
    regionStarts()
    try body()
    regionEnds()
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
    regionStarts()
    try await body()
    regionEnds()
    let elapsed = clock.now - start
    let cpu = processCPUSeconds() - cpuStart
    let wall = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    return Timing(cpu: cpu * 1e6 / Double(operations), wall: wall * 1e6 / Double(operations))
}

/// Called as a timed region starts and as it ends, so that callgrind can count the region alone,
/// every thread's instructions in it (run with `--only` one workload and one repetition):
/// `valgrind --tool=callgrind --zero-before=plain_store_bench_region_starts
/// --dump-before=plain_store_bench_region_ends` writes the region's counts to the `.1` file.
@inline(never)
@_silgen_name("plain_store_bench_region_starts")
func regionStarts() { blackHole(0) }

@inline(never)
@_silgen_name("plain_store_bench_region_ends")
func regionEnds() { blackHole(1) }

/// Runs `body` in a task and waits for it. The executable's `main` is synchronous: Valgrind 3.19
/// stops with an internal error on an `async` main (its thread parks in `dispatch_main`).
func waitFor<Result: Sendable>(_ body: @escaping @Sendable () async throws -> Result) throws -> Result {
    let done = DispatchSemaphore(value: 0)
    let outcome = Outcome<Result>()
    Task.detached {
        do { outcome.value = .success(try await body()) } catch { outcome.value = .failure(error) }
        done.signal()
    }
    done.wait()
    return try outcome.value!.get()
}

private final class Outcome<Value: Sendable>: @unchecked Sendable {
    // @unchecked: written by the task before it signals, read after the wait.
    var value: Result<Value, any Error>?
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
