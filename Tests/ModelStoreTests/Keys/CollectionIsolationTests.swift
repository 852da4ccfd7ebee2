import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

@Suite("Collections: isolation")
struct CollectionIsolationTests {
    /// The store and two collections, each holding the same keys with its own values.
    private func populated(_ fixture: Fixture) throws -> (ModelStore, ModelStore.Collection, ModelStore.Collection) {
        let store = try fixture.open()
        let users = store.collection("users")
        let other = store.collection("other")
        for key in ["1", "2", "42", "4a"] {
            try store.set("store-\(key)", forKey: key)
            try users.set("users-\(key)", forKey: key)
            try other.set("other-\(key)", forKey: key)
        }
        return (store, users, other)
    }

    @Test("Equal keys in two collections and the store are three records, for every read")
    func everyReadIsIsolated() throws {
        let fixture = Fixture()
        let (store, users, other) = try populated(fixture)
        #expect(try store.object(String.self, forKey: "42") == "store-42")
        #expect(try users.object(String.self, forKey: "42") == "users-42")
        #expect(try other.object(String.self, forKey: "42") == "other-42")
        let typed: String? = try users.object(forKey: "1")
        #expect(typed == "users-1")
        #expect(try users.entry(String.self, forKey: "2")?.value == "users-2")
        #expect(try users.entry(String.self, forKey: "2", includingExpired: true)?.value == "users-2")
        #expect(try users.objects(String.self, forKeys: ["1", "42"]) == ["1": "users-1", "42": "users-42"])
        #expect(try users.entries(String.self, forKeys: ["4a"]).map(\.value) == ["users-4a"])
        #expect(try users.entries(String.self).collect().map(\.value) == ["users-1", "users-2", "users-42", "users-4a"])
        #expect(try store.entries(String.self).collect().map(\.value) == ["store-1", "store-2", "store-42", "store-4a"])
        #expect(try users.keys(in: .prefix("4")).collect() == ["42", "4a"])
        #expect(try users.keys(reverse: true, limit: 2).collect() == ["4a", "42"])
        #expect(try store.keys(reverse: true, limit: 1).collect() == ["4a"])
        #expect(try users.count() == 4)
        #expect(try users.count(in: .range(from: "2")) == 3)
        #expect(try store.count() == 4)
    }

    @Test("A key written only in a collection is not seen by the store, and the reverse")
    func bothDirections() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        let users = store.collection("users")
        try users.set("u", forKey: "only-in-users")
        try store.set("s", forKey: "only-in-store")
        #expect(try store.contains("only-in-users") == false)
        #expect(try store.object(String.self, forKey: "only-in-users") == nil)
        #expect(try users.contains("only-in-store") == false)
        #expect(try users.object(String.self, forKey: "only-in-store") == nil)
        #expect(try store.keys().collect() == ["only-in-store"])
        #expect(try users.keys().collect() == ["only-in-users"])
        #expect(try store.count() == 1)
        #expect(try store.collection("other").count() == 0)
    }

    @Test("The async cursor of a collection walks only its records")
    func asyncCursor() async throws {
        let fixture = Fixture()
        let (_, users, _) = try populated(fixture)
        var keys: [String] = []
        for try await key in try users.keys() { keys.append(key) }
        #expect(keys == ["1", "2", "42", "4a"])
    }

    @Test("Removing by key, keys and prefix in a collection leaves the store and other collections")
    func removalsAreIsolated() throws {
        let fixture = Fixture()
        let (store, users, other) = try populated(fixture)
        try users.removeObject(forKey: "1")
        try users.removeObjects(forKeys: ["2"])
        #expect(try users.removeObjects(withPrefix: "4") == 2)
        #expect(try users.count() == 0)
        #expect(try store.keys().collect() == ["1", "2", "42", "4a"])
        #expect(try other.keys().collect() == ["1", "2", "42", "4a"])
        #expect(try store.removeObjects(withPrefix: "") == 4)
        #expect(try other.count() == 4)
    }

    @Test("A collection's removeAllObjects leaves the store and other collections alone")
    func collectionRemoveAll() throws {
        let fixture = Fixture()
        let (store, users, other) = try populated(fixture)
        #expect(try users.removeAllObjects() == 4)
        #expect(try users.count() == 0)
        #expect(try store.count() == 4)
        #expect(try other.count() == 4)
    }

    @Test("The store's removeAllObjects removes its own keys and leaves every collection")
    func storeRemoveAll() throws {
        let fixture = Fixture()
        let (store, users, other) = try populated(fixture)
        #expect(try store.removeAllObjects() == 4)
        #expect(try store.count() == 0)
        #expect(try users.object(String.self, forKey: "42") == "users-42")
        #expect(try other.count() == 4)
    }

    @Test("The object cache keeps equal keys of two collections apart")
    func objectCache() throws {
        let fixture = Fixture()
        var configuration = fixture.configuration
        configuration.objectCacheLimit = 100
        let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
        let users = store.collection("users")
        try store.set("store", forKey: "k")
        try users.set("users", forKey: "k")
        for _ in 0..<2 {  // the second round is answered from the cache
            #expect(try store.object(String.self, forKey: "k") == "store")
            #expect(try users.object(String.self, forKey: "k") == "users")
        }
        try users.set("users 2", forKey: "k")
        #expect(try users.object(String.self, forKey: "k") == "users 2")
        #expect(try store.object(String.self, forKey: "k") == "store")
        try users.removeAllObjects()
        #expect(try users.object(String.self, forKey: "k") == nil)
        #expect(try store.object(String.self, forKey: "k") == "store")
    }

    @Test("Collection names with NUL-free odd bytes, and keys with NUL, / and :, stay apart")
    func oddNamesAndKeys() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        let names = ["a/b", "a:b", "a", "ab", "b", "\u{1}", "ünï ☃", String(repeating: "n", count: 255)]
        let keys = ["k", "\0", "a\0b", "/", ":", "ab", "\u{FE}\u{2}ab", String(repeating: "x", count: 64 << 10)]
        for name in names {
            for key in keys { try store.collection(name).set("\(name)|\(key.prefix(8))", forKey: key) }
        }
        for key in keys { try store.set("store|\(key.prefix(8))", forKey: key) }
        for name in names {
            let collection = store.collection(name)
            #expect(try collection.count() == keys.count, "\(name)")
            #expect(try collection.keys().collect() == keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
            for key in keys {
                #expect(try collection.object(String.self, forKey: key) == "\(name)|\(key.prefix(8))")
            }
        }
        #expect(try store.count() == keys.count)
        for key in keys { #expect(try store.object(String.self, forKey: key) == "store|\(key.prefix(8))") }
    }

    @Test("A name that is a prefix of another ('a' and 'ab') names another collection")
    func prefixNames() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.collection("a").set("in a", forKey: "bc")
        try store.collection("ab").set("in ab", forKey: "c")
        #expect(try store.collection("a").keys().collect() == ["bc"])
        #expect(try store.collection("ab").keys().collect() == ["c"])
        #expect(try store.collection("a").removeObjects(withPrefix: "") == 1)
        #expect(try store.collection("ab").count() == 1)
    }

    @Test("NFC and NFD spellings of a name are two collections")
    func unicodeNames() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        #expect(composed == decomposed)  // equal Swift strings, different bytes
        try store.collection(composed).set("composed", forKey: "k")
        try store.collection(decomposed).set("decomposed", forKey: "k")
        #expect(try store.collection(composed).object(String.self, forKey: "k") == "composed")
        #expect(try store.collection(decomposed).object(String.self, forKey: "k") == "decomposed")
        #expect(try store.collectionNames().count == 2)
    }

    @Test("Invalid collection names throw invalidName on use, naming what is valid")
    func invalidNames() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        for name in ["", String(repeating: "n", count: 256), "a\0b"] {
            let collection = store.collection(name)  // cheap: never throws
            #expect(errorCase { try collection.set("v", forKey: "k") } == "invalidName")
            #expect(errorCase { _ = try collection.object(String.self, forKey: "k") } == "invalidName")
            #expect(errorCase { _ = try collection.count() } == "invalidName")
            #expect(errorCase { _ = try store.snapshot().collection(name).count() } == "invalidName")
            #expect(errorCase { try store.write { try $0.set("v", forKey: "k", in: name) } } == "invalidName")
            #expect(errorCase { try store.write { $0.removeObject(forKey: "k", in: name) } } == "invalidName")
            do {
                try collection.set("v", forKey: "k")
            } catch {
                #expect("\(error)".hasPrefix("Invalid collection name"))
                #expect("\(error)".hasSuffix("Use 1 to 255 UTF-8 bytes without NUL"))
            }
        }
        #expect(try store.rawKeys().isEmpty)
    }

    @Test("collectionNames lists the collections holding records, sorted by bytes")
    func collectionNames() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        #expect(try store.collectionNames() == [])
        try store.set("s", forKey: "k")
        for name in ["zeta", "ab", "a", "b"] {
            try store.collection(name).set("x", forKey: "1")
            try store.collection(name).set("y", forKey: "2")
        }
        _ = store.collection("empty")
        #expect(try store.collectionNames() == ["a", "ab", "b", "zeta"])
        try store.collection("b").removeAllObjects()
        #expect(try store.collectionNames() == ["a", "ab", "zeta"])
    }
}
