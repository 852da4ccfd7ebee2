import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// A process that spawns child processes keeps reopening (and repairing) its databases without
/// spurious `locked` errors.
@Suite("Reopening while child processes are spawned")
struct ProcessSpawnTests {
    @Test("Closing and reopening a database while another thread spawns processes never fails with locked", .long)
    func reopenWhileSpawning() throws {
        // A spawned child holds a copy of every descriptor until its exec (O_CLOEXEC only
        // closes them then). Before DirectoryLock unlocked explicitly, the child's copy kept
        // the marker's flock alive after close, and up to two thirds of reopens failed here.
        let fixture = Fixture()
        let failures = Self.failuresWhileSpawningProcesses(rounds: 300) { round in
            let store = try fixture.openQuietly("db")
            try store.set(round, forKey: "round")
            try store.close()
        }
        #expect(failures.isEmpty, "\(failures.count) of 300 reopens failed, first: \(failures.first ?? "")")
    }

    @Test("Repairing a database while another thread spawns processes never fails with locked", .long)
    func repairWhileSpawning() throws {
        // A repair takes LevelDB's LOCK itself (an open-file-description lock), releases it and
        // opens the database with LevelDB. Before LevelDBFileLock unlocked explicitly, a child
        // forked in between kept the lock alive, and 27 of 100 repairs failed as "in use by
        // another process".
        let fixture = Fixture()
        try fixture.openQuietly("db").close()
        let failures = Self.failuresWhileSpawningProcesses(rounds: 100) { _ in
            _ = try ModelStore.repair(named: "db", in: fixture.directory.url)
        }
        #expect(failures.isEmpty, "\(failures.count) of 100 repairs failed, first: \(failures.first ?? "")")
    }

    /// Runs `body` `rounds` times while another thread spawns `/bin/true` over and over, and
    /// returns the errors it threw.
    private static func failuresWhileSpawningProcesses(rounds: Int, _ body: (Int) throws -> Void) -> [String] {
        let done = Locked(false)
        let spawner = Thread {
            while !done.withLock({ $0 }) {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/bin/true")
                try? process.run()
                process.waitUntilExit()
            }
        }
        spawner.start()
        defer { done.withLock { $0 = true } }
        var failures: [String] = []
        for round in 0..<rounds {
            do {
                try body(round)
            } catch {
                failures.append("\(error)")
            }
        }
        return failures
    }
}
