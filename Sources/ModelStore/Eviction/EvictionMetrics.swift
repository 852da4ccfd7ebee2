import CoreMetrics
import Metrics

/// The counters of records a database removed because of its limits or their expiry, by reason:
/// `modelstore_evictions_total` with the labels `database` and `reason`: `maximum_total_bytes`,
/// `maximum_record_count` (evicted by a limit: the limit the database was over when the record
/// went, bytes first) or `expired` (removed by a sweep because it expired). The same numbers are
/// kept in the process for ``ModelStore/limitStatus()``.
final class EvictionMetrics: Sendable {
    static let label = "modelstore_evictions_total"

    private let bytesCounter: Counter
    private let countCounter: Counter
    private let expiredCounter: Counter
    private let byBytes = AtomicWord()
    private let byCount = AtomicWord()
    private let expired = AtomicWord()

    init(database: String, factory: (any MetricsFactory)?) {
        func counter(_ reason: String) -> Counter {
            let dimensions = [("database", database), ("reason", reason)]
            if let factory { return Counter(label: Self.label, dimensions: dimensions, factory: factory) }
            return Counter(label: Self.label, dimensions: dimensions)
        }
        bytesCounter = counter("maximum_total_bytes")
        countCounter = counter("maximum_record_count")
        expiredCounter = counter("expired")
    }

    /// Records `records` evicted while the database was over its byte limit (`overBytes`) or
    /// its count limit.
    func evicted(_ records: Int, overBytes: Bool) {
        guard records > 0 else { return }
        if overBytes {
            byBytes.add(UInt64(records))
            bytesCounter.increment(by: Int64(records))
        } else {
            byCount.add(UInt64(records))
            countCounter.increment(by: Int64(records))
        }
    }

    /// Records `records` removed by a sweep because they expired.
    func swept(_ records: Int) {
        guard records > 0 else { return }
        expired.add(UInt64(records))
        expiredCounter.increment(by: Int64(records))
    }

    /// The totals since the database was opened in this process.
    var totals: (byBytes: Int, byCount: Int, expired: Int) {
        (Int(byBytes.load()), Int(byCount.load()), Int(expired.load()))
    }
}
