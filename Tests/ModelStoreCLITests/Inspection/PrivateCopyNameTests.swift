import Foundation
import ModelStore
import ModelStoreTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The tool's private copies live in the root as `.modelstore-inspect-<pid>-<uuid>`, and each
/// run removes those of dead processes. A database of the user's named like one (a valid name)
/// is not a private copy: no run may remove it.
@Suite struct PrivateCopyNameTests {
    /// A process id no process has now.
    static func deadPID() -> Int32 {
        var pid: Int32 = 4_000_000
        while kill(pid, 0) == 0 || errno != ESRCH { pid -= 1 }
        return pid
    }

    @Test func aDatabaseNamedLikeAPrivateCopyOfADeadProcessIsNeverRemoved() throws {
        let fixture = StoreFixture()
        let name = ".modelstore-inspect-\(Self.deadPID())-mine"
        try fixture.write(["k": Book.sample()], in: name)
        try fixture.write(["k": Book.sample()], in: "books")
        let keys = try ToolProcess.modelstore(["keys", "books"] + fixture.rootArguments)
        #expect(keys.status == 0, "\(keys.stderr)")
        #expect(FileManager.default.fileExists(atPath: fixture.root.appendingPathComponent(name).path))
        let own = try ToolProcess.modelstore(["keys", name] + fixture.rootArguments)
        #expect(own.lines == ["k"], "\(own.stderr)")
    }
}
