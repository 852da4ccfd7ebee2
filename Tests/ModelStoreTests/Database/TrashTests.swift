import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// A delete renames the database to a `.modelstore-trash-*` folder, then empties it. A kill
/// half-way must never leave trash behind for good: the next delete, `deleteAllDatabases` or
/// open in the root finishes it, and never touches a foreign folder or a link's target.
@Suite("Deleting through the trash", .serialized)
struct TrashTests {
    /// What a crash of an older ModelStore left: a trash folder whose marker is already gone,
    /// with many files, a `lost/` folder and a link to a foreign folder.
    private func leaveMarkerlessTrash(in fixture: Fixture, files: Int = 1_000) throws -> String {
        let trash = fixture.directory.path + "/.modelstore-trash-0A1B2C3D"
        let manager = FileManager.default
        try manager.createDirectory(atPath: trash + "/lost", withIntermediateDirectories: true)
        for index in 0..<files {
            try Data("t".utf8).write(to: URL(fileURLWithPath: trash + "/\(100_000 + index).ldb"))
        }
        try Data("l".utf8).write(to: URL(fileURLWithPath: trash + "/lost/000003.log"))
        try manager.createSymbolicLink(atPath: trash + "/link", withDestinationPath: foreignFolder(fixture))
        try manager.createSymbolicLink(atPath: trash + "/lost/link", withDestinationPath: foreignFolder(fixture))
        return trash
    }

    /// A folder outside the root with a file in it; nothing ModelStore does may touch it.
    private func foreignFolder(_ fixture: Fixture) -> String {
        let path = fixture.directory.path + "-foreign"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: path + "/keep.txt", contents: Data("user".utf8))
        return path
    }

    private func expectForeignIntact(_ fixture: Fixture) throws {
        let path = fixture.directory.path + "-foreign/keep.txt"
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "user")
    }

    /// Trash-looking names in the root that are not ours: a link and a regular file.
    private func addLookalikes(_ fixture: Fixture) throws {
        let root = fixture.directory.path
        try FileManager.default.createSymbolicLink(
            atPath: root + "/.modelstore-trash-link", withDestinationPath: foreignFolder(fixture))
        _ = FileManager.default.createFile(atPath: root + "/.modelstore-trash-file", contents: Data("f".utf8))
    }

    private let lookalikes: Set<String> = [".modelstore-trash-link", ".modelstore-trash-file"]

    @Test("deleteDatabase finishes trash an interrupted delete left, even without its marker")
    func deleteFinishesTrash() throws {
        let fixture = Fixture()
        _ = try leaveMarkerlessTrash(in: fixture)
        try addLookalikes(fixture)
        try fixture.openQuietly("other").close()
        try ModelStore.deleteDatabase(named: "other", in: fixture.directory.url)
        #expect(fixture.directory.entries() == lookalikes)
        try expectForeignIntact(fixture)
    }

    @Test("deleteAllDatabases finishes trash an interrupted delete left, even without its marker")
    func deleteAllFinishesTrash() throws {
        let fixture = Fixture()
        _ = try leaveMarkerlessTrash(in: fixture)
        try addLookalikes(fixture)
        try ModelStore.deleteAllDatabases(in: fixture.directory.url)
        #expect(fixture.directory.entries() == lookalikes)
        try expectForeignIntact(fixture)
    }

    @Test("Opening a database in the root finishes trash in the background")
    func openFinishesTrash() throws {
        let fixture = Fixture()
        _ = try leaveMarkerlessTrash(in: fixture)
        let store = try fixture.openQuietly("other")
        DatabaseTrash.waitForCleanup()
        #expect(fixture.directory.entries() == ["other"])
        try store.close()
        try expectForeignIntact(fixture)
    }

    @Test("Killed at any moment of a delete, the next delete, deleteAll or open leaves no trash (24 rounds)", .long)
    func killDuringDelete() throws {
        let fixture = Fixture()
        try addLookalikes(fixture)
        var random = SeededGenerator(seed: 0x7A54)
        let steps: [CrashPoint?] = [.deleteRenamed, .trashEmptied, .trashUnmarked, nil, nil, nil]
        var killedWithTrash = 0
        for round in 0..<24 {
            try SampleDatabase(fixture, count: 300, placement: .tables)
            // Thousands of files, as in a database LevelDB's repair left many files in.
            let lost = fixture.directory.path + "/db/lost"
            try FileManager.default.createDirectory(atPath: lost, withIntermediateDirectories: true)
            for index in 0..<600 { _ = FileManager.default.createFile(atPath: lost + "/\(index).ldb", contents: nil) }
            try FileManager.default.createSymbolicLink(
                atPath: lost + "/link", withDestinationPath: foreignFolder(fixture))

            let step = steps[round % steps.count]
            let helper = try ChildProcess.testHelper(
                ["delete", fixture.directory.path, "db"],
                environment: step.map { ["MODELSTORE_TEST_CRASH_AT": $0.rawValue] } ?? [:])
            #expect(helper.readLine() == "ready")
            if step == nil {
                usleep(UInt32.random(in: 0..<30_000, using: &random))
                helper.kill()
            }
            let lines = helper.finish()  // with a step, the helper kills itself there
            if step != nil { #expect(helper.process.terminationReason == .uncaughtSignal, "\(lines)") }
            let pending = DatabaseTrash.pending(in: fixture.directory.path)
            if !pending.isEmpty { killedWithTrash += 1 }
            if step == .trashEmptied, let trash = pending.first {
                // The marker goes last, so interrupted trash stays recognisable as ours.
                let left = Set(DatabaseFiles.names(in: fixture.directory.path + "/" + trash))
                #expect(left == [".modelstore"], "\(lines)")
            }

            switch round % 3 {
            case 0:
                try ModelStore.deleteDatabase(named: "db", in: fixture.directory.url)
            case 1:
                try ModelStore.deleteAllDatabases(in: fixture.directory.url)
            default:
                try fixture.openQuietly("db").close()  // a database not deleted yet opens as before
                DatabaseTrash.waitForCleanup()
                try ModelStore.deleteDatabase(named: "db", in: fixture.directory.url)
            }
            #expect(fixture.directory.entries() == lookalikes, "round \(round)")
            try expectForeignIntact(fixture)
        }
        #expect(killedWithTrash > 0)
        print("delete kill rounds: 24, kills that left trash: \(killedWithTrash)")
    }
}
