import Foundation
import Testing
import ModelStore
import ModelStoreTestSupport

/// The public contract of the collections-and-metadata issue, spelled as the issue spells it
/// (only `_ =` added where a result is unused): users and external tests compile against it.
@Suite("Collections and metadata: the published API")
struct CollectionAndMetadataAPITests {
    struct HTTPInfo: Codable, Sendable, Equatable { var etag: String; var lastModified: String? }

    @Test("The collections contract compiles and behaves as written")
    func collectionsContract() throws {
        let store = try Fixture().open()
        let user = User.sample()
        let users = store.collection("users")
        let sessions = store.collection("sessions", policy: .highest)
        try users.set(user, forKey: "42")
        try users.set(user, forKey: "42", expiresAfter: 60)
        let u: User? = try users.object(forKey: "42")
        let same = try users.object(User.self, forKey: "42")
        let entry = try users.entry(User.self, forKey: "42")
        _ = try users.entry(User.self, forKey: "42", includingExpired: true)
        #expect(u == user && same == user && entry?.value == user)
        #expect(try users.contains("42"))
        try users.removeObject(forKey: "42")
        try users.removeObjects(forKeys: ["1", "2"])
        _ = try users.removeObjects(withPrefix: "4")
        _ = try users.removeAllObjects()
        #expect(try users.count() == 0)
        _ = try users.count(in: .prefix("4"))
        _ = try users.keys(in: .prefix("4"), reverse: false, limit: nil)
        _ = try users.entries(User.self, in: .all)
        _ = try users.objects(User.self, forKeys: ["1", "2"])
        try sessions.set(user, forKey: "7")
        try store.write { batch in
            try batch.set(user, forKey: "42", in: "users")
            batch.removeObject(forKey: "7", in: "sessions")
        }
        #expect(try store.collectionNames() == ["users"])
        let snapshot = try store.snapshot()
        try users.removeObject(forKey: "42")
        let old = try snapshot.collection("users").object(User.self, forKey: "42")
        #expect(old == user)
    }

    @Test("The metadata contract compiles and behaves as written")
    func metadataContract() throws {
        let store = try Fixture().open()
        let user = User.sample()
        let info = HTTPInfo(etag: "\"abc\"")
        try store.set(user, forKey: "u1", metadata: HTTPInfo(etag: "\"abc\""))
        try store.set(user, forKey: "u1", expiresAfter: 60, metadata: info)
        let read = try store.metadata(HTTPInfo.self, forKey: "u1")
        let entry = try store.entry(User.self, forKey: "u1")
        let same = try entry?.metadata(HTTPInfo.self)
        #expect(read == info && same == info)
        let info2 = HTTPInfo(etag: "\"def\"")
        let replaced = try store.replaceMetadata(info2, forKey: "u1")
        let info3 = HTTPInfo(etag: "\"ghi\"", lastModified: "Tue, 24 Nov 2026 10:00:00 GMT")
        let refreshed = try store.refresh(forKey: "u1", expiresAfter: nil, metadata: info3)
        #expect(replaced && refreshed)
        #expect(try store.metadata(HTTPInfo.self, forKey: "u1") == info3)
        try store.write { batch in
            try batch.set(user, forKey: "u2", metadata: info)
            try batch.set(user, forKey: "u2", in: "users", metadata: info)
        }
        try store.removeObject(forKey: "u1")
        #expect(try store.metadata(HTTPInfo.self, forKey: "u1") == nil)
    }
}
