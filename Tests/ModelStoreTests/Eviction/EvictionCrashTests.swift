import Foundation
import Testing
@_spi(Benchmark) @testable import ModelStore
import ModelStoreTestSupport

/// A helper process writes past a count limit, evicting as it goes, and dies with SIGKILL in the
/// middle of an eviction's window. Eviction's deletes go in one atomic batch per chunk, through
/// the write funnel, so a kill loses what the unwritten chunk chose (and the use counts, which
/// live in memory), never a record eviction did not choose, and leaves no damaged record.
@Suite("Crash safety: SIGKILL during eviction", .serialized)
struct EvictionCrashTests {
    static let count = 400
    static let limit = 100

    @Test("Killed in an eviction: every record reads its value, the database is within a window of its limit, and keeps working",
        arguments: [1, 7, 60, 250])
    func killedDuringEviction(window: Int) throws {
        let fixture = Fixture()
        let child = try ChildProcess.testHelper(
            ["evict", fixture.directory.path, "db", "\(Self.count)", "\(Self.limit)"],
            environment: ["MODELSTORE_TEST_CRASH_AT": "eviction-window:\(window)"])
        let lines = child.finish()
        #expect(lines == ["ready"], "the helper was not killed in window \(window): \(lines)")
        // Reopened without limits: what the kill left, exactly.
        let store = try fixture.open()
        let keys = try store.keys().collect()
        for key in keys {
            #expect(try store.object(Int.self, forKey: key) == Int(key.dropFirst()))
        }
        // Each write past the limit evicts one record (a 128th of 100 is none), so the kill
        // left the limit plus the write whose eviction it interrupted.
        #expect(keys.count == Self.limit + 1)
        // The newest record, written before the eviction that was killed, is there: each write
        // from k100 on evicts one record in one window.
        #expect(keys.contains("k\(Self.limit + window - 1)"))
        try store.close()
        // A database keeps working, under either policy (with the real clock the helper used).
        for eviction in [ModelStore.Eviction.oldestWritten, .leastRecentlyUsed] {
            var configuration = ModelStore.Configuration()
            configuration.directory = fixture.directory.url
            configuration.maximumRecordCount = Self.limit
            configuration.eviction = eviction
            configuration.evictsInline = true
            let limited = try ModelStore(name: "db", policy: .never, configuration: configuration)
            try limited.set(-1, forKey: "after-\(eviction)")
            #expect(try limited.count() <= Self.limit)
            #expect(try limited.object(Int.self, forKey: "after-\(eviction)") == -1)
            try limited.close()
        }
    }
}
