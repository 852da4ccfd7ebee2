import Foundation
import Logging
import MetricsTestKit
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// `object(_:forKey:options:fetch:)`: fail-safe, timeouts, refresh-ahead, negative caching,
/// validators' previous entry, and metrics. Record ages use the fixture's clock; timeouts use
/// a ``ManualClock``: no test sleeps.
@Suite("Read-through options")
struct ReadThroughOptionsTests {
    struct Harness {
        let fixture = Fixture()
        let timeouts = ManualClock()
        let metrics = TestMetrics()
        let log = LogCapture()

        func open(policy: UpdatePolicy = .never, objectCacheLimit: Int = 0) throws -> ModelStore {
            var configuration = fixture.configuration
            configuration.objectCacheLimit = objectCacheLimit
            configuration.readThrough.clock = timeouts
            configuration.readThrough.metricsFactory = metrics
            configuration.logger = log.logger
            return try ModelStore(name: "db", policy: policy, configuration: configuration)
        }

        /// The counter `name` of the store's own keys (`collection=""`) unless `collection` is given.
        func counter(_ name: String, _ extra: [(String, String)] = [], collection: String = "") -> Int64 {
            let counters = metrics.counters(
                label: ReadThroughMetrics.prefix + name,
                dimensions: [("database", "db"), ("collection", collection)] + extra)
            return counters.first?.totalValue ?? 0
        }
    }

    /// A store holding "ada" under "u", expired 10 s ago (lifetime 60 s).
    static func storeWithExpiredRecord(_ harness: Harness) throws -> ModelStore {
        let store = try harness.open()
        try store.set(User.sample("ada"), forKey: "u", expiresAfter: 60)
        harness.fixture.clock.advance(by: 70)
        return store
    }

    static func options(staleIfError: TimeInterval? = nil) -> ReadThroughOptions {
        var options = ReadThroughOptions()
        options.staleIfError = staleIfError
        return options
    }

    // MARK: - Fail-safe

    @Test("A failed fetch serves the expired record within staleIfError and keeps it")
    func failSafeServesStaleWithinWindow() async throws {
        let harness = Harness()
        let store = try Self.storeWithExpiredRecord(harness)
        let user = try await store.object(User.self, forKey: "u", options: Self.options(staleIfError: 3_600)) { _ in
            throw URLError(.notConnectedToInternet)
        }
        #expect(user == User.sample("ada"))
        #expect(try store.entry(User.self, forKey: "u", includingExpired: true)?.value == User.sample("ada"))
        #expect(harness.counter("stale_served_total") == 1)
        #expect(harness.counter("fetch_failures_total") == 1)
    }

    @Test("A failed fetch rethrows its error when the record is further past expiry than staleIfError")
    func failSafeIsBoundedByStaleIfError() async throws {
        let harness = Harness()
        let store = try Self.storeWithExpiredRecord(harness)  // 10 s past expiry
        await #expect(throws: URLError.self) {
            _ = try await store.object(User.self, forKey: "u", options: Self.options(staleIfError: 5)) { _ in
                throw URLError(.notConnectedToInternet)
            }
        }
        #expect(try store.entry(User.self, forKey: "u", includingExpired: true) != nil)  // never removed
    }

    @Test("A cancelled caller gets CancellationError, never the stale record; the fetch goes on and is stored")
    func cancelledCallerGetsNoStale() async throws {
        let harness = Harness()
        let store = try Self.storeWithExpiredRecord(harness)
        let gate = FetchGate()
        let first = Task {
            try await store.object(User.self, forKey: "u", options: Self.options(staleIfError: 3_600)) { _ in
                try await gate.pass(FetchResult.value(User.sample("bob")))
            }
        }
        await gate.waitUntilStarted()
        let second = Task {
            try await store.object(User.self, forKey: "u", options: Self.options(staleIfError: 3_600)) { _ in
                .value(User.sample("eve"))
            }
        }
        #expect(try await eventually { store.database.fetches.waiters == 2 })
        second.cancel()
        await #expect(throws: CancellationError.self) { try await second.value }
        gate.open()
        #expect(try await first.value == User.sample("bob"))
        #expect(try store.object(User.self, forKey: "u") == User.sample("bob"))
    }

    @Test("The fetch receives the stored entry even when it has expired")
    func fetchReceivesExpiredPreviousEntry() async throws {
        let harness = Harness()
        let store = try Self.storeWithExpiredRecord(harness)
        let seen = Locked<ModelStore.Entry<User>?>(nil)
        _ = try await store.object(User.self, forKey: "u", options: ReadThroughOptions()) { previous in
            seen.withLock { $0 = previous }
            return .value(User.sample("bob"))
        }
        let previous = try #require(seen.withLock { $0 })
        #expect(previous.value == User.sample("ada"))
        #expect(previous.isExpired)
    }

    // MARK: - Timeouts

    @Test("Soft timeout returns the usable stale record; the background fetch's result is stored")
    func softTimeoutServesStaleAndStoresLater() async throws {
        let harness = Harness()
        let store = try Self.storeWithExpiredRecord(harness)
        let gate = FetchGate()
        var options = Self.options(staleIfError: 3_600)
        options.softTimeout = .milliseconds(50)
        let reader = Task {
            try await store.object(User.self, forKey: "u", options: options) { _ in
                try await gate.pass(FetchResult.value(User.sample("bob")))
            }
        }
        await gate.waitUntilStarted()
        #expect(try await eventually { harness.timeouts.sleeperCount == 1 })
        harness.timeouts.advance(by: .milliseconds(50))
        #expect(try await reader.value == User.sample("ada"))
        #expect(harness.counter("timeouts_total", [("timeout", "soft")]) == 1)
        gate.open()
        #expect(try await eventually { try store.object(User.self, forKey: "u") == User.sample("bob") })
        #expect(gate.calls == 1)
    }

    @Test("Soft timeout does not apply without a usable stale record")
    func softTimeoutNeedsUsableStale() async throws {
        let harness = Harness()
        let store = try harness.open()
        let gate = FetchGate()
        var options = ReadThroughOptions()
        options.softTimeout = .milliseconds(50)
        let reader = Task {
            try await store.object(User.self, forKey: "u", options: options) { _ in
                try await gate.pass(FetchResult.value(User.sample("bob")))
            }
        }
        await gate.waitUntilStarted()
        #expect(harness.timeouts.sleeperCount == 0)  // no timer: nothing to serve at the soft timeout
        harness.timeouts.advance(by: .seconds(10))
        gate.open()
        #expect(try await reader.value == User.sample("bob"))
    }

    @Test("Hard timeout without a stale record throws fetchTimedOut; the fetch still stores its result")
    func hardTimeoutThrowsAndFetchGoesOn() async throws {
        let harness = Harness()
        let store = try harness.open()
        let gate = FetchGate()
        var options = ReadThroughOptions()
        options.hardTimeout = .seconds(2)
        let reader = Task {
            try await store.object(User.self, forKey: "u", options: options) { _ in
                try await gate.pass(FetchResult.value(User.sample("bob")))
            }
        }
        await gate.waitUntilStarted()
        #expect(try await eventually { harness.timeouts.sleeperCount == 1 })
        harness.timeouts.advance(by: .seconds(2))
        await #expect(throws: ModelStoreError.fetchTimedOut(key: "u", after: .seconds(2))) { try await reader.value }
        gate.open()
        #expect(try await eventually { try store.object(User.self, forKey: "u") == User.sample("bob") })
    }

    @Test("Hard timeout bounds a caller that joined another caller's fetch, and serves stale if allowed")
    func hardTimeoutBoundsJoinedCaller() async throws {
        let harness = Harness()
        let store = try Self.storeWithExpiredRecord(harness)
        let gate = FetchGate()
        let first = Task {
            try await store.object(User.self, forKey: "u", options: ReadThroughOptions()) { _ in
                try await gate.pass(FetchResult.value(User.sample("bob")))
            }
        }
        await gate.waitUntilStarted()
        var options = Self.options(staleIfError: 3_600)
        options.hardTimeout = .seconds(1)
        let second = Task {
            try await store.object(User.self, forKey: "u", options: options) { _ in .value(User.sample("eve")) }
        }
        #expect(try await eventually { harness.timeouts.sleeperCount == 1 })
        harness.timeouts.advance(by: .seconds(1))
        #expect(try await second.value == User.sample("ada"))
        gate.open()
        #expect(try await first.value == User.sample("bob"))
        #expect(gate.calls == 1)
        #expect(harness.counter("coalesced_waits_total") == 1)
    }

    // MARK: - Refresh-ahead

    @Test("A hit after refreshAhead of the lifetime returns at once and starts exactly one background refresh")
    func refreshAheadStartsOneBackgroundRefresh() async throws {
        let harness = Harness()
        let store = try harness.open()
        try store.set(User.sample("ada"), forKey: "u", expiresAfter: 100)
        harness.fixture.clock.advance(by: 85)
        let gate = FetchGate()
        var options = ReadThroughOptions()
        options.refreshAhead = 0.8
        for _ in 0..<3 {
            let user = try await store.object(User.self, forKey: "u", options: options) { _ in
                try await gate.pass(FetchResult.value(User.sample("bob"), expiresAfter: 100))
            }
            #expect(user == User.sample("ada"))
        }
        await gate.waitUntilStarted()
        #expect(gate.calls == 1)
        #expect(harness.counter("refresh_aheads_total") == 1)
        gate.open()
        #expect(try await eventually { try store.object(User.self, forKey: "u") == User.sample("bob") })
    }

    @Test("A hit before refreshAhead of the lifetime does not refresh")
    func noRefreshBeforeThreshold() async throws {
        let harness = Harness()
        let store = try harness.open()
        try store.set(User.sample("ada"), forKey: "u", expiresAfter: 100)
        harness.fixture.clock.advance(by: 50)
        var options = ReadThroughOptions()
        options.refreshAhead = 0.8
        let fetches = Locked(0)
        _ = try await store.object(User.self, forKey: "u", options: options) { _ in
            fetches.withLock { $0 += 1 }
            return .value(User.sample("bob"))
        }
        #expect(store.database.fetches.inFlight == 0)
        #expect(fetches.withLock { $0 } == 0)
    }

    @Test("A failing refresh-ahead leaves the record alone and is logged, not thrown")
    func failingRefreshAheadIsLogged() async throws {
        let harness = Harness()
        let store = try harness.open()
        try store.set(User.sample("ada"), forKey: "u", expiresAfter: 100)
        harness.fixture.clock.advance(by: 90)
        var options = ReadThroughOptions()
        options.refreshAhead = 0.8
        let user = try await store.object(User.self, forKey: "u", options: options) { _ in
            throw URLError(.badServerResponse)
        }
        #expect(user == User.sample("ada"))
        #expect(try await eventually { harness.log.all.contains { $0.message.contains("Refresh-ahead") } })
        #expect(try store.object(User.self, forKey: "u") == User.sample("ada"))
    }

    // MARK: - Validators

    struct HTTPInfo: Codable, Sendable, Equatable {
        var etag: String
    }

    @Test("A fetched value's metadata is stored, and the next fetch reads it from the previous entry")
    func fetchedMetadataReachesNextFetch() async throws {
        let harness = Harness()
        let store = try harness.open()
        _ = try await store.object(User.self, forKey: "u", options: ReadThroughOptions()) { _ in
            .value(User.sample("ada"), expiresAfter: 60, metadata: HTTPInfo(etag: "\"v1\""))
        }
        #expect(try store.metadata(HTTPInfo.self, forKey: "u") == HTTPInfo(etag: "\"v1\""))
        harness.fixture.clock.advance(by: 61)
        let seen = Locked<String?>(nil)
        _ = try await store.object(User.self, forKey: "u", options: ReadThroughOptions()) { previous in
            let etag = try previous?.metadata(HTTPInfo.self)?.etag
            seen.withLock { $0 = etag }
            return .notModified(expiresAfter: 60)
        }
        #expect(seen.withLock { $0 } == "\"v1\"")
    }

    @Test("notModified refreshes the record without re-encoding: the model's bytes and the metadata stay identical")
    func notModifiedDoesNotReencode() async throws {
        let harness = Harness()
        let store = try harness.open()
        try store.set(User.sample("ada"), forKey: "u", expiresAfter: 60, metadata: HTTPInfo(etag: "e1"))
        let before = try #require(try rawRecord(store, "u"))
        harness.fixture.clock.advance(by: 61)
        let user = try await store.object(User.self, forKey: "u", options: ReadThroughOptions()) { _ in
            .notModified(expiresAfter: 120)
        }
        #expect(user == User.sample("ada"))
        let after = try #require(try rawRecord(store, "u"))
        // Same length, same sections: only the checksum and the times (bytes 3..<23) differ.
        #expect(before.count == after.count)
        #expect(before[23...] == after[23...])
        #expect(try store.metadata(HTTPInfo.self, forKey: "u") == HTTPInfo(etag: "e1"))
        let entry = try #require(try store.entry(User.self, forKey: "u"))
        #expect(entry.expiresAt == harness.fixture.clock.now.addingTimeInterval(120))
    }

    @Test("notModified keeps the stored model with a new lifetime counted from now")
    func notModifiedKeepsModel() async throws {
        let harness = Harness()
        let store = try Self.storeWithExpiredRecord(harness)
        let user = try await store.object(User.self, forKey: "u", options: ReadThroughOptions()) { _ in
            .notModified(expiresAfter: 30)
        }
        #expect(user == User.sample("ada"))
        let entry = try #require(try store.entry(User.self, forKey: "u"))
        #expect(entry.expiresAt == harness.fixture.clock.now.addingTimeInterval(30))
    }

    @Test("notModified with no stored record throws notModifiedWithoutRecord")
    func notModifiedWithoutRecord() async throws {
        let store = try Harness().open()
        await #expect(throws: ModelStoreError.notModifiedWithoutRecord(key: "u")) {
            _ = try await store.object(User.self, forKey: "u", options: ReadThroughOptions()) { _ in .notModified() }
        }
    }

    // MARK: - Negative caching

    @Test("notFound removes the stored record and returns nil")
    func notFoundRemovesRecord() async throws {
        let harness = Harness()
        let store = try Self.storeWithExpiredRecord(harness)
        let user = try await store.object(User.self, forKey: "u", options: ReadThroughOptions()) { _ in .notFound }
        #expect(user == nil)
        #expect(try store.entry(User.self, forKey: "u", includingExpired: true) == nil)
    }

    @Test("notFound is remembered for notFoundLifetime: reads return nil without fetching, then fetch again")
    func notFoundIsRemembered() async throws {
        let harness = Harness()
        let store = try harness.open()
        var options = ReadThroughOptions()
        options.notFoundLifetime = 30
        let fetches = Locked(0)
        for _ in 0..<3 {
            let user = try await store.object(User.self, forKey: "u", options: options) { _ in
                fetches.withLock { $0 += 1 }
                return .notFound
            }
            #expect(user == nil)
        }
        #expect(fetches.withLock { $0 } == 1)
        #expect(harness.counter("not_found_hits_total") == 2)
        harness.fixture.clock.advance(by: 30)
        _ = try await store.object(User.self, forKey: "u", options: options) { _ in
            fetches.withLock { $0 += 1 }
            return .notFound
        }
        #expect(fetches.withLock { $0 } == 2)
    }

    @Test("A set, a batch or a removal of the key forgets a remembered notFound at once")
    func writesForgetNotFound() async throws {
        let harness = Harness()
        let store = try harness.open()
        var options = ReadThroughOptions()
        options.notFoundLifetime = 300
        func rememberNotFound() async throws {
            try store.removeObject(forKey: "u")
            _ = try await store.object(User.self, forKey: "u", options: options) { _ in .notFound }
            #expect(store.database.notFound.count == 1)
        }
        try await rememberNotFound()
        try store.set(User.sample("bob"), forKey: "u")
        #expect(store.database.notFound.count == 0)
        let stored = try await store.object(User.self, forKey: "u", options: options) { _ in .notFound }
        #expect(stored == User.sample("bob"))
        try await rememberNotFound()
        try store.write { batch in try batch.set(User.sample("eve"), forKey: "u") }
        #expect(store.database.notFound.count == 0)
        try await rememberNotFound()
        try store.removeObject(forKey: "u")
        #expect(store.database.notFound.count == 0)
        try await rememberNotFound()
        try store.removeObjects(forKeys: ["u"])
        #expect(store.database.notFound.count == 0)
        try await rememberNotFound()
        try store.removeObjects(withPrefix: "")
        #expect(store.database.notFound.count == 0)
        try await rememberNotFound()
        try store.removeAllObjects()
        #expect(store.database.notFound.count == 0)
    }

    @Test("Remembered notFound is keyed by bytes: another spelling of the key is fetched")
    func notFoundIsKeyedByBytes() async throws {
        let store = try Harness().open()
        var options = ReadThroughOptions()
        options.notFoundLifetime = 300
        _ = try await store.object(User.self, forKey: "\u{E9}", options: options) { _ in .notFound }
        let user = try await store.object(User.self, forKey: "e\u{301}", options: options) { _ in
            .value(User.sample())
        }
        #expect(user == User.sample())
    }

    // MARK: - Collections

    @Test("In a collection: fetched metadata is stored, notModified keeps the record, notFound is per collection")
    func collectionReadThrough() async throws {
        let harness = Harness()
        let store = try harness.open()
        let users = store.collection("users")
        _ = try await users.object(User.self, forKey: "u", options: ReadThroughOptions()) { _ in
            .value(User.sample("ada"), expiresAfter: 60, metadata: HTTPInfo(etag: "e1"))
        }
        #expect(try users.object(User.self, forKey: "u") == User.sample("ada"))
        #expect(try store.object(User.self, forKey: "u") == nil)  // not the default collection's
        harness.fixture.clock.advance(by: 61)
        let etag = Locked<String?>(nil)
        let kept = try await users.object(User.self, forKey: "u", options: ReadThroughOptions()) { previous in
            let value = try previous?.metadata(HTTPInfo.self)?.etag
            etag.withLock { $0 = value }
            return .notModified(expiresAfter: 60)
        }
        #expect(kept == User.sample("ada"))
        #expect(etag.withLock { $0 } == "e1")
        #expect(try users.object(User.self, forKey: "u") == User.sample("ada"))  // live again
        var options = ReadThroughOptions()
        options.notFoundLifetime = 300
        _ = try await users.object(User.self, forKey: "gone", options: options) { _ in .notFound }
        let other = try await store.object(User.self, forKey: "gone", options: options) { _ in .value(User.sample()) }
        #expect(other == User.sample())  // the default collection's "gone" is another record
        try users.set(User.sample("back"), forKey: "gone")
        #expect(try await users.object(User.self, forKey: "gone", options: options) { _ in .notFound } != nil)
    }

    // MARK: - Metrics and options

    @Test("Hits, misses and fetches are counted per database")
    func metricsCountHitsMissesFetches() async throws {
        let harness = Harness()
        let store = try harness.open()
        for _ in 0..<3 {
            _ = try await store.object(User.self, forKey: "u", options: ReadThroughOptions()) { _ in
                .value(User.sample())
            }
        }
        #expect(harness.counter("misses_total") == 1)
        #expect(harness.counter("fetches_total") == 1)
        #expect(harness.counter("hits_total") == 2)
    }

    @Test("Hits and misses through two collections and the store are counted per collection")
    func metricsCountPerCollection() async throws {
        let harness = Harness()
        let store = try harness.open()
        let users = store.collection("users")
        let teams = store.collection("teams")
        let options = ReadThroughOptions()
        // users: 1 miss, 2 hits (the second call makes a new Collection value: same counters).
        for collection in [users, users, store.collection("users")] {
            _ = try await collection.object(User.self, forKey: "u", options: options) { _ in .value(User.sample()) }
        }
        // teams: 2 misses of two keys, 1 hit, and a remembered not-found.
        var remember = options
        remember.notFoundLifetime = 30
        _ = try await teams.object(User.self, forKey: "a", options: options) { _ in .value(User.sample()) }
        _ = try await teams.object(User.self, forKey: "a", options: options) { _ in .value(User.sample()) }
        _ = try await teams.object(User.self, forKey: "gone", options: remember) { _ in .notFound }
        _ = try await teams.object(User.self, forKey: "gone", options: remember) { _ in .notFound }
        // The store's own keys: 1 hit of a key set directly.
        try store.set(User.sample(), forKey: "u")
        _ = try await store.object(User.self, forKey: "u", options: options) { _ in .notFound }
        // The non-optional overload counts in its collection too.
        _ = try await teams.object(User.self, forKey: "a") { User.sample() }

        #expect(harness.counter("misses_total", collection: "users") == 1)
        #expect(harness.counter("hits_total", collection: "users") == 2)
        #expect(harness.counter("fetches_total", collection: "users") == 1)
        #expect(harness.counter("misses_total", collection: "teams") == 2)
        #expect(harness.counter("hits_total", collection: "teams") == 2)
        #expect(harness.counter("fetches_total", collection: "teams") == 2)
        #expect(harness.counter("not_found_hits_total", collection: "teams") == 1)
        #expect(harness.counter("hits_total") == 1)
        #expect(harness.counter("misses_total") == 0)
        #expect(harness.counter("fetches_total") == 0)
        // Created once per collection, not per call or per Collection value.
        #expect(harness.metrics.counters(label: ReadThroughMetrics.prefix + "hits_total").count == 3)
    }

    @Test("Bad options throw invalidPolicy before fetching")
    func badOptionsAreRefused() async throws {
        let store = try Harness().open()
        var options = ReadThroughOptions()
        options.refreshAhead = 1.5
        await #expect(throws: ModelStoreError.self) {
            _ = try await store.object(User.self, forKey: "u", options: options) { _ in
                Issue.record("fetched with bad options")
                return .notFound
            }
        }
    }
}
