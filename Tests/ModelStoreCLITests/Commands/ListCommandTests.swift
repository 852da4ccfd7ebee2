import Foundation
import ModelStore
import Testing
import ModelStoreTestSupport

/// `modelstore list`.
@Suite struct ListCommandTests {
    /// One element of `list --json`.
    struct Row: Decodable {
        let name: String
        let records: Int?
        let bytesOnDisk: UInt64
        let status: String
    }

    @Test func listsDatabasesWithRecordCountsAndSkipsOtherFolders() throws {
        let fixture = StoreFixture()
        try fixture.write(["a": Book.sample(), "b": Book.sample()], in: "books")
        try fixture.write(["x": Book.sample()], in: "authors")
        try FileManager.default.createDirectory(
            at: fixture.root.appendingPathComponent("photos"), withIntermediateDirectories: true)

        let text = try ToolProcess.modelstore(["list"] + fixture.rootArguments)
        #expect(text.status == 0)
        #expect(text.lines.count == 4)  // header, two databases, what RECORDS counts
        #expect(text.lines[0].hasPrefix("NAME"))
        #expect(text.lines[1].hasPrefix("authors") && text.lines[1].contains(" 1 "))
        #expect(text.lines[2].hasPrefix("books") && text.lines[2].contains(" 2 "))
        #expect(!text.stdout.contains("photos"))

        let json = try ToolProcess.modelstore(["list", "--json"] + fixture.rootArguments)
        #expect(json.status == 0)
        let rows = try json.decode([Row].self)
        #expect(rows.map(\.name) == ["authors", "books"])
        #expect(rows.map(\.records) == [1, 2])
        #expect(rows.allSatisfy { $0.status == "ok" && $0.bytesOnDisk > 0 })
    }

    @Test func listOfARootThatDoesNotExistIsAnErrorAndCreatesNothing() throws {
        let fixture = StoreFixture()
        let missing = fixture.root.appendingPathComponent("nowhere")
        for json in [[], ["--json"]] {
            let result = try ToolProcess.modelstore(["list", "--root", missing.path] + json)
            #expect(result.status == 3)
            #expect(result.stdout.isEmpty)
            #expect(result.stderr == "error: no directory at \(missing.path): no database has been created under "
                + "this root. Check --root, or create a database there first.\n")
        }
        #expect(!FileManager.default.fileExists(atPath: missing.path))
    }

    @Test func listOfARegularFileIsAUsageError() throws {
        let fixture = StoreFixture()
        let file = fixture.root.appendingPathComponent("notes.txt")
        try Data("hello".utf8).write(to: file)
        let result = try ToolProcess.modelstore(["list", "--root", file.path])
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("is a file, not a directory of databases"))
    }

    @Test func listSaysItsCountsIncludeExpiredRecords() throws {
        let fixture = StoreFixture()
        try fixture.write(["a": Book.sample()], in: "books", storedAgo: 30 * 86_400)
        let text = try ToolProcess.modelstore(["list"] + fixture.rootArguments)
        #expect(text.stdout.contains("RECORDS counts every stored record, expired ones included (no policy applied)"))
        let json = try ToolProcess.modelstore(["list", "--json"] + fixture.rootArguments)
        let rows = try #require(try json.json() as? [[String: Any]])
        #expect(rows.map { $0["includesExpired"] as? Bool } == [true])
    }

    @Test func listCountsADatabaseOpenInAnotherProcessFromAPrivateCopyAndSaysSo() throws {
        let fixture = StoreFixture()
        try fixture.write(["a": Book.sample()], in: "books")
        let holder = try fixture.open("books")
        defer { try? holder.close() }
        try holder.set(Book.sample(), forKey: "b")

        let result = try ToolProcess.modelstore(["list", "--json"] + fixture.rootArguments)
        #expect(result.status == 0)
        let rows = try result.decode([Row].self)
        #expect(rows.map(\.status) == ["ok"])
        #expect(rows.first?.records == 2)
        #expect(result.stderr.contains("books is open in another process"), "\(result.stderr)")
        #expect(result.stderr.contains("private copy"))
    }
}
