/// The highest sequence number this process's own publications got from Redis's counter.
///
/// The invalidation reader compares the counter with it as well as with the last entry it read:
/// a reader that lagged behind this process's publications (disconnected, or backing off) when
/// Redis went back to an older snapshot would otherwise find the restored counter "ahead" of it
/// and never learn that writes it published were lost with the snapshot.
final class PublishedSequence: Sendable {
    private let highest = Guarded<Int64>(0)

    /// Notes a number a publication's script returned.
    func note(_ sequence: Int64) {
        highest.withLock { $0 = max($0, sequence) }
    }

    /// Forgets it: Redis's data was replaced (a new epoch), numbers start again.
    func reset() {
        highest.withLock { $0 = 0 }
    }

    var value: Int64 { highest.withLock { $0 } }
}
