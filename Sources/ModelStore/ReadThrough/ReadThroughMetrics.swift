import CoreMetrics
import Metrics

/// The read-through counters of one collection of one open database, created once (when the
/// database opens, or when the collection is first made on it), not per call.
///
/// Names follow Prometheus conventions (`snake_case`, `_total` for counters) and carry the
/// labels `database` (the database's name) and `collection` (the collection's name; `""` for
/// the store's own keys, the default collection, which no named collection can be called), so
/// one dashboard query covers every database or collection:
/// `sum by (database, collection) (rate(modelstore_read_through_hits_total[5m]))`. With no
/// metrics backend bootstrapped, swift-metrics hands out no-op handlers: an increment is one
/// indirect call.
@usableFromInline
final class ReadThroughMetrics: Sendable {
    /// Reads answered by a live record.
    let hits: Counter
    /// Reads that found no live record (missing or expired) and had to fetch or join a fetch.
    let misses: Counter
    /// Reads answered by an expired record (fail-safe, its throttle, soft or hard timeout).
    let staleServed: Counter
    /// Reads answered by an expired record without fetching, because a fetch for the record
    /// failed less than ``ReadThroughOptions/failSafeThrottle`` ago (also counted in ``staleServed``).
    let failSafeThrottled: Counter
    /// Fetches started (by a miss or a refresh-ahead).
    let fetches: Counter
    /// Fetches (or storing their results) that failed.
    let fetchFailures: Counter
    /// Callers that waited for a fetch another caller started.
    let coalescedWaits: Counter
    /// Background refreshes started by ``ReadThroughOptions/refreshAhead``.
    let refreshAheads: Counter
    /// Reads answered by a remembered ``FetchResult/notFound``.
    let notFoundHits: Counter
    /// Callers that stopped waiting at their soft timeout.
    let softTimeouts: Counter
    /// Callers that stopped waiting at their hard timeout.
    let hardTimeouts: Counter

    static let prefix = "modelstore_read_through_"

    /// The `collection` label of the default collection (the store's own keys): a collection
    /// name is never empty, so this value never names one.
    static let defaultCollectionLabel = ""

    init(database: String, collection: String?, factory: (any MetricsFactory)?) {
        let dimensions = [("database", database), ("collection", collection ?? Self.defaultCollectionLabel)]
        func counter(_ name: String, _ extra: [(String, String)] = []) -> Counter {
            let label = Self.prefix + name
            if let factory { return Counter(label: label, dimensions: dimensions + extra, factory: factory) }
            return Counter(label: label, dimensions: dimensions + extra)
        }
        hits = counter("hits_total")
        misses = counter("misses_total")
        staleServed = counter("stale_served_total")
        failSafeThrottled = counter("fail_safe_throttled_total")
        fetches = counter("fetches_total")
        fetchFailures = counter("fetch_failures_total")
        coalescedWaits = counter("coalesced_waits_total")
        refreshAheads = counter("refresh_aheads_total")
        notFoundHits = counter("not_found_hits_total")
        softTimeouts = counter("timeouts_total", [("timeout", "soft")])
        hardTimeouts = counter("timeouts_total", [("timeout", "hard")])
    }
}
