/// Keys whose read-through fetch answered ``FetchResult/notFound``, remembered until a deadline
/// (``ReadThroughOptions/notFoundLifetime``), so a missing id does not hammer the server.
///
/// One per open database, in memory only, keyed by key bytes and collection (``ByteKey``) as
/// LevelDB compares keys. Every write path forgets the keys it writes or removes (next to the object cache's
/// invalidation), so a `set` is visible to the next read at once. A key is remembered only
/// under the exclusive write gate, in the same hold that removed its record (see
/// ``ModelStore``'s read-through), so a concurrent `set` either lands after the removal and
/// forgets it, or before it and is removed with it: never a remembered "not found" beside a record.
final class NotFoundMemory: Sendable {
    /// The most keys remembered; past it, expired ones are dropped, then the soonest to expire.
    static let limit = 10_000

    private struct State {
        var deadlines: [ByteKey: Double] = [:]
    }

    private let state = Locked(State())

    /// How many keys are remembered, kept beside `state` (set under its lock) so that the
    /// write paths' ``forget(_:in:)`` skips the lock while nothing is remembered, which is
    /// almost always: a lock every write takes makes concurrent writers queue on it.
    /// A remembered key is stored under the exclusive write gate, before any write that could
    /// need to forget it takes the gate, so such a write always sees the count.
    private let remembered = AtomicWord()

    /// Whether `key` is remembered as not found at `now` (an expired memory is dropped).
    func contains(_ key: String, in space: KeySpace = .default, now: Double) -> Bool {
        state.withLock { state in
            // Checked before hashing: on the read-through's miss path the memory is usually empty.
            guard !state.deadlines.isEmpty else { return false }
            let key = ByteKey(key, in: space)
            guard let deadline = state.deadlines[key] else { return false }
            if now < deadline { return true }
            state.deadlines[key] = nil
            remembered.store(UInt64(state.deadlines.count))
            return false
        }
    }

    func remember(_ key: String, in space: KeySpace = .default, until deadline: Double, now: Double) {
        let key = ByteKey(key, in: space)
        state.withLock { state in
            if state.deadlines.count >= Self.limit, state.deadlines[key] == nil {
                state.deadlines = state.deadlines.filter { $0.value > now }
                if state.deadlines.count >= Self.limit,
                    let soonest = state.deadlines.min(by: { $0.value < $1.value })?.key
                {
                    state.deadlines[soonest] = nil
                }
            }
            state.deadlines[key] = deadline
            remembered.store(UInt64(state.deadlines.count))
        }
    }

    /// A write or removal of `key`: forgets it.
    @inline(__always)
    func forget(_ key: String, in space: KeySpace = .default) {
        guard remembered.load() != 0 else { return }
        let key = ByteKey(key, in: space)
        state.withLock { state in
            guard !state.deadlines.isEmpty else { return }
            state.deadlines[key] = nil
            remembered.store(UInt64(state.deadlines.count))
        }
    }

    /// A write or removal of several keys (a batch, an import chunk), each in its own space
    /// (`spaces` parallels `keys`; nil means all in the default one).
    func forget(_ keys: [String], spaces: [KeySpace]? = nil) {
        guard remembered.load() != 0 else { return }
        state.withLock { state in
            guard !state.deadlines.isEmpty else { return }
            for (index, key) in keys.enumerated() {
                state.deadlines[ByteKey(key, in: spaces?[index] ?? .default)] = nil
            }
            remembered.store(UInt64(state.deadlines.count))
        }
    }

    /// A removal of every key of `space` that starts with `prefix` (by bytes).
    func forget(prefix: String, in space: KeySpace = .default) {
        guard remembered.load() != 0 else { return }
        state.withLock { state in
            guard !state.deadlines.isEmpty else { return }
            state.deadlines = state.deadlines.filter {
                !($0.key.prefix == space.prefix && $0.key.string.utf8.starts(with: prefix.utf8))
            }
            remembered.store(UInt64(state.deadlines.count))
        }
    }

    /// How many keys are remembered, for tests.
    var count: Int {
        state.withLock { $0.deadlines.count }
    }
}
