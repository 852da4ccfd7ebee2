import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

@Suite("Database names")
struct DatabaseNameTests {
    static let badNames: [String] = [
        "", ".", "..", "a/b", "/abs", "../escape", "a\\b", "nul\0name", "tab\tname", "new\nline",
        "bell\u{7}", "del\u{7f}", String(repeating: "x", count: 201), String(repeating: "é", count: 101),
        ".modelstore-trash-1234", ".modelstore-new-1234",
    ]

    @Test("Invalid names are refused with invalidName and nothing is created on disk", arguments: badNames)
    func invalidNames(name: String) throws {
        let fixture = Fixture()
        #expect(errorCase { _ = try fixture.open(name) } == "invalidName")
        #expect(fixture.directory.entries().isEmpty)
        #expect(errorCase { try ModelStore.deleteDatabase(named: name, in: fixture.directory.url) } == "invalidName")
    }

    @Test(
        "Unusual but safe names work and map to one directory directly in the root",
        arguments: ["userdb", "with space", "ünïcødé", "🙂", ".hidden", "...", String(repeating: "x", count: 200)])
    func validNames(name: String) throws {
        let fixture = Fixture()
        let store = try fixture.open(name)
        try store.set(1, forKey: "k")
        #expect(store.url.lastPathComponent == name)
        #expect(store.url.deletingLastPathComponent().standardizedFileURL.resolvingSymlinksInPath().path
            == fixture.directory.url.resolvingSymlinksInPath().path)
        #expect(fixture.directory.entries() == [name])
    }
}
