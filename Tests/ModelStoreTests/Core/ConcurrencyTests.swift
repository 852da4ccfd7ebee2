import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

@Suite("Concurrent use")
struct ConcurrencyTests {
    struct Account: Codable, Equatable, Sendable {
        var owner: Int
        var version: Int
    }

    @Test("8 tasks share one store with sets, reads, batches, snapshots, enumeration and sweeps")
    func eightTasks() async throws {
        let fixture = Fixture()
        var configuration = fixture.configuration
        configuration.objectCacheLimit = 64
        let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
        let rounds = 300
        try await withThrowingTaskGroup(of: Void.self) { group in
            for owner in 0..<8 {
                group.addTask {
                    for round in 1...rounds {
                        let key = "t\(owner):\(round % 20)"
                        switch round % 5 {
                        case 0:
                            try store.write { batch in
                                try batch.set(Account(owner: owner, version: round), forKey: key)
                                try batch.set(Account(owner: owner, version: round), forKey: "t\(owner):pair")
                            }
                        case 1:
                            let snapshot = try store.snapshot()
                            // Invariant: a task's pair record and its own keys belong to that task.
                            for entry in try snapshot.entries(Account.self, in: .prefix("t\(owner):")).collect() {
                                #expect(entry.value.owner == owner)
                            }
                        case 2:
                            _ = try store.keys(in: .prefix("t\(owner):")).collect()
                            _ = try store.removeExpiredObjects()
                        case 3:
                            try store.removeObject(forKey: key)
                        default:
                            try store.set(Account(owner: owner, version: round), forKey: key)
                            #expect(try store.object(Account.self, forKey: key) == Account(owner: owner, version: round))
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        for owner in 0..<8 {
            let pair = try #require(try store.object(Account.self, forKey: "t\(owner):pair"))
            #expect(pair.owner == owner)
            #expect(pair.version == rounds)  // the last batch round (300 % 5 == 0)
        }
    }
}
