#if Encryption
#if canImport(CryptoKit)
import CryptoKit
#else
import Crypto
#endif
import Foundation
import ModelStore
import ModelStoreTestSupport
import Testing
@testable import ModelStoreRedis

/// A fleet of encrypting nodes: Redis holds the sealed records (never plaintext), a node with the
/// key reads them, and a record restamped with Redis's shorter remaining lifetime is sealed again
/// (its header is bound to the seal), so it still opens after the restamp.
@Suite(.serialized, .enabled(if: RedisServer.isInstalled, "needs redis-server (scripts/install-dependencies)"))
struct EncryptedFleetTests {
    static let key = SymmetricKey(data: Data(repeating: 7, count: 32))

    @Test(arguments: [true, false]) func sealedRecordsCrossTheFleetAndReopenAfterTheRestamp(encrypted: Bool) throws {
        let server = try RedisServer()
        let encrypt: (inout ModelStore.Configuration) -> Void = { if encrypted { $0.encryption = .aes256GCM(key: Self.key) } }
        let a = try FleetNode(server, configure: encrypt)
        let b = try FleetNode(server, configure: encrypt)
        // A lifetime of its own: Redis's PX is a little shorter by the time b reads, so b stores
        // the record restamped with that deadline.
        try a.store.set(Profile(value: "plaintext-marker-41d2"), forKey: "user:1", expiresAfter: 3600)
        #expect(try b.value("user:1") == "plaintext-marker-41d2")
        #expect(try b.holdsLocally("user:1"))
        // Now from b's own LevelDB (Redis gone): the restamped record opens with the key.
        server.kill()
        #expect(try b.value("user:1") == "plaintext-marker-41d2")
        let entry = try #require(try b.store.entry(Profile.self, forKey: "user:1"))
        #expect(entry.expiresAt != nil)
    }

    @Test func redisNeverHoldsPlaintext() throws {
        let server = try RedisServer()
        let a = try FleetNode(server) { $0.encryption = .aes256GCM(key: Self.key) }
        try a.store.set(Profile(value: "plaintext-marker-41d2"), forKey: "user:2", expiresAfter: 3600)
        let b = try FleetNode(server) { $0.encryption = .aes256GCM(key: Self.key) }
        #expect(try b.value("user:2") == "plaintext-marker-41d2")
        guard case .array(let keys) = try server.command(["KEYS", "*"]) else {
            Issue.record("KEYS gave no array")
            return
        }
        let marker = Array("plaintext-marker".utf8)
        var records = 0
        for case .string(let key) in keys {
            // Only string values (records); the stream and counters hold no values.
            guard case .string(let value) = try server.command([Array("GET".utf8), key]) else { continue }
            records += 1
            let holdsMarker = value.count >= marker.count
                && (0...(value.count - marker.count)).contains { value[$0..<($0 + marker.count)].elementsEqual(marker) }
            #expect(!holdsMarker, "plaintext in Redis under \(String(decoding: key, as: UTF8.self))")
        }
        #expect(records >= 1)
    }
}
#endif
