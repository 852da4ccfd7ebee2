import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// The metadata API is the same on collections and in batches across collections, and a
/// collection's metadata never leaks into the store's own keys or another collection.
@Suite("Collections: metadata")
struct CollectionMetadataTests {
    struct HTTPInfo: Codable, Equatable, Sendable {
        var etag: String
    }

    @Test("Metadata of equal keys in a collection and in the store are kept apart")
    func metadataIsIsolated() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        let users = store.collection("users")
        try store.set(User.sample("store"), forKey: "42", metadata: HTTPInfo(etag: "store"))
        try users.set(User.sample("users"), forKey: "42", metadata: HTTPInfo(etag: "users"))
        try store.collection("other").set(User.sample("other"), forKey: "42")
        #expect(try store.metadata(HTTPInfo.self, forKey: "42") == HTTPInfo(etag: "store"))
        #expect(try users.metadata(HTTPInfo.self, forKey: "42") == HTTPInfo(etag: "users"))
        #expect(try store.collection("other").metadata(HTTPInfo.self, forKey: "42") == nil)
        #expect(try users.entry(User.self, forKey: "42")?.metadata(HTTPInfo.self) == HTTPInfo(etag: "users"))
    }

    @Test("replaceMetadata and refresh in a collection rewrite only that collection's record")
    func rewritesStayInTheCollection() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        let users = store.collection("users")
        try store.set(User.sample("store"), forKey: "k", metadata: HTTPInfo(etag: "store"))
        try users.set(User.sample("users"), forKey: "k", expiresAfter: 60, metadata: HTTPInfo(etag: "v1"))
        let before = try #require(try users.entry(User.self, forKey: "k"))

        #expect(try users.replaceMetadata(HTTPInfo(etag: "v2"), forKey: "k"))
        fixture.clock.advance(by: 30)
        #expect(try users.refresh(forKey: "k"))

        let after = try #require(try users.entry(User.self, forKey: "k"))
        #expect(after.value == before.value)
        #expect(try after.metadata(HTTPInfo.self) == HTTPInfo(etag: "v2"))
        #expect(after.storedAt == before.storedAt.addingTimeInterval(30))
        #expect(after.expiresAt == before.expiresAt?.addingTimeInterval(30))  // the same 60 s lifetime
        #expect(try store.metadata(HTTPInfo.self, forKey: "k") == HTTPInfo(etag: "store"))
        #expect(try !store.collection("missing").refresh(forKey: "k"))
        #expect(try !store.collection("missing").replaceMetadata(HTTPInfo(etag: "x"), forKey: "k"))
    }

    @Test("A collection's policy is stamped on records written with metadata, and refresh restarts it")
    func policyWithMetadata() throws {
        let fixture = Fixture()
        let sessions = try fixture.open().collection("sessions", policy: .highest)
        try sessions.set(User.sample(), forKey: "s", metadata: HTTPInfo(etag: "e"))
        fixture.clock.advance(by: 8)
        #expect(try sessions.refresh(forKey: "s"))
        fixture.clock.advance(by: 8)
        #expect(try sessions.metadata(HTTPInfo.self, forKey: "s") == HTTPInfo(etag: "e"))
        fixture.clock.advance(by: 3)
        #expect(try sessions.metadata(HTTPInfo.self, forKey: "s") == nil)
    }

    @Test("Batches set metadata in collections, by name and by collection, all or nothing")
    func batchesAcrossCollections() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        let sessions = store.collection("sessions", policy: .highest)
        try store.write { batch in
            try batch.set(User.sample("u"), forKey: "1", in: "users", metadata: HTTPInfo(etag: "u"))
            try batch.set(User.sample("s"), forKey: "1", in: sessions, metadata: HTTPInfo(etag: "s"))
            try batch.set(User.sample("d"), forKey: "1", metadata: HTTPInfo(etag: "d"))
        }
        #expect(try store.collection("users").metadata(HTTPInfo.self, forKey: "1") == HTTPInfo(etag: "u"))
        #expect(try sessions.metadata(HTTPInfo.self, forKey: "1") == HTTPInfo(etag: "s"))
        #expect(try sessions.entry(User.self, forKey: "1")?.expiresAt != nil)
        #expect(try store.metadata(HTTPInfo.self, forKey: "1") == HTTPInfo(etag: "d"))

        struct Refusing: Codable, Sendable {
            func encode(to encoder: any Encoder) throws {
                throw EncodingError.invalidValue(0, .init(codingPath: [], debugDescription: "no"))
            }
        }
        #expect(throws: ModelStoreError.self) {
            try store.write { batch in
                try batch.set(User.sample("new"), forKey: "2", in: "users", metadata: HTTPInfo(etag: "new"))
                try batch.set(User.sample("bad"), forKey: "3", in: "users", metadata: Refusing())
            }
        }
        #expect(try store.collection("users").contains("2") == false)
    }
}
