import Foundation
import ModelStore
import ModelStoreTestSupport
import Testing

@Suite("README")
struct ReadmeTests {
    static let root = PackageRoot.url

    /// The blocks of the quick-start demo marked `// README: name` … `// README: end`.
    static func demoBlocks() throws -> [String: String] {
        let source = try String(contentsOf: root.appendingPathComponent("Examples/QuickStart/main.swift"), encoding: .utf8)
        var blocks: [String: String] = [:]
        var current: (name: String, lines: [String])?
        for line in source.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed == "// README: end", let block = current {
                blocks[block.name] = block.lines.joined(separator: "\n")
                current = nil
            } else if trimmed.hasPrefix("// README: ") {
                current = (String(trimmed.dropFirst("// README: ".count)), [])
            } else if current != nil {
                current!.lines.append(String(line.dropFirst(4)))  // the demo indents blocks by 4
            }
        }
        return blocks
    }

    @Test("Every README code block taken from the demo appears verbatim, so the README's tour compiles")
    func tourMatchesDemo() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let blocks = try Self.demoBlocks()
        #expect(Set(blocks.keys) == ["basics", "import", "snapshot", "enumerate"])
        for (name, block) in blocks {
            #expect(readme.contains("```swift\n" + block + "\n```"), "README is missing the demo's \(name) block")
        }
    }

    @Test("The errors article's table has a row for every case of ModelStoreError, and the README links to it")
    func errorsTableNamesEveryCase() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let article = try String(
            contentsOf: Self.root.appendingPathComponent("Sources/ModelStore/ModelStore.docc/HandlingErrors.md"),
            encoding: .utf8)
        let table = try #require(article.components(separatedBy: "\n## Every case\n").dropFirst().first)
            .components(separatedBy: "\n## ").first ?? ""
        let cases = try ModelStoreErrorCases.declaredNames()
        #expect(cases.count > 20)
        for name in cases {
            #expect(table.contains("\n| `\(name)` |"), "HandlingErrors.md's table has no row for `\(name)`")
        }
        #expect(try Self.section("## Errors", in: readme).contains("(Sources/ModelStore/ModelStore.docc/HandlingErrors.md)"))
    }

    /// The README's section that starts with the heading `heading`, up to the next heading of
    /// its level or above.
    static func section(_ heading: String, in readme: String) throws -> String {
        let level = String(heading.prefix { $0 == "#" })
        let rest = try #require(readme.components(separatedBy: "\n" + heading + "\n").dropFirst().first)
        let ends = (1...level.count).map { "\n" + String(repeating: "#", count: $0) + " " }
        return ends.reduce(rest) { $0.components(separatedBy: $1).first ?? $0 }
    }

    @Test("The Quick start shows make demo, make test and make test-quick, each a target of the Makefile")
    func quickStartNamesTheMakeTargets() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let makefile = try String(contentsOf: Self.root.appendingPathComponent("Makefile"), encoding: .utf8)
        let quickStart = try Self.section("## Quick start", in: readme)
        let targets = quickStart.split(separator: "\n").filter { $0.hasPrefix("make ") }
            .compactMap { $0.split(separator: " ").dropFirst().first.map(String.init) }
        #expect(targets == ["demo", "test", "test-quick"])
        for target in targets {
            #expect(makefile.contains("\n\(target):"), "the Makefile has no target \(target)")
        }
        // Its prose says what make test-quick leaves out and how long it takes.
        #expect(quickStart.contains("`make test-quick` runs the tests of `make test` less those marked long"))
    }

    @Test("The driver manifests depend on a clone of this repository by path, and show the URL form as the alternative")
    func driverManifestsDependOnAClone() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        for driver in ["Hummingbird", "Vapor"] {
            let after = try #require(readme.components(separatedBy: "<!-- snippet: driver \(driver) manifest -->").dropFirst().first)
            let manifest = after.components(separatedBy: "\n```\n").first ?? ""
            let dependencies = manifest.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            #expect(dependencies.contains { $0.hasPrefix(".package(path: \"../ModelStore\", traits: [\"\(driver)\"])") })
            #expect(dependencies.contains { $0.hasPrefix("// or: .package(url: ") && $0.contains("/ModelStore\"") })
            #expect(!dependencies.contains { $0.hasPrefix(".package(url: ") && $0.contains("/ModelStore\"") })
        }
    }

    @Test("The Encryption section says in its prose that the app adds swift-crypto's Crypto product for SymmetricKey")
    func encryptionNamesTheCryptoProduct() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try Self.section("### Encryption at rest", in: readme)
        // The prose: what lies outside the code blocks.
        let prose = section.components(separatedBy: "```").enumerated().filter { $0.offset % 2 == 0 }
            .map(\.element).joined()
        #expect(prose.contains("`SymmetricKey`"))
        #expect(prose.contains(#"`.product(name: "Crypto", package: "swift-crypto")`"#))
    }

    @Test("The README stays a newcomer's page: under 900 lines, the reference material in the DocC articles")
    func readmeIsShort() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).count
        #expect(lines < 900, "README.md has \(lines) lines: move reference material into Sources/ModelStore/ModelStore.docc")
    }

    @Test("Every DocC article the README links to exists")
    func readmeLinksToArticlesThatExist() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let links = readme.components(separatedBy: "](Sources/ModelStore/ModelStore.docc/").dropFirst()
            .compactMap { $0.split(separator: ")").first.map(String.init) }
        #expect(links.count >= 10)
        for article in Set(links) {
            let url = Self.root.appendingPathComponent("Sources/ModelStore/ModelStore.docc/\(article)")
            #expect(FileManager.default.fileExists(atPath: url.path), "README links to a missing article \(article)")
        }
    }

    @Test("The compiled copy of the README's Swift blocks is up to date (run scripts/extract-readme-snippets)")
    func snippetsAreUpToDate() throws {
        let script = Self.root.appendingPathComponent("scripts/extract-readme-snippets")
        let run = try ChildProcess.run(URL(fileURLWithPath: "/bin/bash"), [script.path, "--stdout"])
        let generated = Data(run.stdout.utf8)
        #expect(run.status == 0, "scripts/extract-readme-snippets failed: \(run.stderr)")
        let file = Self.root.appendingPathComponent("Tests/ReadmeSnippets/ReadmeSnippets.swift")
        let committed = try Data(contentsOf: file)
        #expect(
            generated == committed,
            "Tests/ReadmeSnippets/ReadmeSnippets.swift is older than README.md: run scripts/extract-readme-snippets")
    }

    @Test("The Integrations package's copies of the README's driver blocks are up to date (run scripts/extract-driver-snippets)")
    func driverSnippetsAreUpToDate() throws {
        // The Integrations package checks this too, but only `make test-integrations` builds it:
        // a README edit that moves the driver blocks should fail the core suite as well.
        let script = Self.root.appendingPathComponent("scripts/extract-driver-snippets")
        let run = try ChildProcess.run(URL(fileURLWithPath: "/bin/bash"), [script.path, "--check"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
    }

    @Test("approximateSize() is 0 until the write buffer is flushed, as the README says")
    func approximateSizeCountsFlushedTablesOnly() throws {
        let store = try Fixture().open()
        for index in 0..<100 { try store.set(String(repeating: "x", count: 100), forKey: "k\(index)") }
        #expect(try store.approximateSize() == 0)
        try store.compact()
        #expect(try store.approximateSize() > 0)
    }

    @Test("approximateSize() counts the writes of an earlier open once the database is reopened")
    func approximateSizeCountsWritesAfterReopen() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        for index in 0..<100 { try store.set(String(repeating: "x", count: 100), forKey: "k\(index)") }
        try store.close()
        #expect(try fixture.open().approximateSize() > 0)
    }
}
