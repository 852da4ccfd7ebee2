import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// Every `TimeInterval` and `Duration` a caller can hand ModelStore, at the extremes Swift's own
/// conversions trap on: each public entry point keeps a valid value, refuses a bad one with
/// `invalidPolicy`, or applies the documented bound (``TimeBounds``), and never crashes.
/// Timeouts wait on an injected clock; the two real-clock tests only start a sleep and cancel it.
@Suite("Time bounds")
struct TimeBoundsTests {
    /// Lifetimes a caller can write.
    static let lifetimes: [TimeInterval] = [
        0, -0.0, -1, -.greatestFiniteMagnitude, .leastNonzeroMagnitude, 1, 1e20, 1e30,
        .greatestFiniteMagnitude, .infinity, -.infinity, .nan,
    ]

    /// Durations a caller can write: zero, the largest ones (`Int64.max` seconds, with attoseconds
    /// on top, and near the 128-bit limit), tiny and negative ones.
    static let durations: [Duration] = [
        .zero, .nanoseconds(1), .seconds(2), .seconds(Int64.max),
        Duration(secondsComponent: Int64.max, attosecondsComponent: Int64.max), .seconds(Int64.max) * 18,
        .seconds(1.5e20), .nanoseconds(-1), .seconds(-1e20), .seconds(Int64.min) * 18,
    ]

    /// A store whose read-through timeouts wait on `clock`.
    static func open(_ fixture: Fixture, clock: RecordingClock) throws -> ModelStore {
        var configuration = fixture.configuration
        configuration.readThrough.clock = clock
        return try ModelStore(name: "db", policy: .never, configuration: configuration)
    }

    static func isValidLifetime(_ seconds: TimeInterval) -> Bool { seconds.isFinite && seconds > 0 }

    /// What a call did.
    enum Outcome: Equatable, CustomStringConvertible {
        case ok, invalidPolicy, other(String)

        var description: String {
            switch self {
            case .ok: "ok"
            case .invalidPolicy: "invalidPolicy"
            case let .other(error): error
            }
        }
    }

    static func outcome(_ body: () async throws -> Void) async -> Outcome {
        do {
            try await body()
            return .ok
        } catch ModelStoreError.invalidPolicy {
            return .invalidPolicy
        } catch {
            return .other("\(error)")
        }
    }

    // MARK: - Lifetimes (TimeInterval)

    @Test("Every entry point taking a record lifetime keeps a positive, finite one and refuses the rest",
          arguments: lifetimes)
    func recordLifetimes(_ lifetime: TimeInterval) async throws {
        let fixture = Fixture()
        let store = try fixture.open()
        let users = store.collection("users")
        let user = User.sample()
        try store.set(user, forKey: "existing")
        try users.set(user, forKey: "existing")
        let calls: [(String, () async throws -> Void)] = [
            ("set", { try store.set(user, forKey: "k1", expiresAfter: lifetime) }),
            ("set metadata", { try store.set(user, forKey: "k2", expiresAfter: lifetime, metadata: "m") }),
            ("set tags", { try store.set(user, forKey: "k3", expiresAfter: lifetime, tags: ["t"]) }),
            ("refresh", { _ = try store.refresh(forKey: "existing", expiresAfter: lifetime) }),
            ("collection set", { try users.set(user, forKey: "k1", expiresAfter: lifetime) }),
            ("collection set metadata", { try users.set(user, forKey: "k2", expiresAfter: lifetime, metadata: "m") }),
            ("collection set tags", { try users.set(user, forKey: "k3", expiresAfter: lifetime, tags: ["t"]) }),
            ("collection refresh", { _ = try users.refresh(forKey: "existing", expiresAfter: lifetime) }),
            ("batch", { try store.write { try $0.set(user, forKey: "b1", expiresAfter: lifetime) } }),
            ("batch in collection", { try store.write { try $0.set(user, forKey: "b2", in: "users", expiresAfter: lifetime) } }),
            ("batch tags", { try store.write { try $0.set(user, forKey: "b3", expiresAfter: lifetime, tags: ["t"]) } }),
            ("read-through", { _ = try await store.object(User.self, forKey: "r1", expiresAfter: lifetime) { user } }),
            ("collection read-through", { _ = try await users.object(User.self, forKey: "r1", expiresAfter: lifetime) { user } }),
            ("options.lifetime", {
                var options = ReadThroughOptions()
                options.lifetime = lifetime
                _ = try await store.object(User.self, forKey: "r2", options: options) { _ in .value(user) }
            }),
            ("options.notFoundLifetime", {
                var options = ReadThroughOptions()
                options.notFoundLifetime = lifetime
                _ = try await store.object(User.self, forKey: "r3", options: options) { _ in .notFound }
            }),
            ("FetchResult.value(expiresAfter:)", {
                _ = try await store.object(User.self, forKey: "r4", options: ReadThroughOptions()) { _ in
                    .value(user, expiresAfter: lifetime)
                }
            }),
            ("FetchResult.notModified(expiresAfter:)", {
                try store.set(user, forKey: "r5", expiresAfter: 1)
                fixture.clock.advance(by: 2)
                _ = try await store.object(User.self, forKey: "r5", options: ReadThroughOptions()) { _ in
                    .notModified(expiresAfter: lifetime)
                }
            }),
        ]
        let expected: Outcome = Self.isValidLifetime(lifetime) ? .ok : .invalidPolicy
        for (name, call) in calls {
            #expect(await Self.outcome(call) == expected, "\(name) with \(lifetime)")
        }
        // Kept as given: the deadline is storedAt + lifetime, however far, and the record is live
        // (the notModified call moved the clock on by 2 s).
        guard expected == .ok, lifetime > 2 else { return }
        for key in ["k1", "k2", "k3", "b1", "r1", "r2", "r4", "r5"] {
            let entry = try #require(try store.entry(User.self, forKey: key), "\(key)")
            #expect(entry.expiresAt == entry.storedAt.addingTimeInterval(lifetime), "\(key)")
        }
        #expect(try users.entry(User.self, forKey: "k1")?.expiresAt != nil)
        #expect(try store.removeExpiredObjects() == 0)
    }

    @Test("A custom policy, a collection's policy and the sweep interval keep a positive, finite value and refuse the rest",
          arguments: lifetimes)
    func policiesAndSweepInterval(_ seconds: TimeInterval) async throws {
        let fixture = Fixture()
        let expected: Outcome = Self.isValidLifetime(seconds) ? .ok : .invalidPolicy
        #expect(await Self.outcome { _ = try fixture.open("custom", policy: .custom(seconds)) } == expected)
        let store = try fixture.open()
        #expect(await Self.outcome { try store.collection("c", policy: .custom(seconds)).set(1, forKey: "k") } == expected)
        var configuration = fixture.configuration
        configuration.automaticSweepInterval = seconds
        // A valid interval above a year arms a yearly timer (TimeBounds.sweepWait), not a crash.
        #expect(await Self.outcome {
            let swept = try ModelStore(name: "swept", policy: .never, configuration: configuration)
            try swept.close()
        } == expected)
    }

    @Test("staleIfError takes 0 or more (infinity: any age) and refuses negative and NaN", arguments: lifetimes)
    func staleIfError(_ seconds: TimeInterval) async throws {
        let store = try ReadThroughOptionsTests.storeWithExpiredRecord(ReadThroughOptionsTests.Harness())
        var options = ReadThroughOptions()
        options.staleIfError = seconds
        let expected: Outcome = seconds >= 0 ? .ok : .invalidPolicy
        let outcome = await Self.outcome {
            let user = try await store.object(User.self, forKey: "u", options: options) { _ in
                throw URLError(.notConnectedToInternet)
            }
            // Expired 10 s ago: served within a window of 10 s or more.
            #expect(user == (seconds >= 10 ? User.sample("ada") : nil))
        }
        if seconds >= 10 || expected == .invalidPolicy {
            #expect(outcome == expected)
        } else {
            #expect(outcome == .other("\(URLError(.notConnectedToInternet))"))
        }
    }

    // MARK: - Timeouts (Duration)

    @Test("A hard timeout of zero or more never crashes, arms at most a year, and lets a fetch that completes answer",
          arguments: durations)
    func hardTimeout(_ timeout: Duration) async throws {
        let clock = RecordingClock()
        let store = try Self.open(Fixture(), clock: clock)
        var options = ReadThroughOptions()
        options.hardTimeout = timeout
        let gate = FetchGate()
        let reader = Task {
            try await store.object(User.self, forKey: "u", options: options) { _ in
                try await gate.pass(FetchResult.value(User.sample("bob")))
            }
        }
        guard timeout >= .zero else {
            await #expect(throws: ModelStoreError.self) { try await reader.value }
            #expect(gate.calls == 0)
            return
        }
        await gate.waitUntilStarted()
        if timeout == .zero {
            await #expect(throws: ModelStoreError.fetchTimedOut(key: "u", after: .zero)) { try await reader.value }
            // The fetch goes on after its caller stopped waiting: let it finish, so no task is
            // left suspended (holding the store) when the process ends.
            gate.open()
        } else {
            #expect(try await eventually { clock.manual.sleeperCount == 1 })
            #expect(clock.requested == [min(timeout, TimeBounds.longestWait)])
            gate.open()
            #expect(try await reader.value == User.sample("bob"))
        }
    }

    @Test("A soft timeout of zero or more never crashes, arms at most a year, and serves stale when it fires",
          arguments: durations)
    func softTimeout(_ timeout: Duration) async throws {
        let clock = RecordingClock()
        let fixture = Fixture()
        let store = try Self.open(fixture, clock: clock)
        try store.set(User.sample("ada"), forKey: "u", expiresAfter: 60)
        fixture.clock.advance(by: 70)
        var options = ReadThroughOptions()
        options.staleIfError = .infinity
        options.softTimeout = timeout
        let gate = FetchGate()
        let reader = Task {
            try await store.object(User.self, forKey: "u", options: options) { _ in
                try await gate.pass(FetchResult.value(User.sample("bob")))
            }
        }
        guard timeout >= .zero else {
            await #expect(throws: ModelStoreError.self) { try await reader.value }
            #expect(gate.calls == 0)
            return
        }
        await gate.waitUntilStarted()
        if timeout > .zero {
            #expect(try await eventually { clock.manual.sleeperCount == 1 })
            #expect(clock.requested == [min(timeout, TimeBounds.longestWait)])
            clock.manual.advance(by: TimeBounds.longestWait)
        }
        // Bounded, so that a timer armed for longer than a year fails the test instead of hanging it.
        let answer = await within { try await reader.value }
        gate.open()
        #expect(try answer?.get() == User.sample("ada"))
        #expect(try await eventually { try store.object(User.self, forKey: "u") == User.sample("bob") })
    }

    @Test("A hard timeout beyond a year fires after a year, and says so")
    func hardTimeoutBeyondAYearFiresAfterAYear() async throws {
        let clock = RecordingClock()
        let store = try Self.open(Fixture(), clock: clock)
        var options = ReadThroughOptions()
        options.hardTimeout = .seconds(Int64.max)
        let gate = FetchGate()
        let reader = Task {
            try await store.object(User.self, forKey: "u", options: options) { _ in
                try await gate.pass(FetchResult.value(User.sample("bob")))
            }
        }
        await gate.waitUntilStarted()
        #expect(try await eventually { clock.manual.sleeperCount == 1 })
        clock.manual.advance(by: TimeBounds.longestWait - .nanoseconds(1))
        #expect(clock.manual.sleeperCount == 1)
        clock.manual.advance(by: .nanoseconds(1))
        // Bounded, so that a timer armed for longer fails the test instead of hanging it.
        let result = await within { try await reader.value }
        gate.open()
        guard case .failure(let error)? = result else {
            Issue.record("the caller did not time out after a year: \(String(describing: result))")
            return
        }
        #expect(error as? ModelStoreError == .fetchTimedOut(key: "u", after: TimeBounds.longestWait))
    }

    @Test("The real clock sleeps for the largest Durations without trapping, until cancelled",
          arguments: [Duration.seconds(Int64.max), .seconds(1.5e20), .seconds(Int64.max) * 18])
    func realClockSleepsForTheLargestDurations(_ duration: Duration) async throws {
        let sleeper = Task { try await ContinuousReadThroughClock().sleep(for: duration) }
        // Real time, short and bounded: long enough for the sleep to have computed its deadline
        // (where Swift traps), which no hook reports.
        try await Task.sleep(for: .milliseconds(20))
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
    }

    @Test("A read-through with the real clock and the largest hard timeout returns what the fetch answers")
    func realClockLargestHardTimeout() async throws {
        let store = try Fixture().open()
        var options = ReadThroughOptions()
        options.hardTimeout = .seconds(Int64.max)
        options.softTimeout = .seconds(Int64.max) * 18
        let gate = FetchGate()
        let reader = Task {
            try await store.object(User.self, forKey: "u", options: options) { _ in
                try await gate.pass(FetchResult.value(User.sample("bob")))
            }
        }
        await gate.waitUntilStarted()
        try await Task.sleep(for: .milliseconds(20))  // as above: let the timer start its sleep
        gate.open()
        #expect(try await reader.value == User.sample("bob"))
    }

    @Test("Messages about refused Durations never trap, even beyond Int64.max seconds")
    func refusedDurationMessages() async throws {
        let store = try Fixture().open()
        for timeout in [Duration.seconds(-1e20), .seconds(Int64.min) * 18] {
            var options = ReadThroughOptions()
            options.hardTimeout = timeout
            do {
                _ = try await store.object(User.self, forKey: "u", options: options) { _ in .notFound }
                Issue.record("accepted \(timeout)")
            } catch let ModelStoreError.invalidPolicy(reason) {
                #expect(reason.contains("options.hardTimeout is -"))
                #expect(reason.contains("use zero or more"))
            }
        }
    }

    // MARK: - The conversions themselves

    @Test("Duration to seconds and back never traps; a remaining lifetime beyond Int64.max seconds is the largest Duration")
    func conversions() {
        for duration in Self.durations {
            let seconds = TimeBounds.seconds(duration)
            #expect(seconds.isFinite)
            _ = TimeBounds.duration(seconds: seconds).components  // never traps
            _ = TimeBounds.describe(duration)
        }
        #expect(TimeBounds.seconds(.milliseconds(1500)) == 1.5)
        #expect(TimeBounds.duration(seconds: 1.5) == .milliseconds(1500))
        for seconds in [0.0, -0.0, -1, -.infinity, .nan, -.greatestFiniteMagnitude] {
            #expect(TimeBounds.duration(seconds: seconds) == .zero, "\(seconds)")
        }
        for seconds in [0x1p63, 1e20, 1.7e20, 1e30, .greatestFiniteMagnitude, .infinity] {
            #expect(TimeBounds.duration(seconds: seconds) == TimeBounds.longestDuration, "\(seconds)")
        }
        #expect(TimeBounds.duration(seconds: 0x1p62).components.seconds == 1 << 62)
    }

    @Test("Waits are at most a year; sweep waits at least a millisecond")
    func waits() {
        for duration in Self.durations {
            let wait = TimeBounds.wait(duration)
            #expect(wait >= .zero && wait <= TimeBounds.longestWait)
            let sweep = TimeBounds.sweepWait(duration)
            #expect(sweep >= .milliseconds(1) && sweep <= TimeBounds.longestWait)
            #expect(TimeBounds.nanoseconds(ofWait: sweep) >= 1_000_000)
        }
        for seconds in Self.lifetimes {
            let sweep = TimeBounds.sweepWait(seconds: seconds)
            #expect(sweep >= .milliseconds(1) && sweep <= TimeBounds.longestWait, "\(seconds)")
        }
        #expect(TimeBounds.sweepWait(seconds: 0.02) == .milliseconds(20))
        #expect(TimeBounds.nanoseconds(ofWait: .seconds(Int64.max)) == 365 * 86_400 * 1_000_000_000)
    }
}

/// A manual read-through clock that also records every wait it is asked for.
final class RecordingClock: ReadThroughClock, @unchecked Sendable {
    // @unchecked: `waits` is guarded by `lock`; the manual clock is thread-safe.
    let manual = ManualClock()
    private let lock = NSLock()
    private var waits: [Duration] = []

    /// The durations of every sleep so far, in order.
    var requested: [Duration] {
        lock.lock(); defer { lock.unlock() }
        return waits
    }

    func sleep(for duration: Duration) async throws {
        lock.withLock { waits.append(duration) }
        try await manual.sleep(for: duration)
    }
}
