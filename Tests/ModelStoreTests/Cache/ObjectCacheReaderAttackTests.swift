import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// Attacks on hits without the shard's lock (ObjectCache.swift, readers' counters): the CLOCK
/// flags beside the slots, a model's own code run while a shard is changed, hits from Swift
/// concurrency, expiry and closing while threads hit, and several stores of one database.
@Suite("Object cache readers without the lock, attacked")
struct ObjectCacheReaderAttackTests {
    typealias Versioned = WholeModel

    static func item(_ number: Int) -> ObjectCache.Item { WholeModel.cacheItem(number) }

    static func insert(_ key: String, _ number: Int, into cache: ObjectCache) {
        cache.insert(key, item(number), ifGeneration: cache.generation(of: key))
    }

    // MARK: - CLOCK's flags, now beside the slots

    @Test("Referenced flags set before the flags' buffer grows survive the growth")
    func referencedFlagsSurviveGrowth() {
        // 40 entries: one shard, so CLOCK's order exactly. The flags' buffer starts at 16 and
        // doubles when the 17th and the 33rd slot are appended.
        let cache = ObjectCache(limit: 40)
        #expect(cache.shardCount == 1)
        for number in 0..<16 { Self.insert("k\(number)", number, into: cache) }
        for number in 0..<16 { cache.withItem("k\(number)") { _, _, _ in } }
        for number in 16..<40 { Self.insert("k\(number)", number, into: cache) }
        // Full: the sweep passes k0...k15 (read before both growths: spared) and evicts k16.
        Self.insert("new", 40, into: cache)
        for number in 0..<16 { #expect(cache.lookup("k\(number)") != nil, "k\(number) lost its flag") }
        #expect(cache.lookup("k16") == nil)
        #expect(cache.lookup("new") != nil)
        #expect(cache.count == 40)
        #expect(cache.count == cache.storedEntryCount)
    }

    @Test("A slot freed by an invalidation and reused starts unreferenced, whatever its last entry's flag was")
    func reusedSlotStartsUnreferenced() {
        let cache = ObjectCache(limit: 2)
        Self.insert("a", 1, into: cache)
        Self.insert("b", 2, into: cache)
        cache.withItem("a") { _, _, _ in }
        cache.invalidate("a")
        // "c" takes the slot "a" left; a flag kept from "a" would spare "c" and evict "b".
        Self.insert("c", 3, into: cache)
        Self.insert("d", 4, into: cache)
        #expect(cache.lookup("c") == nil)
        #expect(cache.lookup("b") != nil)
        #expect(cache.lookup("d") != nil)
        #expect(cache.count == cache.storedEntryCount)
    }

    // MARK: - A model's own code while its shard changes

    /// A class inside a cacheable (struct) model, whose `deinit` runs the hook registered for its
    /// label, once: the model's own code, run wherever the cache drops the last copy of the model.
    final class DeinitProbe: Codable, @unchecked Sendable {
        // @unchecked: `label` is never changed after decoding.
        var label: String
        /// Hooks by label, each run by the next `deinit` of a probe with that label, then removed
        /// (by label, so that tests running in parallel do not take each other's).
        static let hooks = Locked<[String: @Sendable () -> Void]>([:])

        init(_ label: String) { self.label = label }

        deinit {
            let hook = Self.hooks.withLock { $0.removeValue(forKey: label) }
            hook?()
        }
    }

    struct Holder: Codable, Sendable {
        var probe: DeinitProbe
    }

    /// What drops the cached model in ``modelDeinitUsingTheStoreDoesNotDeadlock(_:)``, and what
    /// its deinit does with the store.
    enum DeinitCase: String, CaseIterable, Sendable {
        /// A write of the model's key replaces it; the deinit reads another key.
        case replacedThenRead
        /// A write of the model's key replaces it; the deinit writes another key.
        case replacedThenWrite
        /// A miss of another key inserts past the limit and evicts it; the deinit reads that key.
        case evictedThenRead
    }

    @Test("A model whose deinit uses the store, dropped by the cache, does not deadlock its shard", arguments: DeinitCase.allCases)
    func modelDeinitUsingTheStoreDoesNotDeadlock(_ deinitCase: DeinitCase) throws {
        let fixture = Fixture()
        var configuration = fixture.configuration
        // Under 64 entries: one shard, so the deinit's use is of the shard being changed.
        configuration.objectCacheLimit = deinitCase == .evictedThenRead ? 1 : 8
        let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
        let label = deinitCase.rawValue
        try store.set(Versioned(1), forKey: "other")
        try store.set(Holder(probe: DeinitProbe(label)), forKey: "held")
        // Cached; the copy read here is dropped at once, so the cache holds the only probe.
        #expect(try store.object(Holder.self, forKey: "held")?.probe.label == label)
        #expect(store.database.cache?.lookup("held") != nil)
        let used = Locked<Versioned?>(nil)
        DeinitProbe.hooks.withLock { hooks in
            hooks[label] = {
                switch deinitCase {
                case .replacedThenRead, .evictedThenRead:
                    used.withLock { $0 = try? store.object(Versioned.self, forKey: "other") }
                case .replacedThenWrite:
                    if (try? store.set(Versioned(2), forKey: "other")) != nil { used.withLock { $0 = Versioned(2) } }
                }
            }
        }
        let finished = DispatchSemaphore(value: 0)
        Thread {
            switch deinitCase {
            case .replacedThenRead, .replacedThenWrite:
                // The write invalidates "held": the cached model, and its probe, are dropped.
                try? store.set(Holder(probe: DeinitProbe("\(label)-new")), forKey: "held")
            case .evictedThenRead:
                // A miss: its insert evicts "held" for room.
                _ = try? store.object(Versioned.self, forKey: "other")
            }
            finished.signal()
        }.start()
        let ended = finished.wait(timeout: .now() + 5) == .success
        #expect(ended, "never returned: the probe's deinit waits for a lock its own thread holds")
        DeinitProbe.hooks.withLock { $0[label] = nil }
        if ended {
            #expect(used.withLock { $0 } == Versioned(deinitCase == .replacedThenWrite ? 2 : 1))
        }
    }

    // MARK: - Through the public API

    @Test("Hits from many Swift concurrency tasks never see a model older than a write that returned, nor a torn one")
    func taskHitsNeverSeeOlderThanCompletedWrites() async throws {
        let fixture = Fixture()
        var configuration = fixture.configuration
        // Fewer entries than keys: evictions race with hits and writes too.
        configuration.objectCacheLimit = 6
        let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
        let keys = (0..<8).map { "k\($0)" }
        for key in keys { try store.set(Versioned(0), forKey: key) }
        let completed = Locked([Int](repeating: 0, count: keys.count))
        let failures = Locked<[String]>([])
        let rounds = 150
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for version in 1...rounds {
                    for (index, key) in keys.enumerated() {
                        try store.set(Versioned(version), forKey: key)
                        completed.withLock { $0[index] = version }
                    }
                }
            }
            for reader in 0..<(ObjectCache.readerSlotCount + 4) {
                group.addTask {
                    for step in 0..<3_000 {
                        let index = (step &* 7 &+ reader) % keys.count
                        let floor = completed.withLock { $0[index] }
                        let read = try store.object(Versioned.self, forKey: keys[index])
                        if let read, !read.isWhole { failures.withLock { $0.append("torn \(read)") } }
                        if (read?.version ?? -1) < floor {
                            failures.withLock { $0.append("\(keys[index]): read \(read?.version ?? -1) after \(floor)") }
                        }
                        // Lets the writer's task run on a pool of as few threads as cores.
                        if step.isMultiple(of: 64) { await Task.yield() }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(failures.withLock { Array($0.prefix(5)) } == [])
        let cache = try #require(store.database.cache)
        #expect(cache.count <= 6)
        #expect(cache.count == cache.storedEntryCount)
    }

    @Test("Once the clock passes a cached record's expiry, no hit answers it, while threads hit and purge it")
    func expiredCachedRecordIsNeverAnsweredAfterTheClockMoves() throws {
        let fixture = Fixture()
        var configuration = fixture.configuration
        configuration.objectCacheLimit = 16
        let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
        let keys = (0..<4).map { "e\($0)" }
        for key in keys {
            try store.set(Versioned(1), forKey: key, expiresAfter: 60)
            #expect(try store.object(Versioned.self, forKey: key) == Versioned(1))
        }
        let clock = fixture.clock
        let moved = AtomicWord()
        let failures = Locked<[String]>([])
        let hitsBefore = Locked(0)
        runOnThreads(ObjectCache.readerSlotCount + 2) { thread in
            if thread == 0 {
                // Moves the clock once the readers have hit for a while (bounded: at most 2 s).
                let start = Date()
                while hitsBefore.withLock({ $0 }) < 2_000, Date().timeIntervalSince(start) < 2 {}
                clock.advance(by: 61)
                moved.store(1)
                return
            }
            for step in 0..<4_000 {
                let wasMoved = moved.load() != 0
                do {
                    let read = try store.object(Versioned.self, forKey: keys[step % keys.count])
                    if wasMoved, read != nil { failures.withLock { $0.append("answered after expiry") } }
                    if let read, !read.isWhole { failures.withLock { $0.append("torn \(read)") } }
                    if !wasMoved { hitsBefore.withLock { $0 += 1 } }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        #expect(moved.load() == 1)
        #expect(failures.withLock { Array($0.prefix(5)) } == [])
        for key in keys { #expect(try store.object(Versioned.self, forKey: key) == nil) }
        let cache = try #require(store.database.cache)
        #expect(cache.count == cache.storedEntryCount)
    }

    @Test("Two stores of one database: hits through one never see older than writes through the other, and closing either while threads hit only ends its own calls")
    func twoStoresOfOneDatabaseBesideClose() throws {
        let fixture = Fixture()
        var configuration = fixture.configuration
        configuration.objectCacheLimit = 4
        let writer = try ModelStore(name: "db", policy: .never, configuration: configuration)
        let reader = try ModelStore(name: "db", policy: .never, configuration: configuration)
        #expect(writer.database === reader.database)
        let keys = (0..<6).map { "s\($0)" }
        for key in keys { try writer.set(Versioned(0), forKey: key) }
        let completed = Locked([Int](repeating: 0, count: keys.count))
        let failures = Locked<[String]>([])
        let writerDone = AtomicWord()
        let rounds = 200
        runOnThreads(ObjectCache.readerSlotCount + 2) { thread in
            if thread == 0 {
                for version in 1...rounds {
                    for (index, key) in keys.enumerated() {
                        do { try writer.set(Versioned(version), forKey: key) } catch {
                            failures.withLock { $0.append("write: \(error)") }
                            return
                        }
                        completed.withLock { $0[index] = version }
                    }
                }
                // The writer's store closes while the others still hit through theirs.
                try? writer.close()
                writerDone.store(1)
                return
            }
            var step = 0
            var afterClose = 0
            // Bounded: until the writer closed and 2,000 reads more, or 20,000 reads.
            while step < 20_000, afterClose < 2_000 {
                let index = (step &+ thread) % keys.count
                step += 1
                if writerDone.load() != 0 { afterClose += 1 }
                let floor = completed.withLock { $0[index] }
                do {
                    let read = try reader.object(Versioned.self, forKey: keys[index])
                    if let read, !read.isWhole { failures.withLock { $0.append("torn \(read)") } }
                    if (read?.version ?? -1) < floor {
                        failures.withLock { $0.append("\(keys[index]): read \(read?.version ?? -1) after \(floor)") }
                    }
                } catch {
                    failures.withLock { $0.append("read: \(error)") }
                }
            }
        }
        #expect(failures.withLock { Array($0.prefix(5)) } == [])
        #expect(throws: ModelStoreError.self) { try writer.object(Versioned.self, forKey: keys[0]) }
        for key in keys { #expect(try reader.object(Versioned.self, forKey: key) == Versioned(rounds)) }
        let cache = try #require(reader.database.cache)
        #expect(cache.count <= 4)
        #expect(cache.count == cache.storedEntryCount)
        try reader.close()
    }
}
