import Foundation
import Testing
@testable import ModelStore
@testable import ModelStoreCLI
import ModelStoreTestSupport

/// Every error the tool prints advises the tool's own commands and options, never API calls: each
/// case of `ModelStoreError` as the tool words it, every failing command line a person can type,
/// and every command and option quoted in the tool's source.
@Suite struct CommandLineAdviceTests {
    @Test("Every case of ModelStoreError, in the tool's words, advises only commands and options the tool has")
    func everyStoreErrorIsSaidInTheToolsWords() throws {
        #expect(try ModelStoreErrorCases.missingSamples() == [])
        let check = try AdviceCheck()
        for error in ModelStoreErrorCases.samples {
            let message = CommandFailure(storeError: error).message
            #expect(check.problems(in: message) == [], "\(ModelStoreErrorCases.name(of: error)): \(message)")
        }
    }

    @Test("Every command and option quoted in the tool's source exists")
    func everyQuotedCommandAndOptionExists() throws {
        let check = try AdviceCheck()
        let sources = PackageRoot.url.appendingPathComponent("Sources/ModelStoreCLI")
        let files = FileManager.default.enumerator(atPath: sources.path)?.compactMap { $0 as? String } ?? []
        var quoted = 0
        for file in files where file.hasSuffix(".swift") {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                for segment in AdviceRunner.backticked(in: String(line)) {
                    // Commands built at run time (`\(command)`) are checked by the other tests.
                    let words = segment.split(separator: " ").map(String.init)
                    // `--` alone is the end of options, which the tool's parser takes.
                    guard let first = words.first, !first.hasPrefix("\\("), first != "--" else { continue }
                    let subcommand = first == "modelstore" ? words.dropFirst().first : first
                    if first.hasPrefix("--") {
                        quoted += 1
                        #expect(check.problems(in: "`\(first)`") == [], "\(file): \(segment)")
                    } else if let subcommand, first == "modelstore" || check.options[subcommand] != nil {
                        quoted += 1
                        #expect(check.options[subcommand] != nil, "\(file): \(segment)")
                        for option in words where option.hasPrefix("--") && option.count > 2 {
                            let name = String(option.dropFirst(2).prefix { $0 != "=" })
                            #expect(check.options[subcommand]?.contains(name) == true, "\(file): \(segment)")
                        }
                    }
                }
            }
        }
        #expect(quoted > 20)
    }

    @Test("Every failing command line advises commands and options that exist, with the documented exit code")
    func failingCommandLines() throws {
        let fixture = StoreFixture()
        let store = try fixture.open("books")
        try store.set(Book.sample(), forKey: "k")
        let shelf = store.collection("shelf")
        try shelf.defineIndex("byPrice", of: Book.self, version: 1) { [.double($0.price)] }
        try shelf.set(Book.sample(), forKey: "s1")
        struct Refusal: Error {}
        _ = try? shelf.defineIndex("unfinished", of: Book.self, version: 1) { _ in throw Refusal() }
        try store.set(Book.sample(), forKey: "damaged")
        try RecordDamage.flipPayloadBit(of: "damaged", in: store)
        try store.close()
        let elsewhere = fixture.root.deletingLastPathComponent().appendingPathComponent(UUID().uuidString)
        let backup = elsewhere.appendingPathComponent("books-copy").path
        #expect(try ToolProcess.modelstore(["backup", "books", backup] + fixture.rootArguments).status == 0)
        let plainFolder = elsewhere.appendingPathComponent("plain")
        try FileManager.default.createDirectory(at: plainFolder, withIntermediateDirectories: true)
        let aFile = elsewhere.appendingPathComponent("file").path
        try Data("x".utf8).write(to: URL(fileURLWithPath: aFile))
        // A copy whose reset a crash interrupted: its journal, not its files, says what it holds.
        let interrupted = elsewhere.appendingPathComponent("interrupted").path
        #expect(try ToolProcess.modelstore(["backup", "books", interrupted] + fixture.rootArguments).status == 0)
        try Data().write(to: URL(fileURLWithPath: interrupted + "/" + DatabaseResetter.journalName))

        // The command line, the exit code, and what the message must say.
        var cases: [([String], Int32, String)] = [
            (["query", "books", "shelf", "byAuthor", "x"], 3, "no index \"byAuthor\""),
            (["query", "books", "shelf", "unfinished", "x"], 1, "not built yet"),
            (["query", "books", "shelf", "byPrice", "x", "--type", "int"], 2, "not a valid int"),
            (["restore", backup, "books"], 1, "--replace"),
            (["restore", elsewhere.appendingPathComponent("missing").path, "again"], 3, "no folder at"),
            (["restore", plainFolder.path, "again"], 3, "is not a ModelStore database"),
            (["restore", backup, "a/b"], 2, "Invalid database name"),
            (["restore", interrupted, "again"], 1, "`modelstore repair interrupted --root "),
            (["backup", "books", backup], 1, "Give a DEST that does not exist"),
            (["get", "books", "nope"], 3, "no record with key"),
            (["get", "books", "damaged"], 1, "modelstore remove"),
            (["stats", "ghost"], 3, "no database named"),
            (["delete", "books"], 2, "--yes"),
            (["delete-all"], 2, "--yes"),
            (["keys", "books", "--collection", ""], 2, "collection"),
        ]
        #if Encryption
        let keyFile = elsewhere.appendingPathComponent("key")
        try Data(TestKeys.bytes(3)).write(to: keyFile)
        cases.append((["get", "books", "k", "--key-file", keyFile.path], 1, "without `--key-file`"))
        #endif
        let check = try AdviceCheck()
        for (arguments, status, says) in cases {
            let result = try ToolProcess.modelstore(arguments + fixture.rootArguments)
            let line = arguments.joined(separator: " ")
            #expect(result.status == status, "\(line): \(result.stderr)")
            #expect(result.stderr.contains(says), "\(line): \(result.stderr)")
            #expect(check.problems(in: result.stderr, subcommand: arguments[0]) == [], "\(line): \(result.stderr)")
        }

        let noRoot = try ToolProcess.modelstore(["list"])
        #expect(noRoot.status == 2)
        #expect(check.problems(in: noRoot.stderr, subcommand: "list") == [], "\(noRoot.stderr)")
        let fileRoot = try ToolProcess.modelstore(["keys", "books", "--root", aFile])
        #expect(fileRoot.status == 2)
        #expect(check.problems(in: fileRoot.stderr, subcommand: "keys") == [], "\(fileRoot.stderr)")

        // A database another process holds: the commands that change it say so, with exit 4.
        let holder = try fixture.open("books")
        defer { try? holder.close() }
        for arguments in [["compact", "books"], ["repair", "books"], ["sweep", "books", "--policy", "low"]] {
            let result = try ToolProcess.modelstore(arguments + fixture.rootArguments)
            #expect(result.status == 4, "\(arguments): \(result.stderr)")
            #expect(check.problems(in: result.stderr, subcommand: arguments[0]) == [], "\(arguments): \(result.stderr)")
        }
    }
}
