/// A time kept per record, in memory, until a write of the record forgets it: what the
/// read-through remembers about records between calls (``NotFoundMemory``, ``FailSafeMemory``).
///
/// One per use per open database. Records are told apart as LevelDB tells them apart: by key
/// bytes and collection (``ByteKey``), so "é" (U+00E9) and "e\u{301}" are two records. Every
/// write path forgets the keys it writes or removes through ``OpenDatabase/invalidate(_:in:)``
/// and its siblings, next to the object cache's invalidation, so what is remembered never
/// outlives the record it is about.
///
/// Bounded: at ``limit``, an insertion first drops the times its owner calls stale, then the
/// smallest.
final class KeyedTimes: Sendable {
    /// The most records remembered.
    let limit: Int

    private let state = Locked([ByteKey: Double]())

    /// How many records are remembered, kept beside `state` (set under its lock) so that the
    /// write paths' ``forget(_:in:)`` skips the lock while nothing is remembered, which is
    /// almost always: a lock every write takes makes concurrent writers queue on it.
    private let remembered = AtomicWord()

    init(limit: Int) {
        precondition(limit > 0)
        self.limit = limit
    }

    /// The time kept for `key`, if `keep` says it still holds; otherwise it is dropped (in the
    /// same hold of the lock) and the result is nil.
    func time(of key: String, in space: KeySpace, keeping keep: (Double) -> Bool) -> Double? {
        state.withLock { times in
            // Checked before hashing: on the read-through's miss path the memory is usually empty.
            guard !times.isEmpty else { return nil }
            let key = ByteKey(key, in: space)
            guard let time = times[key] else { return nil }
            if keep(time) { return time }
            times[key] = nil
            remembered.store(UInt64(times.count))
            return nil
        }
    }

    /// Keeps `time` for `key`. At the limit, first drops every time `isStale` says no longer
    /// holds, then, if still full, the smallest time.
    func set(_ time: Double, for key: String, in space: KeySpace, droppingFirst isStale: (Double) -> Bool) {
        let key = ByteKey(key, in: space)
        state.withLock { times in
            if times.count >= limit, times[key] == nil {
                times = times.filter { !isStale($0.value) }
                if times.count >= limit, let smallest = times.min(by: { $0.value < $1.value })?.key {
                    times[smallest] = nil
                }
            }
            times[key] = time
            remembered.store(UInt64(times.count))
        }
    }

    /// Whether no record is remembered: one atomic load, what every ``forget(_:in:)`` checks first.
    @inline(__always)
    var isEmpty: Bool { remembered.load() == 0 }

    /// A write or removal of `key`: forgets it.
    @inline(__always)
    func forget(_ key: String, in space: KeySpace = .default) {
        guard remembered.load() != 0 else { return }
        let key = ByteKey(key, in: space)
        state.withLock { times in
            guard !times.isEmpty else { return }
            times[key] = nil
            remembered.store(UInt64(times.count))
        }
    }

    /// A write or removal of several keys (a batch, an import chunk), each in its own space
    /// (`spaces` parallels `keys`; nil means all in the default one).
    func forget(_ keys: [String], spaces: [KeySpace]? = nil) {
        guard remembered.load() != 0 else { return }
        state.withLock { times in
            guard !times.isEmpty else { return }
            for (index, key) in keys.enumerated() {
                times[ByteKey(key, in: spaces?[index] ?? .default)] = nil
            }
            remembered.store(UInt64(times.count))
        }
    }

    /// A removal of every key of `space` that starts with `prefix` (by bytes).
    func forget(prefix: String, in space: KeySpace = .default) {
        guard remembered.load() != 0 else { return }
        state.withLock { times in
            guard !times.isEmpty else { return }
            times = times.filter {
                !($0.key.prefix == space.prefix && $0.key.string.utf8.starts(with: prefix.utf8))
            }
            remembered.store(UInt64(times.count))
        }
    }

    /// Forgets every record (a shared tier's doubt: what other nodes wrote may be unknown).
    func forgetAll() {
        guard remembered.load() != 0 else { return }
        state.withLock { times in
            times.removeAll()
            remembered.store(0)
        }
    }

    /// How many records are remembered, for tests.
    var count: Int {
        state.withLock { $0.count }
    }
}
