import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

@Suite("Atomic write batches")
struct WriteBatchTests {
    struct Failure: Error {}

    @Test("A batch applies sets, per-record lifetimes and removals together")
    func appliesEverything() throws {
        let fixture = Fixture()
        let store = try fixture.open(policy: .never)
        try store.set(User.sample("old"), forKey: "u2")
        let count = try store.write { batch in
            try batch.set(User.sample("one"), forKey: "u1")
            try batch.set("session", forKey: "s1", expiresAfter: 30)
            batch.removeObject(forKey: "u2")
            return batch.count
        }
        #expect(count == 3)
        #expect(try store.object(User.self, forKey: "u1") == User.sample("one"))
        #expect(try store.contains("u2") == false)
        #expect(try store.entry(String.self, forKey: "s1")?.expiresAt == fixture.clock.now.addingTimeInterval(30))
        fixture.clock.advance(by: 30)
        #expect(try store.contains("s1") == false)
    }

    @Test("If the closure throws midway, nothing is written")
    func throwingClosureWritesNothing() throws {
        let store = try Fixture().open()
        try store.set(1, forKey: "keep")
        #expect(throws: Failure.self) {
            try store.write { batch in
                for index in 0..<500 { try batch.set(index, forKey: "k\(index)") }
                batch.removeObject(forKey: "keep")
                throw Failure()
            }
        }
        #expect(try store.count() == 1)
        #expect(try store.object(Int.self, forKey: "keep") == 1)
    }

    @Test("An encoding failure inside the batch aborts the whole batch")
    func encodingFailureAborts() throws {
        let store = try Fixture().open()
        #expect(errorCase {
            try store.write { batch in
                try batch.set(1.0, forKey: "a")
                try batch.set(Double.nan, forKey: "b")  // JSON cannot encode NaN
            }
        } == "encodingFailed")
        #expect(try store.contains("a") == false)
    }

    @Test("An invalid key in a removal aborts the whole batch with invalidKey")
    func invalidRemovalAborts() throws {
        let store = try Fixture().open()
        #expect(errorCase {
            try store.write { batch in
                try batch.set(1, forKey: "a")
                batch.removeObject(forKey: "")
            }
        } == "invalidKey")
        #expect(try store.contains("a") == false)
    }

    @Test("A sync batch is written and readable")
    func syncBatch() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.write(sync: true) { batch in try batch.set(1, forKey: "durable") }
        try store.close()
        #expect(try fixture.open().object(Int.self, forKey: "durable") == 1)
    }

    @Test("An empty batch is a no-op")
    func emptyBatch() throws {
        let store = try Fixture().open()
        try store.write { _ in }
        #expect(try store.count() == 0)
    }

    @Test("A batch on a closed store throws closed")
    func closedStore() throws {
        let store = try Fixture().open()
        try store.close()
        #expect(errorCase { try store.write { batch in try batch.set(1, forKey: "a") } } == "closed")
    }
}
