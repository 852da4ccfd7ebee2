import Foundation
import ModelStore
import ModelStoreTestSupport
import Testing
@testable import ModelStoreRedis

/// The fleet's fetch lock in one round trip (`RedisScripts.lockUnlessStored`): a record that
/// landed is answered instead of a lock, a tombstone is not, and the holder's publication of
/// what it stored gives the lock up.
@Suite struct FleetFetchLockTests {
    private func attachment(of node: FleetNode) throws -> RedisAttachment {
        try #require(node.tier.registry.attachments(named: "users").first)
    }

    @Test func aRecordInRedisIsAnsweredAsStoredWithNoLockTaken() throws {
        let server = try RedisServer()
        let a = try FleetNode(server)
        let b = try FleetNode(server)
        try a.store.set(Profile(value: "v1"), forKey: "k")
        let key = SharedTierKey(collection: nil, key: "k")
        let lock = try attachment(of: b).lockFetchUnlessStored(of: key, for: .seconds(5))
        guard case .stored = lock else {
            Issue.record("expected .stored, got \(lock)")
            return
        }
        // No lock left behind: another caller takes it at once.
        let plain = try attachment(of: b).lockFetch(of: key, for: .seconds(5))
        guard case .acquired = plain else {
            Issue.record("expected the lock to be free, got \(plain)")
            return
        }
        try attachment(of: b).unlockFetch(plain)
    }

    @Test func aTombstoneIsNoRecordTheLockIsTaken() throws {
        let server = try RedisServer()
        let a = try FleetNode(server)
        let b = try FleetNode(server)
        try a.store.set(Profile(value: "v1"), forKey: "k")
        try a.store.removeObject(forKey: "k")
        let key = SharedTierKey(collection: nil, key: "k")
        guard case .removed = try attachment(of: b).lookup(key) else {
            Issue.record("expected a tombstone in Redis")
            return
        }
        let lock = try attachment(of: b).lockFetchUnlessStored(of: key, for: .seconds(5))
        guard case .acquired = lock else {
            Issue.record("expected .acquired, got \(lock)")
            return
        }
        // Held: the next caller waits.
        guard case .heldElsewhere = try attachment(of: a).lockFetchUnlessStored(of: key, for: .seconds(5)) else {
            Issue.record("expected the lock to be held")
            return
        }
        try attachment(of: b).unlockFetch(lock)
        guard case .acquired = try attachment(of: a).lockFetchUnlessStored(of: key, for: .seconds(5)) else {
            Issue.record("expected the lock to be free after the unlock")
            return
        }
    }

    @Test func theHoldersPublicationGivesTheLockUp() throws {
        let server = try RedisServer()
        let a = try FleetNode(server)
        let b = try FleetNode(server)
        let key = SharedTierKey(collection: nil, key: "k")
        let lock = try attachment(of: a).lockFetchUnlessStored(of: key, for: .seconds(5))
        guard case .acquired(_, let token) = lock else {
            Issue.record("expected .acquired, got \(lock)")
            return
        }
        // What the read-through stores after its fetch: the publication the writer waits for.
        try a.store.set(Profile(value: "fetched"), forKey: "k")
        let lockKey = a.tier.keys.lock(database: "users", key: key)
        #expect(try server.command([Array("EXISTS".utf8)] + [lockKey]).integer == 0)
        // Given up: the holder's unlock has nothing left to do.
        #expect(try attachment(of: a).fetchLocks.release(key, token: token) == false)
        guard case .stored = try attachment(of: b).lockFetchUnlessStored(of: key, for: .seconds(5)) else {
            Issue.record("expected the record to have landed")
            return
        }
        try attachment(of: a).unlockFetch(lock)
    }
}
