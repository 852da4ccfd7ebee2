import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

@Suite("Update policies and expiry")
struct UpdatePolicyTests {
    @Test("Preset lifetimes match the documented table")
    func presetLifetimes() {
        #expect(UpdatePolicy.lowest.timeToLive == 604_800)
        #expect(UpdatePolicy.low.timeToLive == 86_400)
        #expect(UpdatePolicy.middle.timeToLive == 3_600)
        #expect(UpdatePolicy.high.timeToLive == 60)
        #expect(UpdatePolicy.highest.timeToLive == 10)
        #expect(UpdatePolicy.custom(42).timeToLive == 42)
        #expect(UpdatePolicy.never.timeToLive == nil)
    }

    @Test(
        "A record is fresh until just before its lifetime and expired exactly at it",
        arguments: [UpdatePolicy.lowest, .low, .middle, .high, .highest, .custom(2.5)])
    func expiresAtExactBoundary(policy: UpdatePolicy) throws {
        let fixture = Fixture()
        let store = try fixture.open(policy: policy)
        let start = fixture.clock.now
        try store.set(User.sample(), forKey: "user")
        let ttl = try #require(policy.timeToLive)

        fixture.clock.set(Date(timeIntervalSinceReferenceDate: start.timeIntervalSinceReferenceDate + ttl).addingTimeInterval(-0.001))
        #expect(try store.object(User.self, forKey: "user") == User.sample())

        fixture.clock.set(Date(timeIntervalSinceReferenceDate: start.timeIntervalSinceReferenceDate + ttl))
        #expect(try store.object(User.self, forKey: "user") == nil)
    }

    @Test("An expired record is deleted when read, so an earlier clock does not bring it back")
    func expiredReadDeletesRecord() throws {
        let fixture = Fixture()
        let store = try fixture.open(policy: .high)
        try store.set(User.sample(), forKey: "user")
        fixture.clock.advance(by: 61)
        #expect(try store.entry(User.self, forKey: "user") == nil)

        fixture.clock.advance(by: -3_600)  // the clock jumps backwards
        #expect(try store.object(User.self, forKey: "user") == nil)
        #expect(try store.contains("user") == false)
    }

    @Test("contains respects expiry")
    func containsRespectsExpiry() throws {
        let fixture = Fixture()
        let store = try fixture.open(policy: .highest)
        try store.set("value", forKey: "k")
        #expect(try store.contains("k"))
        fixture.clock.advance(by: 10)
        #expect(try store.contains("k") == false)
    }

    @Test(".never keeps records forever")
    func neverExpires() throws {
        let fixture = Fixture()
        let store = try fixture.open(policy: .never)
        try store.set(User.sample(), forKey: "user")
        fixture.clock.advance(by: 100 * 365 * 86_400)
        let entry = try #require(try store.entry(User.self, forKey: "user"))
        #expect(entry.expiresAt == nil)
    }

    @Test("A per-record lifetime wins over the policy, shorter or longer")
    func perRecordLifetimeWins() throws {
        let fixture = Fixture()
        let store = try fixture.open(policy: .high)  // 60 s
        try store.set("short", forKey: "short", expiresAfter: 30)
        try store.set("long", forKey: "long", expiresAfter: 600)
        try store.set("policy", forKey: "policy")

        fixture.clock.advance(by: 30)
        #expect(try store.object(String.self, forKey: "short") == nil)
        #expect(try store.object(String.self, forKey: "policy") == "policy")

        fixture.clock.advance(by: 31)
        #expect(try store.object(String.self, forKey: "policy") == nil)
        #expect(try store.object(String.self, forKey: "long") == "long")

        fixture.clock.advance(by: 539)
        #expect(try store.object(String.self, forKey: "long") == nil)
    }

    @Test("A per-record lifetime also applies in a store whose policy is .never")
    func perRecordLifetimeUnderNever() throws {
        let fixture = Fixture()
        let store = try fixture.open(policy: .never)
        try store.set("session", forKey: "s", expiresAfter: 30)
        let entry = try #require(try store.entry(String.self, forKey: "s"))
        #expect(entry.expiresAt == fixture.clock.now.addingTimeInterval(30))
        fixture.clock.advance(by: 30)
        #expect(try store.object(String.self, forKey: "s") == nil)
    }

    @Test("Reopening with another policy re-times the records already stored")
    func reopenWithDifferentPolicy() throws {
        let fixture = Fixture()
        do {
            let store = try fixture.open(policy: .lowest)
            try store.set("v", forKey: "k")
            try store.close()
        }
        fixture.clock.advance(by: 120)
        let strict = try fixture.open(policy: .high)
        #expect(try strict.object(String.self, forKey: "k") == nil)
    }

    @Test("Reopening with a longer policy keeps records the shorter one would expire")
    func reopenWithLongerPolicy() throws {
        let fixture = Fixture()
        do {
            let store = try fixture.open(policy: .high)
            try store.set("v", forKey: "k")
            try store.close()
        }
        fixture.clock.advance(by: 120)
        let relaxed = try fixture.open(policy: .low)
        #expect(try relaxed.object(String.self, forKey: "k") == "v")
    }

    @Test(
        "A non-positive or non-finite custom interval is refused at open and creates nothing",
        arguments: [0.0, -1.0, .infinity, -.infinity, .nan])
    func invalidCustomPolicy(seconds: Double) throws {
        let fixture = Fixture()
        #expect(errorCase { _ = try fixture.open("db", policy: .custom(seconds)) } == "invalidPolicy")
        #expect(fixture.directory.entries().isEmpty)
    }

    @Test("A non-positive per-record lifetime is refused and nothing is written",
          arguments: [0.0, -5.0, .nan, .infinity])
    func invalidPerRecordLifetime(seconds: Double) throws {
        let fixture = Fixture()
        let store = try fixture.open()
        #expect(errorCase { try store.set("v", forKey: "k", expiresAfter: seconds) } == "invalidPolicy")
        #expect(try store.contains("k") == false)
    }

    @Test("Entry reports storedAt and expiresAt from the injected clock")
    func entryMetadata() throws {
        let fixture = Fixture()
        let store = try fixture.open(policy: .middle)
        let storedAt = fixture.clock.now
        try store.set(User.sample(), forKey: "user")
        fixture.clock.advance(by: 5)
        let entry = try #require(try store.entry(User.self, forKey: "user"))
        #expect(entry.key == "user")
        #expect(entry.value == User.sample())
        #expect(entry.storedAt == storedAt)
        #expect(entry.expiresAt == storedAt.addingTimeInterval(3_600))
        #expect(entry.byteCount > RecordHeader.baseLengthV2)
    }

    @Test("Overwriting a record restarts its lifetime")
    func overwriteRestartsLifetime() throws {
        let fixture = Fixture()
        let store = try fixture.open(policy: .high)
        try store.set(1, forKey: "n")
        fixture.clock.advance(by: 50)
        try store.set(2, forKey: "n")
        fixture.clock.advance(by: 50)
        #expect(try store.object(Int.self, forKey: "n") == 2)
    }
}
