import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// Nothing that removes records removes the dictionary while records still name it.
@Suite("Record compression: removals keep the dictionary")
struct RecordCompressionRemovalTests {
    typealias Profile = RecordCompressionTests.Profile

    @Test("Removals (all, prefix, tag), size-limit sweeps, compaction and repair keep the dictionary")
    func removalsKeepTheDictionary() throws {
        let fixture = Fixture()
        var configuration = fixture.configuration
        configuration.recordCompression = .zstd(dictionarySampleCount: RecordCompressionTests.sampleCount)
        // The limits are a second store's, opened after the writes below: the database's first
        // open had none, so only that store's sweep evicts.
        var limited = configuration
        limited.maximumRecordCount = 5
        limited.maximumTotalBytes = 100_000
        do {
            let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
            try RecordCompressionTests.train(store)
            let shelf = store.collection("shelf")
            try shelf.set(Profile.make(1), forKey: "kept")
            try store.set(Profile.make(2), forKey: "tagged", tags: ["t"])
            try store.set(Profile.make(3), forKey: "x-1")
            #expect(try store.removeObjects(taggedWith: "t") == 1)
            #expect(try store.removeObjects(withPrefix: "x-") == 1)
            #expect(try store.removeAllObjects() > 0)
            try store.collection("other").set(Profile.make(4), forKey: "gone")
            #expect(try store.collection("other").removeAllObjects() == 1)
            _ = try ModelStore(name: "db", policy: .never, configuration: limited).removeExpiredObjects()  // to 5 records
            try store.compact()
            #expect(store.database.dictionaries.current?.id == 1)
            #expect(try shelf.object(Profile.self, forKey: "kept") == Profile.make(1))
            try store.close()
        }
        _ = try ModelStore.repair(named: "db", in: fixture.directory.url)
        let reopened = try fixture.open()
        #expect(reopened.database.dictionaries.dictionary(id: 1) != nil)
        #expect(try reopened.collection("shelf").object(Profile.self, forKey: "kept") == Profile.make(1))
        // The record really is compressed: its payload section names dictionary 1.
        let raw = try reopened.database.run { engine in
            try ([KeySpace.collectionMarker, 5] + Array("shelfkept".utf8)).withUnsafeBytes {
                try engine.withValue(forKey: $0) { $0.map { Array($0) } }
            }
        }
        #expect(RecordCompressionTests.isCompressed(raw))
    }
}

/// Read paths beyond `object(forKey:)` on compressed records.
@Suite("Record compression: every read path decompresses")
struct RecordCompressionReadPathTests {
    typealias Profile = RecordCompressionTests.Profile

    @Test("Read-through stores its fetched model compressed, then hits, 304s and entries read it back")
    func readThroughStoresCompressed() async throws {
        let fixture = Fixture()
        let store = try RecordCompressionTests.compressed(fixture)
        try RecordCompressionTests.train(store)
        var options = ReadThroughOptions()
        options.lifetime = 3_600
        let fetched = try await store.object(Profile.self, forKey: "rt", options: options) { _ in
            .value(Profile.make(7), metadata: RecordCompressionTests.Tag(etag: "v1"))
        }
        #expect(fetched == Profile.make(7))
        #expect(RecordCompressionTests.isCompressed(try rawRecord(store, "rt")))
        store.database.invalidate("rt")
        let hit = try await store.object(Profile.self, forKey: "rt", options: options) { _ in
            Issue.record("fetched on a hit")
            return .notFound
        }
        #expect(hit == Profile.make(7))
        // A 304 rewrites the envelope and keeps the compressed model.
        let before = try #require(try rawRecord(store, "rt"))
        fixture.clock.advance(by: 7_200)
        let revalidated = Locked(false)
        let kept = try await store.object(Profile.self, forKey: "rt", options: options) { stale in
            #expect(stale?.value == Profile.make(7))
            revalidated.withLock { $0 = true }
            return .notModified(expiresAfter: 60)
        }
        #expect(kept == Profile.make(7))
        #expect(revalidated.withLock { $0 })
        let after = try #require(try rawRecord(store, "rt"))
        #expect(RecordCompressionTests.isCompressed(after))
        let beforeHeader = try #require(before.withUnsafeBytes { RecordHeader(parsing: $0) })
        let afterHeader = try #require(after.withUnsafeBytes { RecordHeader(parsing: $0) })
        #expect(before[beforeHeader.length...] == after[afterHeader.length...])
        store.database.invalidate("rt")
        #expect(try store.object(Profile.self, forKey: "rt") == Profile.make(7))
        #expect(try store.entry(Profile.self, forKey: "rt")?.metadata(RecordCompressionTests.Tag.self)?.etag == "v1")
    }

    @Test("Snapshots of collections, entries cursors and entries(forKeys:) read compressed records")
    func snapshotsAndCursors() throws {
        let store = try RecordCompressionTests.compressed(Fixture())
        try RecordCompressionTests.train(store)
        let shelf = store.collection("shelf")
        for id in 0..<20 { try shelf.set(Profile.make(id), forKey: "s\(id)") }
        #expect(RecordCompressionTests.isCompressed(try rawRecord(store, "train-0")) == false)
        let snapshot = try store.snapshot()
        for id in 0..<20 { try shelf.set(Profile.make(id + 100), forKey: "s\(id)") }
        let inSnapshot = try snapshot.collection("shelf").entries(Profile.self).collect()
        #expect(inSnapshot.map(\.value) == (0..<20).map(Profile.make).sorted { "s\($0.id)" < "s\($1.id)" })
        let now = try shelf.entries(Profile.self, forKeys: (0..<20).map { "s\($0)" })
        #expect(now.map(\.value) == (100..<120).map(Profile.make))
    }
}
