import IntegrationTestSupport
import Foundation
import Hummingbird
import ModelStore
import ModelStoreHummingbird
import Testing

/// Where ModelStorePersistDriver follows Redis rather than Hummingbird's memory driver: an
/// expired key is absent everywhere, and `set` without an expiry keeps a live key's lifetime.
@Suite struct RedisSemanticsTests {
    @Test func createOnAnExpiredKeySucceeds() async throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let persist = try fixture.driver()
        try await persist.create(key: "tag", value: "old", expires: .seconds(1))
        fixture.clock.advance(by: 1)
        try await persist.create(key: "tag", value: "new")
        #expect(try await persist.get(key: "tag", as: String.self) == "new")
        try await persist.shutdown()
    }

    @Test func setWithoutExpiryKeepsTheRemainingLifetime() async throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let persist = try fixture.driver()
        try await persist.set(key: "tag", value: "first", expires: .seconds(10))
        fixture.clock.advance(by: 4)
        try await persist.set(key: "tag", value: "second")
        let found = try #require(try await persist.getWithTTL(key: "tag", as: String.self))
        #expect(found.object == "second")
        #expect(found.ttl.map { abs(($0 - .seconds(6)) / .milliseconds(1)) < 0.001 } == true)
        fixture.clock.advance(by: 6)
        #expect(try await persist.get(key: "tag", as: String.self) == nil)
        try await persist.shutdown()
    }

    @Test func setWithoutExpiryKeepsTheLifetimeOfAValueOfAnotherType() async throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let persist = try fixture.driver()
        try await persist.set(key: "tag", value: 42, expires: .seconds(10))
        try await persist.set(key: "tag", value: "now a string")
        fixture.clock.advance(by: 10)
        #expect(try await persist.get(key: "tag", as: String.self) == nil)
        try await persist.shutdown()
    }

    @Test func setWithoutExpiryOnAnExpiredKeyStoresAValueThatNeverExpires() async throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let persist = try fixture.driver()
        try await persist.set(key: "tag", value: "old", expires: .seconds(1))
        fixture.clock.advance(by: 2)
        try await persist.set(key: "tag", value: "new")
        let found = try #require(try await persist.getWithTTL(key: "tag", as: String.self))
        #expect(found.object == "new")
        #expect(found.ttl == nil)
        try await persist.shutdown()
    }

    @Test func keepTTLWorksWithTheBinaryCodec() async throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        var configuration = fixture.configuration
        configuration.codec = BinaryModelCodec()
        let persist = try ModelStorePersistDriver(name: "binary", configuration: configuration)
        try await persist.set(key: "tag", value: ["a": 1], expires: .seconds(10))
        try await persist.set(key: "tag", value: ["b": 2])
        fixture.clock.advance(by: 10)
        #expect(try await persist.get(key: "tag", as: [String: Int].self) == nil)
        try await persist.shutdown()
    }

    @Test func concurrentCreatesOfOneKeyLetExactlyOneWin() async throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let persist = try fixture.driver()
        let winners = try await withThrowingTaskGroup(of: Int?.self) { group in
            for index in 0..<50 {
                group.addTask {
                    do {
                        try await persist.create(key: "tag", value: index)
                        return index
                    } catch let error as PersistError where error == .duplicate {
                        return nil
                    }
                }
            }
            return try await group.reduce(into: [Int]()) { if let winner = $1 { $0.append(winner) } }
        }
        #expect(winners.count == 1)
        #expect(try await persist.get(key: "tag", as: Int.self) == winners.first)
        try await persist.shutdown()
    }

    @Test func concurrentKeepTTLSetsNeverLoseTheLifetime() async throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let persist = try fixture.driver()
        try await persist.set(key: "tag", value: -1, expires: .seconds(10))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<50 {
                group.addTask { try await persist.set(key: "tag", value: index) }
            }
            try await group.waitForAll()
        }
        let found = try #require(try await persist.getWithTTL(key: "tag", as: Int.self))
        #expect(found.ttl != nil)
        try await persist.shutdown()
    }
}
