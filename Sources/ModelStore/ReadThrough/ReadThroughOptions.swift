public import Foundation

/// How ``ModelStore/object(_:forKey:options:fetch:)`` fetches, stores and serves a model:
/// lifetimes, fail-safe and its throttle, timeouts, refresh-ahead and negative caching.
///
/// ```swift
/// var options = ReadThroughOptions()
/// options.lifetime = 300                   // fetched models live 5 minutes
/// options.staleIfError = 3_600             // serve up to 1 h past expiry when the fetch fails
/// options.softTimeout = .milliseconds(50)  // with a usable stale record, stop waiting after 50 ms
/// options.hardTimeout = .seconds(2)        // never wait longer than 2 s
/// options.refreshAhead = 0.8               // refresh in the background after 80 % of the lifetime
/// options.notFoundLifetime = 30            // remember "not found" for 30 s
/// options.failSafeThrottle = 10            // after a failed fetch served stale, wait 10 s before the next
/// ```
///
/// Every property defaults to nil: the store's policy decides lifetimes, nothing stale is
/// served, the caller waits as long as the fetch takes, nothing is refreshed early,
/// `.notFound` is not remembered and a failed fetch does not hold back the next.
public struct ReadThroughOptions: Sendable, Hashable {
    /// Seconds a fetched model lives when the fetch gives no lifetime of its own
    /// (``FetchResult/value(_:expiresAfter:metadata:)``); positive and finite. Nil: the store's policy.
    public var lifetime: TimeInterval?

    /// Fail-safe: how many seconds past its expiry a record may still be returned when the fetch
    /// fails or times out (0 or more; `.infinity` for any age). Nil: never; the fetch's error is thrown.
    /// A failed fetch never removes the record.
    public var staleIfError: TimeInterval?

    /// With a usable stale record (expired, within ``staleIfError``): how long to wait for the
    /// fetch before returning the stale record. The fetch goes on in the background and stores
    /// its result for later reads. Ignored when there is no usable stale record. Zero or more; a
    /// wait longer than a year is a year (see ``hardTimeout``).
    public var softTimeout: Duration?

    /// The longest a caller waits for a fetch, its own or one it joined: then it gets the stale
    /// record if ``staleIfError`` allows one, else ``ModelStoreError/fetchTimedOut(key:after:)``.
    /// The fetch goes on in the background and stores its result. Zero or more (a negative one is
    /// ``ModelStoreError/invalidPolicy(reason:)``); any longer than a year, up to `.seconds(Int64.max)`
    /// and beyond, is waited as one year, because no clock can arm such a timer (the caller then
    /// times out after a year, `fetchTimedOut` saying so).
    public var hardTimeout: Duration?

    /// Refresh-ahead: a hit on a record older than this fraction of its lifetime (greater than 0
    /// and less than 1) returns the record at once and starts one background refresh for the key.
    /// A failing refresh leaves the record alone and is logged, never thrown.
    public var refreshAhead: Double?

    /// Negative caching: seconds to remember that the fetch answered ``FetchResult/notFound``
    /// (positive and finite); reads in that time return nil without fetching. Any write or
    /// removal of the key forgets it at once. Nil: not remembered.
    public var notFoundLifetime: TimeInterval?

    /// Fail-safe throttle: after a fetch for a key failed and a caller got the stale record
    /// instead (``staleIfError``), further calls for that record that set this option get the
    /// stale record at once, without fetching, until this many seconds after the failure
    /// (positive and finite). Then one call fetches again. Any write or removal of the key ends
    /// it at once. Nil: every call that finds no live record fetches (the backend is asked on
    /// every call while it is down). FusionCache calls this `FailSafeThrottleDuration`.
    public var failSafeThrottle: TimeInterval?

    /// Options with every property nil.
    public init() {}

    /// Throws ``ModelStoreError/invalidPolicy(reason:)`` naming the first bad setting.
    func validate() throws(ModelStoreError) {
        if let lifetime { try TimeBounds.validateLifetime(lifetime, what: "options.lifetime") }
        if let staleIfError {
            try TimeBounds.validateAge(
                staleIfError, setting: "options.staleIfError", otherwise: "nil to never serve stale records")
        }
        // Any duration from zero up is accepted: a wait longer than TimeBounds.longestWait (a
        // year) is armed as a year, where the timer is started.
        if let softTimeout { try TimeBounds.validateTimeout(softTimeout, setting: "options.softTimeout") }
        if let hardTimeout { try TimeBounds.validateTimeout(hardTimeout, setting: "options.hardTimeout") }
        if let refreshAhead, !(refreshAhead > 0 && refreshAhead < 1) {
            throw .invalidPolicy(
                reason: "options.refreshAhead is \(refreshAhead); use a fraction of the lifetime greater than 0 "
                    + "and less than 1 (0.8 refreshes after 80 %), or nil")
        }
        if let notFoundLifetime {
            try TimeBounds.validateLifetime(notFoundLifetime, what: "options.notFoundLifetime")
        }
        if let failSafeThrottle {
            try UpdatePolicy.validate(
                lifetime: failSafeThrottle, what: "options.failSafeThrottle",
                otherwise: "to fetch on every call, leave it nil")
        }
    }
}
