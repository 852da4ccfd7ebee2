import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// "é" as one code point (U+00E9) and as "e" plus a combining acute accent: equal Swift
/// strings, two different LevelDB keys.
private let composed = "\u{E9}"
private let decomposed = "e\u{301}"

@Suite("Canonically equivalent keys are different records")
struct EquivalentKeyTests {
    func cachedStore(_ fixture: Fixture) throws -> ModelStore {
        var configuration = fixture.configuration
        configuration.objectCacheLimit = 100
        return try ModelStore(name: "db", policy: .never, configuration: configuration)
    }

    @Test("The two spellings are equal strings but different keys to LevelDB")
    func premise() throws {
        #expect(composed == decomposed)
        #expect(Array(composed.utf8) != Array(decomposed.utf8))
        let store = try Fixture().open()
        try store.set(1, forKey: composed)
        try store.set(2, forKey: decomposed)
        #expect(try store.count() == 2)
    }

    @Test("With the object cache on, each spelling reads its own value")
    func objectCacheKeepsSpellingsApart() throws {
        let store = try cachedStore(Fixture())
        try store.set(1, forKey: composed)
        try store.set(2, forKey: decomposed)
        #expect(try store.object(Int.self, forKey: composed) == 1)
        #expect(try store.object(Int.self, forKey: decomposed) == 2)
        #expect(try store.entry(Int.self, forKey: decomposed)?.value == 2)
        #expect(store.database.cache?.count == 2)
    }

    @Test("Writing one spelling leaves the other's cached model in place")
    func invalidationIsPerSpelling() throws {
        let store = try cachedStore(Fixture())
        try store.set(1, forKey: composed)
        try store.set(2, forKey: decomposed)
        _ = try store.object(Int.self, forKey: composed)
        _ = try store.object(Int.self, forKey: decomposed)
        try store.set(3, forKey: decomposed)
        #expect(try store.object(Int.self, forKey: composed) == 1)
        #expect(try store.object(Int.self, forKey: decomposed) == 3)
    }

    @Test("A read-through for one spelling does not join a fetch in flight for the other")
    func readThroughFetchesPerSpelling() async throws {
        let store = try cachedStore(Fixture())
        let gate = FetchGate()
        let first = Task { try await store.object(Int.self, forKey: composed) { try await gate.pass(1) } }
        await gate.waitUntilStarted()
        // Bounded: a caller that joined the other spelling's fetch would wait for the gate forever.
        let second = await within { try await store.object(Int.self, forKey: decomposed) { 2 } }
        gate.open()
        #expect(try second?.get() == 2)
        #expect(try await first.value == 1)
        #expect(try store.object(Int.self, forKey: composed) == 1)
        #expect(try store.object(Int.self, forKey: decomposed) == 2)
    }

    @Test("Batch entries return both spellings, in the order asked")
    func batchEntriesKeepBothSpellings() throws {
        let store = try Fixture().open()
        try store.set(1, forKey: composed)
        try store.set(2, forKey: decomposed)
        let entries = try store.entries(Int.self, forKeys: [decomposed, composed])
        #expect(entries.map(\.value) == [2, 1])
        #expect(entries.map { Array($0.key.utf8) } == [Array(decomposed.utf8), Array(composed.utf8)])
    }

    @Test("A batch read into a dictionary keeps the first spelling asked for, with its own value")
    func batchDictionaryIsDeterministic() throws {
        let store = try Fixture().open()
        try store.set(1, forKey: composed)
        try store.set(2, forKey: decomposed)
        let values = try store.objects(Int.self, forKeys: [composed, decomposed])
        #expect(values.count == 1)
        let (key, value) = try #require(values.first)
        #expect(Array(key.utf8) == Array(composed.utf8))
        #expect(value == 1)
        let reversed = try store.objects(Int.self, forKeys: [decomposed, composed])
        #expect(reversed.first.map { Array($0.key.utf8) } == Array(decomposed.utf8))
        #expect(reversed.first?.value == 2)
    }

    @Test("Changes to the two spellings are different changes")
    func changesCompareBytes() {
        let one = ModelStore.Change(key: composed, kind: .set)
        let other = ModelStore.Change(key: decomposed, kind: .set)
        #expect(one != other)
        #expect(Set([one, other]).count == 2)
    }

    @Test("Removing many keys removes each spelling given, and only those")
    func removeManyPerSpelling() throws {
        let store = try cachedStore(Fixture())
        try store.set(1, forKey: composed)
        try store.set(2, forKey: decomposed)
        _ = try store.object(Int.self, forKey: composed)
        try store.removeObjects(forKeys: [decomposed])
        #expect(try store.object(Int.self, forKey: composed) == 1)
        #expect(try store.object(Int.self, forKey: decomposed) == nil)
    }
}
