import Foundation
import Testing
import ModelStoreTestSupport
@_spi(Inspection) @testable import ModelStore

/// Every public entry point of a collection made with an invalid policy (issue 23, item 1).
@Suite("Collections: an invalid policy is refused by every call")
struct InvalidCollectionPolicyTests {
    /// The database's every key and value, to show that nothing was written or removed.
    static func contents(_ store: ModelStore) throws -> [[UInt8]: [UInt8]] {
        let iterator = try store.database.run { engine in try engine.makeIterator(snapshot: nil) }
        try store.database.run { _ in try iterator.seekToFirst() }
        var contents: [[UInt8]: [UInt8]] = [:]
        while let (key, value) = try store.database.run({ _ in
            try iterator.withCurrent { key, value in (Array(key), Array(value)) }
        }) {
            contents[key] = value
            try store.database.run { _ in try iterator.next() }
        }
        return contents
    }

    /// The case name of what `body` throws, or nil.
    static func asyncErrorCase(_ body: () async throws -> Void) async -> String? {
        do {
            try await body()
            return nil
        } catch let error as ModelStoreError {
            return String(describing: Mirror(reflecting: error).children.first?.label ?? "\(error)")
        } catch {
            return "unexpected: \(error)"
        }
    }

    /// Every synchronous public call on `collection`, by name.
    static func synchronousCalls(
        _ collection: ModelStore.Collection, store: ModelStore
    ) -> [(String, () throws -> Void)] {
        let info = ["etag": "x"]
        return [
            ("set", { try collection.set("v", forKey: "k") }),
            ("set expiresAfter", { try collection.set("v", forKey: "k", expiresAfter: 5) }),
            ("set metadata", { try collection.set("v", forKey: "k", metadata: info as any Codable & Sendable) }),
            ("set expiresAfter metadata", {
                try collection.set("v", forKey: "k", expiresAfter: 5, metadata: info as any Codable & Sendable)
            }),
            ("set typed metadata", { try collection.set("v", forKey: "k", metadata: Optional(info)) }),
            ("set typed expiresAfter metadata", {
                try collection.set("v", forKey: "k", expiresAfter: 5, metadata: Optional(info))
            }),
            ("set tags", { try collection.set("v", forKey: "k", tags: ["t"]) }),
            ("set expiresAfter tags", { try collection.set("v", forKey: "k", expiresAfter: 5, tags: ["t"]) }),
            ("removeObject", { try collection.removeObject(forKey: "k") }),
            ("removeObjects forKeys", { try collection.removeObjects(forKeys: ["k"]) }),
            ("removeObjects withPrefix", { _ = try collection.removeObjects(withPrefix: "") }),
            ("removeAllObjects", { _ = try collection.removeAllObjects() }),
            ("removeExpiredObjects", { _ = try collection.removeExpiredObjects() }),
            ("object", { let _: String? = try collection.object(forKey: "k") }),
            ("object type", { _ = try collection.object(String.self, forKey: "k") }),
            ("entry", { _ = try collection.entry(String.self, forKey: "k") }),
            ("entry includingExpired", { _ = try collection.entry(String.self, forKey: "k", includingExpired: true) }),
            ("contains", { _ = try collection.contains("k") }),
            ("keys", { _ = try collection.keys().collect() }),
            ("entries", { _ = try collection.entries(String.self).collect() }),
            ("count", { _ = try collection.count() }),
            ("objects forKeys", { _ = try collection.objects(String.self, forKeys: ["k"]) }),
            ("entries forKeys", { _ = try collection.entries(String.self, forKeys: ["k"]) }),
            ("metadata", { _ = try collection.metadata([String: String].self, forKey: "k") }),
            ("replaceMetadata", { _ = try collection.replaceMetadata(info, forKey: "k") }),
            ("refresh", { _ = try collection.refresh(forKey: "k") }),
            ("refresh expiresAfter", { _ = try collection.refresh(forKey: "k", expiresAfter: 5, metadata: info) }),
            ("inspectRecord", { _ = try collection.inspectRecord(forKey: "k") }),
            ("batch set in", { try store.write { try $0.set("v", forKey: "b", in: collection) } }),
            ("batch set in metadata", {
                try store.write {
                    try $0.set("v", forKey: "b", in: collection, metadata: info as any Codable & Sendable)
                }
            }),
            ("batch set in typed metadata", {
                try store.write { try $0.set("v", forKey: "b", in: collection, metadata: Optional(info)) }
            }),
            ("batch set in tags", { try store.write { try $0.set("v", forKey: "b", in: collection, tags: ["t"]) } }),
        ]
    }

    @Test(
        "Every public call on a collection with an invalid policy throws invalidPolicy and writes nothing",
        arguments: [-5.0, 0.0, .nan, .infinity])
    func everyCallRefuses(seconds: TimeInterval) async throws {
        let fixture = Fixture()
        let store = try fixture.open()
        // Records a wrong call could read, overwrite or remove: the same name with a valid policy.
        let valid = store.collection("c", policy: .custom(60))
        try valid.set("stored", forKey: "k", metadata: ["etag": "a"], tags: ["t"])
        try store.set("store's own", forKey: "k")
        let before = try Self.contents(store)
        let collection = store.collection("c", policy: .custom(seconds))
        for (name, call) in Self.synchronousCalls(collection, store: store) {
            #expect(errorCase(call) == "invalidPolicy", "\(name) with .custom(\(seconds))")
        }
        let fetchNever: @Sendable () async throws -> String = {
            Issue.record("fetched")
            return "fetched"
        }
        let fetchEntryNever: @Sendable (ModelStore.Entry<String>?) async throws -> FetchResult<String> = { _ in
            Issue.record("fetched")
            return .value("fetched")
        }
        let asynchronous: [(String, () async throws -> Void)] = [
            ("importObjects sequence", { _ = try await collection.importObjects(["a", "b"], key: { $0 }) }),
            ("importObjects async sequence", {
                let stream = AsyncStream<String> { continuation in
                    continuation.yield("a")
                    continuation.finish()
                }
                _ = try await collection.importObjects(stream, key: { $0 })
            }),
            ("importObjects empty", { _ = try await collection.importObjects([String](), key: { $0 }) }),
            ("read-through fetch", { _ = try await collection.object(String.self, forKey: "r", fetch: fetchNever) }),
            ("read-through options", {
                _ = try await collection.object(
                    String.self, forKey: "r", options: ReadThroughOptions(), fetch: fetchEntryNever)
            }),
        ]
        for (name, call) in asynchronous {
            #expect(await Self.asyncErrorCase(call) == "invalidPolicy", "\(name) with .custom(\(seconds))")
        }
        #expect(try Self.contents(store) == before)
        // The valid collection still reads its record, unexpired.
        #expect(try valid.object(String.self, forKey: "k") == "stored")
    }

    @Test("An invalid name is refused by the imports too, before the input is read")
    func invalidNameRefusesImports() async throws {
        let fixture = Fixture()
        let store = try fixture.open()
        let collection = store.collection("", policy: .custom(5))
        #expect(
            await Self.asyncErrorCase { _ = try await collection.importObjects(["a"], key: { $0 }) } == "invalidName")
        #expect(try store.rawKeys().isEmpty)
    }
}
