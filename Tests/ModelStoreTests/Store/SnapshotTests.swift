import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

@Suite("Snapshots")
struct SnapshotTests {
    @Test("A snapshot does not see later writes, removals or sweeps")
    func isolation() throws {
        let fixture = Fixture()
        let store = try fixture.open(policy: .high)
        try store.set(User.sample("old"), forKey: "u1")
        try store.set(User.sample("gone"), forKey: "u2")
        let snapshot = try store.snapshot()

        try store.set(User.sample("new"), forKey: "u1")
        try store.removeObject(forKey: "u2")
        try store.set(User.sample("later"), forKey: "u3")

        #expect(try snapshot.object(User.self, forKey: "u1") == User.sample("old"))
        #expect(try snapshot.object(User.self, forKey: "u2") == User.sample("gone"))
        #expect(try snapshot.contains("u3") == false)
        #expect(try snapshot.keys().collect() == ["u1", "u2"])
        #expect(try store.object(User.self, forKey: "u1") == User.sample("new"))
    }

    @Test("A snapshot stays consistent while 4 writers rewrite every key")
    func isolationUnderConcurrentWrites() async throws {
        let fixture = Fixture()
        let store = try fixture.open()
        let keys = (0..<200).map { "k\($0)" }
        try store.write { batch in for key in keys { try batch.set(0, forKey: key) } }
        let snapshot = try store.snapshot()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 1...4 {
                group.addTask {
                    for round in 0..<50 {
                        try store.write { batch in for key in keys { try batch.set(writer * 1000 + round, forKey: key) } }
                    }
                }
            }
            group.addTask {
                for _ in 0..<20 {
                    let values = try snapshot.objects(Int.self, forKeys: keys)
                    #expect(values.count == keys.count)
                    #expect(values.values.allSatisfy { $0 == 0 })
                }
            }
            try await group.waitForAll()
        }
        // Each batch is atomic, so the live store holds one writer's round for every key.
        let live = try store.objects(Int.self, forKeys: keys)
        #expect(Set(live.values).count == 1)
    }

    @Test("Expired records read as nil through a snapshot, and the snapshot deletes nothing")
    func expiredThroughSnapshot() throws {
        let fixture = Fixture()
        let store = try fixture.open(policy: .highest)
        try store.set(1, forKey: "k")
        let snapshot = try store.snapshot()
        fixture.clock.advance(by: 10)
        #expect(try snapshot.object(Int.self, forKey: "k") == nil)
        #expect(try snapshot.entry(Int.self, forKey: "k") == nil)
        #expect(try snapshot.contains("k") == false)
        #expect(try snapshot.count() == 0)
        // Still there for a store with a longer policy: the snapshot did not delete it.
        let relaxed = try fixture.open(policy: .never)
        #expect(try relaxed.object(Int.self, forKey: "k") == 1)
    }

    @Test("A snapshot keeps its database open after the store closes, and releases it when closed")
    func keepsDatabaseAlive() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.set(1, forKey: "k")
        let database = store.database
        let snapshot = try store.snapshot()
        try store.close()
        #expect(database.engine.isOpen)
        #expect(try snapshot.object(Int.self, forKey: "k") == 1)
        #expect(database.engine.liveChildCount == 1)
        snapshot.close()
        #expect(database.engine.isOpen == false)
        #expect(errorCase { _ = try snapshot.object(Int.self, forKey: "k") } == "closed")
    }

    @Test("Releasing a snapshot releases LevelDB's snapshot")
    func releaseFreesSnapshot() throws {
        let store = try Fixture().open()
        var snapshot: ModelStore.Snapshot? = try store.snapshot()
        #expect(store.database.engine.liveChildCount == 1)
        _ = try snapshot?.contains("k")
        snapshot = nil
        #expect(store.database.engine.liveChildCount == 0)
    }

    @Test("Using a snapshot after its database is deleted throws closed, never crashes")
    func snapshotAfterDelete() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.set(1, forKey: "k")
        let snapshot = try store.snapshot()
        let cursor = try snapshot.keys()
        try store.deleteFromDisk()
        #expect(errorCase { _ = try snapshot.object(Int.self, forKey: "k") } == "closed")
        #expect(errorCase { _ = try snapshot.contains("k") } == "closed")
        #expect(errorCase { _ = try cursor.next() } == "closed")
        #expect(errorCase { _ = try snapshot.keys() } == "closed")
    }

    @Test("Snapshot entries carry metadata and enumerate in order")
    func snapshotEnumeration() throws {
        let fixture = Fixture()
        let store = try fixture.open(policy: .middle)
        for key in ["b", "a", "c"] { try store.set(key, forKey: key) }
        let snapshot = try store.snapshot()
        let entries = try snapshot.entries(String.self).collect()
        #expect(entries.map(\.key) == ["a", "b", "c"])
        #expect(entries.map(\.value) == ["a", "b", "c"])
        #expect(entries.allSatisfy { $0.expiresAt == $0.storedAt.addingTimeInterval(3_600) })
        #expect(try snapshot.entry(String.self, forKey: "b")?.value == "b")
    }
}
