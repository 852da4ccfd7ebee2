import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

@Suite("Enumeration, counts and sizes")
struct EnumerationTests {
    func filledStore(_ fixture: Fixture = Fixture()) throws -> ModelStore {
        let store = try fixture.open(policy: .high)
        for key in ["b", "a", "c", "feed:2", "feed:1", "feed:10", "fee", "feed;", "z"] {
            try store.set(key.uppercased(), forKey: key)
        }
        return store
    }

    @Test("Keys come in byte order, forward and reverse")
    func order() throws {
        let store = try filledStore()
        let forward = ["a", "b", "c", "fee", "feed:1", "feed:10", "feed:2", "feed;", "z"]
        #expect(try store.keys().collect() == forward)
        #expect(try store.keys(reverse: true).collect() == forward.reversed())
    }

    @Test("A prefix selects exactly its keys, forward and reverse")
    func prefix() throws {
        let store = try filledStore()
        #expect(try store.keys(in: .prefix("feed:")).collect() == ["feed:1", "feed:10", "feed:2"])
        #expect(try store.keys(in: .prefix("feed:"), reverse: true).collect() == ["feed:2", "feed:10", "feed:1"])
        #expect(try store.keys(in: .prefix("nothing")).collect() == [])
        #expect(try store.keys(in: .prefix("z"), reverse: true).collect() == ["z"])
    }

    @Test("A range includes its lower bound and excludes its upper bound")
    func range() throws {
        let store = try filledStore()
        #expect(try store.keys(in: .range(from: "b", to: "feed:10")).collect() == ["b", "c", "fee", "feed:1"])
        #expect(try store.keys(in: .range(from: "b", to: "feed:10"), reverse: true).collect()
            == ["feed:1", "fee", "c", "b"])
        #expect(try store.keys(in: .range(from: "feed;")).collect() == ["feed;", "z"])
        #expect(try store.keys(in: .range(to: "b")).collect() == ["a"])
    }

    @Test("A limit stops the cursor")
    func limit() throws {
        let store = try filledStore()
        #expect(try store.keys(limit: 2).collect() == ["a", "b"])
        #expect(try store.keys(reverse: true, limit: 1).collect() == ["z"])
    }

    @Test("Entries decode models with metadata, and skip expired records without removing them")
    func entriesSkipExpired() throws {
        let fixture = Fixture()
        let store = try filledStore(fixture)
        fixture.clock.advance(by: 30)
        try store.set("FRESH", forKey: "fresh")
        fixture.clock.advance(by: 30)  // everything but "fresh" is now expired
        let entries = try store.entries(String.self).collect()
        #expect(entries.map(\.key) == ["fresh"])
        #expect(entries.first?.value == "FRESH")
        #expect(try store.count() == 1)
        let relaxed = try fixture.open(policy: .never)
        #expect(try relaxed.count() == 10)  // enumeration removed nothing
    }

    @Test("Breaking out of a loop releases the iterator at once")
    func earlyBreakReleasesIterator() throws {
        let store = try filledStore()
        do {
            let cursor = try store.keys()
            while let key = try cursor.next() {
                if key == "b" { break }
            }
            #expect(store.database.engine.liveChildCount == 1)
        }
        #expect(store.database.engine.liveChildCount == 0)
        let exhausted = try store.keys()
        _ = try exhausted.collect()
        #expect(store.database.engine.liveChildCount == 0)  // reaching the end releases it too
    }

    @Test("A record that does not decode throws from next(), and enumeration can continue past it")
    func decodeFailureMidway() throws {
        let store = try Fixture().open()
        try store.set("one", forKey: "1")
        try store.set(2, forKey: "2")
        try store.set("three", forKey: "3")
        let cursor = try store.entries(String.self)
        #expect(try cursor.next()?.value == "one")
        #expect(errorCase { _ = try cursor.next() } == "decodingFailed")
        #expect(try cursor.next()?.value == "three")
        #expect(try cursor.next() == nil)
    }

    @Test("Enumeration is streaming: a cursor over 200,000 records keeps one in memory", .long)
    func streaming() async throws {
        let store = try Fixture().open()
        try await store.importObjects((0..<200_000).lazy.map { $0 }, key: { String(format: "%06d", $0) })
        let cursor = try store.entries(Int.self)
        var expected = 0
        while let entry = try cursor.next() {
            #expect(entry.value == expected)
            expected += 1
            if expected % 50_000 == 0 { #expect(store.database.engine.liveChildCount == 1) }
        }
        #expect(expected == 200_000)
    }

    @Test("count counts live records, optionally by prefix")
    func counting() throws {
        let store = try filledStore()
        #expect(try store.count() == 9)
        #expect(try store.count(in: .prefix("feed")) == 4)
    }

    @Test("Batch get reads many keys from one view, leaving out missing ones")
    func batchGet() throws {
        let store = try filledStore()
        let values = try store.objects(String.self, forKeys: ["a", "z", "missing"])
        #expect(values == ["a": "A", "z": "Z"])
        #expect(errorCase { _ = try store.objects(String.self, forKeys: ["a", ""]) } == "invalidKey")
    }

    @Test("approximateSize grows with data on disk, and statistics report LevelDB's levels")
    func sizeAndStatistics() async throws {
        let store = try Fixture().open()
        let blob = String(repeating: "x", count: 1_000)
        try await store.importObjects((0..<20_000).map { "\($0)" }, key: { $0 }, batchSize: 1_000)
        try store.write { batch in for index in 0..<5_000 { try batch.set(blob + "\(index)", forKey: "blob:\(index)") } }
        try store.compact()
        #expect(try store.approximateSize() > 100_000)
        #expect(try store.approximateSize(in: .prefix("nothing")) == 0)
        #expect(try store.statistics().contains("Level"))
        #expect(try store.property(named: "leveldb.num-files-at-level0") != nil)
        #expect(try store.property(named: "no.such.property") == nil)
    }

    // MARK: - AsyncSequence

    @Test("for try await walks a cursor like next() does")
    func asyncIteration() async throws {
        let store = try filledStore()
        var keys: [String] = []
        for try await entry in try store.entries(String.self, in: .prefix("feed:")) {
            keys.append(entry.key)
            #expect(entry.value == entry.key.uppercased())
        }
        #expect(keys == ["feed:1", "feed:10", "feed:2"])
        #expect(store.database.engine.liveChildCount == 0)
    }

    @Test("A cursor iterates asynchronously on the main actor under strict concurrency")
    @MainActor func asyncIterationOnMainActor() async throws {
        let store = try filledStore()
        var keys: [String] = []
        for try await key in try store.keys(reverse: true, limit: 2) { keys.append(key) }
        #expect(keys == ["z", "feed;"])
    }

    @Test("Iterating in a cancelled task throws CancellationError and releases the iterator")
    func asyncIterationHonoursCancellation() async throws {
        let store = try filledStore()
        let cursor = try store.keys()
        withUnsafeCurrentTask { $0?.cancel() }
        await #expect(throws: CancellationError.self) {
            for try await _ in cursor {}
        }
        #expect(store.database.engine.liveChildCount == 0)
    }
}
