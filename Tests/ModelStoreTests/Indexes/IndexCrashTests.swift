import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// SIGKILL while a helper writes to an indexed collection, and while it builds indexes: after
/// each kill the entries describe exactly the stored records (no entry without its record, no
/// record without its entries), and an interrupted build goes on from its last chunk.
@Suite("Crash safety: SIGKILL with indexes", .serialized)
struct IndexCrashTests {
    /// Checks every index of `posts` against its records: the entries and values entries in
    /// the database are exactly those the records' values call for.
    static func verify(_ store: ModelStore, _ posts: ModelStore.Collection, _ context: String) throws {
        let records = try posts.entries(CrashPost.self).collect()
        var expectedEntries = Set<[UInt8]>()
        var expectedValues: [[UInt8]: [UInt32: Set<[UInt8]>]] = [:]
        for index in CrashPost.indexes {
            let id = try #require(store.database.indexes.index(named: index.name, in: posts.scope.space)).id
            for record in records {
                let encodings = Set(index.values(record.value).map(\.encoded))
                let userKey = Array(record.key.utf8)
                for encoded in encodings {
                    expectedEntries.insert(userKey.withUnsafeBytes { IndexKeys.entryKey(id, encoded: encoded, userKey: $0) })
                }
                if !encodings.isEmpty {
                    let valuesKey = userKey.withUnsafeBytes { IndexKeys.valuesKey(in: posts.scope.space, userKey: $0) }
                    expectedValues[valuesKey, default: [:]][id] = encodings
                }
            }
        }
        let keys = try store.rawKeys()
        let entries = Set(keys.filter { $0.starts(with: [KeySpace.systemMarker, IndexKeys.entryKind]) })
        #expect(entries == expectedEntries, "\(context): \(entries.count) entries, \(expectedEntries.count) expected")
        #expect(!keys.contains { $0.starts(with: [KeySpace.systemMarker, IndexKeys.reverseKind]) }, "\(context)")
        let values = try store.rawIndexValues().mapValues { $0.mapValues { Set($0) } }
        #expect(values == expectedValues, "\(context): \(values.count) records with values, \(expectedValues.count) expected")
        for author in ["ada", "bob", "carol", "dan"] {
            let expected = records.filter { $0.value.author == author }.map(\.key)
            #expect(try posts.keys(where: "byAuthor", equals: .string(author)).collect() == expected, "\(context)")
        }
    }

    @Test("SIGKILL during writes never leaves an entry without its record or a record without its entries (20 rounds)", .long)
    func killDuringWrites() throws {
        let fixture = Fixture()
        var random = SeededGenerator(seed: 0x1D5)
        var acknowledged = 0
        for round in 0..<20 {
            acknowledged += try Self.killWriterAndVerify(fixture, maxAcks: 400, round: round, random: &random)
        }
        print("index crash rounds: 20, \(acknowledged) acknowledged writes")
    }

    /// Runs the `index-write` helper on `fixture`'s database and kills it (SIGKILL) after up to
    /// `maxAcks` acknowledged writes and a random pause, then reopens it: every index is already
    /// built and exact. Returns how many writes the helper acknowledged.
    static func killWriterAndVerify(
        _ fixture: Fixture, maxAcks: Int, round: Int, random: inout SeededGenerator
    ) throws -> Int {
        let helper = try ChildProcess.testHelper(["index-write", fixture.directory.path, "db", "\(random.next())"])
        let target = Int.random(in: 1...maxAcks, using: &random)
        var acks = 0
        while acks < target, let line = helper.readLine() {
            if line.hasPrefix("ack ") { acks += 1 } else if line != "ready" { Issue.record("helper said: \(line)") }
        }
        usleep(UInt32.random(in: 0..<2_000, using: &random))
        helper.kill()
        _ = helper.finish()
        let store = try fixture.open()
        let posts = store.collection("posts")
        let reports = try CrashPost.defineIndexes(on: posts)
        #expect(reports.allSatisfy { $0.wasAlreadyBuilt }, "round \(round)")
        try verify(store, posts, "round \(round)")
        try store.close()
        return acks
    }

    @Test("SIGKILL during an index build: the next definition goes on from the last chunk (8 rounds)", .long)
    func killDuringBuild() throws {
        var random = SeededGenerator(seed: 0xB11D)
        for round in 0..<8 {
            let fixture = Fixture()
            // 3 indexes over 3,000 records: 6 chunks each, 18 in all.
            let helper = try ChildProcess.testHelper(["index-build", fixture.directory.path, "db", "3000"])
            let target = Int.random(in: 0...17, using: &random)
            var chunks = -1
            while chunks < target, let line = helper.readLine() {
                if line == "filled" { chunks = 0 } else if line.hasPrefix("chunk ") { chunks += 1 }
            }
            if round % 2 == 1 { usleep(UInt32.random(in: 0..<5_000, using: &random)) }
            helper.kill()
            _ = helper.finish()
            let store = try fixture.open()
            let posts = store.collection("posts")
            #expect(try posts.count() == 3_000)
            let reports = try CrashPost.defineIndexes(on: posts)
            #expect(reports.allSatisfy { $0.isBuilt }, "round \(round)")
            // Resumed, not redone: the first index's report covers only what was left of it.
            if target >= 6, round % 2 == 0 { #expect(reports[0].wasAlreadyBuilt, "round \(round)") }
            try Self.verify(store, posts, "round \(round), killed after \(target) chunks")
            try store.close()
        }
    }
}
