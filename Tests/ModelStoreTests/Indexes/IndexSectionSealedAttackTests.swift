#if Encryption
#if canImport(CryptoKit)
import CryptoKit
#else
import Crypto
#endif
import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// The index values section of sealed records: in the clear, bound to the seal, kept by rekey
/// and compression, and never trusted when another client changed it.
@Suite("Indexes: the index values section of sealed records")
struct IndexSectionSealedAttackTests {
    typealias Attack = IndexSectionAttackTests

    @Test("Sealed and compressed records carry sections; writes, rewrites and rekeys (to another key, then to none) keep every index exact",
          arguments: [RecordCompression.none, .zstd(level: 3, dictionarySampleCount: 100)])
    func sealedRecordsAndRekey(_ compression: RecordCompression) throws {
        let fixture = Fixture()
        var expected: [String: Post] = [:]
        var sections: [[UInt8]: [UInt32: [[UInt8]]]] = [:]
        do {
            let store = try Sealing.open(fixture, key: Sealing.first, compression: compression)
            let posts = store.collection("posts")
            try PostIndexes.define(on: posts)
            expected = try Attack.fill(posts)
            try store.write { batch in
                try batch.set(Attack.post("eve", ["new"], score: 7), forKey: "p01", in: posts)
                batch.removeObject(forKey: "p02", in: posts)
                try batch.set(Attack.post("dan", ["z"]), forKey: "p03", in: posts)
                try batch.set(Attack.post("dan", ["y"]), forKey: "p03", in: posts)
            }
            expected["p01"] = Attack.post("eve", ["new"], score: 7)
            expected["p02"] = nil
            expected["p03"] = Attack.post("dan", ["y"])
            #expect(try posts.refresh(forKey: "p04", expiresAfter: 1_000))
            #expect(try posts.replaceMetadata("etag", forKey: "p05"))
            try Attack.verify(store, posts, expected, "sealed")
            for key in expected.keys {
                let physical = IndexSectionTests.physicalKey(key, in: posts)
                let record = try #require(try rawRecord(store, key, in: "posts"))
                #expect(Sealing.keyID(of: record) != nil, "\(key) is sealed")
                let section = try #require(try store.rawSection(physical), "\(key) has a section")
                sections[physical] = section
            }
            try store.close()
        }
        let steps: [(SymmetricKey, SymmetricKey?)] = [(Sealing.first, Sealing.second), (Sealing.second, nil)]
        for (from, to) in steps {
            _ = try ModelStore.rekey(named: "db", in: fixture.directory.url, from: from, to: to)
            let store = try Sealing.open(fixture, key: to, compression: compression)
            let posts = store.collection("posts")
            try PostIndexes.define(on: posts)
            for (physical, section) in sections { #expect(try store.rawSection(physical) == section, "rekeyed: \(physical)") }
            try Attack.verify(store, posts, expected, "rekeyed")
            try posts.set(Attack.post("ada", ["z"]), forKey: "p06")
            expected["p06"] = Attack.post("ada", ["z"])
            sections[IndexSectionTests.physicalKey("p06", in: posts)] = try store.rawSection(IndexSectionTests.physicalKey("p06", in: posts))
            try Attack.verify(store, posts, expected, "rekeyed, then written")
            try store.close()
        }
    }

    @Test("A sealed record whose section another client changed (checksum recomputed): reads throw corrupted, and the forged section hides nothing from queries")
    func forgedSectionOfASealedRecord() throws {
        let fixture = Fixture()
        do {
            let store = try Sealing.open(fixture, key: Sealing.first)
            let posts = store.collection("posts")
            try PostIndexes.define(on: posts)
            try posts.set(Attack.post("ada", ["x"], score: 1), forKey: "p")
            try posts.set(Attack.post("bob", ["y"], score: 2), forKey: "q")
            let record = try #require(try rawRecord(store, "p", in: "posts"))
            // byAuthor says "zed": a well-formed lie.
            let forged = try Attack.withSection(
                record, [9, 0, 0, 0, 1, 5, 5, 0x7A, 0x65, 0x64, 0], physical: IndexSectionTests.physicalKey("p", in: posts))
            try Attack.putRaw(store, "p", forged)
            try store.close()
        }
        let store = try Sealing.open(fixture, key: Sealing.first)
        let posts = store.collection("posts")
        try PostIndexes.define(on: posts)
        #expect(throws: ModelStoreError.self) { try posts.object(Post.self, forKey: "p") }
        // The entry "ada" names p: a section the seal does not vouch for must not make it vanish.
        let keys: [String]? = try? posts.keys(where: "byAuthor", equals: .string("ada")).collect()
        #expect(keys == nil || keys == ["p"], "keys: \(String(describing: keys))")
        let count: Int? = try? posts.count(where: "byAuthor", equals: .string("ada"))
        #expect(count == nil || count == 1, "count: \(String(describing: count))")
        // Nothing is found under the forged value either.
        #expect(try posts.keys(where: "byAuthor", equals: .string("zed")).collect() == [])
        // An overwrite of the forged record works, and queries are exact after it.
        try posts.set(Attack.post("carol", ["z"], score: 3), forKey: "p")
        try Attack.verify(
            store, posts, ["p": Attack.post("carol", ["z"], score: 3), "q": Attack.post("bob", ["y"], score: 2)],
            "after the overwrite", checkingEntries: false)
        try posts.removeObject(forKey: "p")
        try Attack.verify(store, posts, ["q": Attack.post("bob", ["y"], score: 2)], "after the removal", checkingEntries: false)
    }
}

#endif
