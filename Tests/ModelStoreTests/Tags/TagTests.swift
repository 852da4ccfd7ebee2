import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

@Suite("Tags")
struct TagTests {
    @Test("removeObjects(taggedWith:) removes every record written with the tag and counts the live ones")
    func removesTaggedRecords() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.set(User.sample("a"), forKey: "a", tags: ["team:7", "org:1"])
        try store.set(User.sample("b"), forKey: "b", expiresAfter: 10, tags: ["team:7"])
        try store.set(User.sample("c"), forKey: "c", tags: ["team:7"])
        try store.set(User.sample("d"), forKey: "d", tags: ["org:1"])
        try store.set(User.sample("e"), forKey: "e")
        fixture.clock.advance(by: 20)  // "b" has expired: removed, not counted
        #expect(try store.removeObjects(taggedWith: "team:7") == 2)
        for key in ["a", "b", "c"] {
            #expect(try store.entry(User.self, forKey: key, includingExpired: true) == nil)
        }
        #expect(try store.object(User.self, forKey: "d") == User.sample("d"))
        #expect(try store.object(User.self, forKey: "e") == User.sample("e"))
    }

    @Test("After a removal by tag, counts, cursors and snapshots see neither the records nor the tag index")
    func removalIsInvisibleToScans() throws {
        let store = try Fixture().open()
        try store.set(User.sample("a"), forKey: "a", tags: ["team:7", "org:1"])
        try store.set(User.sample("d"), forKey: "d", tags: ["org:1"])
        try store.set(User.sample("e"), forKey: "e")
        #expect(try store.count() == 3)
        try store.removeObjects(taggedWith: "team:7")
        #expect(try store.count() == 2)
        #expect(try store.keys().collect() == ["d", "e"])
        #expect(try store.entries(User.self).collect().map(\.key) == ["d", "e"])
        #expect(try store.keys(reverse: true).collect() == ["e", "d"])
        let snapshot = try store.snapshot()
        #expect(try snapshot.count() == 2)
        #expect(try snapshot.object(User.self, forKey: "a") == nil)
    }

    @Test("Records written with the tag after the removal are unaffected")
    func laterRecordsAreUnaffected() throws {
        let store = try Fixture().open()
        try store.set(User.sample("a"), forKey: "a", tags: ["t"])
        #expect(try store.removeObjects(taggedWith: "t") == 1)
        try store.set(User.sample("a2"), forKey: "a", tags: ["t"])
        #expect(try store.object(User.self, forKey: "a") == User.sample("a2"))
        #expect(try store.removeObjects(taggedWith: "t") == 1)
    }

    @Test("A record overwritten without the tag is not removed by it")
    func overwriteDropsTheTag() throws {
        let store = try Fixture().open()
        try store.set(User.sample("a"), forKey: "a", tags: ["t"])
        try store.set(User.sample("b"), forKey: "a")
        #expect(try store.removeObjects(taggedWith: "t") == 0)
        #expect(try store.object(User.self, forKey: "a") == User.sample("b"))
    }

    @Test("Tags are compared by bytes and one tag's entries never match another's")
    func tagsAreDistinctByBytes() throws {
        let store = try Fixture().open()
        try store.set(User.sample("a"), forKey: "k1", tags: ["a"])
        try store.set(User.sample("ab"), forKey: "k2", tags: ["ab"])
        try store.set(User.sample("nfd"), forKey: "k3", tags: ["e\u{301}"])
        #expect(try store.removeObjects(taggedWith: "a") == 1)
        #expect(try store.removeObjects(taggedWith: "\u{E9}") == 0)
        #expect(try store.object(User.self, forKey: "k2") != nil)
        #expect(try store.object(User.self, forKey: "k3") != nil)
    }

    @Test("A batch writes tagged records with the rest, atomically; a batch's count ignores index entries")
    func batchTags() throws {
        let store = try Fixture().open()
        try store.write { batch in
            try batch.set(User.sample("a"), forKey: "a", tags: ["t", "u"])
            try batch.set(User.sample("b"), forKey: "b", expiresAfter: 60, metadata: ["etag": "x"], tags: ["t"])
            #expect(batch.count == 2)
        }
        #expect(try store.metadata([String: String].self, forKey: "b") == ["etag": "x"])
        #expect(try store.removeObjects(taggedWith: "t") == 2)
        #expect(try store.count() == 0)
    }

    @Test("An empty or over-long tag is refused with invalidTag before anything is written")
    func invalidTags() throws {
        let store = try Fixture().open()
        #expect(throws: ModelStoreError.invalidTag(tag: "", reason: "the tag is empty")) {
            try store.set(User.sample(), forKey: "a", tags: [""])
        }
        #expect(throws: ModelStoreError.self) {
            try store.set(User.sample(), forKey: "a", tags: [String(repeating: "x", count: 1_025)])
        }
        #expect(try store.count() == 0)
    }

    @Test("A sweep drops the tag-index entries of records that expired, were removed or lost the tag")
    func sweepPrunesTagIndex() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.set(User.sample("a"), forKey: "a", expiresAfter: 10, tags: ["t"])
        try store.set(User.sample("b"), forKey: "b", tags: ["t", "u"])
        try store.set(User.sample("c"), forKey: "c", tags: ["t"])
        try store.set(User.sample("d"), forKey: "d", tags: ["t"])
        try store.removeObject(forKey: "b")
        try store.set(User.sample("c2"), forKey: "c")
        fixture.clock.advance(by: 20)
        #expect(try Self.indexEntries(store) == 5)
        try store.removeExpiredObjects()
        #expect(try Self.indexEntries(store) == 1)  // only "d"'s entry for "t"
        #expect(try store.removeObjects(taggedWith: "t") == 1)
    }

    /// The number of tag-index entries, read under the system prefix.
    static func indexEntries(_ store: ModelStore) throws -> Int {
        try store.database.run { engine in
            let iterator = try engine.makeIterator(snapshot: nil, fillCache: false)
            try iterator.seek(to: [0xFF, 0x01])
            var count = 0
            while try iterator.withCurrent({ key, _ in key.starts(with: [0xFF, 0x01]) }) == true {
                count += 1
                try iterator.next()
            }
            return count
        }
    }

    @Test("A tag covers every collection: sets and batches in collections, one removal, changes name the collection")
    func tagsAcrossCollections() async throws {
        let store = try Fixture().open()
        let users = store.collection("users")
        let teams = store.collection("teams", policy: .high)
        try store.set(User.sample("s"), forKey: "k", tags: ["t"])
        try users.set(User.sample("u"), forKey: "k", tags: ["t"])
        try store.write { batch in
            try batch.set(User.sample("b"), forKey: "b", in: teams, tags: ["t"])
            try batch.set(User.sample("x"), forKey: "x", in: teams)
        }
        #expect(try teams.entry(User.self, forKey: "b")?.expiresAt != nil)  // the collection's policy
        let changes = store.changes()
        #expect(try store.removeObjects(taggedWith: "t") == 3)
        #expect(try store.object(User.self, forKey: "k") == nil)
        #expect(try users.object(User.self, forKey: "k") == nil)
        #expect(try teams.object(User.self, forKey: "b") == nil)
        #expect(try teams.object(User.self, forKey: "x") == User.sample("x"))
        var seen: [String] = []
        for await change in changes {
            seen.append("\(change.collection ?? "-")/\(change.key)")
            if seen.count == 3 { break }
        }
        #expect(Set(seen) == ["-/k", "users/k", "teams/b"])
    }

    @Test("A removal by tag reports each removed record to observers")
    func removalIsObserved() async throws {
        let store = try Fixture().open()
        try store.set(User.sample("a"), forKey: "a", tags: ["t"])
        let changes = store.changes()
        try store.removeObjects(taggedWith: "t")
        var iterator = changes.makeAsyncIterator()
        let change = await iterator.next()
        #expect(change?.key == "a")
        #expect(change?.kind == .removed)
    }
}
