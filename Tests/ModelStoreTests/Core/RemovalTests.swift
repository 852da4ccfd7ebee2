import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

@Suite("Removal counts and reports live records only")
struct RemovalTests {
    typealias Change = ModelStore.Change

    /// A store with 5 live records and 2 expired ones under "p:", and one live record elsewhere.
    func storeWithExpiredRecords(_ fixture: Fixture) throws -> ModelStore {
        let store = try fixture.open(policy: .never)
        for index in 0..<5 { try store.set(index, forKey: "p:live\(index)") }
        for index in 0..<2 { try store.set(index, forKey: "p:old\(index)", expiresAfter: 10) }
        try store.set(9, forKey: "q:other")
        fixture.clock.advance(by: 20)
        return store
    }

    /// Collects changes until `sentinel` arrives (a set written after the calls under test),
    /// so a change that should not be reported is seen missing, not waited for.
    func changes(until sentinel: String, from stream: AsyncStream<Change>) async -> [Change] {
        var changes: [Change] = []
        for await change in stream {
            if change.key == sentinel { break }
            changes.append(change)
        }
        return changes
    }

    @Test("Removing by prefix returns the count of live records, as count(in:) says")
    func prefixRemovalCountsLiveRecords() throws {
        let store = try storeWithExpiredRecords(Fixture())
        #expect(try store.count(in: .prefix("p:")) == 5)
        #expect(try store.removeObjects(withPrefix: "p:") == 5)
        #expect(try store.entries(Int.self, in: .prefix("p:")).collect().isEmpty)
        #expect(try store.entry(Int.self, forKey: "p:old0", includingExpired: true) == nil)  // removed too
    }

    @Test("Removing by prefix reports expired records as expired and live ones as removed")
    func prefixRemovalReportsExpiredAsExpired() async throws {
        let store = try storeWithExpiredRecords(Fixture())
        let stream = store.changes()
        try store.removeObjects(withPrefix: "p:")
        try store.set(0, forKey: "sentinel")
        let changes = await changes(until: "sentinel", from: stream)
        #expect(changes.filter { $0.kind == .removed }.map(\.key) == (0..<5).map { "p:live\($0)" })
        #expect(changes.filter { $0.kind == .expired }.map(\.key) == ["p:old0", "p:old1"])
        #expect(changes.count == 7)
    }

    @Test("Removing everything returns the count of live records")
    func removeAllCountsLiveRecords() throws {
        let store = try storeWithExpiredRecords(Fixture())
        #expect(try store.count() == 6)
        #expect(try store.removeAllObjects() == 6)
        #expect(try store.keys().collect().isEmpty)
    }

    @Test("Removing keys reports each record once: live as removed, expired as expired, missing not at all")
    func removeManyReportsWhatWasThere() async throws {
        let store = try storeWithExpiredRecords(Fixture())
        let stream = store.changes()
        try store.removeObjects(forKeys: ["p:live0", "p:old0", "missing", "p:live0"])
        try store.removeObject(forKey: "p:old1")
        try store.removeObject(forKey: "also-missing")
        try store.write { batch in
            try batch.set(1, forKey: "new")
            batch.removeObject(forKey: "new")
            batch.removeObject(forKey: "p:live1")
        }
        try store.set(0, forKey: "sentinel")
        #expect(await changes(until: "sentinel", from: stream) == [
            Change(key: "p:live0", kind: .removed), Change(key: "p:old0", kind: .expired),
            Change(key: "p:old1", kind: .expired),
            Change(key: "new", kind: .set), Change(key: "new", kind: .removed), Change(key: "p:live1", kind: .removed),
        ])
    }
}
