import Dispatch
import Foundation
import Testing
@_spi(Benchmark) @testable import ModelStore
import ModelStoreTestSupport

/// Attacks on the limits' count (MeasuringPass.swift): writes of every kind (single sets, batches
/// of records of different sizes, tags, collections, indexed collections, imports, failing
/// writes) beside the passes that measure the database (sweeps, two at once, the open's, walks),
/// and eviction beside them. With no overwrite and no removal by the program, the count must
/// equal a pass over LevelDB once background work is done, and eviction must stop at the limits.
@Suite("Limits: attacks on the count")
struct LimitCountAttackTests {
    /// The count against a pass over LevelDB, once background work is done.
    static func expectExact(_ store: ModelStore, sourceLocation: SourceLocation = #_sourceLocation) throws {
        store.database.limits?.waitForBackgroundWork()
        let status = try store.limitStatus()
        let measured = try LimitEnforcementTests.measured(store)
        #expect(status.recordCount == measured.count, sourceLocation: sourceLocation)
        #expect(status.recordBytes == measured.bytes, sourceLocation: sourceLocation)
    }

    /// A model of `size` bytes or so, so that a batch's records differ in size.
    static func payload(_ size: Int) -> String { String(repeating: "p", count: size) }

    @Test("Tagged sets, batches and collection writes count their records' bytes, not their tag-index entries")
    func taggedWrites() throws {
        let fixture = Fixture()
        var configuration = fixture.configuration
        configuration.maximumTotalBytes = 1 << 40  // counted, never reached
        let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
        // After the open's measurement, which would otherwise measure the writes below again.
        store.database.limits?.waitForBackgroundWork()
        try store.set("v", forKey: "single", tags: ["team", "a-much-longer-tag-name"])
        try store.collection("c").set("v", forKey: "in-collection", tags: ["team"])
        try store.write { batch in
            try batch.set("v", forKey: "b1", tags: ["team"])
            try batch.set("v", forKey: "b2", in: "c", tags: ["other", "team"])
            try batch.set("v", forKey: "b3")
        }
        try Self.expectExact(store)
        #expect(try store.limitStatus().recordCount == 5)
    }

    @Test("A sweep beside batches of a small record ahead of its cursor and a large one behind: bytes counted exactly")
    func unevenBatchesBesideASweep() async throws {
        let fixture = Fixture()
        var configuration = fixture.configuration
        configuration.maximumTotalBytes = 1 << 40
        let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
        // Records under "k": a sweep's cursor is past "a" and short of "z" for most of its pass.
        try await store.importObjects(0..<30_000, key: { String(format: "k%06d", $0) }, batchSize: 5_000)
        let small = Self.payload(1)
        let large = Self.payload(3_000)
        for round in 0..<3 {
            try await write(atLeast: 200, startingWorkAfter: 50, { _, index in
                try store.write { batch in
                    try batch.set(small, forKey: "a\(round)-\(index)")
                    try batch.set(large, forKey: "z\(round)-\(index)")
                }
            }, beside: { _ = try store.removeExpiredObjects() })
            try Self.expectExact(store)
        }
    }

    @Test("Two sweeps from two threads beside writers into collections, an indexed one, with tags and batches")
    func twoSweepsBesideCollectionWriters() async throws {
        let fixture = Fixture()
        var configuration = fixture.configuration
        configuration.maximumRecordCount = 10_000_000
        let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
        let posts = store.collection("posts")
        try PostIndexes.define(on: posts)
        try await store.importObjects(0..<20_000, key: { String(format: "k%06d", $0) }, batchSize: 5_000)
        let post = Post(author: "ada", createdAt: Date(timeIntervalSinceReferenceDate: 0))
        let c = store.collection("c")
        try await write(on: 2, atLeast: 500, workers: 2, { writer, index in
            if writer == 0 {
                switch index % 4 {
                case 0: try c.set(Self.payload(index % 97), forKey: "c\(index)")
                case 1: try c.set("v", forKey: "t\(index)", tags: ["team"])
                case 2:
                    try store.write { batch in
                        try batch.set(Self.payload(500), forKey: "0\(index)", in: "c")
                        try batch.set("v", forKey: "~\(index)", tags: ["x"])
                        try batch.set(Self.payload(7), forKey: "m\(index)")
                    }
                default: try store.set(Self.payload(index % 13), forKey: "z\(index)")
                }
            } else if index % 3 == 0 {
                try store.write { batch in
                    try batch.set(post, forKey: "p\(index)", in: posts)
                    try batch.set(Self.payload(900), forKey: "q\(index)", in: posts)  // not a Post: no entry
                }
            } else {
                try posts.set(post, forKey: "p\(index)", tags: index % 2 == 0 ? ["team"] : [])
            }
        }, beside: { for _ in 0..<3 { _ = try store.removeExpiredObjects() } })
        try Self.expectExact(store)
    }

    @Test("The open's measurement beside writers of tagged records, batches and imports counts each once")
    func openingBesideMixedWriters() async throws {
        let fixture = Fixture()
        do {
            let store = try fixture.open()
            try await store.importObjects(0..<60_000, key: { String(format: "k%06d", $0) }, batchSize: 10_000)
            try store.close()
        }
        var configuration = fixture.configuration
        configuration.maximumTotalBytes = 1 << 40
        let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
        let measuredOnce = Counter()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await offloadForTest {
                    var index = 0
                    while measuredOnce.value == 0 || index < 1_000 {
                        if index % 2 == 0 {
                            try store.set(Self.payload(index % 50), forKey: "a\(index)", tags: ["team"])
                        } else {
                            try store.write { batch in
                                try batch.set(Self.payload(1), forKey: "b\(index)")
                                try batch.set(Self.payload(400), forKey: "y\(index)", in: "c")
                            }
                        }
                        index += 1
                    }
                }
            }
            group.addTask {
                // Imports in chunks of 250, of records of different sizes.
                let models = (0..<3_000).map { String(format: "%05d", $0) + Self.payload($0 % 300) }
                try await store.importObjects(models, key: { "i" + $0.prefix(5) }, batchSize: 250)
            }
            group.addTask {
                try await offloadForTest {
                    store.database.limits?.waitForBackgroundWork()
                    measuredOnce.add()
                }
            }
            try await group.waitForAll()
        }
        try Self.expectExact(store)
    }

    @Test(
        "Inline eviction by bytes beside sweeps and uneven batches: the count stays exact and a sweep stops at the limit",
        arguments: [ModelStore.Eviction.oldestWritten, .leastRecentlyUsed])
    func inlineEvictionByBytesBesideSweeps(_ eviction: ModelStore.Eviction) async throws {
        let fixture = Fixture()
        var configuration = fixture.configuration
        let limit = 4 << 20
        configuration.maximumTotalBytes = limit
        configuration.eviction = eviction
        configuration.evictsInline = true
        let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
        try await write(on: 2, atLeast: 2_000, { writer, index in
            try store.write { batch in
                try batch.set(Self.payload(10), forKey: "a\(writer)-\(index)")
                try batch.set(Self.payload(1_500), forKey: "z\(writer)-\(index)")
            }
        }, beside: { for _ in 0..<3 { _ = try store.removeExpiredObjects() } })
        try Self.expectExact(store)
        let measured = try LimitEnforcementTests.measured(store)
        #expect(measured.bytes <= limit)
        // Inline eviction goes to its slack below the limit, and no further than one record more.
        #expect(measured.bytes >= limit - LimitEnforcer.slack(of: limit) - 1_600)
        _ = try store.removeExpiredObjects()
        let swept = try LimitEnforcementTests.measured(store)
        #expect(swept == measured)  // already within the limit: the sweep evicts nothing
    }

    @Test(
        "Background eviction by count beside a sweep: the database ends within its slack under the limit",
        arguments: [ModelStore.Eviction.oldestWritten, .leastRecentlyUsed])
    func backgroundEvictionBesideASweep(_ eviction: ModelStore.Eviction) async throws {
        let fixture = Fixture()
        var configuration = fixture.configuration
        let limit = 10_000
        configuration.maximumRecordCount = limit
        configuration.eviction = eviction
        let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
        try await write(on: 2, atLeast: 7_000, { writer, index in
            if index % 2 == 0 {
                try store.set(Self.payload(index % 40), forKey: "w\(writer)-\(index)")
            } else {
                try store.write { batch in
                    try batch.set("v", forKey: "a\(writer)-\(index)")
                    try batch.set(Self.payload(300), forKey: "z\(writer)-\(index)", in: "c")
                }
            }
        }, beside: { for _ in 0..<3 { _ = try store.removeExpiredObjects() } })
        try Self.expectExact(store)
        let measured = try LimitEnforcementTests.measured(store)
        #expect(measured.count <= limit)
        #expect(measured.count >= limit - LimitEnforcer.slack(of: limit) - 2)
        _ = try store.removeExpiredObjects()
        #expect(try LimitEnforcementTests.measured(store) == measured)
    }

    @Test("A sweep evicts to the limit exactly beside another sweep and a writer of batches")
    func sweepsEvictToTheLimitExactly() async throws {
        let fixture = Fixture()
        var configuration = fixture.configuration
        let limit = 15_000
        configuration.maximumRecordCount = limit
        configuration.evictsInline = true
        let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
        try await store.importObjects(0..<(limit - 1), key: { String(format: "k%06d", $0) }, batchSize: 5_000)
        try await write(atLeast: 2_000, workers: 2, { _, index in
            try store.write { batch in
                try batch.set("v", forKey: "a\(index)")
                try batch.set(Self.payload(200), forKey: "z\(index)", tags: ["t"])
            }
        }, beside: { for _ in 0..<3 { _ = try store.removeExpiredObjects() } })
        try Self.expectExact(store)
        _ = try store.removeExpiredObjects()
        #expect(try LimitEnforcementTests.measured(store).count <= limit)
        #expect(try LimitEnforcementTests.measured(store).count >= limit - LimitEnforcer.slack(of: limit) - 2)
        try Self.expectExact(store)
        try store.close()
        // 500 records over the limit, written without limits; then two sweeps at once take 500 exactly.
        do {
            let unlimited = try fixture.open()
            for index in 0..<(limit + 500 - (try LimitEnforcementTests.measured(unlimited).count)) {
                try unlimited.set(Self.payload(index % 20), forKey: "extra\(index)")
            }
            try unlimited.close()
        }
        var background = fixture.configuration
        background.maximumRecordCount = limit
        let reopened = try ModelStore(name: "db", policy: .never, configuration: background)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<2 {
                group.addTask { try await offloadForTest { _ = try reopened.removeExpiredObjects() } }
            }
            try await group.waitForAll()
        }
        #expect(try LimitEnforcementTests.measured(reopened).count == limit)
        try Self.expectExact(reopened)
    }

    @Test("Writes that an indexer fails, beside a sweep: nothing they tried is counted")
    func failingWritesBesideASweep() async throws {
        let fixture = Fixture()
        var configuration = fixture.configuration
        configuration.maximumTotalBytes = 1 << 40
        let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
        let posts = store.collection("posts")
        try posts.defineIndex("strict", of: Post.self, version: 1) { post in
            if post.author == "bad" { throw IndexerFailure() }
            return [.string(post.author)]
        }
        try await store.importObjects(0..<30_000, key: { String(format: "k%06d", $0) }, batchSize: 5_000)
        let good = Post(author: "ada", createdAt: Date(timeIntervalSinceReferenceDate: 0))
        let bad = Post(author: "bad", createdAt: Date(timeIntervalSinceReferenceDate: 0))
        let failed = Counter()
        try await write(atLeast: 300, startingWorkAfter: 30, { _, index in
            do {
                switch index % 3 {
                case 0: try posts.set(index % 2 == 0 ? bad : good, forKey: "p\(index)")
                case 1:
                    try store.write { batch in
                        try batch.set("v", forKey: "a\(index)")
                        try batch.set(index % 2 == 0 ? bad : good, forKey: "p\(index)", in: posts)
                        try batch.set(Self.payload(800), forKey: "z\(index)")
                    }
                default: try store.set(Self.payload(index % 31), forKey: "y\(index)")
                }
            } catch ModelStoreError.indexerFailed {
                failed.add()
            }
        }, beside: { _ = try store.removeExpiredObjects() })
        #expect(failed.value > 0)
        try Self.expectExact(store)
    }

    @Test("A store closed during a sweep: the sweep ends, and the reopened store counts exactly")
    func closingDuringASweep() async throws {
        let fixture = Fixture()
        var configuration = fixture.configuration
        configuration.maximumRecordCount = 10_000_000
        do {
            let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
            try await store.importObjects(0..<40_000, key: { String(format: "k%06d", $0) }, batchSize: 5_000)
            let started = DispatchSemaphore(value: 0)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    try await offloadForTest {
                        started.signal()
                        do {
                            _ = try store.removeExpiredObjects()
                        } catch ModelStoreError.closed {
                        }
                    }
                }
                group.addTask {
                    try await offloadForTest {
                        started.wait()
                        var index = 0
                        do {
                            while index < 200 {
                                try store.write { batch in
                                    try batch.set("v", forKey: "a\(index)")
                                    try batch.set(Self.payload(100), forKey: "z\(index)")
                                }
                                index += 1
                            }
                            try store.close()
                        } catch ModelStoreError.closed {
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        let reopened = try ModelStore(name: "db", policy: .never, configuration: configuration)
        try reopened.set("v", forKey: "after")
        try Self.expectExact(reopened)
        #expect(try reopened.limitStatus().recordCount == 40_000 + 400 + 1)
    }
}

extension LimitCountAttackTests {
    @Test("A sweep that began earlier and finishes later does not undo a later sweep's measurement of records it removed as expired")
    func olderSweepFinishingLast() async throws {
        let fixture = Fixture()
        var configuration = fixture.configuration
        configuration.maximumRecordCount = 1_000  // reached, never passed: nothing is evicted
        let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
        store.database.limits?.waitForBackgroundWork()
        for index in 0..<1_000 {
            try store.set("v", forKey: String(format: "k%05d", index), expiresAfter: index % 2 == 0 ? 10 : nil)
        }
        // The first sweep's steps, as Scope.removeExpiredObjects takes them, with a second whole
        // sweep between its pass and its finish (as when it waits for the walking lock while the
        // other sweep takes it first): the clock moves on between the two, so records it read
        // live, the second finds expired and removes.
        let database = store.database
        let enforcer = try #require(database.limits)
        let older = Sweeper(database: database, reader: store.scope.reader, now: store.scope.reader.now(), range: KeySpace.userRecords)
        let pass = enforcer.beginPass(over: KeySpace.userRecords, in: database)
        let outcome = try older.removeExpired(measuring: pass)
        #expect(outcome.liveCount == 1_000)
        fixture.clock.advance(by: 20)
        #expect(try store.removeExpiredObjects() == 500)
        try Self.expectExact(store)
        enforcer.walking.withLock { enforcer.finish(pass, measured: (outcome.liveBytes, outcome.liveCount)) }
        try Self.expectExact(store)
        #expect(try store.limitStatus().recordCount == 500)
        // Counted 1,000 (as it was), this write made eviction remove 8 of the 501 records (493 left).
        try store.set("v", forKey: "last")
        store.database.limits?.waitForBackgroundWork()
        let left = try LimitEnforcementTests.measured(store).count
        #expect(left == 501)
    }
}

extension LimitCountAttackTests {
    @Test(
        "Opening a database over its limit beside two writers: the count is exact and eviction stops at its slack under the limit",
        arguments: [false, true])
    func openingOverTheLimitBesideWriters(_ inline: Bool) async throws {
        let fixture = Fixture()
        let limit = 20_000
        do {
            let store = try fixture.open()
            try await store.importObjects(0..<30_000, key: { String(format: "k%06d", $0) }, batchSize: 10_000)
            try store.close()
        }
        var configuration = fixture.configuration
        configuration.maximumRecordCount = limit
        configuration.evictsInline = inline
        let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<2 {
                group.addTask {
                    try await offloadForTest {
                        for index in 0..<1_500 {
                            if index % 2 == 0 {
                                try store.set(Self.payload(index % 70), forKey: "w\(writer)-\(index)", tags: ["t"])
                            } else {
                                try store.write { batch in
                                    try batch.set("v", forKey: "a\(writer)-\(index)")
                                    try batch.set(Self.payload(250), forKey: "z\(writer)-\(index)", in: "c")
                                }
                            }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        try Self.expectExact(store)
        let measured = try LimitEnforcementTests.measured(store).count
        // Written after the measurement, at least one write evicted: never below the walk's target.
        #expect(measured >= limit - LimitEnforcer.slack(of: limit))
        #expect(measured <= limit)
        _ = try store.removeExpiredObjects()
        #expect(try LimitEnforcementTests.measured(store).count == min(measured, limit))
        try Self.expectExact(store)
    }
}

extension LimitCountAttackTests {
    @Test("Two sweeps with the clock moved on between them, one removing as expired records the other read live: the count is exact")
    func sweepsEitherSideOfExpiry() async throws {
        let fixture = Fixture()
        var configuration = fixture.configuration
        configuration.maximumRecordCount = 10_000_000
        let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
        store.database.limits?.waitForBackgroundWork()
        try store.write { batch in
            for index in 0..<30_000 {
                try batch.set("v", forKey: String(format: "k%06d", index), expiresAfter: index % 2 == 0 ? 10 : nil)
            }
        }
        let enforcer = try #require(store.database.limits)
        let clock = fixture.clock
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await offloadForTest { _ = try store.removeExpiredObjects() } }
            group.addTask {
                try await offloadForTest {
                    // Once the first sweep's pass has begun (bounded wait), the records expire.
                    let deadline = Date().addingTimeInterval(2)
                    while enforcer.passesRunning.load() == 0 && Date() < deadline { Thread.sleep(forTimeInterval: 0.000_2) }
                    clock.advance(by: 20)
                    _ = try store.removeExpiredObjects()
                }
            }
            try await group.waitForAll()
        }
        try Self.expectExact(store)
        #expect(try store.limitStatus().recordCount == 15_000)
    }
}

extension LimitCountAttackTests {
    @Test("Records with long tags under a byte limit: eviction stops at its slack under the limit, as measured from LevelDB")
    func longTagsUnderAByteLimit() throws {
        let fixture = Fixture()
        var configuration = fixture.configuration
        let limit = 100_000
        configuration.maximumTotalBytes = limit
        configuration.evictsInline = true
        let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
        let tag = "tag-" + String(repeating: "x", count: 200)  // its entry outweighs the record
        var largest = 0
        for index in 0..<4_000 {
            try store.set("v", forKey: String(format: "k%05d", index), tags: [tag])
            if index == 0 { largest = try LimitEnforcementTests.measured(store).bytes }
        }
        try Self.expectExact(store)
        let measured = try LimitEnforcementTests.measured(store).bytes
        #expect(measured <= limit)
        #expect(measured >= limit - LimitEnforcer.slack(of: limit) - largest)
    }
}
