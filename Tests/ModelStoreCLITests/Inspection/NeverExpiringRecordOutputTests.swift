import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// `modelstore get` on a record that never expires whatever the policy (issue 23, item 9): it
/// says "never", as for a `.never` store, not a date two thousand years away.
@Suite struct NeverExpiringRecordOutputTests {
    /// A database whose `forever` collection (`.never`) holds `new`, written by this release, and
    /// `old`, written as format-2 releases wrote a `.never` collection's record: with a deadline
    /// `RecordHeader.neverLifetime` after its storedAt.
    private func makeStore() throws -> StoreFixture {
        let fixture = StoreFixture()
        let store = try fixture.open("shop", policy: .highest)
        try store.collection("forever", policy: .never).set(Book.sample("new"), forKey: "new")
        let storedAt = Date().timeIntervalSinceReferenceDate
        var old: [UInt8] = [RecordHeader.versionTwo, RecordHeader.hasDeadlineFlag, 1, 0, 0, 0, 0]
        for time in [storedAt, storedAt + RecordHeader.neverLifetime] {
            withUnsafeBytes(of: time.bitPattern.littleEndian) { old.append(contentsOf: $0) }
        }
        old += Array(try JSONEncoder().encode(Book.sample("old")))
        let key = try KeySpace(collection: "forever").withPhysicalKey("old") { Array($0) }
        key.withUnsafeBytes { RecordHeader.seal(&old, key: $0) }
        try store.database.write { engine in
            try key.withUnsafeBytes { key in
                try old.withUnsafeBytes { try engine.put(key: key, value: $0, sync: true) }
            }
        }
        try store.close()
        return fixture
    }

    @Test func getSaysARecordOfANeverCollectionNeverExpires() throws {
        let fixture = try makeStore()
        for key in ["new", "old"] {
            // Under a short policy too: the record's own "never" wins.
            for policy in [[], ["--policy", "high"]] {
                let text = try ToolProcess.modelstore(
                    ["get", "shop", key, "--collection", "forever"] + policy + fixture.rootArguments)
                #expect(text.status == 0, "\(key) \(policy): \(text.stderr)")
                #expect(text.stdout.contains("expires at   never\n"), "\(key) \(policy): \(text.stdout)")
                let json = try ToolProcess.modelstore(
                    ["get", "shop", key, "--collection", "forever", "--json"] + policy + fixture.rootArguments)
                let document = try #require(try json.json() as? [String: Any])
                #expect(document["expiresAt"] is NSNull, "\(key) \(policy)")
                #expect(document["expired"] as? Bool == false, "\(key) \(policy)")
            }
        }
    }
}
