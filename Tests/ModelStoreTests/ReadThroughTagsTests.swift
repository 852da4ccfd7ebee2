import Foundation
import Testing
@testable import ModelStore

/// Tags through read-through: a fetched `.value` gives its record tags or keeps the ones it had,
/// `.notModified` and refresh-ahead keep them, and `removeObjects(taggedWith:)` and `Entry.tags`
/// see them, in the store and in collections.
@Suite("Read-through tags")
struct ReadThroughTagsTests {
    typealias Harness = ReadThroughOptionsTests.Harness

    /// A store holding `name` under "u" with `tags`, expired 10 s ago (lifetime 60 s).
    static func expiredTaggedRecord(
        _ harness: Harness, in collection: String? = nil, tags: [String] = ["team:7"], objectCacheLimit: Int = 0
    ) throws -> ModelStore {
        let store = try harness.open(objectCacheLimit: objectCacheLimit)
        if let collection {
            try store.collection(collection).set(User.sample("ada"), forKey: "u", expiresAfter: 60, tags: tags)
        } else {
            try store.set(User.sample("ada"), forKey: "u", expiresAfter: 60, tags: tags)
        }
        harness.fixture.clock.advance(by: 70)
        return store
    }

    // MARK: - .value without tags keeps the record's tags

    @Test("A fetched .value without tags keeps the tags of the record it replaces, in the store and a collection")
    func valueWithoutTagsKeepsTags() async throws {
        for collection in [nil, "users"] as [String?] {
            for cacheLimit in [0, 100] {
                let harness = Harness()
                let store = try Self.expiredTaggedRecord(harness, in: collection, objectCacheLimit: cacheLimit)
                let options = ReadThroughOptions()
                let fetched: User?
                if let collection {
                    fetched = try await store.collection(collection).object(User.self, forKey: "u", options: options) {
                        _ in .value(User.sample("bob"), expiresAfter: 60)
                    }
                } else {
                    fetched = try await store.object(User.self, forKey: "u", options: options) { _ in
                        .value(User.sample("bob"), expiresAfter: 60)
                    }
                }
                #expect(fetched == User.sample("bob"))
                #expect(try store.removeObjects(taggedWith: "team:7") == 1, "collection \(collection ?? "-")")
                let left = try collection.map { try store.collection($0).object(User.self, forKey: "u") }
                    ?? store.object(User.self, forKey: "u")
                #expect(left == nil)
            }
        }
    }

    @Test("The read-through overloads without options keep the tags too")
    func plainReadThroughKeepsTags() async throws {
        let harness = Harness()
        let store = try Self.expiredTaggedRecord(harness)
        try store.collection("users").set(User.sample("ada"), forKey: "u", expiresAfter: 5, tags: ["team:7"])
        harness.fixture.clock.advance(by: 10)
        let fromStore = try await store.object(User.self, forKey: "u") { User.sample("bob") }
        let fromCollection = try await store.collection("users").object(User.self, forKey: "u") { User.sample("eve") }
        #expect(fromStore == User.sample("bob"))
        #expect(fromCollection == User.sample("eve"))
        #expect(try store.removeObjects(taggedWith: "team:7") == 2)
    }

    @Test("A refresh-ahead whose fetch answers .value without tags keeps the record's tags")
    func refreshAheadKeepsTags() async throws {
        let harness = Harness()
        let store = try harness.open()
        try store.set(User.sample("ada"), forKey: "u", expiresAfter: 100, tags: ["team:7", "org:1"])
        harness.fixture.clock.advance(by: 90)
        var options = ReadThroughOptions()
        options.refreshAhead = 0.8
        let user = try await store.object(User.self, forKey: "u", options: options) { _ in
            .value(User.sample("bob"), expiresAfter: 100)
        }
        #expect(user == User.sample("ada"))  // a hit: the refresh runs in the background
        #expect(try await eventually { try store.object(User.self, forKey: "u") == User.sample("bob") })
        #expect(store.database.fetches.inFlight == 0)
        #expect(try store.removeObjects(taggedWith: "org:1") == 1)
    }

    @Test(".notModified keeps the record's tags, and its index entries still find it")
    func notModifiedKeepsTags() async throws {
        for collection in [nil, "users"] as [String?] {
            let harness = Harness()
            let store = try Self.expiredTaggedRecord(harness, in: collection)
            let options = ReadThroughOptions()
            let kept: User?
            if let collection {
                kept = try await store.collection(collection).object(User.self, forKey: "u", options: options) { _ in
                    .notModified(expiresAfter: 60)
                }
            } else {
                kept = try await store.object(User.self, forKey: "u", options: options) { _ in
                    .notModified(expiresAfter: 60)
                }
            }
            #expect(kept == User.sample("ada"))
            #expect(try store.removeObjects(taggedWith: "team:7") == 1)
        }
    }
}
