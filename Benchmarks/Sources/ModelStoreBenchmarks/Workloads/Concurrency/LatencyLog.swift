import Foundation

/// One thread's operations: when each ended and how long it took, in preallocated memory so
/// that recording costs two stores and never allocates.
final class LatencyLog: @unchecked Sendable {
    // @unchecked: only the thread that owns the log records into it; others read it after
    // that thread has finished (the phase joins its threads first).
    let capacity: Int
    private(set) var count = 0
    /// Microseconds since the experiment's origin at which each operation ended.
    private let ends: UnsafeMutablePointer<UInt32>
    /// Nanoseconds each operation took (saturating at about 4.3 s).
    private let latencies: UnsafeMutablePointer<UInt32>

    init(capacity: Int) {
        self.capacity = capacity
        // Initialised now, so page faults happen here rather than inside measured operations.
        ends = .allocate(capacity: capacity)
        ends.initialize(repeating: 0, count: capacity)
        latencies = .allocate(capacity: capacity)
        latencies.initialize(repeating: 0, count: capacity)
    }

    deinit {
        ends.deallocate()
        latencies.deallocate()
    }

    /// Records one operation that ran from `start` to `end` (monotonic ns); false when full.
    @inline(__always)
    func record(start: UInt64, end: UInt64, origin: UInt64) -> Bool {
        guard count < capacity else { return false }
        ends[count] = UInt32(truncatingIfNeeded: (end &- origin) / 1_000)
        latencies[count] = UInt32(clamping: end &- start)
        count += 1
        return true
    }

    /// The recorded latencies in nanoseconds, in the order they happened.
    var latencyValues: [UInt32] { Array(UnsafeBufferPointer(start: latencies, count: count)) }

    /// Calls `body(endMicroseconds, latencyNanoseconds)` for each operation.
    func forEach(_ body: (UInt32, UInt32) -> Void) {
        for index in 0..<count { body(ends[index], latencies[index]) }
    }
}

/// Percentiles of a set of latencies.
struct LatencySummary: Codable {
    var operations: Int
    var operationsPerSecond: Double
    var p50: Double
    var p99: Double
    var p999: Double
    var max: Double

    /// Summarises `sorted` (ascending, nanoseconds) recorded over `seconds`. Values are in µs.
    init(sorted: [UInt32], seconds: Double) {
        operations = sorted.count
        operationsPerSecond = Double(sorted.count) / seconds
        p50 = percentile(sorted, 0.50)
        p99 = percentile(sorted, 0.99)
        p999 = percentile(sorted, 0.999)
        max = Double(sorted.last ?? 0) / 1_000
    }
}

/// The latency at `fraction` of `sorted` nanoseconds (nearest rank), in µs.
func percentile(_ sorted: [UInt32], _ fraction: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
    return Double(sorted[min(sorted.count - 1, Swift.max(0, rank))]) / 1_000
}

/// One point of a latency-by-percentile curve.
struct CurvePoint: Codable {
    /// The percentile, 0 to 100.
    var percentile: Double
    var microseconds: Double
}

/// Latency by percentile from p0 to the maximum, with points spaced evenly on the "nines"
/// scale (p90, p99, p99.9, ... each ten points apart), for a log-scale plot.
func latencyCurve(_ sorted: [UInt32]) -> [CurvePoint] {
    guard !sorted.isEmpty else { return [] }
    var points: [CurvePoint] = []
    let maximumNines = log10(Double(sorted.count))
    var nines = 0.0
    while nines < maximumNines {
        let fraction = 1 - pow(10, -nines)
        points.append(CurvePoint(percentile: fraction * 100, microseconds: percentile(sorted, fraction)))
        nines += 0.1
    }
    points.append(CurvePoint(percentile: 100, microseconds: Double(sorted.last!) / 1_000))
    return points
}
