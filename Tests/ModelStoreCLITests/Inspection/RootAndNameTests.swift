import Foundation
import ModelStore
import Testing
import ModelStoreTestSupport

/// Where the tool looks (`--root`) and how it tells names apart.
@Suite struct RootAndNameTests {
    @Test func withoutRootTheToolSaysWhereProgramsKeepTheirDatabasesAndExitsWithUsage() throws {
        let result = try ToolProcess.modelstore(["list"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--root is required"))
        #expect(result.stderr.contains("/ModelStore/<program>"))
    }

    @Test func withoutRootTheAdvisedCommandListsTheProgramsDatabases() throws {
        // A caches folder of its own (XDG_CACHE_HOME), with a program whose name needs quoting.
        let caches = StoreFixture().root
        let folder = caches.appendingPathComponent("ModelStore/my app's", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var configuration = ModelStore.Configuration()
        configuration.directory = folder
        try ModelStore(name: "books", policy: .never, configuration: configuration).close()

        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CACHE_HOME"] = caches.path
        let result = try ChildProcess.run(try ChildProcess.executable(named: "modelstore"), ["list"], environment: environment)
        #expect(result.status == 2)
        let advice = try AdviceRunner.command("list", in: result.stderr)
        let listed = try AdviceRunner.run(advice)
        #expect(listed.status == 0, "\(advice): \(listed.stderr)")
        #expect(listed.lines.contains { $0.hasPrefix("books ") }, "\(listed.stdout)")
    }

    @Test func withoutRootOnlyProgramsWithDatabasesAreSuggested() throws {
        // An empty folder (a program that deleted its databases), a folder with a database, and
        // a folder holding only something else.
        let caches = StoreFixture().root
        let programs = caches.appendingPathComponent("ModelStore", isDirectory: true)
        for name in ["modelstore-demo", "kept", "other"] {
            try FileManager.default.createDirectory(
                at: programs.appendingPathComponent(name), withIntermediateDirectories: true)
        }
        try Data("notes".utf8).write(to: programs.appendingPathComponent("other/notes.txt"))
        var configuration = ModelStore.Configuration()
        configuration.directory = programs.appendingPathComponent("kept")
        try ModelStore(name: "books", policy: .never, configuration: configuration).close()

        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CACHE_HOME"] = caches.path
        let result = try ChildProcess.run(try ChildProcess.executable(named: "modelstore"), ["list"], environment: environment)
        #expect(result.status == 2)
        #expect(result.stderr.contains("Programs with databases there: kept."), "\(result.stderr)")
        #expect(!result.stderr.contains("modelstore-demo") && !result.stderr.contains("other"), "\(result.stderr)")
    }

    @Test func canonicallyEquivalentNamesAreListedAndReadAsTwoDatabases() throws {
        let fixture = StoreFixture()
        let (composed, decomposed) = ("caf\u{E9}", "cafe\u{301}")
        try fixture.write(["k": Book.sample()], in: composed)
        let probe = fixture.root.path + "/" + decomposed
        var info = stat()
        try #require(lstat(probe, &info) != 0, "this file system maps both spellings to one folder")
        try fixture.write(["k": Book.sample(), "only-nfd": Book.sample()], in: decomposed)

        let rows = try ToolProcess.modelstore(["list", "--json"] + fixture.rootArguments).json() as? [[String: Any]]
        let names = try #require(rows).compactMap { $0["name"] as? String }
        #expect(Set(names.map { Array($0.utf8) }) == [Array(composed.utf8), Array(decomposed.utf8)])
        let keysNFD = try ToolProcess.modelstore(["keys", decomposed] + fixture.rootArguments)
        #expect(keysNFD.lines == ["k", "only-nfd"])
        let keysNFC = try ToolProcess.modelstore(["keys", composed] + fixture.rootArguments)
        #expect(keysNFC.lines == ["k"])
    }
}
