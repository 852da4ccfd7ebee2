import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

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
        // No waiting on the wall clock (a loaded machine may start the background task late):
        // at 101 s the old record has expired and the refreshed one (stored at 90 s for 100 s)
        // has not, so this call either hits the refreshed record or joins the refresh in flight.
        harness.fixture.clock.advance(by: 11)
        let after = try await store.object(User.self, forKey: "u", options: ReadThroughOptions()) { _ in
            Issue.record("fetched a second time")
            return .notFound
        }
        #expect(after == User.sample("bob"))
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

extension ReadThroughTagsTests {
    // MARK: - .value with tags

    @Test("A fetched .value with tags stores them: Entry.tags reads them, removeObjects(taggedWith:) finds the record")
    func valueWithTagsStoresThem() async throws {
        for collection in [nil, "users"] as [String?] {
            let harness = Harness()
            let store = try harness.open()
            let options = ReadThroughOptions()
            let result = FetchResult.value(User.sample("bob"), expiresAfter: 60, tags: ["team:7", "org:1", "team:7"])
            if let collection {
                let users = store.collection(collection)
                _ = try await users.object(User.self, forKey: "u", options: options) { _ in result }
                #expect(try store.collection(collection).entry(User.self, forKey: "u")?.tags == ["team:7", "org:1"])
            } else {
                _ = try await store.object(User.self, forKey: "u", options: options) { _ in result }
                #expect(try store.entry(User.self, forKey: "u")?.tags == ["team:7", "org:1"])
            }
            #expect(try TagTests.indexEntries(store) == 2)  // written with the record
            #expect(try store.removeObjects(taggedWith: "org:1") == 1)
        }
    }

    @Test("tags: [] clears the record's tags; tags: nil keeps them; given tags replace them")
    func tagsGivenClearedOrKept() async throws {
        let harness = Harness()
        let store = try Self.expiredTaggedRecord(harness, tags: ["old"])
        func fetch(_ result: FetchResult<User>) async throws {
            harness.fixture.clock.advance(by: 120)  // expired again: the call fetches
            _ = try await store.object(User.self, forKey: "u", options: ReadThroughOptions()) { _ in result }
        }
        try await fetch(.value(User.sample("b"), expiresAfter: 60, tags: nil))
        #expect(try store.entry(User.self, forKey: "u")?.tags == ["old"])
        try await fetch(.value(User.sample("c"), expiresAfter: 60, metadata: ["etag": "x"], tags: ["new"]))
        #expect(try store.entry(User.self, forKey: "u")?.tags == ["new"])
        #expect(try store.metadata([String: String].self, forKey: "u") == ["etag": "x"])
        try await fetch(.value(User.sample("d"), expiresAfter: 60, tags: []))
        #expect(try store.entry(User.self, forKey: "u")?.tags == [])
        #expect(try store.removeObjects(taggedWith: "old") == 0)
        #expect(try store.removeObjects(taggedWith: "new") == 0)
        #expect(try store.object(User.self, forKey: "u") == User.sample("d"))
    }

    @Test("An invalid tag from the fetch throws invalidTag and stores nothing")
    func invalidFetchedTagIsRefused() async throws {
        let harness = Harness()
        let store = try Self.expiredTaggedRecord(harness)
        await #expect(throws: ModelStoreError.invalidTag(tag: "", reason: "the tag is empty")) {
            _ = try await store.object(User.self, forKey: "u", options: ReadThroughOptions()) { _ in
                .value(User.sample("bob"), tags: ["ok", ""])
            }
        }
        let kept = try #require(try store.entry(User.self, forKey: "u", includingExpired: true))
        #expect(kept.value == User.sample("ada"))
        #expect(kept.tags == ["team:7"])
    }

    @Test("A result taken apart and built again by code written before tags keeps its tags and metadata")
    func rebuiltResultKeepsTags() async throws {
        let store = try Harness().open()
        _ = try await store.object(User.self, forKey: "u", options: ReadThroughOptions()) { _ in
            capLifetime(.value(User.sample(), expiresAfter: 600, metadata: ["etag": "x"], tags: ["t"]), at: 60)
        }
        let entry = try #require(try store.entry(User.self, forKey: "u"))
        #expect(entry.tags == ["t"])
        #expect(try entry.metadata([String: String].self) == ["etag": "x"])
        #expect(entry.expiresAt == entry.storedAt.addingTimeInterval(60))
        // Built again with other tags: those, and the metadata once, not nested.
        let rebuilt = FetchResult.value(User.sample(), metadata: ["etag": "y"], tags: ["a"])
        guard case let .value(value, _, metadata) = rebuilt else { Issue.record("not a value"); return }
        _ = try await store.object(User.self, forKey: "v", options: ReadThroughOptions()) { _ in
            .value(value, metadata: metadata, tags: ["b"])
        }
        #expect(try store.entry(User.self, forKey: "v")?.tags == ["b"])
        #expect(try store.metadata([String: String].self, forKey: "v") == ["etag": "y"])
    }

    // MARK: - Keeping: what "the tags it had" means under concurrency

    @Test("Tags written while the fetch ran are the ones kept, compared by bytes")
    func keepsTagsWrittenDuringTheFetch() async throws {
        let harness = Harness()
        let store = try Self.expiredTaggedRecord(harness, tags: ["\u{E9}"])
        let gate = FetchGate()
        let reader = Task {
            try await store.object(User.self, forKey: "u", options: ReadThroughOptions()) { previous in
                #expect(previous?.tags == ["\u{E9}"])
                return try await gate.pass(FetchResult.value(User.sample("bob"), expiresAfter: 60))
            }
        }
        await gate.waitUntilStarted()
        // Canonically equivalent to the tag the fetch was given, but other bytes.
        try store.set(User.sample("eve"), forKey: "u", expiresAfter: 1, tags: ["e\u{301}"])
        gate.open()
        #expect(try await reader.value == User.sample("bob"))
        let entry = try #require(try store.entry(User.self, forKey: "u"))
        #expect(entry.value == User.sample("bob"))
        #expect(entry.tags.map { Array($0.utf8) } == [Array("e\u{301}".utf8)])
        #expect(try store.removeObjects(taggedWith: "\u{E9}") == 0)
        #expect(try store.removeObjects(taggedWith: "e\u{301}") == 1)
    }

    @Test("A record removed by tag while the fetch ran is stored with the tags it had, and its index entries")
    func recordRemovedDuringTheFetchKeepsItsTags() async throws {
        let harness = Harness()
        let store = try Self.expiredTaggedRecord(harness)
        let gate = FetchGate()
        let reader = Task {
            try await store.object(User.self, forKey: "u", options: ReadThroughOptions()) { _ in
                try await gate.pass(FetchResult.value(User.sample("bob"), expiresAfter: 60))
            }
        }
        await gate.waitUntilStarted()
        #expect(try store.removeObjects(taggedWith: "team:7") == 0)  // expired: removed, not counted
        #expect(try TagTests.indexEntries(store) == 0)
        gate.open()
        #expect(try await reader.value == User.sample("bob"))
        #expect(try TagTests.indexEntries(store) == 1)
        #expect(try store.removeObjects(taggedWith: "team:7") == 1)
    }

    /// A model whose encoding sets its key again with new tags: a writer that changes the key's
    /// tags between each encoding and the write that follows it.
    struct Restless: Codable, Equatable, Sendable {
        var name: String
        static let hook = Locked<(@Sendable () throws -> Void)?>(nil)

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try Self.hook.withLock { $0 }?()
        }
    }

    @Test("Tags changed again while the fetched record is written: that write counts as the later one; the call ends")
    func tagsChangingOnEveryEncodingStillEnd() async throws {
        let harness = Harness()
        let store = try harness.open()
        try store.set(Restless(name: "ada"), forKey: "u", expiresAfter: 60, tags: ["t0"])
        harness.fixture.clock.advance(by: 70)
        let encodings = Locked(0)
        let inside = Locked(false)
        Restless.hook.withLock {
            $0 = {
                // Every encoding of the fetched model is followed by a write of the key with new
                // tags before the fetch's write can take the gate (that write's own encoding
                // does nothing).
                guard !inside.withLock({ $0 }) else { return }
                inside.withLock { $0 = true }
                defer { inside.withLock { $0 = false } }
                let count = encodings.withLock { count -> Int in
                    count += 1
                    return count
                }
                try store.set(Restless(name: "eve \(count)"), forKey: "u", expiresAfter: 60, tags: ["t\(count)"])
            }
        }
        defer { Restless.hook.withLock { $0 = nil } }
        let value = try await store.object(Restless.self, forKey: "u", options: ReadThroughOptions()) { _ in
            .value(Restless(name: "bob"), expiresAfter: 60)
        }
        Restless.hook.withLock { $0 = nil }
        #expect(value == Restless(name: "bob"))  // the caller gets what the source answered
        // Encoded with the fetch's tags, then with the ones written during it; the write during
        // the second encoding came last: its record stays, with its tags.
        #expect(encodings.withLock { $0 } == 2)
        let entry = try #require(try store.entry(Restless.self, forKey: "u"))
        #expect(entry.value == Restless(name: "eve 2"))
        #expect(entry.tags == ["t2"])
        #expect(try store.removeObjects(taggedWith: "t2") == 1)
    }

    // MARK: - Entry.tags on every read path

    @Test("Entry.tags on every read path: disk, object cache, expired, collection, snapshot, cursors, fetch's entry")
    func entryTagsOnEveryReadPath() async throws {
        for cacheLimit in [0, 100] {
            let harness = Harness()
            let store = try harness.open(objectCacheLimit: cacheLimit)
            let users = store.collection("users")
            try store.set(User.sample("a"), forKey: "a", tags: ["x", "y"])
            try store.set(User.sample("b"), forKey: "b")
            try users.set(User.sample("c"), forKey: "c", expiresAfter: 10, tags: ["z"])
            // object(_:forKey:) first, so that a cache fills from the path that builds no entry.
            _ = try store.object(User.self, forKey: "a")
            _ = try users.object(User.self, forKey: "c")
            #expect(try store.entry(User.self, forKey: "a")?.tags == ["x", "y"])
            #expect(try store.entry(User.self, forKey: "a")?.tags == ["x", "y"])  // a cache hit if cached
            #expect(try store.entry(User.self, forKey: "b")?.tags == [])
            #expect(try users.entry(User.self, forKey: "c")?.tags == ["z"])
            #expect(try store.entries(User.self).collect().map(\.tags) == [["x", "y"], []])
            #expect(try store.entries(User.self, forKeys: ["a", "b"]).map(\.tags) == [["x", "y"], []])
            #expect(try store.snapshot().entry(User.self, forKey: "a")?.tags == ["x", "y"])
            let seen = Locked<[String]?>(nil)
            harness.fixture.clock.advance(by: 20)  // "c" expired
            #expect(try users.entry(User.self, forKey: "c", includingExpired: true)?.tags == ["z"])
            _ = try await users.object(User.self, forKey: "c", options: ReadThroughOptions()) { previous in
                seen.withLock { $0 = previous?.tags }
                return .notModified()
            }
            #expect(seen.withLock { $0 } == ["z"])
        }
    }
}
