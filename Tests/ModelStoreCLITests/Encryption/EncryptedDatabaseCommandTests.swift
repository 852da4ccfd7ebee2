#if Encryption
#if canImport(CryptoKit)
import CryptoKit
#else
import Crypto
#endif
import Foundation
import ModelStore
import ModelStoreTestSupport
import Testing

/// The tool on an encrypted database: with `--key-file` it reads it as any other; without, it
/// says which records are encrypted and by which key, and never prints their ciphertext.
@Suite struct EncryptedDatabaseCommandTests {
    static let key = SymmetricKey(data: TestKeys.bytes(9))
    static let book = Book(title: "secret-title", pages: 12, price: 3.5, tags: ["x"], subtitle: nil)

    /// A database "vault" with two books, one with metadata and tags; returns the fixture.
    static func encryptedFixture() throws -> StoreFixture {
        let fixture = StoreFixture()
        var configuration = fixture.baseConfiguration
        configuration.encryption = .aes256GCM(key: key)
        let store = try ModelStore(name: "vault", policy: .never, configuration: configuration)
        try store.set(book, forKey: "a")
        try store.set(book, forKey: "b", metadata: ["etag": "secret-etag"], tags: ["shelf"])
        try store.close()
        return fixture
    }

    /// The key in a file, in one of the three forms the tool takes.
    static func keyFile(_ fixture: StoreFixture, form: String) throws -> String {
        let bytes = TestKeys.bytes(9)
        let url = fixture.root.deletingLastPathComponent().appendingPathComponent("key-\(UUID().uuidString)")
        let contents: Data =
            switch form {
            case "hex": Data((bytes.map { String(format: "%02x", $0) }.joined() + "\n").utf8)
            case "base64": Data(Data(bytes).base64EncodedString().utf8)
            default: Data(bytes)
            }
        try contents.write(to: url)
        return url.path
    }

    @Test("get and dump with --key-file show the models and metadata", arguments: ["raw", "hex", "base64"])
    func readsWithTheKey(form: String) throws {
        let fixture = try Self.encryptedFixture()
        let keyFile = try Self.keyFile(fixture, form: form)
        let get = try ToolProcess.modelstore(["get", "vault", "b", "--json", "--key-file", keyFile] + fixture.rootArguments)
        #expect(get.status == 0, "\(get.stderr)")
        #expect(get.stdout.contains("secret-title"))
        #expect(get.stdout.contains("secret-etag"))
        let dump = try ToolProcess.modelstore(["dump", "vault", "--key-file", keyFile] + fixture.rootArguments)
        #expect(dump.status == 0, "\(dump.stderr)")
        #expect(dump.lines.count == 2)
        let stats = try ToolProcess.modelstore(["stats", "vault"] + fixture.rootArguments)
        #expect(stats.stdout.contains("encryption   AES-256-GCM (key "))
    }

    @Test("Without --key-file: records are shown as encrypted, never as JSON of their ciphertext")
    func withoutTheKey() throws {
        let fixture = try Self.encryptedFixture()
        let get = try ToolProcess.modelstore(["get", "vault", "b", "--json"] + fixture.rootArguments)
        #expect(get.status == 1)
        #expect(get.stdout.contains("\"encrypted\" : true"))
        #expect(get.stdout.contains("\"sealedBy\""))
        #expect(get.stdout.contains("shelf"), "tags stay readable")
        #expect(!get.stdout.contains("secret"))
        #expect(get.stderr.contains("--key-file"))
        let text = try ToolProcess.modelstore(["get", "vault", "a"] + fixture.rootArguments)
        #expect(text.stdout.contains("encrypted    yes, sealed by key"))
        let dump = try ToolProcess.modelstore(["dump", "vault"] + fixture.rootArguments)
        #expect(dump.status == 1)
        #expect(dump.lines.count == 2)
        #expect(dump.lines.allSatisfy { $0.contains("\"encrypted\":true") && !$0.contains("secret") })
        let keys = try ToolProcess.modelstore(["keys", "vault"] + fixture.rootArguments)
        #expect(keys.status == 0)
        #expect(keys.lines == ["a", "b"])
    }

    @Test("A wrong or malformed key file is refused with a message that says what is wrong")
    func wrongKeys() throws {
        let fixture = try Self.encryptedFixture()
        let wrong = fixture.root.deletingLastPathComponent().appendingPathComponent("wrong-\(UUID().uuidString)")
        try Data(TestKeys.bytes(10)).write(to: wrong)
        let refused = try ToolProcess.modelstore(["get", "vault", "a", "--key-file", wrong.path] + fixture.rootArguments)
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("another key"))
        let short = fixture.root.deletingLastPathComponent().appendingPathComponent("short-\(UUID().uuidString)")
        try Data("abc".utf8).write(to: short)
        let malformed = try ToolProcess.modelstore(["keys", "vault", "--key-file", short.path] + fixture.rootArguments)
        #expect(malformed.status == 2)
        #expect(malformed.stderr.contains("256-bit key"))
    }
}
#endif
