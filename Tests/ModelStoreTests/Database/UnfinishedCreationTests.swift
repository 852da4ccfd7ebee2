import Foundation
import Testing
@testable import ModelStore
#if canImport(Glibc)
import Glibc
import ModelStoreTestSupport
#endif

/// A first open builds the new database as `.modelstore-new-<uuid>` and renames it into place.
/// A process killed on the way must never leave that folder behind for good: the next open,
/// delete or `deleteAllDatabases` in the root removes it as soon as it can know the creator is
/// gone (its lock on the marker is free), and never touches a creation still in progress, a
/// link, a file or anything that is not ours.
@Suite("Creations cut short by a crash", .serialized)
struct UnfinishedCreationTests {
    static let prefix = ".modelstore-new-"

    /// What a creator killed after writing its marker leaves: the folder and a complete marker,
    /// locked by no one. Created just now: only the free lock says the creator is gone.
    private func leaveKilledCreation(in fixture: Fixture, named name: String = "killed") throws -> String {
        let folder = fixture.directory.path + "/" + Self.prefix + name
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        try StoreDirectory.writeMarker(in: folder)
        return Self.prefix + name
    }

    /// A creation in progress in "another process": its marker is locked (this process holds
    /// the lock on a descriptor of its own, which conflicts like another process's). Returns the
    /// descriptor; closing it ends the "creation".
    private func startLiveCreation(in fixture: Fixture) throws -> Int32 {
        let folder = fixture.directory.path + "/" + Self.prefix + "live"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        try StoreDirectory.writeMarker(in: folder)
        let fd = open(folder + "/.modelstore", O_RDONLY | O_CLOEXEC)
        #expect(fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0)
        return fd
    }

    /// Lookalikes that are not ours: a link to a foreign folder, a file, and a folder whose
    /// creator may still be between its `mkdir` and its marker (no marker, created just now).
    private func addLookalikes(_ fixture: Fixture) throws -> Set<String> {
        let root = fixture.directory.path
        let foreign = root + "-foreign"
        try FileManager.default.createDirectory(atPath: foreign, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: foreign + "/keep.txt", contents: Data("user".utf8))
        let manager = FileManager.default
        try manager.createSymbolicLink(atPath: root + "/" + Self.prefix + "link", withDestinationPath: foreign)
        _ = manager.createFile(atPath: root + "/" + Self.prefix + "file", contents: Data("f".utf8))
        try manager.createDirectory(atPath: root + "/" + Self.prefix + "young", withIntermediateDirectories: false)
        return [Self.prefix + "link", Self.prefix + "file", Self.prefix + "young"]
    }

    private func expectForeignIntact(_ fixture: Fixture) throws {
        #expect(try String(contentsOfFile: fixture.directory.path + "-foreign/keep.txt", encoding: .utf8) == "user")
    }

    /// Dates `name` in the root, and the marker in it if there is one, an hour back.
    private func age(_ name: String, in fixture: Fixture) throws {
        let folder = fixture.directory.path + "/" + name
        let hourAgo: [FileAttributeKey: Any] = [.modificationDate: Date().addingTimeInterval(-3_600)]
        if FileManager.default.fileExists(atPath: folder + "/.modelstore") {
            try FileManager.default.setAttributes(hourAgo, ofItemAtPath: folder + "/.modelstore")
        }
        try FileManager.default.setAttributes(hourAgo, ofItemAtPath: folder)
    }

    /// A staging folder and what its marker holds, for failure messages.
    private func describe(_ name: String, in fixture: Fixture) -> String {
        let folder = fixture.directory.path + "/" + name
        let contents = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        let marker = (try? Data(contentsOf: URL(fileURLWithPath: folder + "/.modelstore")))?.count
        return "\(name): \(contents), marker \(marker.map { "\($0) bytes" } ?? "missing")"
    }

    @Test("deleteDatabase removes a killed creation at once; a live one, a young unmarked one and lookalikes stay")
    func deleteRemovesAKilledCreation() throws {
        let fixture = Fixture()
        try fixture.openQuietly("other").close()
        DatabaseTrash.waitForCleanup()  // the open's own cleanup is over before the leftovers appear
        _ = try leaveKilledCreation(in: fixture)
        let kept = try addLookalikes(fixture)
        let live = try startLiveCreation(in: fixture)
        try ModelStore.deleteDatabase(named: "other", in: fixture.directory.url)
        #expect(fixture.directory.entries() == kept.union([Self.prefix + "live"]))

        // Once its creator is gone and the unmarked one is old, both go too. (Unlocked before
        // the close: a child process another test is spawning may hold a copy of the descriptor
        // until it execs, and the lock would last as long.)
        flock(live, LOCK_UN)
        close(live)
        try age(Self.prefix + "young", in: fixture)
        try ModelStore.deleteDatabase(named: "other", in: fixture.directory.url)
        #expect(fixture.directory.entries() == [Self.prefix + "link", Self.prefix + "file"])
        try expectForeignIntact(fixture)
    }

    @Test("deleteAllDatabases removes a killed creation at once; a live one and lookalikes stay")
    func deleteAllRemovesAKilledCreation() throws {
        let fixture = Fixture()
        _ = try leaveKilledCreation(in: fixture)
        let kept = try addLookalikes(fixture)
        let live = try startLiveCreation(in: fixture)
        defer {
            flock(live, LOCK_UN)
            close(live)
        }
        try ModelStore.deleteAllDatabases(in: fixture.directory.url)
        #expect(fixture.directory.entries() == kept.union([Self.prefix + "live"]))
        try expectForeignIntact(fixture)
    }

    @Test("Opening any database in the root removes a killed creation in the background")
    func openRemovesAKilledCreation() throws {
        let fixture = Fixture()
        try fixture.openQuietly("other").close()
        DatabaseTrash.waitForCleanup()  // the first open's own cleanup is over before the leftovers appear
        _ = try leaveKilledCreation(in: fixture)
        let kept = try addLookalikes(fixture)
        let store = try fixture.openQuietly("other")
        DatabaseTrash.waitForCleanup()
        #expect(fixture.directory.entries() == kept.union(["other"]))
        try store.close()
        try expectForeignIntact(fixture)
    }

    @Test("A killed creation whose folder holds anything else loses only its marker; the content stays")
    func foreignContentIsKept() throws {
        let fixture = Fixture()
        let name = try leaveKilledCreation(in: fixture)
        let folder = fixture.directory.path + "/" + name
        try Data("someone's".utf8).write(to: URL(fileURLWithPath: folder + "/notes.txt"))
        try FileManager.default.createSymbolicLink(atPath: folder + "/link", withDestinationPath: "/etc")
        try ModelStore.deleteAllDatabases(in: fixture.directory.url)
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: folder)) == ["notes.txt", "link"])
    }

    @Test("Killed at each creation step or at random (48 rounds): the next open or delete leaves no staging folder")
    func killDuringCreation() throws {
        let fixture = Fixture()
        let lookalikes: Set<String> = [Self.prefix + "link", Self.prefix + "file"]
        _ = try addLookalikes(fixture)
        try FileManager.default.removeItem(atPath: fixture.directory.path + "/" + Self.prefix + "young")
        let steps: [String?] = ["creation-staged", "creation-marked", "creation-renamed", nil]
        var random = SeededGenerator(seed: 0xC4EA)
        var leftBehind = 0
        for round in 0..<48 {
            let step = steps[round % steps.count]
            let helper = try ChildProcess.testHelper(
                ["race-open", fixture.directory.path, "db\(round)", "20", "0"],
                environment: step.map { ["MODELSTORE_TEST_CRASH_AT": $0] } ?? [:])
            #expect(helper.readLine() == "ready")
            if step == nil {
                usleep(UInt32.random(in: 0..<20_000, using: &random))
                helper.kill()
            }
            let lines = helper.finish()
            #expect(helper.process.terminationReason == .uncaughtSignal || step == nil, "\(step ?? "random"): \(lines)")

            var staged = fixture.directory.entries().filter { $0.hasPrefix(Self.prefix) }.subtracting(lookalikes)
            if !staged.isEmpty { leftBehind += 1 }
            if step == nil {
                // Killed between mkdir and the marker's last byte (microseconds): nothing says the
                // creator is gone, so such a folder is left until it is old. Aged here; a folder
                // with a complete marker is removed whatever its age.
                for name in staged { try age(name, in: fixture) }
            }
            if step == "creation-staged" {
                // Killed between mkdir and the marker: nothing says the creator is gone, so the
                // folder is left until it is older than a creation can take.
                #expect(staged.count == 1, "\(staged)")
                try ModelStore.deleteAllDatabases(in: fixture.directory.url)
                #expect(fixture.directory.entries().subtracting(lookalikes) == staged)
                for name in staged { try age(name, in: fixture) }
            } else if step == "creation-marked" {
                #expect(staged.count == 1, "\(staged)")
            } else if step == "creation-renamed" {
                #expect(staged.isEmpty, "\(staged)")
                #expect(StoreDirectory.kind(of: fixture.directory.path + "/db\(round)-0") == .database)
            }

            switch round % 3 {
            case 0:
                try ModelStore.deleteDatabase(named: "absent", in: fixture.directory.url)
            case 1:
                try ModelStore.deleteAllDatabases(in: fixture.directory.url)
            default:
                try fixture.openQuietly("other").close()
                DatabaseTrash.waitForCleanup()
            }
            staged = fixture.directory.entries().filter { $0.hasPrefix(Self.prefix) }.subtracting(lookalikes)
            #expect(staged.isEmpty, "round \(round) (\(step ?? "random")): \(staged.map { describe($0, in: fixture) })")
            // Every database a killed helper created is complete: it opens.
            for name in fixture.directory.entries() where !name.hasPrefix(".") {
                try fixture.openQuietly(name).close()
            }
            DatabaseTrash.waitForCleanup()  // the opens' own cleanup must not race the next round
            try ModelStore.deleteAllDatabases(in: fixture.directory.url)
        }
        #expect(leftBehind > 0)
        try expectForeignIntact(fixture)
    }

    @Test("Two processes creating the same names while this one keeps cleaning: every name is one complete database")
    func concurrentCreationsWithACleaner() throws {
        let fixture = Fixture()
        let names = 40
        let start = Date().timeIntervalSince1970 + 1
        let helpers = try (0..<2).map { _ in
            try ChildProcess.testHelper(["race-open", fixture.directory.path, "db", "\(names)", "\(start)"])
        }
        for helper in helpers { #expect(helper.readLine() == "ready") }
        for helper in helpers { helper.closeInput() }
        let done = Locked(false)
        let root = fixture.directory.url.resolvingSymlinksInPath().path
        let cleaner = Thread {
            while !done.withLock({ $0 }) {
                UnfinishedCreations.removeAbandoned(in: root)
            }
        }
        cleaner.start()
        let outcomes = helpers.flatMap { helper in
            defer { helper.finish() }
            return (helper.readLine() ?? "no-answer").split(separator: " ").map(String.init)
        }
        done.withLock { $0 = true }
        #expect(outcomes.count == 2 * names)
        #expect(Set(outcomes).isSubset(of: ["ok", "locked"]), "\(outcomes)")
        #expect(fixture.directory.entries() == Set((0..<names).map { "db-\($0)" }))
        for index in 0..<names {
            #expect(StoreDirectory.kind(of: fixture.directory.path + "/db-\(index)") == .database)
        }
    }
}
