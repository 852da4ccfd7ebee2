import Foundation
import Testing
@_spi(Benchmark) @testable import ModelStore
import ModelStoreTestSupport

@Suite("Limits kept while writes arrive, in bounded memory")
struct LimitEnforcementTests {
    /// Record bytes and records in the database, counted by a pass over LevelDB (not by the
    /// limits' own count).
    static func measured(_ store: ModelStore) throws -> (bytes: Int, count: Int) {
        try LimitEnforcer.measuredRecords(of: store.database)
    }

    @Test("Four writers at full speed: the database never holds more than the limit plus its margin and what the writers have in flight")
    func concurrentWriters() async throws {
        let fixture = Fixture()
        var configuration = fixture.configuration
        let limit = 2 << 20
        configuration.maximumTotalBytes = limit
        let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
        let payload = String(repeating: "x", count: 1_000)
        let writers = 4
        let perWriter = 3_000
        let recordBytes = 1_100
        let done = Counter()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    try await offloadForTest {
                        for index in 0..<perWriter { try store.set(payload, forKey: "w\(writer)-\(index)") }
                        done.add()
                    }
                }
            }
            group.addTask {
                try await offloadForTest {
                    var samples = 0
                    while done.value < writers || samples < 3 {
                        let now = try Self.measured(store)
                        samples += 1
                        #expect(
                            now.bytes <= limit + LimitEnforcer.margin(of: limit, bytes: true) + writers * recordBytes,
                            "sample \(samples): \(now.bytes) bytes")
                    }
                }
            }
            try await group.waitForAll()
        }
        store.database.limits?.waitForBackgroundWork()
        let final = try Self.measured(store)
        #expect(final.bytes <= limit)
        #expect(final.bytes >= limit - limit / 16)  // evicted in small batches, not emptied
        #expect(try store.limitStatus().evictedOverBytes == writers * perWriter - final.count)
    }

    @Test("A sweep that evicts 1 % of 300,000 records walks one window of 32 per record it evicts; the sketch stays within its bound", .long)
    func sweepCostsWhatItEvicts() async throws {
        let fixture = Fixture()
        let records = 300_000
        do {
            let store = try fixture.open()
            try await store.importObjects(0..<records, key: { String(format: "k%07d", $0) }, batchSize: 10_000)
            try store.close()
        }
        let probe = try fixture.open()
        let total = try Self.measured(probe).count
        #expect(total == records)
        try probe.close()
        var configuration = fixture.configuration
        configuration.maximumRecordCount = records - records / 100
        configuration.evictsInline = true
        let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
        let enforcer = try #require(store.database.limits)
        let removed = try store.removeExpiredObjects()
        #expect(removed == records / 100)
        // One window of 32 per record evicted.
        #expect(enforcer.walking.withLock { enforcer.windowsWalked } <= removed + 1)
        #expect(enforcer.sketch!.byteCount <= 8 << 20)
    }
}

/// Runs blocking store calls off the cooperative pool, as the store's own async calls do.
func offloadForTest(_ body: @escaping @Sendable () throws -> Void) async throws {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
        Thread {
            do {
                try body()
                continuation.resume()
            } catch {
                continuation.resume(throwing: error)
            }
        }.start()
    }
}

@Suite("Limits: overwrites")
struct LimitOverwriteTests {
    @Test("A program that overwrites its records at the limit loses at most an eighth of them to the count's drift")
    func overwritesDoNotEmptyTheDatabase() throws {
        let fixture = Fixture()
        var configuration = fixture.configuration
        configuration.maximumRecordCount = 800
        configuration.evictsInline = true
        let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
        for index in 0..<800 { try store.set(index, forKey: "k\(index)") }
        var random = SeededGenerator(seed: 38)
        for round in 0..<5_000 {
            let index = Int.random(in: 0..<800, using: &random)
            if try store.object(Int.self, forKey: "k\(index)") != nil { try store.set(round, forKey: "k\(index)") }
        }
        let count = try store.count()
        #expect(count <= 800)
        #expect(count >= 800 - 800 / 8 - LimitEnforcer.slack(of: 800) - ModelStore.Eviction.windowSize)
        // A sweep measures again, and nothing more goes.
        #expect(try store.removeExpiredObjects() == 0)
    }
}
