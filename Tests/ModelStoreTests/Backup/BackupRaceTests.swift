import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// Backups and cursors of a database that a restore replaces at the same moment, on another
/// thread: the restore closes the database under them; they throw `closed` or finish, and
/// never read freed memory or a mixture.
@Suite("Backup and restore racing")
struct BackupRaceTests {
    @Test("A backup and a cursor racing a restore that replaces their database: each finishes whole or throws closed")
    func restoreReplacesUnderABackup() throws {
        let fixture = Fixture()
        let backup = try RestoreTests.backup(fixture, count: 300, prefix: "new")
        for round in 0..<6 {
            let store = try fixture.openQuietly("db")
            try store.write { batch in
                for index in 0..<20_000 { try batch.set(User.sample("old\(index)"), forKey: "o\(index)") }
            }
            let expected = try store.count()
            let cursor = try store.entries(User.self)
            _ = try cursor.next()
            let outcome = Locked<String?>(nil)
            let started = AtomicFlag()
            let destination = fixture.directory.url.appendingPathComponent("race\(round)")
            let thread = Thread {
                started.set()
                do {
                    let report = try store.backup(to: destination)
                    outcome.withLock { $0 = "done \(report.records)" }
                } catch {
                    outcome.withLock { $0 = errorCase { throw error } }
                }
            }
            thread.start()
            while !started.isSet { usleep(100) }
            usleep(UInt32(round) * 2_000)
            try ModelStore.restore(from: backup, named: "db", in: fixture.directory.url, replacingExisting: true)
            var read = 1
            do {
                while try cursor.next() != nil { read += 1 }
            } catch ModelStoreError.closed {
                // The restore closed the database under the cursor.
            }
            #expect(read <= expected)
            while outcome.withLock({ $0 }) == nil { usleep(1_000) }
            let result = try #require(outcome.withLock { $0 })
            #expect(result == "closed" || result.hasPrefix("done"), "round \(round): \(result)")
            if result.hasPrefix("done") {
                let copy = try BackupTests.open(fixture.directory.url.appendingPathComponent("race\(round)"), fixture: fixture)
                #expect(try copy.count() == expected)
                try copy.close()
            } else {
                #expect(!fixture.directory.entries().contains("race\(round)"))
            }
            #expect(try RestoreTests.holds(fixture, "db", count: 300, prefix: "new"))
            try? store.close()
        }
    }
}
