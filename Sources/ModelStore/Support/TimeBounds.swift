package import Foundation

/// The one place where a `Duration` or `TimeInterval` that crosses a public API (ModelStore's,
/// its drivers', the `modelstore` tool's) is checked or converted.
///
/// Swift's own conversions trap at the extremes a caller can write: `Duration.seconds(_:)`
/// with a `Double` above about 1.5e20 ("Overflow in multiplication"), `Duration.components` of
/// more than `Int64.max` seconds, and `ContinuousClock.sleep(for:)` or `Task.sleep(for:)`
/// when now plus the duration passes `Int64.max` seconds ("Not enough bits to represent the
/// passed value"). Nothing else in ModelStore calls them on a caller's value. The rules:
///
/// - **Lifetimes** (record lifetimes, `.custom` policies, read-through lifetimes, sweep
///   intervals) must be positive and finite, else ``ModelStoreError/invalidPolicy(reason:)``.
///   Any such number is kept as it is: a lifetime of 1e30 s never expires in practice and
///   reads back as that deadline.
/// - **Ages** (`staleIfError`) must be 0 or more; `.infinity` means any age. NaN is refused.
/// - **Timeouts** (`Duration`s) must be zero or more, else `invalidPolicy`.
/// - **Waits** (a timer, a sleep, a timeout's clock) are shortened to ``longestWait``, one
///   year: a wait that long means "never" in practice, and a longer one could overflow the
///   clock.
/// - **Durations given back** (a remaining lifetime) are at most ``longestDuration``: a
///   remaining lifetime beyond it is reported as ``longestDuration``, never a trap.
package enum TimeBounds {
    /// One year in seconds: the longest wait ModelStore arms.
    package static let longestWaitSeconds: TimeInterval = 365 * 86_400

    /// The longest wait, timer or sleep ModelStore arms: one year. Longer ones are shortened
    /// to it (a read-through timeout then fires after a year, a sweeper sweeps once a year).
    package static let longestWait: Duration = .seconds(365 * 86_400)

    /// The shortest interval between two sweeps a timer is armed with (1 ms), so that a tiny
    /// positive interval cannot spin a core.
    package static let shortestSweepInterval: Duration = .milliseconds(1)

    /// The largest `Duration` ModelStore gives back: `Int64.max` seconds (about 292 billion
    /// years), the largest whose `components` Swift can represent, so that code receiving it
    /// (a framework computing a cookie's expiry, say) never traps either.
    package static let longestDuration: Duration = .seconds(Int64.max)

    // MARK: - Validation

    /// Whether `seconds` is a valid lifetime: positive and finite.
    package static func isValidLifetime(_ seconds: TimeInterval) -> Bool {
        seconds.isFinite && seconds > 0
    }

    /// Throws ``ModelStoreError/invalidPolicy(reason:)`` unless `seconds` is positive and
    /// finite: the rule for every lifetime. `what` names the setting in the message and
    /// `otherwise` says what to write instead.
    package static func validateLifetime(
        _ seconds: TimeInterval, what: String, otherwise: String = "to keep the store's policy, leave the lifetime out"
    ) throws(ModelStoreError) {
        guard isValidLifetime(seconds) else {
            throw .invalidPolicy(
                reason: "the \(what) must be a positive, finite number of seconds, not \(seconds); \(otherwise)")
        }
    }

    /// Throws unless `seconds` is positive and finite, for an interval between two runs of
    /// something (`setting` names it, `otherwise` says what nil means).
    package static func validateInterval(
        _ seconds: TimeInterval, setting: String, otherwise: String
    ) throws(ModelStoreError) {
        guard seconds.isFinite, seconds > 0 else {
            throw .invalidPolicy(
                reason: "\(setting) is \(seconds); use a positive, finite number of seconds, or \(otherwise)")
        }
    }

    /// Throws unless `interval` is positive, for an interval given as a `Duration`.
    package static func validateInterval(
        _ interval: Duration, setting: String, otherwise: String
    ) throws(ModelStoreError) {
        guard interval > .zero else {
            throw .invalidPolicy(
                reason: "\(setting) is \(describe(interval)); use a positive duration, such as .seconds(600), "
                    + "or \(otherwise)")
        }
    }

    /// Throws unless `seconds` is 0 or more (`.infinity` included; NaN refused): the rule for
    /// an age past a record's expiry.
    package static func validateAge(_ seconds: TimeInterval, setting: String, otherwise: String) throws(ModelStoreError) {
        guard seconds >= 0 else {
            throw .invalidPolicy(
                reason: "\(setting) is \(seconds); use 0 or more seconds, .infinity for any age, or \(otherwise)")
        }
    }

    /// Throws unless `timeout` is zero or more.
    package static func validateTimeout(_ timeout: Duration, setting: String) throws(ModelStoreError) {
        guard timeout >= .zero else {
            throw .invalidPolicy(reason: "\(setting) is \(describe(timeout)); use zero or more, or nil")
        }
    }

    // MARK: - Conversion

    /// `duration` in seconds, for any `Duration` (Swift's `components` traps beyond
    /// `Int64.max` seconds; this never does).
    package static func seconds(_ duration: Duration) -> TimeInterval {
        duration / .seconds(1)
    }

    /// `seconds` as a `Duration`: NaN and anything below zero give `.zero`, anything at or
    /// above ``longestDuration`` (`.infinity` included) gives ``longestDuration``.
    package static func duration(seconds: TimeInterval) -> Duration {
        guard seconds > 0 else { return .zero }
        // 2^63 is the first Double above Int64.max: below it, `.seconds(_:)` is exact enough
        // and `components` stays representable.
        guard seconds < 0x1p63 else { return longestDuration }
        return .seconds(seconds)
    }

    /// What a timer or a sleep waits for `duration`: at least zero, at most ``longestWait``.
    package static func wait(_ duration: Duration) -> Duration {
        min(max(duration, .zero), longestWait)
    }

    /// The wait between two sweeps for an interval a caller gave: at least
    /// ``shortestSweepInterval``, at most ``longestWait``.
    package static func sweepWait(_ interval: Duration) -> Duration {
        min(max(interval, shortestSweepInterval), longestWait)
    }

    /// The same for an interval in seconds (NaN gives the shortest).
    package static func sweepWait(seconds: TimeInterval) -> Duration {
        if seconds >= longestWaitSeconds { return longestWait }
        return sweepWait(duration(seconds: seconds))
    }

    /// Whole nanoseconds of a wait from ``wait(_:)`` or ``sweepWait(_:)``, for Dispatch timers.
    package static func nanoseconds(ofWait wait: Duration) -> Int {
        let bounded = self.wait(wait)
        let (seconds, attoseconds) = bounded.components
        return Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
    }

    /// `duration` for a message: as Swift prints it (`2.5 seconds`), without `components`.
    package static func describe(_ duration: Duration) -> String {
        "\(seconds(duration)) seconds"
    }
}
