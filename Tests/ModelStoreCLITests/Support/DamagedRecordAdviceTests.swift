import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// What the tool (and the library, for a cursor) says about one record that fails its own
/// checksum: the advice names the key and a command that removes that record only, and each
/// test runs the command exactly as printed.
@Suite struct DamagedRecordAdviceTests {
    /// `books` with `keys` stored (in `collection`, if given), the ones in `damaged` with a
    /// payload bit flipped, plus `keep` in the database's own keys.
    func writeBooks(
        _ fixture: StoreFixture, keys: [String], damaged: Set<String>, collection: String? = nil
    ) throws {
        let store = try fixture.open("books")
        defer { try? store.close() }
        try store.set(Book.sample("kept"), forKey: "keep")
        for key in keys {
            if let collection {
                try store.collection(collection).set(Book.sample(key), forKey: key)
            } else {
                try store.set(Book.sample(key), forKey: key)
            }
        }
        for key in damaged { try RecordDamage.flipPayloadBit(of: key, collection: collection, in: store) }
    }

    /// The keys left in `books` (in `collection`), through the library.
    func remainingKeys(_ fixture: StoreFixture, collection: String? = nil) throws -> [String] {
        let store = try fixture.open("books")
        defer { try? store.close() }
        return try collection.map { try store.collection($0).keys().collect() } ?? store.keys().collect()
    }

    @Test func getAdvisesARemoveThatRemovesOnlyThatRecord() throws {
        let fixture = StoreFixture()
        try writeBooks(fixture, keys: ["book:1", "book:2"], damaged: ["book:2"])
        let get = try ToolProcess.modelstore(["get", "books", "book:2"] + fixture.rootArguments)
        #expect(get.status == 1)
        #expect(get.stderr.contains("\"book:2\""))
        #expect(!get.stderr.contains("modelstore delete"), "\(get.stderr)")
        let advice = try AdviceRunner.command("remove", in: get.stderr)
        let removed = try AdviceRunner.run(advice)
        #expect(removed.status == 0, "\(advice): \(removed.stderr)")
        #expect(try remainingKeys(fixture) == ["book:1", "keep"])
        #expect(try ToolProcess.modelstore(["get", "books", "book:2"] + fixture.rootArguments).status == 3)
    }

    @Test func adviceQuotesHostileKeysAndCollectionsForTheShell() throws {
        // A leading dash, shell metacharacters, a quote, a newline, and the decomposed spelling
        // of "é" beside the composed one (two different records).
        let hostile = [
            "-x", "--", "-", "~x y", "*", "a b$(echo no)`x`;|&*?", "it's \"quoted\"", "line\nbreak", "tab\there\u{1}",
            "caf\u{65}\u{301}",
        ]
        for collection in [nil, "my shelf", "-dash's"] as [String?] {
            let fixture = StoreFixture()
            try writeBooks(fixture, keys: hostile + ["caf\u{e9}"], damaged: Set(hostile), collection: collection)
            for key in hostile {
                // Options first, then `--`, so a key with a leading dash reaches the tool as a key.
                let options = fixture.rootArguments + (collection.map { ["--collection=\($0)"] } ?? [])
                let get = try ToolProcess.modelstore(["get"] + options + ["--", "books", key])
                #expect(get.status == 1, "\(key.debugDescription): \(get.stderr)")
                let advice = try AdviceRunner.command("remove", in: get.stderr)
                let removed = try AdviceRunner.run(advice)
                #expect(removed.status == 0, "\(advice): \(removed.stderr)")
            }
            let expected = ["caf\u{e9}"] + (collection == nil ? ["keep"] : [])
            #expect(try remainingKeys(fixture, collection: collection) == expected)
        }
    }

    @Test func aKeyTooLongToRepeatIsRemovedThroughTheRepairTheAdviceNames() throws {
        let fixture = StoreFixture()
        let key = String(repeating: "k", count: 2_000)
        try writeBooks(fixture, keys: [key, "short"], damaged: [key])
        let get = try ToolProcess.modelstore(["get", "books", key] + fixture.rootArguments)
        #expect(get.status == 1)
        #expect(AdviceRunner.commands(in: get.stderr).allSatisfy { !$0.contains(key) }, "\(get.stderr)")
        let repair = try AdviceRunner.run(try AdviceRunner.command("repair", in: get.stderr))
        #expect(repair.status == 1)
        let remove = try AdviceRunner.command("remove", in: repair.stdout)
        #expect(try AdviceRunner.run(remove).status == 0)
        #expect(try remainingKeys(fixture) == ["keep", "short"])
    }

    @Test func dumpAdvisesARemoveForEachDamagedRecordAndGoesOn() throws {
        let fixture = StoreFixture()
        try writeBooks(fixture, keys: ["book:1", "book:2", "book:3"], damaged: ["book:1", "book:3"])
        let dump = try ToolProcess.modelstore(["dump", "books"] + fixture.rootArguments)
        #expect(dump.status == 1)
        #expect(dump.lines.count == 4)
        let errors = dump.lines.compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["error"] as? String
        }
        #expect(errors.count == 2)
        for error in errors {
            #expect(!error.contains("modelstore delete"), "\(error)")
            #expect(try AdviceRunner.run(try AdviceRunner.command("remove", in: error)).status == 0)
        }
        #expect(try ToolProcess.modelstore(["dump", "books"] + fixture.rootArguments).status == 0)
        #expect(try remainingKeys(fixture) == ["book:2", "keep"])
    }

    @Test func repairReportsARecordThatFailsItsChecksumByKeyInsteadOfNothingLost() throws {
        let fixture = StoreFixture()
        try writeBooks(fixture, keys: ["book:1", "book:2"], damaged: ["book:2"])
        let repair = try ToolProcess.modelstore(["repair", "books"] + fixture.rootArguments)
        #expect(repair.status == 1, "\(repair.stdout)")
        #expect(!repair.stdout.contains("Nothing was lost"), "\(repair.stdout)")
        #expect(repair.stdout.contains("\"book:2\""), "\(repair.stdout)")
        #expect(!repair.stdout.contains("modelstore delete"), "\(repair.stdout)")
        // Kept, not dropped: the record is reported, never silently removed.
        #expect(try remainingKeys(fixture) == ["book:1", "book:2", "keep"])

        let advice = try AdviceRunner.command("remove", in: repair.stdout)
        #expect(try AdviceRunner.run(advice).status == 0)
        let again = try ToolProcess.modelstore(["repair", "books"] + fixture.rootArguments)
        #expect(again.status == 0)
        #expect(again.stdout.contains("Nothing was lost"), "\(again.stdout)")
        #expect(try remainingKeys(fixture) == ["book:1", "keep"])
    }

    @Test func repairReportsADamagedRecordInACollectionWithItsCollection() throws {
        let fixture = StoreFixture()
        try writeBooks(fixture, keys: ["x", "y"], damaged: ["y"], collection: "shelf")
        let repair = try ToolProcess.modelstore(["repair", "books"] + fixture.rootArguments)
        #expect(repair.status == 1)
        #expect(repair.stdout.contains("\"y\" in collection \"shelf\""), "\(repair.stdout)")
        #expect(try AdviceRunner.run(try AdviceRunner.command("remove", in: repair.stdout)).status == 0)
        #expect(try remainingKeys(fixture, collection: "shelf") == ["x"])
        #expect(try remainingKeys(fixture) == ["keep"])
    }

    @Test func theLibrarysCursorErrorAdvisesARemoveThatWorks() throws {
        let fixture = StoreFixture()
        try writeBooks(fixture, keys: ["book:1", "book:2", "book:3"], damaged: ["book:2"])
        var advice: String?
        do {
            let store = try fixture.open("books")
            defer { try? store.close() }
            let cursor = try store.entries(Book.self)
            var read: [String] = []
            while true {
                do {
                    guard let entry = try cursor.next() else { break }
                    read.append(entry.key)
                } catch {
                    // The error says how to go on: call next() again.
                    #expect("\(error)".contains("next()"))
                    advice = try AdviceRunner.command("remove", in: "\(error)")
                }
            }
            #expect(read == ["book:1", "book:3", "keep"])
        }
        let command = try #require(advice)
        #expect(try AdviceRunner.run(command).status == 0, "\(command)")
        #expect(try remainingKeys(fixture) == ["book:1", "book:3", "keep"])
    }
}
