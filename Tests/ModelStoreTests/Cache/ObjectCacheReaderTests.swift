import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// Hits without the shard's lock (ObjectCache.swift, readers' counters): a reader never sees a
/// half-changed shard, writers are never starved, and threads beyond the counters share them.
@Suite("Object cache readers without the lock")
struct ObjectCacheReaderTests {
    static func item(_ number: Int) -> ObjectCache.Item { WholeModel.cacheItem(number) }

    @Test("Threads are numbered in the order they first ask, each keeping its number")
    func readerSlotsAreStablePerThread() {
        let numbers = Locked<[Int]>([])
        let runs = 6
        let group = DispatchGroup()
        for _ in 0..<runs {
            group.enter()
            Thread {
                let first = ReaderSlot.numbering.current
                let again = ReaderSlot.numbering.current
                numbers.withLock { $0.append(first == again ? first : -1) }
                group.leave()
            }.start()
        }
        group.wait()
        let seen = numbers.withLock { $0 }
        #expect(!seen.contains(-1))
        #expect(Set(seen).count == runs)
    }

    @Test("More readers than counters, beside replacing inserts and invalidations: every hit sees a whole model, and the writers finish", .long)
    func readersBesideWritersSeeWholeModels() {
        let cache = ObjectCache(limit: 256)
        let keys = (0..<64).map { "k\($0)" }
        for (number, key) in keys.enumerated() { cache.insert(key, Self.item(number), ifGeneration: cache.generation(of: key)) }
        let torn = Locked(0)
        let hits = Locked(0)
        let readers = ObjectCache.readerSlotCount + 4
        let writers = 2
        let done = AtomicWord()
        runOnThreads(readers + writers) { thread in
            var random = SystemRandomNumberGenerator()
            if thread < writers {
                for step in 0..<20_000 {
                    let key = keys[Int.random(in: 0..<keys.count, using: &random)]
                    if step.isMultiple(of: 7) {
                        cache.invalidate(key)
                    } else {
                        cache.insert(key, Self.item(step), ifGeneration: cache.generation(of: key))
                    }
                }
                done.add(1)
                return
            }
            var seen = 0
            var broken = 0
            // Until both writers are done: the writers finishing is the check that readers
            // counted on every counter never starve them.
            while done.load() < UInt64(writers) {
                let key = keys[Int.random(in: 0..<keys.count, using: &random)]
                cache.withItem(key) { _, model, _ in
                    guard let pair = model.model(of: WholeModel.self) else { return broken += 1 }
                    seen += 1
                    if !pair.isWhole { broken += 1 }
                }
            }
            torn.withLock { $0 += broken }
            hits.withLock { $0 += seen }
        }
        #expect(torn.withLock { $0 } == 0)
        #expect(hits.withLock { $0 } > 0)
        #expect(cache.count == cache.storedEntryCount)
    }

    @Test("A hit marks its entry read for the eviction sweep, as a locked hit did")
    func hitWithoutLockMarksEntryRead() {
        // One shard (under 64 entries): CLOCK's order exactly.
        let cache = ObjectCache(limit: 2)
        cache.insert("a", Self.item(1), ifGeneration: cache.generation(of: "a"))
        cache.insert("b", Self.item(2), ifGeneration: cache.generation(of: "b"))
        var found = false
        cache.withItem("a") { _, model, _ in found = model.model(of: WholeModel.self) == WholeModel(1) }
        #expect(found)
        // Full: the sweep passes "a" (read: spared, flag cleared) and evicts "b".
        cache.insert("c", Self.item(3), ifGeneration: cache.generation(of: "c"))
        #expect(cache.lookup("a") != nil)
        #expect(cache.lookup("b") == nil)
        #expect(cache.lookup("c") != nil)
    }
}
