import CoreMetrics

/// A tier's counters, through swift-metrics (no-ops until the app bootstraps a backend), labelled
/// `modelstore_shared_tier_*` with the tier's `keyPrefix` as the `tier` dimension.
final class RedisTierMetrics: Sendable {
    /// Records found in Redis on a local miss.
    let hits: Counter
    /// Local misses Redis did not answer with a record (none, expired, or unreachable).
    let misses: Counter
    /// Values in Redis that were not a valid record for their key (removed from Redis).
    let invalidValues: Counter
    /// Records stored in Redis, and keys removed from it, after local writes.
    let writes: Counter
    /// Invalidations this process published, and received from others.
    let invalidationsSent: Counter
    let invalidationsReceived: Counter
    /// Times this process cleared its local tiers (another node deleted the database).
    let localClears: Counter
    /// Times a database of this process doubted its local records because it could not know
    /// what it missed (they are revalidated when read, never deleted).
    let doubts: Counter
    /// Failed Redis calls (connects, commands, timeouts); never thrown at callers.
    let errors: Counter
    /// Successful connections after a failure.
    let reconnects: Counter
    /// Read-through callers that waited for another process's fetch.
    let lockWaits: Counter

    init(tier: String) {
        let dimensions = [("tier", tier)]
        func counter(_ name: String) -> Counter {
            Counter(label: "modelstore_shared_tier_" + name, dimensions: dimensions)
        }
        hits = counter("hits_total")
        misses = counter("misses_total")
        invalidValues = counter("invalid_values_total")
        writes = counter("writes_total")
        invalidationsSent = counter("invalidations_sent_total")
        invalidationsReceived = counter("invalidations_received_total")
        localClears = counter("local_clears_total")
        doubts = counter("doubts_total")
        errors = counter("errors_total")
        reconnects = counter("reconnects_total")
        lockWaits = counter("lock_waits_total")
    }
}
