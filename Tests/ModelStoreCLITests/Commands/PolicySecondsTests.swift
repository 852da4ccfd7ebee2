import Foundation
import Testing
import ModelStoreTestSupport

/// `--policy` in seconds, the tool's one time option, at the extremes a user can type: every
/// command that takes it keeps a positive, finite number (however large) and refuses the rest
/// as a usage error that says why, never a crash.
@Suite struct PolicySecondsTests {
    /// What Double's parser reads from each: zero, negative, NaN, infinities (also "1e400",
    /// which overflows to infinity), the smallest and the largest finite numbers.
    static let refused = ["0", "-0", "-5", "nan", "inf", "-inf", "infinity", "1e400", "-1e400"]
    static let accepted = ["5e-324", "1e20", "1e30", "1.7976931348623157e308"]

    static let commands: [[String]] = [
        ["stats", "books"], ["keys", "books"], ["get", "books", "a"], ["dump", "books"], ["sweep", "books"],
        ["collections", "books"],
    ]

    @Test(arguments: commands)
    func extremeSecondsAreKeptOrRefusedNeverCrash(command: [String]) throws {
        let fixture = StoreFixture()
        try fixture.write(["a": Book.sample()], in: "books", storedAgo: 60)
        for value in Self.refused {
            let result = try ToolProcess.modelstore(command + ["--policy", value] + fixture.rootArguments)
            #expect(result.status == 2, "\(command) --policy \(value): \(result.stderr)")
            #expect(result.stderr.contains("must be positive and finite"), "\(command) --policy \(value): \(result.stderr)")
        }
        for value in Self.accepted {
            let result = try ToolProcess.modelstore(command + ["--policy", value] + fixture.rootArguments)
            #expect(result.status == 0, "\(command) --policy \(value): \(result.stderr)")
        }
    }

    @Test func importJobKeepsOrRefusesTheSameSeconds() throws {
        let fixture = StoreFixture()
        let file = fixture.root.appendingPathComponent("customers.ndjson")
        #expect(try ToolProcess.importJob(["--generate", "3", file.path]).status == 0)
        for value in Self.refused {
            let result = try ToolProcess.importJob([file.path, "--policy", value] + fixture.rootArguments)
            #expect(result.status != 0, "--policy \(value)")
            #expect(result.stderr.contains("unknown policy"), "--policy \(value): \(result.stderr)")
        }
        for value in Self.accepted {
            let result = try ToolProcess.importJob([file.path, "--policy", value] + fixture.rootArguments)
            #expect(result.status == 0, "--policy \(value): \(result.stderr)")
        }
    }
}
