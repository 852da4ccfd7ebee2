import Foundation
import Testing

/// The tool's command line as a whole: help, usage errors and their exit codes.
@Suite struct CommandLineTests {
    @Test func helpListsTheCommandsAndExitsWithSuccess() throws {
        let result = try ToolProcess.modelstore(["--help"])
        #expect(result.status == 0)
        for command in ["list", "stats", "keys", "get", "dump", "sweep", "compact", "delete", "delete-all"] {
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
        #expect(nested.status == 3)
        #expect(try ToolProcess.modelstore(["keys", ".."] + fixture.rootArguments).status == 3)
    }
}
