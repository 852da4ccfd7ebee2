import Foundation
import Testing
import ModelStoreTestSupport

/// The README's sample output of `modelstore get customers customer:42` is what its own import
/// commands (`modelstore-import --generate …`, then the import) make the tool print.
@Suite struct ReadmeImportSampleTests {
    /// The README's text.
    static func readme() throws -> String {
        try String(contentsOf: PackageRoot.url.appendingPathComponent("README.md"), encoding: .utf8)
    }

    /// The words of the README line that starts with `prefix` (a shell command without quotes).
    static func command(startingWith prefix: String, in readme: String) throws -> [String] {
        let line = try #require(
            readme.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(prefix) })
        let command = line.prefix { $0 != "#" }.trimmingCharacters(in: .whitespaces)
        return command.split(separator: " ").map(String.init)
    }

    @Test func sampleOutputOfGetIsWhatTheReadmesImportCommandsPrint() throws {
        let readme = try Self.readme()
        let generate = try Self.command(startingWith: "swift run modelstore-import --generate", in: readme)
        let importing = try Self.command(startingWith: "swift run modelstore-import /", in: readme)
        // `$ modelstore get …` and its output, up to the next command.
        let sample = readme.components(separatedBy: "\n$ modelstore get customers customer:42 ").dropFirst().first
        let sampleLines = try #require(sample).split(separator: "\n", omittingEmptySubsequences: false)
        let get = ["get", "customers", "customer:42"] + sampleLines[0].split(separator: " ").map(String.init)
        let expected = sampleLines.dropFirst().prefix { !$0.hasPrefix("$ ") }.map(String.init)

        // The README's paths, here in a temporary folder; its million customers, a hundred (42 is among them).
        let fixture = StoreFixture()
        let file = try #require(generate.last)
        let root = try #require(get.last)
        #expect(importing.contains(file) && importing.contains(root))
        func local(_ words: [String]) -> [String] {
            words.map { word in
                word == file
                    ? fixture.root.appendingPathComponent("customers.ndjson").path
                    : word == root ? fixture.root.appendingPathComponent("stores").path : word
            }
        }
        var generateArguments = local(Array(generate.dropFirst(3)))
        generateArguments[1] = "100"
        #expect(try ToolProcess.importJob(generateArguments).status == 0)
        let imported = try ToolProcess.importJob(local(Array(importing.dropFirst(3))))
        #expect(imported.status == 0, "\(imported.stderr)")
        let shown = try ToolProcess.modelstore(local(get))
        #expect(shown.status == 0, "\(shown.stderr)")

        let actual = shown.stdout.split(separator: "\n").map(String.init)
        #expect(actual.count == expected.count, "\(shown.stdout)")
        for (mine, theirs) in zip(actual, expected) where !mine.hasPrefix("stored at") && !mine.hasPrefix("expires at") {
            #expect(mine == theirs)
        }
        // The times are the run's own; what lies between them is the policy's lifetime, in both.
        #expect(try Self.lifetime(actual) == Self.lifetime(expected))
    }

    /// `expires at` minus `stored at` in `lines` of `get`'s output.
    static func lifetime(_ lines: [String]) throws -> TimeInterval {
        func date(_ label: String) throws -> Date {
            let line = try #require(lines.first { $0.hasPrefix(label) })
            let text = line.dropFirst(label.count).trimmingCharacters(in: .whitespaces)
            return try #require(ISO8601DateFormatter().date(from: text), "\(line)")
        }
        return try date("expires at").timeIntervalSince(date("stored at"))
    }
}
