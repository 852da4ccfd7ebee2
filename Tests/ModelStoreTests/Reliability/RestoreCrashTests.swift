import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// A restore killed at any moment leaves the name as it was or holding the complete restored
/// database, and what it was building is removed by the next operation in the root.
@Suite("Crash safety: SIGKILL during a restore", .serialized)
struct RestoreCrashTests {
    private static let count = 2_000

    /// What is under `db` after a killed restore: nil (nothing), "old" or "new".
    private func state(_ fixture: Fixture) throws -> String? {
        guard fixture.directory.entries().contains("db") else { return nil }
        if try RestoreTests.holds(fixture, "db", count: Self.count, prefix: "new") { return "new" }
        if try RestoreTests.holds(fixture, "db", count: 10, prefix: "old") { return "old" }
        return "a database that is neither"
    }

    /// A root with a backup of `count` "new" users and, when `replacing`, a database `db` of 10
    /// "old" ones.
    private func prepare(replacing: Bool) throws -> (Fixture, URL) {
        let fixture = Fixture()
        let backup = try RestoreTests.backup(fixture, count: Self.count, prefix: "new")
        if replacing {
            let old = try fixture.openQuietly("db")
            try old.write { batch in for index in 0..<10 { try batch.set(User.sample("old\(index)"), forKey: "u\(index)") } }
            try old.close()
        }
        return (fixture, backup)
    }

    /// Runs the next operation in the root (a delete of another name), then checks that no
    /// staging or trash folder with anything in it is left. (A staging folder killed before its
    /// marker was complete holds nothing and is removed once it is a minute old, as a plain
    /// creation's is: its builder might still be at work.)
    private func expectCleanedUp(_ fixture: Fixture) throws {
        try ModelStore.deleteDatabase(named: "unrelated", in: fixture.directory.url)
        let left = fixture.directory.entries().filter { name in
            guard name.hasPrefix(".modelstore-") else { return false }
            let contents = (try? FileManager.default.contentsOfDirectory(atPath: fixture.directory.path + "/" + name)) ?? []
            return !Set(contents).isSubset(of: [".modelstore"])
        }
        #expect(left.isEmpty, "left behind: \(left)")
    }

    private func restore(_ fixture: Fixture, _ backup: URL, replacing: Bool, crashAt: CrashPoint? = nil) throws -> ChildProcess {
        try ChildProcess.testHelper(
            ["restore", fixture.directory.path, "db", backup.path] + (replacing ? ["replace"] : []),
            environment: crashAt.map { ["MODELSTORE_TEST_CRASH_AT": $0.rawValue] } ?? [:])
    }

    @Test("Killed at each step of a restore: the name holds the old state or the complete new database",
          arguments: [
            (CrashPoint.stagingFilled, false, nil as String?), (.stagingInstalled, false, "new"),
            (.stagingFilled, true, "old"), (.restoreExchanged, true, "new"), (.stagingInstalled, true, "new"),
          ])
    func killedAtEachStep(step: CrashPoint, replacing: Bool, expected: String?) throws {
        let (fixture, backup) = try prepare(replacing: replacing)
        let helper = try restore(fixture, backup, replacing: replacing, crashAt: step)
        let lines = helper.finish()
        #expect(helper.process.terminationReason == .uncaughtSignal, "not killed: \(lines)")
        #expect(try state(fixture) == expected)
        try expectCleanedUp(fixture)
        #expect(try state(fixture) == expected)
        // And a second restore finishes the job.
        try ModelStore.restore(from: backup, named: "db", in: fixture.directory.url, replacingExisting: true)
        #expect(try state(fixture) == "new")
    }

    @Test("A backup killed before or after its rename leaves no destination or the complete backup, and the next backup in that folder removes the leftover",
          arguments: [(CrashPoint.stagingFilled, false), (.stagingInstalled, true)])
    func backupKilled(step: CrashPoint, complete: Bool) throws {
        let fixture = Fixture()
        let store = try fixture.openQuietly("db")
        try store.write { batch in for index in 0..<Self.count { try batch.set(User.sample("new\(index)"), forKey: "u\(index)") } }
        try store.close()
        let destination = BackupTests.destination(fixture)
        let helper = try ChildProcess.testHelper(
            ["backup", fixture.directory.path, "db", destination.path],
            environment: ["MODELSTORE_TEST_CRASH_AT": step.rawValue])
        let lines = helper.finish()
        #expect(helper.process.terminationReason == .uncaughtSignal, "not killed: \(lines)")
        let folder = destination.deletingLastPathComponent()
        #expect(FileManager.default.fileExists(atPath: destination.path) == complete)
        if complete {
            let copy = try BackupTests.open(destination, fixture: fixture)
            #expect(try copy.count() == Self.count)
            try copy.close()
        }
        // The next backup into that folder removes what the killed one was building.
        let again = try fixture.openQuietly("db")
        try again.backup(to: folder.appendingPathComponent("second"))
        try again.close()
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix(".modelstore-") }
        #expect(left.isEmpty, "left behind: \(left)")
    }

    @Test("Killed at random moments (many rounds): never a partial database, never a leftover after the next operation",
          arguments: [false, true])
    func killedAtRandom(replacing: Bool) throws {
        var random = SeededGenerator(seed: replacing ? 27 : 72)
        let rounds = TestScope.includesLongTests ? 40 : 10
        var seen: [String: Int] = [:]
        // How long a whole restore takes here, from the helper's "ready" (the longest of three
        // runs, at least 20 ms): kills land anywhere in it, and a little after.
        let clock = ContinuousClock()
        var longest = Duration.milliseconds(20)
        for _ in 0..<3 {
            let timing = try prepare(replacing: replacing)
            let timed = try restore(timing.0, timing.1, replacing: replacing)
            #expect(timed.readLine() == "ready")
            let started = clock.now
            #expect(timed.finish().last?.hasPrefix("done") == true)
            longest = max(longest, clock.now - started)
        }
        let microseconds = UInt32(longest / .microseconds(1))
        for _ in 0..<rounds {
            let (fixture, backup) = try prepare(replacing: replacing)
            let helper = try restore(fixture, backup, replacing: replacing)
            #expect(helper.readLine() == "ready")
            usleep(UInt32.random(in: 0..<max(1, microseconds * 6 / 5), using: &random))
            helper.kill()
            helper.finish()
            let state = try state(fixture)
            seen[state ?? "nothing", default: 0] += 1
            #expect(state == "new" || state == (replacing ? "old" : nil), "found \(state ?? "nothing")")
            try expectCleanedUp(fixture)
        }
        print("restore killed at random within \(microseconds) µs, replacing \(replacing): \(seen)")
    }
}
