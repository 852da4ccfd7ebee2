import IntegrationTestSupport
import Foundation
import Hummingbird
import ModelStore
import ModelStoreHummingbird
import Testing

/// What Hummingbird's own PersistTests check, written fresh against ModelStorePersistDriver,
/// with the store's clock moved by hand instead of sleeping.
@Suite struct PersistDriverContractTests {
    struct TestCodable: Codable, Equatable {
        let buffer: String
    }

    @Test func setThenGetReturnsTheValue() async throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let persist = try fixture.driver()
        try await persist.set(key: "tag", value: "Persist")
        #expect(try await persist.get(key: "tag", as: String.self) == "Persist")
        try await persist.shutdown()
    }

    @Test func createThenGetReturnsTheValue() async throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let persist = try fixture.driver()
        try await persist.create(key: "tag", value: "Persist")
        #expect(try await persist.get(key: "tag", as: String.self) == "Persist")
        try await persist.shutdown()
    }

    @Test func secondCreateOfALiveKeyThrowsDuplicate() async throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let persist = try fixture.driver()
        try await persist.create(key: "tag", value: "first")
        await #expect(throws: PersistError.duplicate) {
            try await persist.create(key: "tag", value: "second")
        }
        #expect(try await persist.get(key: "tag", as: String.self) == "first")
        try await persist.shutdown()
    }

    @Test func setTwiceKeepsTheSecondValue() async throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let persist = try fixture.driver()
        try await persist.set(key: "tag", value: "test1")
        try await persist.set(key: "tag", value: "test2")
        #expect(try await persist.get(key: "tag", as: String.self) == "test2")
        try await persist.shutdown()
    }

    @Test func valueExpiresAfterItsLifetime() async throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let persist = try fixture.driver()
        try await persist.set(key: "short", value: "ThisIsTest1", expires: .seconds(1))
        try await persist.set(key: "long", value: "ThisIsTest2", expires: .seconds(10))
        fixture.clock.advance(by: 1)
        #expect(try await persist.get(key: "short", as: String.self) == nil)
        #expect(try await persist.get(key: "long", as: String.self) == "ThisIsTest2")
        try await persist.shutdown()
    }

    @Test func zeroExpiryMeansAlreadyExpired() async throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let persist = try fixture.driver()
        try await persist.set(key: "tag", value: "old")
        try await persist.set(key: "tag", value: "ThisIsTest1", expires: .zero)
        #expect(try await persist.get(key: "tag", as: String.self) == nil)
        try await persist.create(key: "new", value: "x", expires: .seconds(-1))
        #expect(try await persist.get(key: "new", as: String.self) == nil)
        try await persist.shutdown()
    }

    @Test func expiryHasMillisecondPrecision() async throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let persist = try fixture.driver()
        try await persist.set(key: "tag", value: "v", expires: .milliseconds(1_500))
        fixture.clock.advance(by: 1.499)
        #expect(try await persist.get(key: "tag", as: String.self) == "v")
        fixture.clock.advance(by: 0.001)
        #expect(try await persist.get(key: "tag", as: String.self) == nil)
        try await persist.shutdown()
    }

    @Test func getWithTTLReturnsTheRemainingLifetime() async throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let persist = try fixture.driver()
        try await persist.set(key: "tag", value: "ThisIsTest2", expires: .seconds(10))
        fixture.clock.advance(by: 2.25)
        let found = try #require(try await persist.getWithTTL(key: "tag", as: String.self))
        #expect(found.object == "ThisIsTest2")
        let ttl = try #require(found.ttl)
        #expect(abs((ttl - .milliseconds(7_750)) / .milliseconds(1)) < 0.001)
        try await persist.set(key: "forever", value: "v")
        #expect(try await persist.getWithTTL(key: "forever", as: String.self)?.ttl == nil)
        try await persist.shutdown()
    }

    @Test func codableValueRoundTrips() async throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let persist = try fixture.driver()
        try await persist.set(key: "tag", value: TestCodable(buffer: "Persist"))
        #expect(try await persist.get(key: "tag", as: TestCodable.self) == TestCodable(buffer: "Persist"))
        try await persist.shutdown()
    }

    @Test func getAsAnotherTypeThrowsInvalidConversion() async throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let persist = try fixture.driver()
        try await persist.set(key: "test", value: TestCodable(buffer: "hello"))
        await #expect(throws: PersistError.invalidConversion) {
            try await persist.get(key: "test", as: String.self)
        }
        await #expect(throws: PersistError.invalidConversion) {
            try await persist.getWithTTL(key: "test", as: Int.self)
        }
        try await persist.shutdown()
    }

    @Test func removeDeletesTheValue() async throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let persist = try fixture.driver()
        try await persist.set(key: "tag", value: "ThisIsTest1")
        try await persist.remove(key: "tag")
        #expect(try await persist.get(key: "tag", as: String.self) == nil)
        try await persist.remove(key: "never-stored")
        try await persist.shutdown()
    }

    @Test func expiredKeyCanBeSetAgain() async throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let persist = try fixture.driver()
        try await persist.set(key: "tag", value: "ThisIsTest1", expires: .seconds(1))
        fixture.clock.advance(by: 1)
        #expect(try await persist.get(key: "tag", as: String.self) == nil)
        try await persist.set(key: "tag", value: "ThisIsTest1", expires: .seconds(10))
        #expect(try await persist.get(key: "tag", as: String.self) == "ThisIsTest1")
        try await persist.shutdown()
    }
}
