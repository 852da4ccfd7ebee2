import Foundation
import Testing
@testable import ModelStore

@Suite("Change observation")
struct ChangeObservationTests {
    typealias Change = ModelStore.Change

    /// Collects `count` changes from `stream`, failing after a timeout instead of hanging.
    func collect(_ count: Int, from stream: AsyncStream<Change>) async throws -> [Change] {
        try await withThrowingTaskGroup(of: [Change]?.self) { group in
            group.addTask {
                var changes: [Change] = []
                for await change in stream {
                    changes.append(change)
                    if changes.count == count { break }
                }
                return changes
            }
            group.addTask {
                try await Task.sleep(for: .seconds(10))
                return nil
            }
            let first = try await group.next()!
            group.cancelAll()
            return first ?? []
        }
    }

    @Test("Every write path reports its changes, in order")
    func allWritePaths() async throws {
        let fixture = Fixture()
        let store = try fixture.open(policy: .high)
        let stream = store.changes()
        try store.set(1, forKey: "a")
        try store.write { batch in
            try batch.set(2, forKey: "b")
            batch.removeObject(forKey: "a")
        }
        try await store.importObjects([3, 4], key: { "i\($0)" })
        try store.removeObjects(forKeys: ["b"])
        try store.removeObjects(withPrefix: "i3")
        fixture.clock.advance(by: 60)
        _ = try store.object(Int.self, forKey: "i4")  // expired: purged by the read
        try store.set(5, forKey: "c")
        fixture.clock.advance(by: 60)
        try store.removeExpiredObjects()
        try store.set(6, forKey: "d")
        try store.removeObject(forKey: "d")

        let changes = try await collect(11, from: stream)
        #expect(changes == [
            Change(key: "a", kind: .set),
            Change(key: "b", kind: .set), Change(key: "a", kind: .removed),
            Change(key: "i3", kind: .set), Change(key: "i4", kind: .set),
            Change(key: "b", kind: .removed),
            Change(key: "i3", kind: .removed),
            Change(key: "i4", kind: .expired),
            Change(key: "c", kind: .set),
            Change(key: "c", kind: .expired),
            Change(key: "d", kind: .set),
        ])
    }

    @Test("Evictions by a sweep's limits are reported as evicted")
    func evictions() async throws {
        let fixture = Fixture()
        var configuration = fixture.configuration
        configuration.maximumRecordCount = 1
        let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
        try store.set(1, forKey: "old")
        fixture.clock.advance(by: 1)
        try store.set(2, forKey: "new")
        let stream = store.changes()
        try store.removeExpiredObjects()
        #expect(try await collect(1, from: stream) == [Change(key: "old", kind: .evicted)])
    }

    @Test("Changes made through another instance of the same database are seen")
    func otherInstance() async throws {
        let fixture = Fixture()
        let observer = try fixture.open()
        let writer = try fixture.open()
        let stream = observer.changes()
        try writer.set(1, forKey: "k")
        #expect(try await collect(1, from: stream) == [Change(key: "k", kind: .set)])
    }

    @Test("The stream finishes when the database is closed or deleted")
    func finishesOnClose() async throws {
        let store = try Fixture().open()
        let stream = store.changes()
        try store.deleteFromDisk()
        var count = 0
        for await _ in stream { count += 1 }
        #expect(count == 0)
        var after = 0
        for await _ in store.changes() { after += 1 }  // a closed store gives a finished stream
        #expect(after == 0)
    }
}
