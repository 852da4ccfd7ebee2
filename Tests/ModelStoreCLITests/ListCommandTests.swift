import Foundation
import ModelStore
import Testing

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
        #expect(text.lines.count == 3)  // header + two databases
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

    @Test func listOfARootThatDoesNotExistIsEmptyAndCreatesNothing() throws {
        let fixture = StoreFixture()
        let missing = fixture.root.appendingPathComponent("nowhere")
        let result = try ToolProcess.modelstore(["list", "--root", missing.path])
        #expect(result.status == 0)
        #expect(result.stdout.contains("No databases under"))
        #expect(try ToolProcess.modelstore(["list", "--json", "--root", missing.path]).json() as? [Any] != nil)
        #expect(!FileManager.default.fileExists(atPath: missing.path))
    }

    @Test func listMarksADatabaseOpenInAnotherProcessAsLocked() throws {
        let fixture = StoreFixture()
        try fixture.write(["a": Book.sample()], in: "books")
        let holder = try fixture.open("books")
        defer { try? holder.close() }

        let result = try ToolProcess.modelstore(["list", "--json"] + fixture.rootArguments)
        #expect(result.status == 0)
        let rows = try result.decode([Row].self)
        #expect(rows.map(\.status) == ["locked"])
        #expect(rows.first?.records == nil)
    }
}
