package import Metrics

/// The clock read-through timeouts wait on.
///
/// Production uses `ContinuousClock`; tests inject a clock they advance by hand, so soft and
/// hard timeouts are tested without sleeping. (Record ages, for refresh-ahead and expiry, come
/// from ``ModelStore/Configuration/now`` instead.)
package protocol ReadThroughClock: Sendable {
    /// Suspends for `duration`; throws `CancellationError` if the task is cancelled first.
    func sleep(for duration: Duration) async throws
}

/// The real clock.
struct ContinuousReadThroughClock: ReadThroughClock {
    func sleep(for duration: Duration) async throws {
        // Bounded here too, whoever calls: the clock traps once now plus the wait passes
        // Int64.max seconds.
        try await ContinuousClock().sleep(for: TimeBounds.wait(duration))
    }
}

/// Read-through settings fixed when a database opens, injected by tests through
/// ``ModelStore/Configuration``.
package struct ReadThroughSettings: Sendable {
    /// What timeouts wait on.
    package var clock: any ReadThroughClock = ContinuousReadThroughClock()
    /// Where counters are created; nil: the factory bootstrapped in `MetricsSystem`.
    package var metricsFactory: (any MetricsFactory)?

    package init() {}
}
