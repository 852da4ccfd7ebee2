import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// After a write fails (here: a full disk), the store refuses every further write with
/// `writesDisabled` until it is reopened, because LevelDB 1.23 can acknowledge later writes
/// on the same handle and lose them. Reads keep working, and nothing acknowledged is lost.
@Suite("Sticky write failure on a full disk", .serialized)
struct StickyWriteFailureTests {
    /// Random (incompressible) values, so the disk fills predictably.
    private static func value(_ random: inout SeededGenerator) -> Data {
        Data(random.bytes(4096))
    }

    @Test(
        "On a full disk the failed write throws io, later writes throw writesDisabled even after space is freed, reads work, and a reopen finds every acknowledged write",
        .enabled(if: SmallFileSystem.unavailableReason == nil, "tmpfs cannot be mounted here (reason printed above)"))
    func fullDisk() async throws {
        let fileSystem = try SmallFileSystem.mount(megabytes: 4).get()
        var configuration = Fixture().quietConfiguration
        configuration.directory = URL(fileURLWithPath: fileSystem.path + "/root")
        var random = SeededGenerator(seed: 5)
        var acknowledged: [String: Data] = [:]

        let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
        for index in 0..<100 {
            let value = Self.value(&random)
            try store.set(value, forKey: "k\(index)")
            acknowledged["k\(index)"] = value
        }
        fileSystem.fill()
        var failure: ModelStoreError?
        for index in 100..<2000 {
            let value = Self.value(&random)
            do {
                try store.set(value, forKey: "k\(index)")
                acknowledged["k\(index)"] = value
            } catch let error as ModelStoreError {
                failure = error
                break
            }
        }
        guard case let .io(_, message)? = failure else {
            Issue.record("expected an io error on the full disk, got \(String(describing: failure))")
            return
        }
        #expect(message.contains("No space left on device"))

        // Sticky: every write path refuses, with the first failure's message.
        #expect(errorCase { try store.set(Data([1]), forKey: "later") } == "writesDisabled")
        #expect(errorCase { try store.removeObject(forKey: "k0") } == "writesDisabled")
        #expect(errorCase { try store.removeObjects(forKeys: ["k1", "k2"]) } == "writesDisabled")
        #expect(errorCase { try store.write { try $0.set(Data([1]), forKey: "batch") } } == "writesDisabled")
        do {
            try await store.importObjects([Data([1])], key: { _ in "imported" })
            Issue.record("expected writesDisabled from an import")
        } catch ModelStoreError.writesDisabled {}
        do {
            try store.set(Data([1]), forKey: "later")
        } catch let ModelStoreError.writesDisabled(_, first) {
            #expect(first.contains("No space left on device"))
        }
        // Reads keep working.
        for (key, value) in acknowledged { #expect(try store.object(Data.self, forKey: key) == value) }

        // Space comes back, but this handle still refuses: LevelDB could accept and drop writes now.
        fileSystem.free()
        #expect(errorCase { try store.set(Data([1]), forKey: "later") } == "writesDisabled")
        try store.close()

        let reopened = try ModelStore(name: "db", policy: .never, configuration: configuration)
        for (key, value) in acknowledged { #expect(try reopened.object(Data.self, forKey: key) == value, "\(key)") }
        #expect(try reopened.contains("later") == false)
        #expect(try reopened.contains("batch") == false)
        #expect(try reopened.contains("imported") == false)
        try reopened.set(Data([2]), forKey: "later")
        #expect(try reopened.object(Data.self, forKey: "later") == Data([2]))
        try reopened.close()
        print("full disk: \(acknowledged.count) acknowledged writes intact after reopen")
    }

    @Test(
        "Reopening with .reset on a full disk deletes nothing: only corruption triggers a reset", .long,
        .enabled(if: SmallFileSystem.unavailableReason == nil, "tmpfs cannot be mounted here (reason printed above)"),
        arguments: [CorruptionPolicy.reset, .repair])
    func fullDiskNeverResets(policy: CorruptionPolicy) throws {
        let fileSystem = try SmallFileSystem.mount(megabytes: 4).get()
        var configuration = Fixture().quietConfiguration
        configuration.directory = URL(fileURLWithPath: fileSystem.path + "/root")
        var random = SeededGenerator(seed: 6)
        var acknowledged: [String: Data] = [:]
        do {
            let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
            for index in 0..<200 {  // in the log only: the reopen must write a table to recover it
                let value = Self.value(&random)
                try store.set(value, forKey: "k\(index)")
                acknowledged["k\(index)"] = value
            }
            try store.close()
        }
        fileSystem.fill()
        var resetting = configuration
        resetting.corruptionPolicy = policy
        let outcome = errorCase { try ModelStore(name: "db", policy: .never, configuration: resetting).close() }
        #expect(outcome == "io" || outcome == nil)
        fileSystem.free()
        let reopened = try ModelStore(name: "db", policy: .never, configuration: configuration)
        for (key, value) in acknowledged { #expect(try reopened.object(Data.self, forKey: key) == value, "\(key)") }
        print("full disk reopen with .\(policy): \(outcome ?? "opened"); \(acknowledged.count) records intact")
    }

    @Test("Past RLIMIT_FSIZE (in a helper process) the failed write throws io and later writes throw writesDisabled; acknowledged writes survive", .long)
    func fileSizeLimit() throws {
        let fixture = Fixture()
        let lines = try ChildProcess.runTestHelper(["fill-until-full", fixture.directory.path, "db", "\(1 << 20)"])
        let fields = Dictionary(lines.map { line in
            let parts = line.split(separator: " ", maxSplits: 1)
            return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
        }, uniquingKeysWith: { first, _ in first })
        let acknowledged = try #require(fields["acked"].flatMap { Int($0) }, "\(lines)")
        #expect(acknowledged > 10)
        #expect(fields["failed"]?.hasPrefix("io ") == true, "\(lines)")
        #expect(fields["failed"]?.contains("File too large") == true, "\(lines)")
        #expect(fields["next-set"]?.hasPrefix("writesDisabled ") == true, "\(lines)")
        #expect(fields["next-remove"]?.hasPrefix("writesDisabled ") == true, "\(lines)")
        #expect(fields["readable"] == "\(acknowledged)")

        // The helper's values came from the same seeded generator.
        var random = SeededGenerator(seed: 7)
        let store = try fixture.openQuietly()
        for index in 0..<acknowledged {
            let expected = Data((0..<8192).map { _ in UInt8.random(in: 0...255, using: &random) })
            #expect(try store.object(Data.self, forKey: "k\(index)") == expected, "k\(index)")
        }
        #expect(try store.contains("after") == false)
    }
}
