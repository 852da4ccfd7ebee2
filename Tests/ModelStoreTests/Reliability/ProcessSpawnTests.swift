import Foundation
import Testing
@testable import ModelStore

/// A process that spawns child processes keeps reopening its databases without spurious
/// `locked` errors.
@Suite("Reopening while child processes are spawned")
struct ProcessSpawnTests {
    @Test("Closing and reopening a database while another thread spawns processes never fails with locked")
    func reopenWhileSpawning() throws {
        // A spawned child holds a copy of every descriptor until its exec (O_CLOEXEC only
        // closes them then). Before DirectoryLock unlocked explicitly, the child's copy kept
        // the marker's flock alive after close, and up to two thirds of reopens failed here.
        let fixture = Fixture()
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
        for round in 0..<300 {
            do {
                let store = try fixture.openQuietly("db")
                try store.set(round, forKey: "round")
                try store.close()
            } catch {
                failures.append("\(error)")
            }
        }
        #expect(failures.isEmpty, "\(failures.count) of 300 reopens failed, first: \(failures.first ?? "")")
    }

    @Test("Repairing a database while another thread spawns processes never fails with locked")
    func repairWhileSpawning() throws {
        // A repair takes LevelDB's LOCK itself (an open-file-description lock), releases it and
        // opens the database with LevelDB. Before LevelDBFileLock unlocked explicitly, a child
        // forked in between kept the lock alive, and the repair's own open failed as "in use
        // by another process".
        let fixture = Fixture()
        try fixture.openQuietly("db").close()
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
        for _ in 0..<100 {
            do {
                _ = try ModelStore.repair(named: "db", in: fixture.directory.url)
            } catch {
                failures.append("\(error)")
            }
        }
        #expect(failures.isEmpty, "\(failures.count) of 100 repairs failed, first: \(failures.first ?? "")")
    }
}
