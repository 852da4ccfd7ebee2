import Foundation
import ModelStore
import Testing
import ModelStoreTestSupport

/// `modelstore delete` and `modelstore delete-all`.
@Suite struct DeleteCommandTests {
    @Test func deleteRemovesOnlyThatDatabase() throws {
        let fixture = StoreFixture()
        try fixture.write(["a": Book.sample()], in: "books")
        try fixture.write(["a": Book.sample()], in: "authors")

        let result = try ToolProcess.modelstore(["delete", "books", "--yes"] + fixture.rootArguments)
        #expect(result.status == 0)
        #expect(result.stdout.contains("Deleted database books"))
        #expect(!fixture.contains("books"))
        #expect(fixture.contains("authors"))
    }

    @Test func deleteOfAMissingDatabaseExitsWithNotFound() throws {
        let fixture = StoreFixture()
        let result = try ToolProcess.modelstore(["delete", "ghost", "--yes"] + fixture.rootArguments)
        #expect(result.status == 3)
        #expect(result.stderr.contains("no database named \"ghost\""))
    }

    @Test func deleteLeavesAFolderThatIsNotADatabase() throws {
        let fixture = StoreFixture()
        let photos = fixture.root.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: photos.appendingPathComponent("cat.jpg"))
        #expect(try ToolProcess.modelstore(["delete", "photos", "--yes"] + fixture.rootArguments).status == 3)
        #expect(FileManager.default.fileExists(atPath: photos.appendingPathComponent("cat.jpg").path))
    }

    @Test func deleteOfADatabaseOpenElsewhereExitsWithLocked() throws {
        let fixture = StoreFixture()
        try fixture.write(["a": Book.sample()], in: "books")
        let holder = try fixture.open("books")
        defer { try? holder.close() }
        let result = try ToolProcess.modelstore(["delete", "books", "--yes"] + fixture.rootArguments)
        #expect(result.status == 4)
        #expect(fixture.contains("books"))
    }

    @Test func deleteWithoutYesAndWithoutATerminalRefusesAndSaysToPassYes() throws {
        let fixture = StoreFixture()
        try fixture.write(["a": Book.sample()], in: "books")
        let result = try ToolProcess.modelstore(["delete", "books"] + fixture.rootArguments)
        #expect(result.status == 2)
        #expect(result.stderr.contains("--yes"), "\(result.stderr)")
        #expect(fixture.contains("books"))

        // The advice, run as printed, deletes it.
        let advice = try AdviceRunner.command("delete", in: result.stderr)
        #expect(advice.contains("--yes"))
        #expect(try AdviceRunner.run(advice).status == 0)
        #expect(!fixture.contains("books"))
    }

    @Test func deleteOnATerminalAsksAndDeletesOnlyOnYes() throws {
        let fixture = StoreFixture()
        try fixture.write(["a": Book.sample()], in: "books")
        for answer in ["\n", "n\n", "no\n", "yes please\n"] {
            let declined = try TerminalSession.modelstore(["delete", "books"] + fixture.rootArguments, typing: answer)
            #expect(declined.status == 1, "\(answer.debugDescription): \(declined.stderr)")
            #expect(declined.stderr.contains("Delete database \"books\""), "\(declined.stderr)")
            #expect(declined.stderr.contains("nothing was deleted"), "\(declined.stderr)")
            #expect(fixture.contains("books"))
        }
        let confirmed = try TerminalSession.modelstore(["delete", "books"] + fixture.rootArguments, typing: "y\n")
        #expect(confirmed.status == 0, "\(confirmed.stderr)")
        #expect(confirmed.stdout.contains("Deleted database books"))
        #expect(!fixture.contains("books"))
    }

    @Test func deleteAllWithoutYesRefusesAndDeletesNothing() throws {
        let fixture = StoreFixture()
        try fixture.write(["a": Book.sample()], in: "books")
        try fixture.write(["a": Book.sample()], in: "authors")

        let result = try ToolProcess.modelstore(["delete-all"] + fixture.rootArguments)
        #expect(result.status == 2)
        #expect(result.stderr.contains("--yes"))
        #expect(result.stderr.contains("2 databases: authors, books"))
        #expect(fixture.contains("books") && fixture.contains("authors"))
        #expect(try AdviceRunner.run(try AdviceRunner.command("delete-all", in: result.stderr)).status == 0)
        #expect(!fixture.contains("books") && !fixture.contains("authors"))
    }

    @Test func deleteAllDeletesWhatItCanAndExitsWithLockedForADatabaseOpenElsewhere() throws {
        let fixture = StoreFixture()
        try fixture.write(["a": Book.sample()], in: "books")
        try fixture.write(["a": Book.sample()], in: "authors")
        let holder = try fixture.open("books")
        defer { try? holder.close() }

        let result = try ToolProcess.modelstore(["delete-all", "--yes"] + fixture.rootArguments)
        #expect(result.status == 4)
        #expect(result.stderr.contains("Deleted: authors; still there: books."))
        #expect(!fixture.contains("authors"))
        #expect(fixture.contains("books"))
    }

    @Test func deleteAllWithYesDeletesEveryDatabaseAndNothingElse() throws {
        let fixture = StoreFixture()
        try fixture.write(["a": Book.sample()], in: "books")
        try fixture.write(["a": Book.sample()], in: "authors")
        let notes = fixture.root.appendingPathComponent("notes.txt")
        try Data("keep".utf8).write(to: notes)

        let result = try ToolProcess.modelstore(["delete-all", "--yes"] + fixture.rootArguments)
        #expect(result.status == 0)
        #expect(result.stdout.contains("Deleted 2 databases"))
        #expect(!fixture.contains("books") && !fixture.contains("authors"))
        #expect(FileManager.default.fileExists(atPath: notes.path))
    }

    @Test func deleteAllOnARootThatDoesNotExistIsAnErrorAndCreatesNothing() throws {
        let fixture = StoreFixture()
        let missing = fixture.root.appendingPathComponent("nowhere")
        let result = try ToolProcess.modelstore(["delete-all", "--yes", "--root", missing.path])
        #expect(result.status == 3)
        #expect(result.stderr.contains("no directory at \(missing.path)"))
        #expect(!FileManager.default.fileExists(atPath: missing.path))
    }
}
