import Foundation
@testable import ModelStore
import Testing
import ModelStoreTestSupport

/// `modelstore list` and `delete-all` with a deletion that a crash interrupted: a
/// `.modelstore-trash-*` folder (here without its marker, as an older version left it).
@Suite struct InterruptedDeletionTests {
    /// Leaves a trash folder with a few files and no marker; returns its name.
    private func leaveTrash(in fixture: StoreFixture) throws -> String {
        let name = ".modelstore-trash-5E1F"
        let folder = fixture.root.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for index in 0..<20 {
            try Data("x".utf8).write(to: folder.appendingPathComponent("\(100 + index).ldb"))
        }
        return name
    }

    @Test func listShowsAnInterruptedDeletion() throws {
        let fixture = StoreFixture()
        try fixture.write(["a": Book.sample()], in: "books")
        let trash = try leaveTrash(in: fixture)

        let json = try ToolProcess.modelstore(["list", "--json"] + fixture.rootArguments)
        #expect(json.status == 0)
        let rows = try json.decode([ListCommandTests.Row].self)
        #expect(rows.map(\.name) == ["books", trash])
        #expect(rows.map(\.status) == ["ok", "deleting"])

        let text = try ToolProcess.modelstore(["list"] + fixture.rootArguments)
        #expect(text.lines.contains { $0.hasPrefix(trash) && $0.contains("deleting") })
        // Inspecting changes nothing: only delete and delete-all finish the deletion.
        #expect(FileManager.default.fileExists(atPath: fixture.root.appendingPathComponent(trash).path))
    }

    @Test func deleteAllFinishesAnInterruptedDeletion() throws {
        let fixture = StoreFixture()
        let trash = try leaveTrash(in: fixture)

        let result = try ToolProcess.modelstore(["delete-all", "--yes"] + fixture.rootArguments)
        #expect(result.status == 0)
        #expect(result.stdout.contains("finished 1 interrupted deletion"))
        #expect(!FileManager.default.fileExists(atPath: fixture.root.appendingPathComponent(trash).path))
    }

    /// Leaves what a first open killed after writing its marker leaves: a `.modelstore-new-*`
    /// folder with a complete marker, locked by no one.
    private func leaveKilledCreation(in fixture: StoreFixture) throws -> String {
        let name = ".modelstore-new-5E1F"
        let folder = fixture.root.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try StoreDirectory.writeMarker(in: folder.path)
        return name
    }

    @Test func listShowsAnInterruptedCreation() throws {
        let fixture = StoreFixture()
        try fixture.write(["a": Book.sample()], in: "books")
        let creation = try leaveKilledCreation(in: fixture)

        let json = try ToolProcess.modelstore(["list", "--json"] + fixture.rootArguments)
        #expect(json.status == 0)
        let rows = try json.decode([ListCommandTests.Row].self)
        #expect(rows.map(\.name) == ["books", creation])
        #expect(rows.map(\.status) == ["ok", "creating"])

        let text = try ToolProcess.modelstore(["list"] + fixture.rootArguments)
        #expect(text.lines.contains { $0.hasPrefix(creation) && $0.contains("creating") })
        #expect(fixture.contains(creation))  // inspecting changes nothing
    }

    @Test func deleteAndDeleteAllRemoveAnInterruptedCreation() throws {
        let fixture = StoreFixture()
        try fixture.write(["a": Book.sample()], in: "books")
        let creation = try leaveKilledCreation(in: fixture)
        let delete = try ToolProcess.modelstore(["delete", "books", "--yes"] + fixture.rootArguments)
        #expect(delete.status == 0)
        #expect(!fixture.contains(creation))

        let again = try leaveKilledCreation(in: fixture)
        let result = try ToolProcess.modelstore(["delete-all", "--yes"] + fixture.rootArguments)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("removed 1 interrupted creation"), "\(result.stdout)")
        #expect(!fixture.contains(again))
    }
}
