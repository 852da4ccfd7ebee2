/// Records whose read-through fetch failed while a caller got the stale record instead
/// (fail-safe), with the time of that failure: for ``ReadThroughOptions/failSafeThrottle``, so a
/// backend that is down is asked once per throttle, not by every call.
///
/// One per open database, in memory only, per record (``KeyedTimes``). Every write path forgets
/// the keys it writes or removes (a successful fetch stores, so it forgets too). A failure is
/// remembered only by a call that set a throttle, and only serves a record that is expired and
/// within the calling call's own ``ReadThroughOptions/staleIfError``: a live record is always
/// returned first, so a failure remembered just after a concurrent write can at worst serve
/// that record stale later, within the caller's fail-safe window, never a wrong one.
final class FailSafeMemory: Sendable {
    /// The most records remembered; past it, the oldest failure is dropped.
    static let limit = 10_000

    private let failures = KeyedTimes(limit: limit)

    /// Whether a call with a throttle of `throttle` seconds serves the stale record without
    /// fetching: a failure of `key` was remembered less than `throttle` seconds before `now`.
    /// A failure further back is dropped: this call fetches, and remembers its own failure.
    func isThrottled(_ key: String, in space: KeySpace, now: Double, throttle: Double) -> Bool {
        failures.time(of: key, in: space) { now < $0 + throttle } != nil
    }

    /// A fetch of `key` failed at `time`, and a caller was served the stale record.
    func remember(_ key: String, in space: KeySpace, failedAt time: Double) {
        failures.set(time, for: key, in: space) { _ in false }
    }

    /// Whether no failure is remembered (one atomic load).
    @inline(__always)
    var isEmpty: Bool { failures.isEmpty }

    /// A write or removal of `key`: forgets it.
    @inline(__always)
    func forget(_ key: String, in space: KeySpace = .default) {
        failures.forget(key, in: space)
    }

    /// A write or removal of several keys, each in its own space (`spaces` parallels `keys`).
    func forget(_ keys: [String], spaces: [KeySpace]? = nil) {
        failures.forget(keys, spaces: spaces)
    }

    /// A removal of every key of `space` that starts with `prefix` (by bytes).
    func forget(prefix: String, in space: KeySpace = .default) {
        failures.forget(prefix: prefix, in: space)
    }

    /// How many records are remembered, for tests.
    var count: Int { failures.count }
}
