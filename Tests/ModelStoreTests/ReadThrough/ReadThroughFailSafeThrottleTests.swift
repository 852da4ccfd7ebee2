import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// ``ReadThroughOptions/failSafeThrottle``: after a failed fetch served the stale record, calls
/// for that record get it without fetching until the throttle has passed; any write ends it.
/// Time is the fixture's clock: no test sleeps.
@Suite("Read-through fail-safe throttle")
struct ReadThroughFailSafeThrottleTests {
    typealias Harness = ReadThroughOptionsTests.Harness

    static func options(throttle: TimeInterval? = 10, staleIfError: TimeInterval? = 3_600) -> ReadThroughOptions {
        var options = ReadThroughOptions()
        options.staleIfError = staleIfError
        options.failSafeThrottle = throttle
        return options
    }

    /// A backend that is down: every fetch fails, and is counted.
    final class DownBackend: Sendable {
        let calls = Locked(0)

        var count: Int { calls.withLock { $0 } }

        func fetch() throws -> FetchResult<User> {
            calls.withLock { $0 += 1 }
            throw URLError(.cannotConnectToHost)
        }
    }

    @Test("With the backend down, 5 calls make 1 fetch and get the stale record; after the throttle, one fetches again")
    func throttleHoldsBackFetches() async throws {
        let harness = Harness()
        let store = try ReadThroughOptionsTests.storeWithExpiredRecord(harness)
        let backend = DownBackend()
        for _ in 0..<5 {
            let user = try await store.object(User.self, forKey: "u", options: Self.options()) { _ in
                try backend.fetch()
            }
            #expect(user == User.sample("ada"))
        }
        #expect(backend.count == 1)
        #expect(harness.counter("fetches_total") == 1)
        #expect(harness.counter("fail_safe_throttled_total") == 4)
        #expect(harness.counter("stale_served_total") == 5)
        #expect(harness.counter("misses_total") == 5)
        harness.fixture.clock.advance(by: 9.5)
        _ = try await store.object(User.self, forKey: "u", options: Self.options()) { _ in try backend.fetch() }
        #expect(backend.count == 1)
        harness.fixture.clock.advance(by: 0.5)  // 10 s after the failure
        _ = try await store.object(User.self, forKey: "u", options: Self.options()) { _ in try backend.fetch() }
        #expect(backend.count == 2)
        _ = try await store.object(User.self, forKey: "u", options: Self.options()) { _ in try backend.fetch() }
        #expect(backend.count == 2)  // throttled again, from the second failure
    }

    @Test("Without failSafeThrottle every call fetches; a call without it fetches even while others are throttled")
    func noThrottleFetchesEveryTime() async throws {
        let harness = Harness()
        let store = try ReadThroughOptionsTests.storeWithExpiredRecord(harness)
        let backend = DownBackend()
        for _ in 0..<3 {
            _ = try await store.object(User.self, forKey: "u", options: Self.options(throttle: nil)) { _ in
                try backend.fetch()
            }
        }
        #expect(backend.count == 3)
        _ = try await store.object(User.self, forKey: "u", options: Self.options()) { _ in try backend.fetch() }
        #expect(backend.count == 4)
        _ = try await store.object(User.self, forKey: "u", options: Self.options(throttle: nil)) { _ in
            try backend.fetch()
        }
        #expect(backend.count == 5)
        #expect(harness.counter("fail_safe_throttled_total") == 0)
    }

    @Test("Each call's own throttle counts from the failure; a call that may not serve the stale record fetches")
    func eachCallUsesItsOwnOptions() async throws {
        let harness = Harness()
        let store = try ReadThroughOptionsTests.storeWithExpiredRecord(harness)  // 10 s past expiry
        let backend = DownBackend()
        _ = try await store.object(User.self, forKey: "u", options: Self.options(throttle: 60)) { _ in
            try backend.fetch()
        }
        harness.fixture.clock.advance(by: 5)
        _ = try await store.object(User.self, forKey: "u", options: Self.options(throttle: 60)) { _ in
            try backend.fetch()
        }
        #expect(backend.count == 1)
        // staleIfError 12: the record is 15 s past expiry, not usable: the call fetches and throws.
        await #expect(throws: URLError.self) {
            _ = try await store.object(User.self, forKey: "u", options: Self.options(throttle: 60, staleIfError: 12)) {
                _ in try backend.fetch()
            }
        }
        #expect(backend.count == 2)
        // A 2 s throttle: 5 s have passed since the failure that served stale.
        _ = try await store.object(User.self, forKey: "u", options: Self.options(throttle: 2)) { _ in
            try backend.fetch()
        }
        #expect(backend.count == 3)
    }

    @Test("A successful fetch after the throttle ends it: the record is live, and the next expiry fetches")
    func successEndsThrottle() async throws {
        let harness = Harness()
        let store = try ReadThroughOptionsTests.storeWithExpiredRecord(harness)
        _ = try await store.object(User.self, forKey: "u", options: Self.options()) { _ in
            throw URLError(.cannotConnectToHost)
        }
        #expect(store.database.failSafe.count == 1)
        harness.fixture.clock.advance(by: 10)
        let fresh = try await store.object(User.self, forKey: "u", options: Self.options()) { _ in
            .value(User.sample("bob"), expiresAfter: 5)
        }
        #expect(fresh == User.sample("bob"))
        #expect(store.database.failSafe.count == 0)
        harness.fixture.clock.advance(by: 6)
        let again = try await store.object(User.self, forKey: "u", options: Self.options()) { _ in
            .value(User.sample("eve"), expiresAfter: 5)
        }
        #expect(again == User.sample("eve"))
    }

    @Test("Every write path that touches the key ends the throttle at once; a swept stale record is fetched")
    func writesEndThrottle() async throws {
        let harness = Harness()
        let store = try harness.open()
        let users = store.collection("users")
        func throttle(_ key: String = "u", in collection: ModelStore.Collection? = nil) async throws {
            if let collection {
                try collection.set(User.sample("ada"), forKey: key, expiresAfter: 60, tags: ["t"])
            } else {
                try store.set(User.sample("ada"), forKey: key, expiresAfter: 60, tags: ["t"])
            }
            harness.fixture.clock.advance(by: 70)
            let options = Self.options()
            let fetch: @Sendable (ModelStore.Entry<User>?) async throws -> FetchResult<User> = { _ in
                throw URLError(.cannotConnectToHost)
            }
            if let collection {
                _ = try await collection.object(User.self, forKey: key, options: options, fetch: fetch)
            } else {
                _ = try await store.object(User.self, forKey: key, options: options, fetch: fetch)
            }
            #expect(store.database.failSafe.count == 1)
        }
        let writes: [(String, () async throws -> Void)] = [
            ("set", { try store.set(User.sample("bob"), forKey: "u") }),
            ("set with lifetime", { try store.set(User.sample("bob"), forKey: "u", expiresAfter: 5) }),
            ("set with metadata", { try store.set(User.sample("bob"), forKey: "u", metadata: ["e": "x"]) }),
            ("set with tags", { try store.set(User.sample("bob"), forKey: "u", tags: ["t"]) }),
            ("batch", { try store.write { try $0.set(User.sample("bob"), forKey: "u") } }),
            ("batch removal", { try store.write { $0.removeObject(forKey: "u") } }),
            ("removeObject", { try store.removeObject(forKey: "u") }),
            ("removeObjects(forKeys:)", { try store.removeObjects(forKeys: ["u"]) }),
            ("removeObjects(withPrefix:)", { try store.removeObjects(withPrefix: "") }),
            ("removeAllObjects", { try store.removeAllObjects() }),
            ("removeObjects(taggedWith:)", { try store.removeObjects(taggedWith: "t") }),
            ("refresh", { try store.refresh(forKey: "u", expiresAfter: 5) }),
            ("replaceMetadata", { try store.replaceMetadata(["e": "y"], forKey: "u") }),
            ("import", { try await store.importObjects([User.sample("u")], key: \.userName) }),
        ]
        for (name, write) in writes {
            try await throttle()
            try await write()
            #expect(store.database.failSafe.count == 0, "\(name)")
        }
        // A sweep removes the stale record itself: nothing is left to serve, so the next call fetches.
        try await throttle()
        try store.removeExpiredObjects()
        let fetched = try await store.object(User.self, forKey: "u", options: Self.options()) { _ in
            .value(User.sample("bob"))
        }
        #expect(fetched == User.sample("bob"))
        #expect(store.database.failSafe.count == 0, "the fetch's write")
        try await throttle("k", in: users)
        try users.set(User.sample("bob"), forKey: "k")
        #expect(store.database.failSafe.count == 0, "collection set")
        try await throttle("k", in: users)
        try users.removeAllObjects()
        #expect(store.database.failSafe.count == 0, "collection removeAllObjects")
    }

    @Test("The throttle is per record: keys by bytes, and per collection")
    func throttleIsPerRecord() async throws {
        let harness = Harness()
        let store = try harness.open()
        let users = store.collection("users")
        for key in ["\u{E9}", "e\u{301}"] {
            try store.set(User.sample("ada"), forKey: key, expiresAfter: 60)
            try users.set(User.sample("ada"), forKey: key, expiresAfter: 60)
        }
        harness.fixture.clock.advance(by: 70)
        let backend = DownBackend()
        _ = try await store.object(User.self, forKey: "\u{E9}", options: Self.options()) { _ in try backend.fetch() }
        _ = try await store.object(User.self, forKey: "\u{E9}", options: Self.options()) { _ in try backend.fetch() }
        #expect(backend.count == 1)
        _ = try await store.object(User.self, forKey: "e\u{301}", options: Self.options()) { _ in try backend.fetch() }
        #expect(backend.count == 2)
        _ = try await users.object(User.self, forKey: "\u{E9}", options: Self.options()) { _ in try backend.fetch() }
        #expect(backend.count == 3)
        _ = try await users.object(User.self, forKey: "\u{E9}", options: Self.options()) { _ in try backend.fetch() }
        #expect(backend.count == 3)
        #expect(harness.counter("fail_safe_throttled_total") == 1)
        #expect(harness.counter("fail_safe_throttled_total", collection: "users") == 1)
        try users.set(User.sample("bob"), forKey: "\u{E9}")  // ends the collection's, not the store's
        _ = try await store.object(User.self, forKey: "\u{E9}", options: Self.options()) { _ in try backend.fetch() }
        #expect(backend.count == 3)
    }

    @Test("A bad failSafeThrottle throws invalidPolicy before fetching")
    func badThrottleIsRefused() async throws {
        let store = try Harness().open()
        for bad in [0, -1, .nan, .infinity, -.infinity] as [TimeInterval] {
            var options = ReadThroughOptions()
            options.failSafeThrottle = bad
            await #expect(throws: ModelStoreError.self, "\(bad)") {
                _ = try await store.object(User.self, forKey: "u", options: options) { _ in
                    Issue.record("fetched with failSafeThrottle \(bad)")
                    return .notFound
                }
            }
            do {
                _ = try await store.collection("c").object(User.self, forKey: "u", options: options) { _ in .notFound }
                Issue.record("a collection accepted failSafeThrottle \(bad)")
            } catch let error as ModelStoreError {
                #expect(error.description.contains("options.failSafeThrottle"))
            }
        }
    }

    @Test("The largest finite failSafeThrottle is accepted and throttles without overflowing")
    func largestThrottleIsAccepted() async throws {
        let harness = Harness()
        let store = try ReadThroughOptionsTests.storeWithExpiredRecord(harness)
        let backend = DownBackend()
        let options = Self.options(throttle: .greatestFiniteMagnitude, staleIfError: .infinity)
        for _ in 0..<2 {
            _ = try await store.object(User.self, forKey: "u", options: options) { _ in try backend.fetch() }
        }
        harness.fixture.clock.advance(by: 1e9)
        _ = try await store.object(User.self, forKey: "u", options: options) { _ in try backend.fetch() }
        #expect(backend.count == 1)
    }
}
