import Foundation
import Testing

@testable import ModelStore
import ModelStoreTestSupport

/// A policy record the tool cannot read is reported, never trusted and never fatal.
@Suite struct DamagedPolicyRecordCommandTests {
    @Test func anUnreadableRecordedPolicyIsAssumedNeverAndSaidSo() throws {
        let fixture = StoreFixture()
        let store = try fixture.open("books", policy: .low)
        try store.set(Book.sample(), forKey: "k")
        // A record from a newer release: a format byte this one does not know.
        var value = StoredPolicies.value(of: .low, key: StoredPolicies.key(for: .default))
        value[0] = 9
        try store.database.write { engine in
            try StoredPolicies.key(for: .default).withUnsafeBytes { key in
                try value.withUnsafeBytes { try engine.put(key: key, value: $0, sync: false) }
            }
        }
        try store.close()
        let root = fixture.rootArguments

        let get = try ToolProcess.modelstore(["get", "books", "k"] + root)
        #expect(get.status == 0)
        #expect(get.stdout.contains("policy       never, assumed: "))
        #expect(get.stdout.contains("newer"))
        #expect(get.stdout.contains("Pass --policy"))
        let list = try ToolProcess.modelstore(["list"] + root)
        #expect(list.stdout.contains("unreadable (never assumed)"))
        let keys = try ToolProcess.modelstore(["keys", "books"] + root)
        #expect(keys.lines == ["k"])
        #expect(keys.stderr.contains("Pass --policy"))
        let overridden = try ToolProcess.modelstore(["get", "books", "k", "--policy", "low"] + root)
        #expect(overridden.stdout.contains("policy       low (24 hours), given with --policy"))
    }
}
