#if Encryption
import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// Features that read records outside the plain `object` path (index builds and queries, the
/// funnel's index maintenance, backup and restore) see an encrypted store's models, never its
/// ciphertext: every one of them reads through the one place records are opened.
@Suite("Encryption with indexes, backup and restore")
struct EncryptionWithOtherFeaturesTests {
    struct Post: Codable, Equatable, Sendable {
        var author: String
        var rank: Int
    }

    static func byAuthor(_ post: Post) -> [IndexValue] { [.string(post.author)] }

    @Test("Index builds, maintenance and queries on an encrypted collection give the models")
    func indexesOnAnEncryptedCollection() throws {
        let fixture = Fixture()
        let store = try Sealing.open(fixture, key: Sealing.first)
        let posts = store.collection("posts")
        // Records stored before the index exists: the build must open them to index them.
        for rank in 0..<30 {
            try posts.set(Post(author: rank % 3 == 0 ? "ada" : "bob", rank: rank), forKey: "p\(rank)")
        }
        let report = try posts.defineIndex("byAuthor", of: Post.self, version: 1, Self.byAuthor)
        #expect(report.skipped == 0)
        #expect(try posts.count(where: "byAuthor", equals: .string("ada")) == 10)
        // An overwrite moves the record between values; a removal drops it.
        try posts.set(Post(author: "bob", rank: 0), forKey: "p0")
        try posts.removeObject(forKey: "p3")
        let ada = try posts.entries(Post.self, where: "byAuthor", equals: .string("ada")).collect()
        #expect(ada.map(\.key) == ["p12", "p15", "p18", "p21", "p24", "p27", "p6", "p9"])
        #expect(ada.allSatisfy { $0.value.author == "ada" })
        #expect(try posts.keys(where: "byAuthor", equals: .string("bob")).collect().count == 21)
        try store.close()

        // Reopened with the key, the index is defined again and needs no rebuild.
        let reopened = try Sealing.open(fixture, key: Sealing.first)
        let again = reopened.collection("posts")
        try again.defineIndex("byAuthor", of: Post.self, version: 1, Self.byAuthor)
        #expect(try again.count(where: "byAuthor", equals: .string("ada")) == 8)
        try reopened.close()
    }

    @Test("A backup of an encrypted store is encrypted, and restores to a store that needs the same key")
    func backupAndRestoreStayEncrypted() throws {
        let fixture = Fixture()
        let store = try Sealing.open(fixture, key: Sealing.first)
        try store.set(EncryptionRoundTripTests.note, forKey: "n")
        let destination = fixture.directory.url.appendingPathComponent("backup-of-db")
        try store.backup(to: destination)
        try store.close()

        // The backup's files hold no plaintext.
        let secret = Array("secret-title-5ac1".utf8)
        for (name, bytes) in try Sealing.files(of: destination) {
            #expect(!Array(bytes).containsSubsequence(secret), "plaintext in the backup's \(name)")
        }
        try ModelStore.restore(from: destination, named: "restored", in: fixture.directory.url)
        #expect(EncryptionMismatchTests.mismatch(fixture, name: "restored", key: .none) == .keyRequired)
        let restored = try Sealing.open(fixture, "restored", key: Sealing.first)
        #expect(try restored.object(EncryptionRoundTripTests.Note.self, forKey: "n") == EncryptionRoundTripTests.note)
        try restored.close()
    }
}

extension [UInt8] {
    fileprivate func containsSubsequence(_ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, count >= needle.count else { return false }
        return (0...(count - needle.count)).contains { start in self[start..<(start + needle.count)].elementsEqual(needle) }
    }
}
#endif
