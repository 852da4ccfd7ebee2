import CMallocCounter

/// One timed run of one workload.
struct Sample: Codable, Sendable {
    var workload: Workload
    /// Operations the run performed (records written, read, scanned or swept).
    var operations: Int
    /// Wall-clock seconds of the run.
    var seconds: Double
    /// CPU seconds (user and system, every thread) the process spent during the run. Less
    /// sensitive than wall-clock time to other work on a shared machine, but blind to time
    /// spent waiting (for the disk, or for LevelDB to finish a compaction).
    var cpuSeconds: Double
    /// Allocations made by the whole process during the run (LevelDB's background
    /// compaction thread included), or nil where they cannot be counted.
    var allocations: UInt64?

    /// Wall-clock microseconds per operation.
    var microsecondsPerOperation: Double { seconds * 1e6 / Double(max(operations, 1)) }

    /// CPU microseconds per operation.
    var cpuMicrosecondsPerOperation: Double { cpuSeconds * 1e6 / Double(max(operations, 1)) }

    /// Allocations per operation, if counted.
    var allocationsPerOperation: Double? {
        allocations.map { Double($0) / Double(max(operations, 1)) }
    }
}

/// Times `body`, which performs `operations` operations, and counts its allocations.
func measure(_ workload: Workload, operations: Int, _ body: () async throws -> Void) async rethrows -> Sample {
    let counting = AllocationCounter.isSupported
    let allocationsBefore = cmalloccounter_allocations()
    let cpuStart = processCPUSeconds()
    let start = ContinuousClock.now
    try await body()
    let elapsed = ContinuousClock.now - start
    let cpuSeconds = processCPUSeconds() - cpuStart
    let allocationsAfter = cmalloccounter_allocations()
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    return Sample(
        workload: workload, operations: operations, seconds: seconds, cpuSeconds: cpuSeconds,
        allocations: counting ? allocationsAfter - allocationsBefore : nil)
}
