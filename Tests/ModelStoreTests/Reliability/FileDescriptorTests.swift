import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// Running out of file descriptors gives a clear `io` error that names the cause, and the
/// store recovers once descriptors are available again. The limit is lowered in a helper
/// process, never in the test process.
@Suite("Too many open files")
struct FileDescriptorTests {
    @Test("Opening databases and reading tables without descriptors throws io mentioning too many open files; both work again afterwards")
    func exhaustedDescriptors() throws {
        let fixture = Fixture()
        let lines = try ChildProcess.runTestHelper(["fd-exhaust", fixture.directory.path, "big"])
        func line(_ prefix: String) -> String? { lines.first { $0.hasPrefix(prefix + " ") } }

        let openFailure = try #require(line("open-failed"), "\(lines)")
        #expect(openFailure.hasPrefix("open-failed io "), "\(openFailure)")
        #expect(openFailure.localizedCaseInsensitiveContains("too many open files"), "\(openFailure)")

        let readFailure = try #require(line("read-failed"), "\(lines)")
        #expect(readFailure.hasPrefix("read-failed io "), "\(readFailure)")
        #expect(readFailure.localizedCaseInsensitiveContains("too many open files"), "\(readFailure)")

        // With no descriptor at all, even creating a database's folder reports the cause.
        let starved = try #require(line("open-starved"), "\(lines)")
        #expect(starved.hasPrefix("open-starved io "), "\(starved)")
        #expect(starved.localizedCaseInsensitiveContains("too many open files"), "\(starved)")

        #expect(line("read-after") == "read-after ok", "\(lines)")
        #expect(line("open-after") == "open-after ok", "\(lines)")
    }
}
