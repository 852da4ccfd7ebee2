import Foundation
import Testing
@testable import ModelStore

/// Nothing that removes records removes the dictionary while records still name it.
@Suite("Record compression: removals keep the dictionary")
struct RecordCompressionRemovalTests {
    typealias Profile = RecordCompressionTests.Profile

    @Test("removeAll (store and collection), by prefix, by tag, sweeps with size limits, compaction and repair keep the dictionary")
    func removalsKeepTheDictionary() throws {
        let fixture = Fixture()
        var configuration = fixture.configuration
        configuration.recordCompression = .zstd(dictionarySampleCount: RecordCompressionTests.sampleCount)
        configuration.maximumRecordCount = 5
        configuration.maximumTotalBytes = 100_000
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
            _ = try store.removeExpiredObjects()  // eviction to 5 records
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
