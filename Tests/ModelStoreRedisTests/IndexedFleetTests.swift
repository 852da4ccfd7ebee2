import Foundation
import ModelStore
import ModelStoreTestSupport
import Testing
@testable import ModelStoreRedis

/// Index ids are per database: a record another node wrote names its own database's ids in its
/// index values section, so a node that stores it from the tier drops the section and indexes
/// the record with its own indexes.
@Suite(.serialized, .enabled(if: RedisServer.isInstalled, "needs redis-server (scripts/install-dependencies)"))
struct IndexedFleetTests {
    /// With a lifetime of its own, b stores the record restamped (reassembled); without one, as
    /// the tier's bytes are, but for the section.
    @Test(arguments: [false, true]) func aRecordFromAnotherNodeIsIndexedByThisNodesOwnIndexes(ownLifetime: Bool) throws {
        let server = try RedisServer()
        let a = try FleetNode(server)
        let b = try FleetNode(server)
        // On a, byValue takes id 1; on b, id 1 is another index, and byValue takes id 2.
        try a.store.defineIndex("byValue", of: Profile.self, version: 1) { [.string($0.value)] }
        try b.store.defineIndex("pad", of: Profile.self, version: 1) { [.string("pad-" + $0.value)] }
        try b.store.defineIndex("byValue", of: Profile.self, version: 1) { [.string($0.value)] }
        try a.store.set(Profile(value: "x"), forKey: "user:1", expiresAfter: ownLifetime ? 3600 : nil)
        #expect(try b.holdsLocally("user:1"))
        #expect(try b.store.keys(where: "byValue", equals: .string("x")).collect() == ["user:1"])
        #expect(try b.store.keys(where: "pad", equals: .string("pad-x")).collect() == ["user:1"])
        #expect(try b.store.count(where: "pad", equals: .string("x")) == 0)
        // b's own overwrite replaces exactly the entries the stored copy got.
        try b.store.set(Profile(value: "y"), forKey: "user:1")
        #expect(try b.store.keys(where: "byValue", equals: .string("x")).collect() == [])
        #expect(try b.store.keys(where: "pad", equals: .string("pad-x")).collect() == [])
        #expect(try b.store.keys(where: "byValue", equals: .string("y")).collect() == ["user:1"])
        #expect(try b.store.keys(where: "pad", equals: .string("pad-y")).collect() == ["user:1"])
    }
}
