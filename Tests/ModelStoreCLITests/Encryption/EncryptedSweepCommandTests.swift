#if Encryption
import Foundation
import ModelStore
import ModelStoreTestSupport
import Testing

/// `modelstore sweep` on an encrypted database: a sealed record's deadline is authenticated by
/// its seal, which only the key can check, so without `--key-file` the sweep deletes no sealed
/// record; with it, the expired ones.
@Suite struct EncryptedSweepCommandTests {
    @Test("sweep without --key-file is refused and deletes nothing; with it, the expired ones go and the others stay")
    func sweepNeedsTheKey() throws {
        let fixture = StoreFixture()
        var configuration = fixture.baseConfiguration
        configuration.encryption = .aes256GCM(key: EncryptedDatabaseCommandTests.key)
        // Written a day ago: "old" expired long since by the real clock the tool uses.
        configuration.now = { Date().addingTimeInterval(-86_400) }
        let store = try ModelStore(name: "vault", policy: .never, configuration: configuration)
        try store.set(EncryptedDatabaseCommandTests.book, forKey: "old", expiresAfter: 60)
        try store.set(EncryptedDatabaseCommandTests.book, forKey: "kept")
        try store.close()

        let keyless = try ToolProcess.modelstore(["sweep", "vault", "--policy", "never"] + fixture.rootArguments)
        #expect(keyless.status == 1, "\(keyless.stdout)")
        #expect(keyless.stderr.contains("--key-file"), "\(keyless.stderr)")
        let before = try ModelStore(name: "vault", policy: .never, configuration: configuration)
        #expect(try before.object(Book.self, forKey: "old") == EncryptedDatabaseCommandTests.book)
        try before.close()

        let keyFile = try EncryptedDatabaseCommandTests.keyFile(fixture, form: "hex")
        let keyed = try ToolProcess.modelstore(
            ["sweep", "vault", "--policy", "never", "--key-file", keyFile] + fixture.rootArguments)
        #expect(keyed.status == 0, "\(keyed.stderr)")
        #expect(keyed.stdout.contains("Removed 1 expired record"), "\(keyed.stdout)")
        let after = try ModelStore(name: "vault", policy: .never, configuration: configuration)
        defer { try? after.close() }
        #expect(try after.object(Book.self, forKey: "old") == nil)
        #expect(try after.object(Book.self, forKey: "kept") == EncryptedDatabaseCommandTests.book)
    }
}
#endif
