import Foundation
import Testing
import ModelStoreTestSupport

/// The tool's command line as a whole: help, usage errors and their exit codes.
@Suite struct CommandLineTests {
    @Test func helpListsTheCommandsAndExitsWithSuccess() throws {
        let result = try ToolProcess.modelstore(["--help"])
        #expect(result.status == 0)
        for command in ["list", "stats", "keys", "get", "dump", "sweep", "compact", "remove", "delete", "delete-all"] {
            #expect(result.stdout.contains("  \(command) "))
        }
    }

    @Test func unknownCommandIsAUsageError() throws {
        let result = try ToolProcess.modelstore(["frobnicate"])
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(!result.stderr.isEmpty)
    }

    @Test func missingArgumentIsAUsageError() throws {
        #expect(try ToolProcess.modelstore(["get", "books"]).status == 2)
    }

    @Test func nameThatLeavesTheRootIsNeverADatabase() throws {
        let fixture = StoreFixture()
        try fixture.write(["a": Book.sample()], in: "books")
        let nested = try ToolProcess.modelstore(
            ["keys", "../\(fixture.root.lastPathComponent)/books"] + fixture.rootArguments)
        #expect(nested.status == 2)
        #expect(nested.stdout.isEmpty)
        #expect(try ToolProcess.modelstore(["keys", ".."] + fixture.rootArguments).status == 2)
    }

    /// Every command that takes a NAME, with the arguments it needs besides.
    static let namedCommands: [[String]] = [
        ["stats"], ["keys"], ["get", "@", "key"], ["dump"], ["sweep", "@", "--policy", "low"], ["compact"],
        ["repair"], ["delete"], ["remove", "@", "key"],
    ]

    /// `command` with `name` in the NAME position.
    private func arguments(_ command: [String], name: String) -> [String] {
        command.count == 1 ? command + [name] : command.map { $0 == "@" ? name : $0 }
    }

    @Test(arguments: namedCommands)
    func invalidNameIsAUsageErrorThatSaysInvalidName(command: [String]) throws {
        let fixture = StoreFixture()
        for name in ["a/b", "..", "."] {
            let result = try ToolProcess.modelstore(arguments(command, name: name) + fixture.rootArguments)
            #expect(result.status == 2, "\(command) \(name)")
            #expect(result.stderr.contains("invalid database name"), "\(command) \(name): \(result.stderr)")
            #expect(!result.stderr.contains("no database named"))
        }
    }

    @Test(arguments: namedCommands)
    func foreignFolderIsReportedAsNotAModelStoreDatabaseAndLeftAlone(command: [String]) throws {
        let fixture = StoreFixture()
        let photos = fixture.root.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: photos.appendingPathComponent("a.jpg"))

        let result = try ToolProcess.modelstore(arguments(command, name: "photos") + fixture.rootArguments)
        #expect(result.status == 3)
        #expect(result.stderr.contains("is not a ModelStore database"), "\(command): \(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: photos.path) == ["a.jpg"])
    }

    @Test func negativeLimitIsAUsageErrorThatSaysWhy() throws {
        let fixture = StoreFixture()
        try fixture.write(["a": Book.sample()], in: "books")
        let result = try ToolProcess.modelstore(["keys", "books", "--limit", "-5"] + fixture.rootArguments)
        #expect(result.status == 2)
        #expect(result.stderr.contains("--limit must be 0 or more"))
    }

    @Test(arguments: [["stats"], ["keys"], ["get", "@", "a"], ["dump"], ["sweep"]])
    func negativePolicyIsAUsageErrorThatSaysWhy(command: [String]) throws {
        let fixture = StoreFixture()
        try fixture.write(["a": Book.sample()], in: "books")
        let result = try ToolProcess.modelstore(
            arguments(command, name: "books") + ["--policy", "-5"] + fixture.rootArguments)
        #expect(result.status == 2)
        #expect(result.stderr.contains("must be positive"), "\(command): \(result.stderr)")
    }
}
