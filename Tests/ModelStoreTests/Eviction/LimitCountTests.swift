import Foundation
import Testing
@_spi(Benchmark) @testable import ModelStore
import ModelStoreTestSupport

/// The limits' count against a pass over LevelDB, after measurements that ran beside writers: a
/// record written while a pass measured the database is counted once (counted twice, eviction
/// removed a record too many: `IndexMaintenanceTests/bulkRemovals` left 9 of its 10 records).
@Suite("Limits: the count stays exact while measurements run beside writers")
struct LimitCountTests {
    /// Writes the `index`th new record (no overwrite: the count is exact only without them),
    /// the keys spread over the key range, as a single set or, one time in three, a batch of
    /// two; nothing past the 20,000th (7,919 is prime to 20,000: the keys are distinct and land
    /// ahead of and behind a pass).
    static func writeNewRecord(_ index: Int, to store: ModelStore, prefix: String) throws {
        guard index < 20_000 else { return }
        let key = String(format: "\(prefix)%06d", (index * 7_919 % 20_000) * 2 + 1)
        if index % 3 == 0 {
            try store.write { batch in
                try batch.set("v", forKey: key + "a")
                try batch.set("v", forKey: key + "b")
            }
        } else {
            try store.set("v", forKey: key + "a")
        }
    }

    static func expectCountMatchesTheDatabase(_ store: ModelStore) throws {
        store.database.limits?.waitForBackgroundWork()
        let status = try store.limitStatus()
        let measured = try LimitEnforcementTests.measured(store)
        #expect(status.recordCount == measured.count)
        #expect(status.recordBytes == measured.bytes)
    }

    @Test("A sweep beside a writer: every record written during its pass, ahead of it or behind, is counted once")
    func sweepBesideAWriter() async throws {
        let fixture = Fixture()
        var configuration = fixture.configuration
        configuration.maximumRecordCount = 10_000_000  // counted, never reached
        let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
        try await store.importObjects(0..<40_000, key: { String(format: "k%06d", $0 * 2) }, batchSize: 5_000)
        for round in 0..<3 {
            try await write(atLeast: 2_000, startingWorkAfter: 100, { _, index in
                try Self.writeNewRecord(index, to: store, prefix: "k\(round)-")
            }, beside: { _ = try store.removeExpiredObjects() })
            try Self.expectCountMatchesTheDatabase(store)
        }
    }

    @Test("The open's measurement beside two writers counts every record once")
    func openingBesideWriters() async throws {
        let fixture = Fixture()
        do {
            let store = try fixture.open()
            try await store.importObjects(0..<100_000, key: { String(format: "k%06d", $0 * 2) }, batchSize: 10_000)
            try store.close()
        }
        var configuration = fixture.configuration
        configuration.maximumRecordCount = 10_000_000
        let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
        try await write(on: 2, atLeast: 2_000, { writer, index in
            try Self.writeNewRecord(index, to: store, prefix: "w\(writer)-")
        }, beside: { store.database.limits?.waitForBackgroundWork() })
        try Self.expectCountMatchesTheDatabase(store)
    }

    @Test("A walk that goes round the whole database beside a writer measures it exactly: eviction stops at the limit")
    func walkBesideAWriter() async throws {
        let fixture = Fixture()
        var configuration = fixture.configuration
        let limit = 30_000
        configuration.maximumRecordCount = limit
        configuration.evictsInline = true
        let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
        try await store.importObjects(0..<(limit - 1), key: { String(format: "k%06d", $0 * 2) }, batchSize: 5_000)
        // Past the limit: each write evicts in its own thread, and walks go round.
        try await write(atLeast: 2_000, { _, index in
            try Self.writeNewRecord(index, to: store, prefix: "k")
        }, beside: { for _ in 0..<5 { _ = try store.removeExpiredObjects() } })
        let measured = try LimitEnforcementTests.measured(store)
        #expect(measured.count <= limit)
        #expect(measured.count >= limit - limit / 128 - 2)  // a walk goes to its slack below the limit, no further
        try Self.expectCountMatchesTheDatabase(store)
    }
}
