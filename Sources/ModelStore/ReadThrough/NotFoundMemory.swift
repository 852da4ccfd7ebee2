/// Keys whose read-through fetch answered ``FetchResult/notFound``, remembered until a deadline
/// (``ReadThroughOptions/notFoundLifetime``), so a missing id does not hammer the server.
///
/// One per open database, in memory only, per record (``KeyedTimes``). Every write path forgets
/// the keys it writes or removes, so a `set` is visible to the next read at once. A key is
/// remembered only under the exclusive write gate, in the same hold that removed its record
/// (see ``ModelStore``'s read-through), so a concurrent `set` either lands after the removal and
/// forgets it, or before it and is removed with it: never a remembered "not found" beside a
/// record. (A remembered key is stored before any write that could need to forget it takes the
/// gate, so such a write always sees it.)
final class NotFoundMemory: Sendable {
    /// The most keys remembered; past it, expired ones are dropped, then the soonest to expire.
    static let limit = 10_000

    private let deadlines = KeyedTimes(limit: limit)

    /// Whether `key` is remembered as not found at `now` (an expired memory is dropped).
    func contains(_ key: String, in space: KeySpace = .default, now: Double) -> Bool {
        deadlines.time(of: key, in: space) { now < $0 } != nil
    }

    func remember(_ key: String, in space: KeySpace = .default, until deadline: Double, now: Double) {
        deadlines.set(deadline, for: key, in: space) { $0 <= now }
    }

    /// Whether no key is remembered (one atomic load).
    @inline(__always)
    var isEmpty: Bool { deadlines.isEmpty }

    /// A write or removal of `key`: forgets it.
    @inline(__always)
    func forget(_ key: String, in space: KeySpace = .default) {
        deadlines.forget(key, in: space)
    }

    /// A write or removal of several keys, each in its own space (`spaces` parallels `keys`).
    func forget(_ keys: [String], spaces: [KeySpace]? = nil) {
        deadlines.forget(keys, spaces: spaces)
    }

    /// A removal of every key of `space` that starts with `prefix` (by bytes).
    func forget(prefix: String, in space: KeySpace = .default) {
        deadlines.forget(prefix: prefix, in: space)
    }

    /// Forgets every key (a shared tier's doubt).
    func forgetAll() {
        deadlines.forgetAll()
    }

    /// How many keys are remembered, for tests.
    var count: Int { deadlines.count }
}
