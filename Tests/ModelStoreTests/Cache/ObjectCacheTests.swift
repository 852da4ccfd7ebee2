import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

@Suite("Object cache")
struct ObjectCacheTests {
    func cachedStore(_ fixture: Fixture, limit: Int = 100, policy: UpdatePolicy = .never) throws -> ModelStore {
        var configuration = fixture.configuration
        configuration.objectCacheLimit = limit
        return try ModelStore(name: "db", policy: policy, configuration: configuration)
    }

    /// Overwrites a record behind the cache's back, so a read that still returns the old
    /// value proves it came from the cache.
    func overwriteRaw(_ store: ModelStore, _ key: String, with value: String) throws {
        var record: [UInt8] = []
        RecordHeader(storedAt: Date().timeIntervalSinceReferenceDate, expiresAt: nil, codec: .json)
            .writeVersionOne(to: &record)
        record += Array(try JSONEncoder().encode(value))
        try store.database.write { engine in
            try Array(key.utf8).withUnsafeBytes { key in
                try record.withUnsafeBytes { try engine.put(key: key, value: $0, sync: false) }
            }
        }
    }

    @Test("A hot read is answered from memory without LevelDB or decoding")
    func hitSkipsLevelDB() throws {
        let fixture = Fixture()
        let store = try cachedStore(fixture)
        try store.set("cached", forKey: "k")
        #expect(try store.object(String.self, forKey: "k") == "cached")  // miss: fills the cache
        try overwriteRaw(store, "k", with: "behind")
        #expect(try store.object(String.self, forKey: "k") == "cached")
        #expect(store.database.cache?.count == 1)
    }

    @Test("A limit of 0 turns the cache off")
    func disabled() throws {
        let fixture = Fixture()
        let store = try cachedStore(fixture, limit: 0)
        #expect(store.database.cache == nil)
        try store.set("v", forKey: "k")
        _ = try store.object(String.self, forKey: "k")
        try overwriteRaw(store, "k", with: "behind")
        #expect(try store.object(String.self, forKey: "k") == "behind")
    }

    @Test("The least recently used model is evicted at the limit")
    func lruEviction() throws {
        let fixture = Fixture()
        let store = try cachedStore(fixture, limit: 2)
        for key in ["a", "b", "c"] { try store.set(key, forKey: key) }
        _ = try store.object(String.self, forKey: "a")
        _ = try store.object(String.self, forKey: "b")
        _ = try store.object(String.self, forKey: "a")  // b is now least recently used
        _ = try store.object(String.self, forKey: "c")  // evicts b
        try overwriteRaw(store, "a", with: "A2")
        try overwriteRaw(store, "b", with: "B2")
        #expect(try store.object(String.self, forKey: "a") == "a")   // still cached
        #expect(try store.object(String.self, forKey: "b") == "B2")  // was evicted
        #expect(store.database.cache?.count == 2)
    }

    @Test("A cached model past its deadline is not returned")
    func honoursExpiry() throws {
        let fixture = Fixture()
        let store = try cachedStore(fixture, policy: .high)
        try store.set("v", forKey: "k")
        #expect(try store.object(String.self, forKey: "k") == "v")
        fixture.clock.advance(by: 60)
        #expect(try store.object(String.self, forKey: "k") == nil)
        #expect(store.database.cache?.count == 0)
    }

    @Test("A cached model is only returned as the type it was decoded as")
    func typeSafe() throws {
        let fixture = Fixture()
        let store = try cachedStore(fixture)
        try store.set(1, forKey: "k")
        #expect(try store.object(Int.self, forKey: "k") == 1)
        #expect(try store.object(Double.self, forKey: "k") == 1.0)
        #expect(errorCase { _ = try store.object(String.self, forKey: "k") } == "decodingFailed")
    }

    /// Each write path must drop the cached model of every key it touches.
    enum WritePath: String, CaseIterable, Sendable {
        case set, remove, removeMany, removePrefix, removeAll, batch, importer, sweep, delete
    }

    @Test("Every write path invalidates the cache", arguments: WritePath.allCases)
    func invalidation(path: WritePath) async throws {
        let fixture = Fixture()
        var store = try cachedStore(fixture, policy: .high)
        try store.set("old", forKey: "p:k")
        #expect(try store.object(String.self, forKey: "p:k") == "old")
        #expect(store.database.cache?.count == 1)
        var expected: String? = nil
        switch path {
        case .set:
            try store.set("new", forKey: "p:k")
            expected = "new"
        case .remove:
            try store.removeObject(forKey: "p:k")
        case .removeMany:
            try store.removeObjects(forKeys: ["p:k", "other"])
        case .removePrefix:
            try store.removeObjects(withPrefix: "p:")
        case .removeAll:
            try store.removeAllObjects()
        case .batch:
            try store.write { batch in try batch.set("batched", forKey: "p:k") }
            expected = "batched"
        case .importer:
            try await store.importObjects(["imported"], key: { _ in "p:k" })
            expected = "imported"
        case .sweep:
            fixture.clock.advance(by: 60)
            #expect(try store.removeExpiredObjects() == 1)
            let relaxed = try fixture.open("db", policy: .never)  // shares the cache; policy allows any age
            #expect(try relaxed.object(String.self, forKey: "p:k") == nil)
            return
        case .delete:
            try store.deleteFromDisk()
            store = try cachedStore(fixture, policy: .high)
        }
        #expect(try store.object(String.self, forKey: "p:k") == expected)
    }

    @Test("Concurrent readers and writers never leave a stale model in the cache")
    func noStaleInsertUnderRaces() async throws {
        let fixture = Fixture()
        let store = try cachedStore(fixture, limit: 1_000)
        let keys = (0..<16).map { "k\($0)" }
        for key in keys { try store.set(0, forKey: key) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask { for _ in 0..<2_000 { for key in keys { _ = try store.object(Int.self, forKey: key) } } }
            }
            group.addTask { for round in 1...500 { for key in keys { try store.set(round, forKey: key) } } }
            try await group.waitForAll()
        }
        for key in keys {
            #expect(try store.object(Int.self, forKey: key) == 500)
        }
    }
}
