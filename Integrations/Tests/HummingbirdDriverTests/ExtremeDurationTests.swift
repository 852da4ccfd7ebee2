import IntegrationTestSupport
import Foundation
import Hummingbird
import ModelStore
import ModelStoreHummingbird
import Testing

/// The driver at the Durations a caller can write and the lifetimes the store accepts: no
/// call traps; a lifetime is kept, a remaining lifetime beyond `.seconds(Int64.max)` is
/// reported as `.seconds(Int64.max)`, and `run()` sweeps at most a year apart.
@Suite struct ExtremeDurationTests {
    /// Positive Durations up to the largest (Int64.max seconds, with attoseconds on top, and near
    /// the 128-bit limit of `Duration`).
    static let longExpiries: [Duration] = [
        .seconds(1e20), .seconds(Int64.max), Duration(secondsComponent: Int64.max, attosecondsComponent: Int64.max),
        .seconds(Int64.max) * 18, .seconds(1.5e20),
    ]
    /// Expiries that mean "already expired".
    static let spentExpiries: [Duration] = [.zero, .nanoseconds(-1), .seconds(-1e20), .seconds(Int64.min) * 18]

    @Test(arguments: longExpiries)
    func setAndCreateKeepTheLongestExpiries(_ expiry: Duration) async throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let persist = try fixture.driver()
        try await persist.set(key: "set", value: "kept", expires: expiry)
        try await persist.create(key: "create", value: "kept", expires: expiry)
        // Kept as given (to the rounding of a deadline that far away); a remaining lifetime
        // beyond Int64.max seconds is reported as Int64.max seconds.
        let expected = min(expiry / .seconds(1), Double(Int64.max))
        for key in ["set", "create"] {
            let (value, ttl) = try #require(try await persist.getWithTTL(key: key, as: String.self))
            let seconds = try #require(ttl) / .seconds(1)
            #expect(value == "kept")
            #expect(abs(seconds - expected) <= expected * 1e-12, "\(key): \(seconds) for \(expiry)")
            #expect(try #require(ttl) <= .seconds(Int64.max))
            _ = ttl?.components  // what a framework may do with it: never traps
        }
        // KEEPTTL keeps such a lifetime too.
        try await persist.set(key: "set", value: "again", expires: nil)
        let kept = try #require(try await persist.getWithTTL(key: "set", as: String.self)?.ttl)
        #expect(abs(kept / .seconds(1) - expected) <= expected * 1e-12)
        fixture.clock.advance(by: 1e9)
        #expect(try await persist.get(key: "create", as: String.self) == "kept")
        try await persist.shutdown()
    }

    @Test(arguments: spentExpiries)
    func zeroAndNegativeExpiriesStoreNothing(_ expiry: Duration) async throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let persist = try fixture.driver()
        try await persist.set(key: "k", value: "old")
        try await persist.set(key: "k", value: "new", expires: expiry)
        try await persist.create(key: "c", value: "new", expires: expiry)
        #expect(try await persist.get(key: "k", as: String.self) == nil)
        #expect(try await persist.get(key: "c", as: String.self) == nil)
        try await persist.shutdown()
    }

    @Test(arguments: [1e20, 0x1p63, 1e30, Double.greatestFiniteMagnitude])
    func remainingLifetimeBeyondDurationIsTheLargestDuration(_ lifetime: TimeInterval) async throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let persist = try fixture.driver()
        try persist.store.set("value", forKey: "k", expiresAfter: lifetime)
        let ttl = try #require(try await persist.getWithTTL(key: "k", as: String.self)?.ttl)
        #expect(ttl == (lifetime < 0x1p63 ? Duration.seconds(lifetime) : .seconds(Int64.max)))
        // The same through a collection whose policy gives the lifetime.
        let sessions = ModelStorePersistDriver(collection: persist.store.collection("s", policy: .custom(lifetime)))
        try await sessions.set(key: "k", value: "value", expires: nil)
        #expect(try await sessions.getWithTTL(key: "k", as: String.self)?.ttl == ttl)
        try await persist.shutdown()
    }

    @Test(arguments: [
        Duration.seconds(Int64.max), Duration(secondsComponent: Int64.max, attosecondsComponent: Int64.max),
        .seconds(Int64.max) * 18,
    ])
    func runWithTheLongestSweepIntervalStopsWhenCancelled(_ interval: Duration) async throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let persist = try fixture.driver(sweepInterval: interval)
        let service = Task { try await persist.run() }
        // Real time, short and bounded: long enough for run() to start its sleep (where the
        // clock trapped on such an interval); nothing reports that moment.
        try await Task.sleep(for: .milliseconds(50))
        service.cancel()
        try await service.value
        #expect(persist.store.isClosed)
    }

    @Test(arguments: [Duration.zero, .nanoseconds(-1), .seconds(Int64.min), .seconds(Int64.min) * 18])
    func zeroOrNegativeSweepIntervalIsRefused(_ interval: Duration) async throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        #expect(throws: ModelStoreError.self) { try fixture.driver(sweepInterval: interval) }
        #expect(!FileManager.default.fileExists(atPath: fixture.directory.path))  // refused before any I/O
        let store = try ModelStore(name: "persist", policy: .never, configuration: fixture.configuration)
        let persist = ModelStorePersistDriver(store: store, sweepInterval: interval)
        do {
            try await persist.run()
            Issue.record("run() accepted a sweep interval of \(interval)")
        } catch let ModelStoreError.invalidPolicy(reason) {
            #expect(reason.contains("sweepInterval"))
        }
        #expect(!store.isClosed)  // refused before it started: nothing to shut down
        try store.close()
    }
}
