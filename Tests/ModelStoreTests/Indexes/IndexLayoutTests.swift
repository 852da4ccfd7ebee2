import Foundation
import Testing
@_spi(Inspection) @testable import ModelStore
import ModelStoreTestSupport

/// The values entry (one per record for all of a key space's indexes, `0xFF 0x13`) and the
/// layout before it (one reverse entry per index and record, `0xFF 0x12`, format-1 definitions):
/// a database written with the old layout opens, answers, and is rebuilt into the new one.
@Suite("Indexes: values entries and the format-1 layout")
struct IndexLayoutTests {
    func post(_ author: String, _ tags: [String] = [], time: Double = 0) -> Post {
        Post(author: author, createdAt: Date(timeIntervalSinceReferenceDate: time), tags: tags)
    }

    /// The posts the tests write: authors, tags (none for some), times.
    func fill(_ posts: ModelStore.Collection) throws -> [String: Post] {
        var written: [String: Post] = [:]
        for number in 0..<60 {
            let post = post(["ada", "bob", "carol"][number % 3], number % 4 == 0 ? [] : ["t\(number % 5)", "all"],
                            time: Double(number % 7))
            try posts.set(post, forKey: String(format: "p%02d", number))
            written[String(format: "p%02d", number)] = post
        }
        return written
    }

    /// ``PostIndexes/define(on:version:)``, with the reports.
    static func define(on posts: ModelStore.Collection) throws -> [ModelStore.IndexBuildReport] {
        [
            try posts.defineIndex("byAuthor", of: Post.self, version: 1) { [.string($0.author)] },
            try posts.defineIndex("byTime", of: Post.self, version: 1) { [.date($0.createdAt)] },
            try posts.defineIndex("byTag", of: Post.self, version: 1) { $0.tags.map { .string($0) } },
            try posts.defineIndex("byScore", of: Post.self, version: 1) { [.int($0.score)] },
        ]
    }

    /// Checks every query of the test indexes, and that the entries are exactly the posts'.
    func verify(_ store: ModelStore, _ posts: ModelStore.Collection, _ expected: [String: Post], _ context: String) throws {
        for author in ["ada", "bob", "carol", "dan"] {
            #expect(try posts.keys(where: "byAuthor", equals: .string(author)).collect()
                == expected.filter { $0.value.author == author }.keys.sorted(), "\(context)")
        }
        for tag in ["t0", "t1", "t2", "t3", "t4", "all", "new"] {
            #expect(try posts.keys(where: "byTag", equals: .string(tag)).collect()
                == expected.filter { $0.value.tags.contains(tag) }.keys.sorted(), "\(context)")
        }
        let values = expected.values.reduce(0) { $0 + 3 + Set($1.tags).count }
        #expect(try store.rawIndexKeys().entries == values, "\(context)")
        #expect(try store.rawIndexValues().count == expected.count, "\(context)")
        let indexes = [
            ExpectedIndex.posts(posts, "byAuthor") { [.string($0.author)] },
            ExpectedIndex.posts(posts, "byTime") { [.date($0.createdAt)] },
            ExpectedIndex.posts(posts, "byTag") { $0.tags.map { .string($0) } },
            ExpectedIndex.posts(posts, "byScore") { [.int($0.score)] },
        ]
        #expect(try store.indexProblems(indexes) == [], "\(context)")
        #expect(!(try store.rawKeys()).contains { $0.starts(with: [KeySpace.systemMarker, IndexKeys.reverseKind]) })
    }

    /// Overwrites p01, p02 and p04, removes p03, and removes and sets p05 in one batch.
    func overwriteAndRemove(_ store: ModelStore, _ posts: ModelStore.Collection, _ expected: inout [String: Post]) throws {
        try posts.set(post("dan", ["new"]), forKey: "p01")
        expected["p01"] = post("dan", ["new"])
        try posts.set(post("ada"), forKey: "p02")
        expected["p02"] = post("ada")
        try posts.removeObject(forKey: "p03")
        expected["p03"] = nil
        try store.write { batch in
            try batch.set(post("bob", ["t1"]), forKey: "p04", in: "posts")
            batch.removeObject(forKey: "p05", in: "posts")
            try batch.set(post("carol", ["all"]), forKey: "p05", in: "posts")
        }
        expected["p04"] = post("bob", ["t1"])
        expected["p05"] = post("carol", ["all"])
    }

    @Test("A database with format-1 definitions and reverse entries answers the tool, then defineIndex rebuilds it; overwrites and removals stay exact")
    func formatOneLayoutIsRebuilt() throws {
        let fixture = Fixture()
        var expected = try fixture.runProgram { store, posts in
            let expected = try fill(posts)
            try store.rewriteAsFormatOneLayout(of: posts.scope.space)
            let keys = try store.rawKeys()
            #expect(!keys.contains { $0.starts(with: [KeySpace.systemMarker, IndexKeys.valuesKind]) })
            // author, time, score for every post; tags for three in four.
            #expect(keys.filter { $0.starts(with: [KeySpace.systemMarker, IndexKeys.reverseKind]) }.count == 60 * 3 + 45)
            return expected
        }
        let store = try fixture.open()
        let posts = store.collection("posts")
        // The tool reads the format-1 definitions and their entries as they are.
        #expect(try posts.inspectKeys(where: "byAuthor", equals: .string("ada")).collect()
            == expected.filter { $0.value.author == "ada" }.keys.sorted())
        let reports = try Self.define(on: posts)
        #expect(reports.count == 4 && reports.allSatisfy { !$0.wasAlreadyBuilt && $0.isBuilt && $0.indexed == 60 })
        try verify(store, posts, expected, "after the rebuild")
        // Overwrites change values and remove old ones; removals take every entry.
        try overwriteAndRemove(store, posts, &expected)
        try verify(store, posts, expected, "after the writes")
        try store.close()
        let again = try fixture.open()
        let reopened = again.collection("posts")
        #expect(try Self.define(on: reopened).allSatisfy(\.wasAlreadyBuilt))
        try verify(again, reopened, expected, "reopened")
    }

    @Test("A database written before index values sections (values entries only) answers queries; writes keep every index exact and move each record's values into its section")
    func valuesEntryLayoutStaysExact() throws {
        let fixture = Fixture()
        var expected = try fixture.runProgram { store, posts in
            let expected = try fill(posts)
            try store.rewriteAsValuesEntryLayout(of: posts.scope.space)
            #expect(try store.rawIndexKeys().reverse == 60)
            #expect(try store.rawSection(store.rawKeys().first { $0.first == KeySpace.collectionMarker }!) == nil)
            return expected
        }
        let store = try fixture.open()
        let posts = store.collection("posts")
        #expect(try Self.define(on: posts).allSatisfy(\.wasAlreadyBuilt))
        try verify(store, posts, expected, "as an earlier release left it")
        try overwriteAndRemove(store, posts, &expected)
        #expect(try posts.refresh(forKey: "p06", expiresAfter: 100))
        try verify(store, posts, expected, "after the writes")
        // The four records set again hold their values in their sections; the refreshed one, its
        // values entry still (a rewrite copies the record as it is); the removed one, nothing.
        #expect(try store.rawIndexKeys().reverse == 55)
        try store.close()
        let again = try fixture.open()
        let reopened = again.collection("posts")
        #expect(try Self.define(on: reopened).allSatisfy(\.wasAlreadyBuilt))
        try verify(again, reopened, expected, "reopened")
    }

    @Test("A values entry keeps the part of an index this program does not define, and drops a dropped index's")
    func partsOfOtherIndexes() throws {
        let fixture = Fixture()
        do {
            let store = try fixture.open()
            let posts = store.collection("posts")
            try PostIndexes.define(on: posts)
            try posts.set(post("ada", ["x"], time: 1), forKey: "p")
            try store.close()
        }
        do {
            // Another program: byAuthor only. byTag goes stale, but its part stays.
            let store = try fixture.open()
            let posts = store.collection("posts")
            try posts.defineIndex("byAuthor", of: Post.self, version: 1) { [.string($0.author)] }
            try posts.set(post("bob", ["x"], time: 1), forKey: "p")
            // This program's record describes byAuthor; the three others' parts stay, in a values entry.
            #expect(try store.rawValuesEntries().first?.value.count == 3)
            #expect(try store.rawSection(store.rawKeys().first { $0.first == KeySpace.collectionMarker }!)?.count == 1)
            try store.close()
        }
        let store = try fixture.open()
        let posts = store.collection("posts")
        try PostIndexes.define(on: posts)
        // The kept part lets this overwrite remove byTag's old entry.
        try posts.set(post("bob", ["y"], time: 1), forKey: "p")
        #expect(try posts.keys(where: "byTag", equals: .string("x")).collect() == [])
        #expect(try posts.keys(where: "byTag", equals: .string("y")).collect() == ["p"])
        #expect(try posts.keys(where: "byAuthor", equals: .string("bob")).collect() == ["p"])
        #expect(try store.rawIndexKeys() == (4, 0))  // the record's section describes all four again
        try posts.dropIndex("byTag")
        try posts.set(post("bob", ["z"], time: 2), forKey: "p")
        let parts = try #require(try store.rawSection(store.rawKeys().first { $0.first == KeySpace.collectionMarker }!))
        #expect(parts.count == 3)
        #expect(try store.rawIndexKeys() == (3, 0))
        try posts.removeObject(forKey: "p")
        #expect(try store.rawIndexKeys() == (0, 0))
    }

    @Test("Rewriting a record with the same values writes no index key")
    func sameValuesWriteNothing() throws {
        let store = try Fixture().open()
        let posts = store.collection("posts")
        try PostIndexes.define(on: posts)
        try posts.set(post("ada", ["x", "x", "y"]), forKey: "p")
        let before = try store.rawIndexValues()
        try posts.set(post("ada", ["x", "y"]), forKey: "p")
        #expect(try store.rawIndexValues() == before)
        #expect(try store.rawIndexKeys() == (5, 0))
    }

    @Test(
        "A values entry part whose length needs one LEB128 byte or two (127 and 128 bytes of encodings, and around them) reads back exactly; overwrites and removals leave no entry behind",
        arguments: [123, 124, 125, 126, 500])
    func partLengthsAroundOneByte(authorLength: Int) throws {
        let store = try Fixture().open()
        let posts = store.collection("posts")
        try PostIndexes.define(on: posts)
        // A string encodes as its bytes plus 3 (kind byte and terminator): these authors give
        // byAuthor parts of 126 to 129 bytes (and 503); the tags give byTag parts around 127 too.
        let author = String(repeating: "a", count: authorLength)
        let tags = (0..<(authorLength / 6)).map { "t\($0)" }
        try posts.set(post(author, tags), forKey: "p")
        let parts = try #require(try store.rawIndexValues().first?.value)
        let authorID = try #require(parts.first { $0.value == [[IndexValue.Kind.string.rawValue] + Array(author.utf8) + [0, 1]] }?.key)
        #expect(parts[authorID]?.first?.count == authorLength + 3)
        #expect(try posts.keys(where: "byAuthor", equals: .string(author)).collect() == ["p"])
        #expect(try posts.count(where: "byTag", equals: .string("t0")) == (tags.isEmpty ? 0 : 1))
        try posts.set(post("b" + author, ["other"]), forKey: "p")
        #expect(try posts.keys(where: "byAuthor", equals: .string(author)).collect() == [])
        #expect(try posts.keys(where: "byAuthor", equals: .string("b" + author)).collect() == ["p"])
        #expect(try posts.count(where: "byTag", equals: .string("t0")) == 0)
        try posts.removeObject(forKey: "p")
        #expect(try store.rawIndexKeys() == (0, 0))
    }
}

extension ModelStore {
    /// Rewrites the indexes of `space` as ModelStore wrote them before values entries: each
    /// definition in format 1, and for each record one reverse entry per index with a value
    /// (format byte 1, then the encodings) instead of its values entry. The entries stay.
    func rewriteAsFormatOneLayout(of space: KeySpace) throws {
        try rewriteAsValuesEntryLayout(of: space)
        let values = try rawValuesEntries()
        let definitions = try database.run { try Scope.indexDefinitions(in: $0) }
        try database.run { engine in
            let batch = LevelDBWriteBatch()
            for (valuesKey, parts) in values {
                valuesKey.withUnsafeBytes { batch.delete(key: $0) }
                let userKey = Array(valuesKey[(2 + (space.isDefault ? 1 : space.prefix.count))...])
                for (id, encodings) in parts {
                    let reverseKey = userKey.withUnsafeBytes { IndexKeys.reverseKey(id, userKey: $0) }
                    let value = [UInt8(1)] + encodings.joined()
                    reverseKey.withUnsafeBytes { key in value.withUnsafeBytes { batch.put(key: key, value: $0) } }
                }
            }
            for (definitionSpace, name, definition) in definitions where definitionSpace == space {
                guard var definition else { continue }
                definition.format = IndexDefinition.reverseEntriesFormat
                let key = IndexKeys.definitionKey(name: name, in: space)
                key.withUnsafeBytes { keyBytes in definition.value(key: key).withUnsafeBytes { batch.put(key: keyBytes, value: $0) } }
            }
            // Nor did it keep the floor of index ids.
            IndexIDFloor.key.withUnsafeBytes { batch.delete(key: $0) }
            try engine.write(batch, sync: true)
        }
    }
}

extension ModelStore {
    /// Rewrites the records of `space` as ModelStore wrote them before index values sections:
    /// each record without its section, and its values (the parts with values) in a values entry.
    func rewriteAsValuesEntryLayout(of space: KeySpace) throws {
        let keys = try rawKeys().filter { key in key.withUnsafeBytes { KeySpace.split($0)?.space == space } }
        try database.run { engine in
            let batch = LevelDBWriteBatch()
            for key in keys {
                try key.withUnsafeBytes { keyBytes in
                    try engine.withValue(forKey: keyBytes) { record in
                        guard let record, let header = RecordHeader(parsing: record), let range = header.indexValuesRange
                        else { return }
                        var entry: [UInt8] = [IndexKeys.valuesFormat]
                        IndexParts.forEach(in: UnsafeRawBufferPointer(rebasing: record[range])) { id, encodings in
                            if !encodings.isEmpty { IndexParts.append(id: id, encodings: encodings, to: &entry) }
                            return true
                        }
                        var plain: [UInt8] = []
                        RecordHeader.assemble(
                            into: &plain, header: header, old: header, record: record, newSection: nil, keepingIndexValues: false)
                        RecordHeader.seal(&plain, key: keyBytes)
                        plain.withUnsafeBytes { batch.put(key: keyBytes, value: $0) }
                        if entry.count > 1 {
                            let valuesKey = IndexKeys.valuesKey(
                                in: space, userKey: UnsafeRawBufferPointer(rebasing: keyBytes[space.prefix.count...]))
                            valuesKey.withUnsafeBytes { key in entry.withUnsafeBytes { batch.put(key: key, value: $0) } }
                        }
                    }
                }
            }
            try engine.write(batch, sync: true)
        }
    }
}
