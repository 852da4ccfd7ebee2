import Foundation
import Testing
@_spi(Benchmark) @testable import ModelStore
import ModelStoreTestSupport

@Suite("Collections: batches, snapshots, sweeps, limits, changes, import, format")
struct CollectionBehaviourTests {
    @Test("A batch writes across collections and the store in one atomic write")
    func crossCollectionBatch() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.collection("sessions").set("old", forKey: "7")
        try store.write { batch in
            try batch.set("user", forKey: "42", in: "users")
            try batch.set("plain", forKey: "42")
            try batch.set("short", forKey: "s", in: "sessions", expiresAfter: 5)
            batch.removeObject(forKey: "7", in: "sessions")
        }
        #expect(try store.collection("users").object(String.self, forKey: "42") == "user")
        #expect(try store.object(String.self, forKey: "42") == "plain")
        #expect(try store.collection("sessions").keys().collect() == ["s"])
        fixture.clock.advance(by: 6)
        #expect(try store.collection("sessions").contains("s") == false)
    }

    @Test("A batch writing through a Collection value stamps the collection's policy")
    func batchWithCollectionPolicy() throws {
        let fixture = Fixture()
        let store = try fixture.open(policy: .never)
        let sessions = store.collection("sessions", policy: .custom(10))
        try store.write { batch in
            try batch.set("s", forKey: "k", in: sessions)
            try batch.set("by name", forKey: "n", in: "sessions")  // the store's policy
        }
        fixture.clock.advance(by: 11)
        #expect(try sessions.keys().collect() == ["n"])
    }

    @Test("An encoding failure in the middle of a cross-collection batch writes nothing")
    func batchAllOrNothing() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.collection("sessions").set("kept", forKey: "7")
        #expect(errorCase {
            try store.write { batch in
                try batch.set("user", forKey: "42", in: "users")
                batch.removeObject(forKey: "7", in: "sessions")
                try batch.set(Unencodable(), forKey: "bad", in: "users")
                try batch.set("plain", forKey: "42")
            }
        } == "encodingFailed")
        #expect(try store.collection("users").count() == 0)
        #expect(try store.collection("sessions").object(String.self, forKey: "7") == "kept")
        #expect(try store.count() == 0)
    }

    @Test("A snapshot's collection view sees the collection as it was, and only it")
    func snapshotPerCollection() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        let users = store.collection("users")
        try users.set("old", forKey: "42")
        try store.set("store", forKey: "42")
        let snapshot = try store.snapshot()
        try users.set("new", forKey: "42")
        try users.set("later", forKey: "43")
        let view = snapshot.collection("users")
        #expect(try view.object(String.self, forKey: "42") == "old")
        let typed: String? = try view.object(forKey: "42")
        #expect(typed == "old")
        #expect(try view.contains("43") == false)
        #expect(try view.keys().collect() == ["42"])
        #expect(try view.count() == 1)
        #expect(try view.entries(String.self).collect().map(\.value) == ["old"])
        #expect(try view.objects(String.self, forKeys: ["42", "43"]) == ["42": "old"])
        #expect(try snapshot.keys().collect() == ["42"])
        #expect(try snapshot.object(String.self, forKey: "42") == "store")
        #expect(try snapshot.collection("other").count() == 0)
        #expect(try users.object(String.self, forKey: "42") == "new")
    }

    @Test("The store's sweep removes expired records of every collection, each by its own deadline")
    func sweepEveryCollection() throws {
        let fixture = Fixture()
        let store = try fixture.open(policy: .custom(100))
        try store.set("s", forKey: "k")
        try store.collection("plain").set("p", forKey: "k")  // the store's policy: 100 s
        try store.collection("fast", policy: .custom(10)).set("f", forKey: "k")
        try store.collection("forever", policy: .never).set("n", forKey: "k")
        fixture.clock.advance(by: 11)
        #expect(try store.removeExpiredObjects() == 1)
        #expect(try store.collectionNames() == ["forever", "plain"])
        fixture.clock.advance(by: 100)
        #expect(try store.removeExpiredObjects() == 2)
        #expect(try store.collectionNames() == ["forever"])
        #expect(try store.collection("forever").object(String.self, forKey: "k") == "n")
    }

    @Test("A collection's sweep removes only its own expired records")
    func collectionSweep() throws {
        let fixture = Fixture()
        let store = try fixture.open(policy: .custom(10))
        try store.set("s", forKey: "k")
        try store.collection("a").set("a", forKey: "k")
        try store.collection("b").set("b", forKey: "k")
        fixture.clock.advance(by: 11)
        #expect(try store.collection("a").removeExpiredObjects() == 1)
        #expect(try store.collectionNames() == ["b"])
        #expect(try store.rawKeys().count == 2)  // the store's and b's expired records stay
    }

    @Test("A collection's policy is honoured by another store's reads with another policy")
    func policyHonouredByAnotherInstance() throws {
        let fixture = Fixture()
        let writer = try fixture.open(policy: .never)
        try writer.collection("sessions", policy: .custom(10)).set("s", forKey: "k")
        try writer.collection("cache").set("c", forKey: "k")  // no policy: the reader's applies
        let other = try fixture.open(policy: .custom(1_000))
        fixture.clock.advance(by: 11)
        #expect(try other.collection("sessions").contains("k") == false)
        #expect(try other.collectionNames() == ["cache"])  // the expired read purged it
        #expect(try writer.collection("sessions").count() == 0)
        #expect(try other.collection("cache").object(String.self, forKey: "k") == "c")
    }

    @Test("A collection's policy is honoured by another store's sweep without any read first")
    func policyHonouredBySweepAlone() throws {
        let fixture = Fixture()
        let writer = try fixture.open(policy: .never)
        try writer.collection("sessions", policy: .highest).set("s", forKey: "k")
        let other = try fixture.open(policy: .lowest)
        fixture.clock.advance(by: 11)
        #expect(try other.removeExpiredObjects() == 1)
        #expect(try other.collectionNames() == [])
    }

    @Test("The limits are database-wide: the oldest records go first, whichever collection")
    func limitsAcrossCollections() throws {
        let fixture = Fixture()
        var configuration = fixture.configuration
        configuration.maximumRecordCount = 3
        configuration.evictsInline = true
        let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
        try store.collection("b").set("1", forKey: "old")
        fixture.clock.advance(by: 1)
        try store.set("2", forKey: "older-than-a")
        fixture.clock.advance(by: 1)
        for key in ["x", "y", "z"] {
            try store.collection("a").set(key, forKey: key)
            fixture.clock.advance(by: 1)
        }
        #expect(try store.removeExpiredObjects() == 0)  // evicted as the writes arrived
        #expect(try store.count() == 0)
        #expect(try store.collectionNames() == ["a"])
        #expect(try store.collection("a").count() == 3)
    }

    @Test("Changes name the collection of each record; nil for the store's own")
    func changesNameTheCollection() async throws {
        let fixture = Fixture()
        let store = try fixture.open()
        let changes = store.changes()
        try store.set("s", forKey: "k")
        try store.collection("users").set("u", forKey: "k")
        try store.write { batch in
            try batch.set("v", forKey: "k2", in: "users")
            batch.removeObject(forKey: "k", in: "users")
        }
        try store.collection("users").removeObjects(withPrefix: "")
        var received: [ModelStore.Change] = []
        for await change in changes {
            received.append(change)
            if received.count == 5 { break }
        }
        #expect(received == [
            .init(key: "k", kind: .set),
            .init(key: "k", kind: .set, collection: "users"),
            .init(key: "k2", kind: .set, collection: "users"),
            .init(key: "k", kind: .removed, collection: "users"),
            .init(key: "k2", kind: .removed, collection: "users"),
        ])
    }

    @Test("A sweep's changes and cache invalidations name the collection of each record")
    func sweepChangesNameTheCollection() async throws {
        let fixture = Fixture()
        var configuration = fixture.configuration
        configuration.objectCacheLimit = 10
        let store = try ModelStore(name: "db", policy: .custom(10), configuration: configuration)
        try store.collection("users").set("u", forKey: "k")
        #expect(try store.collection("users").object(String.self, forKey: "k") == "u")  // cached
        let changes = store.changes()
        fixture.clock.advance(by: 11)
        #expect(try store.removeExpiredObjects() == 1)
        for await change in changes {
            #expect(change == .init(key: "k", kind: .expired, collection: "users"))
            break
        }
        #expect(try store.collection("users").entry(String.self, forKey: "k", includingExpired: true) == nil)
    }

    @Test("Import into a collection writes there, with the collection's policy")
    func importIntoCollection() async throws {
        let fixture = Fixture()
        let store = try fixture.open(policy: .never)
        let users = store.collection("users", policy: .custom(10))
        let report = try await users.importObjects((0..<25).map { "m\($0)" }, key: { $0 }, batchSize: 10)
        #expect(report.written == 25)
        #expect(try users.count() == 25)
        #expect(try store.count() == 0)
        fixture.clock.advance(by: 11)
        #expect(try users.count() == 0)
        await #expect(throws: ModelStoreError.self) {
            _ = try await store.collection("").importObjects(["x"], key: { $0 })
        }
    }

    @Test("Read-through in a collection stores there and shares no fetch with the store's key")
    func readThroughInCollection() async throws {
        let fixture = Fixture()
        let store = try fixture.open()
        let users = store.collection("users")
        let fromCollection = try await users.object(String.self, forKey: "k") { "fetched for users" }
        let fromStore = try await store.object(String.self, forKey: "k") { "fetched for store" }
        #expect(fromCollection == "fetched for users")
        #expect(fromStore == "fetched for store")
        #expect(try users.object(String.self, forKey: "k") == "fetched for users")
        #expect(try await users.object(String.self, forKey: "k") { "not called" } == "fetched for users")
    }

    @Test("The store's own records keep the version-1 key layout; collections use 0xFE, length, name")
    func keyLayout() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.set("s", forKey: "key")
        try store.collection("ab").set("c", forKey: "key")
        #expect(try store.rawKeys() == [Array("key".utf8), [0xFE, 2] + Array("ab".utf8) + Array("key".utf8)])
    }

    @Test("A database written before collections opens and reads exactly as before")
    func databaseFromBeforeCollections() throws {
        let fixture = Fixture()
        do {
            let old = try fixture.open()
            try old.set(User.sample("a"), forKey: "user:1")
            try old.set(User.sample("b"), forKey: "user:2")
            try old.set("x", forKey: "\u{10FFFF}")  // the largest first byte a key can have: 0xF4
            try old.close()
        }
        let store = try fixture.open()
        #expect(try store.object(User.self, forKey: "user:1") == User.sample("a"))
        #expect(try store.keys().collect() == ["user:1", "user:2", "\u{10FFFF}"])
        #expect(try store.count() == 3)
        #expect(try store.collectionNames() == [])
        #expect(try store.removeExpiredObjects() == 0)
        #expect(try store.removeObjects(withPrefix: "") == 3)
    }
}
