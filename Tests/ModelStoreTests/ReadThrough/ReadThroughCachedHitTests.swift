import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// `object(_:forKey:options:fetch:)` hits answered from the object cache, which take a shorter
/// path than the store's (``ModelStore/readThroughCachedHit(forKey:options:probe:take:)``): each
/// test fills the cache with a plain read first, then checks the read-through still counts,
/// expires, refreshes ahead, validates and falls back exactly as without the cache.
@Suite("Read-through hits from the object cache")
struct ReadThroughCachedHitTests {
    typealias Harness = ReadThroughOptionsTests.Harness

    /// A store with the object cache on, holding "ada" under "u" (lifetime 100 s), read once
    /// so the cache holds it.
    static func storeWithCachedRecord(_ harness: Harness) throws -> ModelStore {
        let store = try harness.open(objectCacheLimit: 64)
        try store.set(User.sample("ada"), forKey: "u", expiresAfter: 100)
        #expect(try store.object(User.self, forKey: "u") == User.sample("ada"))
        #expect(store.database.cache?.lookup("u") != nil)
        return store
    }

    /// A model that decodes from a stored ``User`` but is another type than the cached one.
    struct UserName: Codable, Sendable, Equatable {
        var userName: String
    }

    /// A model of class type: never cached (one shared instance would be visible to every reader).
    final class UserBox: Codable, Sendable {
        let userName: String
    }

    @Test("A cached hit returns the record without fetching and counts one hit per call, in the store and a collection")
    func cachedHitsAreCountedOnce() async throws {
        let harness = Harness()
        let store = try Self.storeWithCachedRecord(harness)
        let users = store.collection("users")
        try users.set(User.sample("bob"), forKey: "u")
        #expect(try users.object(User.self, forKey: "u") == User.sample("bob"))
        for _ in 0..<3 {
            let user = try await store.object(User.self, forKey: "u", options: ReadThroughOptions()) { _ in
                Issue.record("fetched on a hit")
                return .notFound
            }
            #expect(user == User.sample("ada"))
            let member = try await users.object(User.self, forKey: "u", options: ReadThroughOptions()) { _ in
                Issue.record("fetched on a hit")
                return .notFound
            }
            #expect(member == User.sample("bob"))
        }
        #expect(harness.counter("hits_total") == 3)
        #expect(harness.counter("misses_total") == 0)
        #expect(harness.counter("hits_total", collection: "users") == 3)
        #expect(harness.counter("misses_total", collection: "users") == 0)
    }

    @Test("A cached record that has expired is not served: the call fetches and counts a miss")
    func expiredCachedRecordIsFetched() async throws {
        let harness = Harness()
        let store = try Self.storeWithCachedRecord(harness)
        harness.fixture.clock.advance(by: 101)
        let user = try await store.object(User.self, forKey: "u", options: ReadThroughOptions()) { previous in
            #expect(previous?.value == User.sample("ada"))
            #expect(previous?.isExpired == true)
            return .value(User.sample("bob"))
        }
        #expect(user == User.sample("bob"))
        #expect(harness.counter("hits_total") == 0)
        #expect(harness.counter("misses_total") == 1)
        #expect(harness.counter("fetches_total") == 1)
    }

    @Test("A cached hit after refreshAhead of the lifetime returns at once and starts exactly one background refresh")
    func cachedHitRefreshesAhead() async throws {
        let harness = Harness()
        let store = try Self.storeWithCachedRecord(harness)
        harness.fixture.clock.advance(by: 85)
        let gate = FetchGate()
        var options = ReadThroughOptions()
        options.refreshAhead = 0.8
        for _ in 0..<3 {
            let user = try await store.object(User.self, forKey: "u", options: options) { previous in
                #expect(previous?.value == User.sample("ada"))
                return try await gate.pass(FetchResult.value(User.sample("bob"), expiresAfter: 100))
            }
            #expect(user == User.sample("ada"))
        }
        // Counted when the refresh starts, before the call returns: checked first, so a hit that
        // never refreshes fails here instead of waiting for a fetch that never starts.
        try #require(harness.counter("refresh_aheads_total") == 1)
        await gate.waitUntilStarted()
        #expect(gate.calls == 1)
        #expect(harness.counter("hits_total") == 3)
        gate.open()
        #expect(try await eventually { try store.object(User.self, forKey: "u") == User.sample("bob") })
    }

    @Test("A cached model of another type is not cast: the call decodes the stored record and counts one hit")
    func cachedModelOfAnotherTypeFallsBack() async throws {
        let harness = Harness()
        let store = try Self.storeWithCachedRecord(harness)
        let name = try await store.object(UserName.self, forKey: "u", options: ReadThroughOptions()) { _ in
            Issue.record("fetched although a live record is stored")
            return .notFound
        }
        #expect(name == UserName(userName: "ada"))
        #expect(harness.counter("hits_total") == 1)
        #expect(harness.counter("misses_total") == 0)
    }

    @Test("A model of class type is read through with the cache on, and never cached")
    func classModelsAreNotCached() async throws {
        let harness = Harness()
        let store = try harness.open(objectCacheLimit: 64)
        for _ in 0..<2 {
            let box = try await store.object(UserBox.self, forKey: "b", options: ReadThroughOptions()) { _ in
                .value(try JSONDecoder().decode(UserBox.self, from: Data(#"{"userName":"ada"}"#.utf8)))
            }
            #expect(box?.userName == "ada")
        }
        #expect(harness.counter("fetches_total") == 1)
        #expect(harness.counter("hits_total") == 1)
        #expect(store.database.cache?.lookup("b") == nil)
    }

    @Test("Bad options, a bad key, an invalid collection and a closed store throw although the record is cached")
    func errorsComeBeforeTheCache() async throws {
        let harness = Harness()
        let store = try Self.storeWithCachedRecord(harness)
        var bad = ReadThroughOptions()
        bad.refreshAhead = 1.5
        let never: @Sendable (ModelStore.Entry<User>?) async throws -> FetchResult<User> = { _ in
            Issue.record("fetched")
            return .notFound
        }
        #expect(await Self.errorCase { _ = try await store.object(User.self, forKey: "u", options: bad, fetch: never) }
            == "invalidPolicy")
        #expect(
            await Self.errorCase {
                _ = try await store.object(User.self, forKey: "", options: ReadThroughOptions(), fetch: never)
            } == "invalidKey")
        // An invalid collection reads the default key space if it reads at all: it must throw,
        // not answer with the store's own cached record.
        for (collection, expected) in [
            (store.collection(""), "invalidName"), (store.collection("c", policy: .custom(-1)), "invalidPolicy"),
        ] {
            #expect(
                await Self.errorCase {
                    _ = try await collection.object(User.self, forKey: "u", options: ReadThroughOptions(), fetch: never)
                } == expected)
        }
        try store.close()
        #expect(
            await Self.errorCase {
                _ = try await store.object(User.self, forKey: "u", options: ReadThroughOptions(), fetch: never)
            } == "closed")
        #expect(harness.counter("hits_total") == 0)
    }

    /// The case name of the ``ModelStoreError`` `body` throws; nil if it throws none.
    static func errorCase(_ body: () async throws -> Void) async -> String? {
        do {
            try await body()
            return nil
        } catch let error as ModelStoreError {
            return String(describing: Mirror(reflecting: error).children.first?.label ?? "\(error)")
        } catch {
            return "unexpected: \(error)"
        }
    }
}
