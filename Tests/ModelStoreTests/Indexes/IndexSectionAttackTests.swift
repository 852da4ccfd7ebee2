import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// Attacks on the index values section (flag bit 6): databases in the layout before it, every
/// write path over them, programs with other index sets, and hostile section bytes. After each
/// step every query equals a plain filter of the live records and `indexProblems` is empty.
@Suite("Indexes: attacks on the record's index values section")
struct IndexSectionAttackTests {
    static func post(_ author: String, _ tags: [String] = [], score: Int64 = 0) -> Post {
        Post(author: author, createdAt: Date(timeIntervalSinceReferenceDate: 0), tags: tags, score: score)
    }

    static let authors = ["ada", "bob", "carol", "dan", "eve"]
    static let tagNames = ["x", "y", "z", "new"]

    /// 24 posts p00…p23, tagged "team" (the store's record tags) for even numbers.
    static func fill(_ posts: ModelStore.Collection) throws -> [String: Post] {
        var written: [String: Post] = [:]
        for number in 0..<24 {
            let model = post(authors[number % 3], number % 4 == 0 ? [] : [tagNames[number % 3], "x"], score: Int64(number % 5))
            let key = String(format: "p%02d", number)
            try posts.set(model, forKey: key, tags: number % 2 == 0 ? ["team"] : [])
            written[key] = model
        }
        return written
    }

    /// Every query of the test indexes against a filter of `expected`, and `indexProblems`.
    static func verify(
        _ store: ModelStore, _ posts: ModelStore.Collection, _ expected: [String: Post], _ context: String,
        checkingEntries: Bool = true, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        for author in authors {
            #expect(try posts.keys(where: "byAuthor", equals: .string(author)).collect()
                == expected.filter { $0.value.author == author }.keys.sorted(), "\(context): \(author)",
                sourceLocation: sourceLocation)
            #expect(try posts.count(where: "byAuthor", equals: .string(author))
                == expected.filter { $0.value.author == author }.count, "\(context): count \(author)",
                sourceLocation: sourceLocation)
        }
        for tag in tagNames {
            #expect(try posts.keys(where: "byTag", equals: .string(tag)).collect()
                == expected.filter { $0.value.tags.contains(tag) }.keys.sorted(), "\(context): tag \(tag)",
                sourceLocation: sourceLocation)
        }
        for score in Int64(0)..<10 {
            #expect(try posts.keys(where: "byScore", equals: .int(score)).collect()
                == expected.filter { $0.value.score == score }.keys.sorted(), "\(context): score \(score)",
                sourceLocation: sourceLocation)
        }
        guard checkingEntries else { return }
        let problems = try store.indexProblems(IndexSectionTests.expected(posts))
        #expect(problems == [], "\(context): \(problems)", sourceLocation: sourceLocation)
    }

    /// A database as the release before sections left it (records without sections, values
    /// entries), reopened with the indexes defined.
    static func mixedLayout(_ fixture: Fixture) throws -> (ModelStore, ModelStore.Collection, [String: Post]) {
        let expected = try fixture.runProgram { store, posts in
            let expected = try fill(posts)
            try store.rewriteAsValuesEntryLayout(of: posts.scope.space)
            return expected
        }
        let store = try fixture.open()
        let posts = store.collection("posts")
        try PostIndexes.define(on: posts)
        try verify(store, posts, expected, "as the earlier release left it")
        return (store, posts, expected)
    }

    // MARK: - Mixed layouts, every write path

    @Test("Old layout: batches that set one key twice, remove then set, set then remove, and set new keys")
    func mixedLayoutBatches() throws {
        let fixture = Fixture()
        var (store, posts, expected) = try Self.mixedLayout(fixture)
        try store.write { batch in
            try batch.set(Self.post("dan", ["y"]), forKey: "p01", in: posts)
            try batch.set(Self.post("eve", ["new"], score: 7), forKey: "p01", in: posts)
            batch.removeObject(forKey: "p02", in: posts)
            try batch.set(Self.post("dan", ["z"], score: 8), forKey: "p02", in: posts)
            try batch.set(Self.post("dan", ["z"]), forKey: "p03", in: posts)
            batch.removeObject(forKey: "p03", in: posts)
            try batch.set(Self.post("eve"), forKey: "n1", in: posts)
            batch.removeObject(forKey: "n1", in: posts)
            try batch.set(Self.post("eve"), forKey: "n2", in: posts)
            try batch.set(Self.post("ada", ["x"]), forKey: "n2", in: posts)
        }
        expected["p01"] = Self.post("eve", ["new"], score: 7)
        expected["p02"] = Self.post("dan", ["z"], score: 8)
        expected["p03"] = nil
        expected["n2"] = Self.post("ada", ["x"])
        try Self.verify(store, posts, expected, "after the batch")
        // Again, now that some records have sections: the same shapes over both kinds.
        try store.write { batch in
            try batch.set(Self.post("bob"), forKey: "p01", in: posts)
            batch.removeObject(forKey: "p01", in: posts)
            batch.removeObject(forKey: "p04", in: posts)
            try batch.set(Self.post("carol", ["y"]), forKey: "p04", in: posts)
            try batch.set(Self.post("carol", ["y"]), forKey: "p05", in: posts)
            try batch.set(Self.post("ada", ["y"]), forKey: "p05", in: posts)
        }
        expected["p01"] = nil
        expected["p04"] = Self.post("carol", ["y"])
        expected["p05"] = Self.post("ada", ["y"])
        try Self.verify(store, posts, expected, "after the second batch")
    }

    @Test("Old layout: refresh and replaceMetadata, then sets, then removals by key, prefix and tag, and removeAll")
    func mixedLayoutRewritesAndRemovals() throws {
        let fixture = Fixture()
        var (store, posts, expected) = try Self.mixedLayout(fixture)
        #expect(try posts.refresh(forKey: "p06", expiresAfter: 1_000))
        #expect(try posts.replaceMetadata("etag", forKey: "p07"))
        try Self.verify(store, posts, expected, "after the rewrites")
        try posts.set(Self.post("eve", ["new"]), forKey: "p06")
        try posts.set(Self.post("eve", ["new"]), forKey: "p07")
        expected["p06"] = Self.post("eve", ["new"])
        expected["p07"] = Self.post("eve", ["new"])
        try Self.verify(store, posts, expected, "after the sets")
        try posts.removeObject(forKey: "p08")
        try posts.removeObjects(forKeys: ["p09", "p06", "nothing"])
        for key in ["p08", "p09", "p06"] { expected[key] = nil }
        try Self.verify(store, posts, expected, "after removals by key")
        #expect(try posts.removeObjects(withPrefix: "p1") == 10)
        expected = expected.filter { !$0.key.hasPrefix("p1") }
        try Self.verify(store, posts, expected, "after removal by prefix")
        let tagged = try store.removeObjects(taggedWith: "team")
        #expect(tagged == expected.keys.filter { Int($0.dropFirst())! % 2 == 0 }.count)
        expected = expected.filter { Int($0.key.dropFirst())! % 2 == 1 }
        try Self.verify(store, posts, expected, "after removal by tag")
        #expect(try posts.removeAllObjects() == expected.count)
        try Self.verify(store, posts, [:], "after removeAll")
        #expect(try store.rawIndexKeys() == (0, 0))
    }

    @Test("Old layout: sweeps of expired records and of a count limit, a read-through store and an import")
    func mixedLayoutSweepsReadThroughImport() async throws {
        let fixture = Fixture()
        var expected: [String: Post] = [:]
        try fixture.runProgram { store, posts in
            expected = try Self.fill(posts)
            for number in 0..<6 {
                let model = Self.post("eve", ["y"], score: 9)
                try posts.set(model, forKey: "e\(number)", expiresAfter: 10)
            }
            try store.rewriteAsValuesEntryLayout(of: posts.scope.space)
        }
        var configuration = fixture.configuration
        configuration.maximumRecordCount = 20
        let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
        let posts = store.collection("posts")
        try PostIndexes.define(on: posts)
        fixture.clock.advance(by: 100)
        try store.removeExpiredObjects()
        // The expired six go, then the limit leaves 20 of the 24.
        #expect(try posts.count() == 20)
        let left = Set(try posts.keys().collect())
        expected = expected.filter { left.contains($0.key) }
        #expect(expected.count == 20)
        try Self.verify(store, posts, expected, "after the sweep")
        // The rest without the limit, which is held as writes arrive (the read-through's 21st
        // record would make it evict one): opened again, with the indexes defined again.
        try store.close()
        let reopened = try ModelStore(name: "db", policy: .never, configuration: fixture.configuration)
        let again = reopened.collection("posts")
        try PostIndexes.define(on: again)
        let fetched = try await again.object(Post.self, forKey: "rt") { Self.post("dan", ["z"]) }
        #expect(fetched == Self.post("dan", ["z"]))
        expected["rt"] = Self.post("dan", ["z"])
        let overwrite = try #require(expected.keys.sorted().first { $0 != "rt" })
        try await again.importObjects([Self.post("carol", ["new"], score: 4)], key: { _ in overwrite })
        expected[overwrite] = Self.post("carol", ["new"], score: 4)
        try Self.verify(reopened, again, expected, "after the read-through store and the import")
    }

    // MARK: - Programs with other index sets

    // A program that defines no index in the collection still learns, at open, which indexes the
    // database defines there, and keeps their values (an overwrite) or removes their entries (a
    // removal): the record's section held them, and nothing else did.
    @Test("A removal by a program without the indexes: the defining program's next write of the key leaves no stray entry")
    func removalByProgramWithoutIndexes() throws {
        try Self.afterAProgramWithoutIndexes({ try $0.removeObject(forKey: "p") }, then: Self.post("bob", ["y"]))
    }

    @Test("An overwrite by a program without the indexes: the defining program's next write of the key leaves no stray entry")
    func overwriteByProgramWithoutIndexes() throws {
        try Self.afterAProgramWithoutIndexes(
            { try $0.set(Self.post("bob", ["y"]), forKey: "p") }, then: Self.post("carol", ["z"]))
    }

    /// The defining program sets "p", a program without the indexes runs `step` on the
    /// collection, then the defining program sets "p" to `model`: every index is exact.
    static func afterAProgramWithoutIndexes(
        _ step: (ModelStore.Collection) throws -> Void, then model: Post, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let fixture = Fixture()
        try fixture.runProgram { _, posts in try posts.set(post("ada", ["x"]), forKey: "p") }
        try fixture.runProgram(definingIndexes: false) { _, posts in try step(posts) }
        let store = try fixture.open()
        let posts = store.collection("posts")
        try PostIndexes.define(on: posts)
        try posts.set(model, forKey: "p")
        try verify(store, posts, ["p": model], "after the defining program's write", sourceLocation: sourceLocation)
    }

    /// A program with byAuthor and byScore only: byTag (defined by the others) goes stale under
    /// its writes, and must be exact again after the full program's next write of each key.
    static func defineOtherSet(on posts: ModelStore.Collection) throws {
        try posts.defineIndex("byAuthor", of: Post.self, version: 1) { [.string($0.author)] }
        try posts.defineIndex("byScore", of: Post.self, version: 1) { [.int($0.score)] }
    }

    @Test("Removals by a program with another index set (by key, batch, prefix, tag, removeAll): the full program's next writes leave no stray entry")
    func removalsByProgramWithOtherIndexes() throws {
        let fixture = Fixture()
        var expected = try fixture.runProgram { _, posts in try Self.fill(posts) }
        try fixture.runProgram(definingIndexes: false) { store, posts in
            try Self.defineOtherSet(on: posts)
            try posts.removeObject(forKey: "p01")
            try store.write { batch in
                batch.removeObject(forKey: "p02", in: posts)
                try batch.set(Self.post("dan"), forKey: "p03", in: posts)
                batch.removeObject(forKey: "p03", in: posts)
            }
            #expect(try posts.removeObjects(withPrefix: "p1") == 10)
            #expect(try store.removeObjects(taggedWith: "team") > 0)
        }
        let store = try fixture.open()
        let posts = store.collection("posts")
        try PostIndexes.define(on: posts)
        let left = Set(try posts.keys().collect())
        expected = expected.filter { left.contains($0.key) }
        // The full program writes every key the other one removed, and the ones left.
        for number in 0..<24 {
            let key = String(format: "p%02d", number)
            let model = Self.post(Self.authors[(number + 1) % 5], ["new"], score: Int64(number % 3))
            try posts.set(model, forKey: key)
            expected[key] = model
        }
        try Self.verify(store, posts, expected, "after the full program's writes")
        #expect(try posts.removeAllObjects() == 24)
        #expect(try store.rawIndexKeys() == (0, 0))
    }

    @Test("Overwrites by a program with another index set, in the old layout too: the full program's next write is exact")
    func overwritesByProgramWithOtherIndexes() throws {
        let fixture = Fixture()
        var (store, posts, expected) = try Self.mixedLayout(fixture)
        try store.close()
        do {
            let other = try fixture.open()
            let otherPosts = other.collection("posts")
            try Self.defineOtherSet(on: otherPosts)
            for number in 0..<12 {
                try otherPosts.set(Self.post("eve", ["y"], score: 9), forKey: String(format: "p%02d", number))
            }
            try other.write { batch in
                try batch.set(Self.post("eve", ["z"]), forKey: "p12", in: otherPosts)
                try batch.set(Self.post("dan", ["z"]), forKey: "p12", in: otherPosts)
            }
            try other.close()
        }
        store = try fixture.open()
        posts = store.collection("posts")
        try PostIndexes.define(on: posts)
        for number in 0..<13 {
            let key = String(format: "p%02d", number)
            let model = Self.post("carol", ["new"], score: 4)
            try posts.set(model, forKey: key)
            expected[key] = model
        }
        try Self.verify(store, posts, expected, "after the full program's writes")
    }

    // MARK: - Builds over sections

    @Test("New indexes and new versions built over a mixed database (old layout, sections, other programs' parts), with writes between: every index exact")
    func buildsOverMixedRecords() throws {
        let fixture = Fixture()
        var (store, posts, expected) = try Self.mixedLayout(fixture)
        // Half the records get sections.
        for number in stride(from: 0, to: 24, by: 2) {
            let key = String(format: "p%02d", number)
            try posts.set(Self.post("dan", ["y"], score: 6), forKey: key)
            expected[key] = Self.post("dan", ["y"], score: 6)
        }
        try store.close()
        do {
            // Another program's sections for a quarter.
            let other = try fixture.open()
            let otherPosts = other.collection("posts")
            try Self.defineOtherSet(on: otherPosts)
            for number in stride(from: 1, to: 24, by: 4) {
                let key = String(format: "p%02d", number)
                try otherPosts.set(Self.post("eve", ["z"], score: 8), forKey: key)
                expected[key] = Self.post("eve", ["z"], score: 8)
            }
            try other.close()
        }
        store = try fixture.open()
        posts = store.collection("posts")
        try PostIndexes.define(on: posts)
        // A new index and a new version of byTag, built over all of it.
        try posts.defineIndex("byFirstTag", of: Post.self, version: 1) { $0.tags.prefix(1).map { .string($0) } }
        try posts.defineIndex("byTag", of: Post.self, version: 2) { $0.tags.map { .string($0) } }
        var indexes = IndexSectionTests.expected(posts)
        indexes.append(.posts(posts, "byFirstTag") { $0.tags.prefix(1).map { .string($0) } })
        func check(_ context: String) throws {
            try Self.verify(store, posts, expected, context, checkingEntries: false)
            let problems = try store.indexProblems(indexes)
            #expect(problems == [], "\(context): \(problems)")
            for tag in Self.tagNames {
                #expect(try posts.keys(where: "byFirstTag", equals: .string(tag)).collect()
                    == expected.filter { $0.value.tags.first == tag }.keys.sorted(), "\(context): \(tag)")
            }
        }
        try check("after the builds")
        for number in 0..<24 where number % 3 == 0 {
            let key = String(format: "p%02d", number)
            try posts.set(Self.post("bob", ["new", "x"], score: 1), forKey: key)
            expected[key] = Self.post("bob", ["new", "x"], score: 1)
        }
        try posts.removeObject(forKey: "p05")
        expected["p05"] = nil
        try check("after writes")
        try posts.dropIndex("byFirstTag")
        indexes.removeLast()
        try store.close()
        store = try fixture.open()
        posts = store.collection("posts")
        try PostIndexes.define(on: posts, version: 2)
        try posts.defineIndex("byFirstTag", of: Post.self, version: 1) { $0.tags.prefix(1).map { .string($0) } }
        indexes = IndexSectionTests.expected(posts)
        indexes.append(.posts(posts, "byFirstTag") { $0.tags.prefix(1).map { .string($0) } })
        try check("after a drop and a definition in a new process, and version 2 of every index")
        for key in expected.keys.sorted().prefix(6) {
            try posts.set(Self.post("ada", ["y"]), forKey: key)
            expected[key] = Self.post("ada", ["y"])
        }
        try check("after more writes")
    }

    @Test("Sections whose parts and length need two and three LEB128 bytes, values with NUL and both forms of é: sets, overwrites, batches and removals stay exact")
    func longSections() throws {
        let store = try Fixture().open()
        let posts = store.collection("posts")
        try PostIndexes.define(on: posts)
        let many = (0..<400).map { "tag-\($0)-" + String(repeating: "v", count: 60) }
        let odd = ["a\u{0}b", "\u{0}", "é", "e\u{301}", "", String(repeating: "\u{0}", count: 200)]
        var expected: [String: Post] = [:]
        func check(_ context: String) throws {
            for tag in [many[0], many[399], many[200]] + odd {
                #expect(try posts.keys(where: "byTag", equals: .string(tag)).collect()
                    // By bytes: Swift's == calls "é" and "e\u{301}" equal, the index does not.
                    == expected.filter { $0.value.tags.contains { $0.utf8.elementsEqual(tag.utf8) } }.keys.sorted(),
                    "\(context): \(tag.unicodeScalars.map(\.value))")
            }
            let problems = try store.indexProblems(IndexSectionTests.expected(posts))
            #expect(problems.isEmpty, "\(context): \(problems.prefix(3))")
        }
        expected["big"] = Self.post("ada", many + odd)
        expected["mid"] = Self.post("bob", Array(many.prefix(2)))
        expected["odd"] = Self.post("carol", odd + odd)
        for (key, model) in expected { try posts.set(model, forKey: key) }
        let section = try #require(try store.rawSection(IndexSectionTests.physicalKey("big", in: posts)))
        #expect(section.values.map(\.count).max() == 406)
        try check("set")
        try store.write { batch in
            try batch.set(Self.post("ada", Array(many.suffix(3)) + ["é"]), forKey: "big", in: posts)
            try batch.set(Self.post("bob", many), forKey: "mid", in: posts)
            try batch.set(Self.post("bob", Array(many.prefix(150))), forKey: "mid", in: posts)
        }
        expected["big"] = Self.post("ada", Array(many.suffix(3)) + ["é"])
        expected["mid"] = Self.post("bob", Array(many.prefix(150)))
        try check("batch")
        try posts.set(Self.post("dan", ["e\u{301}"]), forKey: "odd")
        expected["odd"] = Self.post("dan", ["e\u{301}"])
        try posts.removeObject(forKey: "mid")
        expected["mid"] = nil
        try check("overwrite and removal")
    }

    @Test("SIGKILL during writes on a database turned back into the old layout before each round: entries, sections and values entries stay exact (8 rounds)", .long)
    func killDuringWritesOnTheOldLayout() throws {
        let fixture = Fixture()
        var random = SeededGenerator(seed: 0x5EC7)
        for round in 0..<8 {
            try fixture.runProgram(definingIndexes: false) { store, posts in
                _ = try CrashPost.defineIndexes(on: posts)
                try store.rewriteAsValuesEntryLayout(of: posts.scope.space)
            }
            _ = try IndexCrashTests.killWriterAndVerify(fixture, maxAcks: 300, round: round, random: &random)
        }
    }

    // MARK: - Hostile section bytes

    /// `record` with its index values section (length included) replaced by `raw` (its length
    /// included, as given), flag bit 6 set and the checksum recomputed for `physical`: what
    /// another LevelDB client that knows the CRC can store.
    static func withSection(_ record: [UInt8], _ raw: [UInt8], physical: [UInt8]) throws -> [UInt8] {
        let header = try #require(record.withUnsafeBytes { RecordHeader(parsing: $0) })
        var start = header.clearPrefixLength
        if let range = header.indexValuesRange {
            var length: [UInt8] = []
            LEB128.append(range.count, to: &length)
            start = range.lowerBound - length.count
        }
        var forged = Array(record[..<start]) + raw + Array(record[header.clearPrefixLength...])
        forged[1] |= RecordHeader.indexValuesFlag
        physical.withUnsafeBytes { RecordHeader.seal(&forged, key: $0) }
        return forged
    }

    /// Puts `value` under `key` of "posts" behind the store's back.
    static func putRaw(_ store: ModelStore, _ key: String, _ value: [UInt8]) throws {
        let physical = IndexSectionTests.physicalKey(key, in: store.collection("posts"))
        try store.database.run { engine in
            try physical.withUnsafeBytes { key in try value.withUnsafeBytes { try engine.put(key: key, value: $0, sync: true) } }
        }
    }

    static let hostileSections: [(String, [UInt8])] = [
        ("an unterminated length", [0x80, 0x80, 0x80, 0x80, 0x80, 0x80]),
        ("a length past the record's end", [0xFF, 0xFF, 0xFF, 0xFF, 0x0F]),
        ("a part length past the section's end", [6, 0, 0, 0, 1, 0x7F, 5]),
        ("encodings that do not split", [8, 0, 0, 0, 1, 3, 0xEE, 0xEE, 0xEE]),
        ("a partial id", [3, 0, 0, 1]),
        ("ids no index has", [10, 0, 0, 3, 0xE7, 0, 0xFF, 0xFF, 0xFF, 0xFE, 0]),
        ("the highest id", [5, 0xFF, 0xFF, 0xFF, 0xFF, 0]),
        ("an empty section", [0]),
        ("a section that lies (byAuthor: zed)", [9, 0, 0, 0, 1, 5, 5, 0x7A, 0x65, 0x64, 0]),
    ]

    @Test("A record whose section is hostile (checksum recomputed): reads, queries, rewrites, builds, sweeps, overwrites and removals neither crash nor lose it",
          arguments: 0..<hostileSections.count)
    func hostileSection(_ variant: Int) throws {
        let (name, raw) = Self.hostileSections[variant]
        let fixture = Fixture()
        try fixture.runProgram { store, posts in
            try posts.set(Self.post("ada", ["x"], score: 1), forKey: "p")
            try posts.set(Self.post("bob", ["y"], score: 2), forKey: "q")
            let record = try #require(try rawRecord(store, "p", in: "posts"))
            try Self.putRaw(store, "p", try Self.withSection(record, raw, physical: IndexSectionTests.physicalKey("p", in: posts)))
        }
        let store = try fixture.open()
        let posts = store.collection("posts")
        try PostIndexes.define(on: posts)
        let readable = (try? posts.object(Post.self, forKey: "p")) != nil
        for author in Self.authors { _ = try? posts.keys(where: "byAuthor", equals: .string(author)).collect() }
        _ = try? posts.entries(Post.self, where: "byAuthor", equals: .string("ada")).collect()
        _ = try? posts.refresh(forKey: "p", expiresAfter: 1_000)
        _ = try? posts.replaceMetadata("etag", forKey: "p")
        _ = try? posts.defineIndex("byScoreAgain", of: Post.self, version: 1) { [.int($0.score)] }
        _ = try? posts.keys(where: "byScoreAgain", equals: .int(1)).collect()
        fixture.clock.advance(by: 10)
        try store.removeExpiredObjects()
        #expect(try rawRecord(store, "p", in: "posts") != nil, "\(name): the record is kept")
        if readable {
            #expect(try posts.object(Post.self, forKey: "p") == Self.post("ada", ["x"], score: 1), "\(name)")
        }
        // An overwrite takes over; every query is exact again (a stray entry the damaged
        // section hid is checked against the new section).
        try posts.set(Self.post("carol", ["z"], score: 3), forKey: "p")
        let expected = ["p": Self.post("carol", ["z"], score: 3), "q": Self.post("bob", ["y"], score: 2)]
        for author in Self.authors {
            #expect(try posts.keys(where: "byAuthor", equals: .string(author)).collect()
                == expected.filter { $0.value.author == author }.keys.sorted(), "\(name): \(author)")
        }
        for tag in Self.tagNames {
            #expect(try posts.keys(where: "byTag", equals: .string(tag)).collect()
                == expected.filter { $0.value.tags.contains(tag) }.keys.sorted(), "\(name): \(tag)")
        }
        #expect(try posts.keys(where: "byScoreAgain", equals: .int(3)).collect() == ["p"], "\(name)")
        #expect(try posts.keys(where: "byScoreAgain", equals: .int(1)).collect() == [], "\(name)")
        try posts.removeObject(forKey: "p")
        #expect(try posts.keys(where: "byAuthor", equals: .string("carol")).collect() == [], "\(name)")
        #expect(try posts.keys(where: "byScoreAgain", equals: .int(3)).collect() == [], "\(name)")
    }

    @Test("A hostile section read before the overwrite: queries give the record by its entries (a well-formed lie hides it only from its own index)")
    func hostileSectionQueries() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        let posts = store.collection("posts")
        try PostIndexes.define(on: posts)
        try posts.set(Self.post("ada", ["x"], score: 1), forKey: "p")
        let record = try #require(try rawRecord(store, "p", in: "posts"))
        // Malformed parts: the section is not trusted at all, the entries answer.
        try Self.putRaw(
            store, "p", try Self.withSection(record, [6, 0, 0, 0, 1, 0x7F, 5], physical: IndexSectionTests.physicalKey("p", in: posts)))
        #expect(try posts.keys(where: "byAuthor", equals: .string("ada")).collect() == ["p"])
        #expect(try posts.keys(where: "byTag", equals: .string("x")).collect() == ["p"])
    }

    @Test("A damaged floor with a section naming the highest id: a new index is refused with a typed error, the others keep working")
    func floorRebuiltFromTheHighestID() throws {
        let fixture = Fixture()
        try fixture.runProgram { store, posts in
            try posts.set(Self.post("ada", ["x"]), forKey: "p")
            let record = try #require(try rawRecord(store, "p", in: "posts"))
            try Self.putRaw(
                store, "p",
                try Self.withSection(record, [5, 0xFF, 0xFF, 0xFF, 0xFF, 0], physical: IndexSectionTests.physicalKey("p", in: posts)))
            for damage: [UInt8] in [[1, 2, 3]] {
                try store.database.run { engine in
                    try IndexIDFloor.key.withUnsafeBytes { key in try damage.withUnsafeBytes { try engine.put(key: key, value: $0, sync: true) } }
                }
            }
        }
        let store = try fixture.open()
        let posts = store.collection("posts")
        try PostIndexes.define(on: posts)
        #expect(throws: ModelStoreError.self) {
            try posts.defineIndex("another", of: Post.self, version: 1) { [.int($0.score)] }
        }
        try posts.set(Self.post("bob", ["y"]), forKey: "p")
        // Queries only: the forged section (no part for the four indexes) hid the old values, so
        // their entries stay behind, checked against the new section by every query.
        try Self.verify(store, posts, ["p": Self.post("bob", ["y"])], "after the refusal", checkingEntries: false)
    }

    @Test("A damaged floor record (wrong length, bad CRC, format 2, empty) is rebuilt above every id in use", arguments: 0..<4)
    func damagedFloor(_ variant: Int) throws {
        let fixture = Fixture()
        try fixture.runProgram { store, posts in
            try posts.set(Self.post("ada", ["x"]), forKey: "p")
            try posts.dropIndex("byScore")
            var value = IndexIDFloor.value(4)
            switch variant {
            case 0: value.append(0)
            case 1: value[8] ^= 1
            case 2: value[0] = 2
            default: value = []
            }
            try store.database.run { engine in
                try IndexIDFloor.key.withUnsafeBytes { key in try value.withUnsafeBytes { try engine.put(key: key, value: $0, sync: true) } }
            }
        }
        let store = try fixture.open()
        let posts = store.collection("posts")
        try posts.defineIndex("byAuthor", of: Post.self, version: 1) { [.string($0.author)] }
        try posts.defineIndex("other", of: Post.self, version: 1) { [.int($0.score)] }
        let id = try #require(store.database.indexes.index(named: "other", in: posts.scope.space)?.id)
        #expect(id > 4)
        #expect(try posts.keys(where: "other", equals: .int(0)).collect() == ["p"])
    }
}
