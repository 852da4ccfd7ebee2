import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// One record that fails its own checksum in an otherwise healthy database: every error about
/// it names the key and says how to skip it or remove it (never "repair" or "delete the
/// database", which would not fix it or would lose every other record), a cursor goes on
/// after it, and `repair` reports it by key instead of saying nothing was lost.
@Suite("A damaged record")
struct DamagedRecordTests {
    /// Flips one payload bit of the record for `key` (in `collection`), behind ModelStore's back.
    static func damage(_ key: String, collection: String? = nil, in store: ModelStore) throws {
        let prefix = collection.map { [KeySpace.collectionMarker, UInt8($0.utf8.count)] + Array($0.utf8) } ?? []
        try store.database.write { engine in
            try (prefix + Array(key.utf8)).withUnsafeBytes { keyBytes in
                var record = try engine.withValue(forKey: keyBytes) { Array($0!) }
                record[record.count - 2] ^= 0x01
                try record.withUnsafeBytes { try engine.put(key: keyBytes, value: $0, sync: false) }
            }
        }
        store.database.invalidate(key, in: try collection.map { try KeySpace(collection: $0) } ?? .default)
    }

    /// `a`, `b`, `c` in database `db`, with `b` damaged.
    private func storeWithDamagedB(_ fixture: Fixture) throws -> ModelStore {
        let store = try fixture.open()
        for key in ["a", "b", "c"] { try store.set(User.sample(key), forKey: key) }
        try Self.damage("b", in: store)
        return store
    }

    /// Expects the description of a damaged record's error to name it and give advice that
    /// works, and none that would not.
    private func expectAdvice(
        _ error: any Error, key: String, command: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard case ModelStoreError.corrupted(_, let message) = error else {
            Issue.record("expected corrupted, got \(error)", sourceLocation: sourceLocation)
            return
        }
        #expect(message.contains("fails its checksum"), sourceLocation: sourceLocation)
        let description = "\(error)"
        #expect(description.contains(key.debugDescription), "\(description)", sourceLocation: sourceLocation)
        #expect(description.contains("next()"), "\(description)", sourceLocation: sourceLocation)
        #expect(description.contains("removeObject(forKey:)"), "\(description)", sourceLocation: sourceLocation)
        #expect(description.contains("`\(command)`"), "\(description)", sourceLocation: sourceLocation)
        #expect(!description.contains("delete it"), "\(description)", sourceLocation: sourceLocation)
        #expect(!description.contains("Repair it"), "\(description)", sourceLocation: sourceLocation)
    }

    @Test("A full cursor throws corrupted naming the key and how to skip or remove it, then goes on after it")
    func cursorNamesTheKeyAndGoesOn() throws {
        let fixture = Fixture()
        let store = try storeWithDamagedB(fixture)
        let root = fixture.directory.url.resolvingSymlinksInPath().path
        let cursor = try store.entries(User.self)
        #expect(try cursor.next()?.key == "a")
        do {
            _ = try cursor.next()
            Issue.record("expected the damaged record to throw")
        } catch {
            expectAdvice(error, key: "b", command: "modelstore remove db b --root \(root)")
        }
        #expect(try cursor.next()?.key == "c")
        #expect(try cursor.next() == nil)

        // The advice works: removing the key leaves a database every cursor reads in full.
        try store.removeObject(forKey: "b")
        #expect(try store.entries(User.self).collect().map(\.key) == ["a", "c"])
    }

    @Test("Reads of one damaged record give the same advice; its neighbours read as before")
    func readsGiveTheSameAdvice() throws {
        let fixture = Fixture()
        let store = try storeWithDamagedB(fixture)
        let root = fixture.directory.url.resolvingSymlinksInPath().path
        for read in [
            { _ = try store.object(User.self, forKey: "b") },
            { _ = try store.entry(User.self, forKey: "b") },
            { _ = try store.objects(User.self, forKeys: ["a", "b"]) },
            { _ = try store.snapshot().entries(User.self).collect() },
        ] as [() throws -> Void] {
            do {
                try read()
                Issue.record("expected the damaged record to throw")
            } catch {
                expectAdvice(error, key: "b", command: "modelstore remove db b --root \(root)")
            }
        }
        #expect(try store.object(User.self, forKey: "c") == User.sample("c"))
    }

    @Test("In a collection the advice names the collection, quoted for a shell")
    func collectionAdviceNamesTheCollection() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        let shelf = store.collection("my shelf")
        try shelf.set(User.sample("x"), forKey: "it's")
        try Self.damage("it's", collection: "my shelf", in: store)
        let root = fixture.directory.url.resolvingSymlinksInPath().path
        do {
            _ = try shelf.entries(User.self).collect()
            Issue.record("expected the damaged record to throw")
        } catch {
            expectAdvice(
                error, key: "it's",
                command: #"modelstore remove db 'it'\''s' --collection 'my shelf' --root "# + root)
            #expect("\(error)".contains("collection \"my shelf\""), "\(error)")
        }
        try shelf.removeObject(forKey: "it's")
        #expect(try shelf.count() == 0)
    }

    @Test("repair reports a record that fails its own checksum by key, and keeps it")
    func repairReportsTheRecordByKey() throws {
        let fixture = Fixture()
        let store = try storeWithDamagedB(fixture)
        try store.collection("shelf").set(User.sample("y"), forKey: "y")
        try Self.damage("y", collection: "shelf", in: store)
        try store.close()

        let report = try ModelStore.repair(named: "db", in: fixture.directory.url)
        #expect(report.description.contains("\"b\""), "\(report)")
        #expect(report.description.contains("\"y\" in collection \"shelf\""), "\(report)")
        #expect(report.recordsReadable == 4)

        // Kept, not dropped: the record is still there, and still reported as damaged.
        let reopened = try fixture.open()
        #expect(try reopened.contains("b"))
        #expect(throws: ModelStoreError.self) { try reopened.object(User.self, forKey: "b") }
    }
}
