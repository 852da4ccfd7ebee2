import IntegrationTestSupport
import Foundation
import ModelStore
import ModelStoreVapor
import Testing
import Vapor

/// `expiresIn` at the extremes a caller can write: Vapor's own `CacheExpirationTime.seconds`
/// traps beyond `Int.max` seconds (`.days(Int.max)`); the cache counts in floating point,
/// keeps every positive expiry and deletes on zero or less.
@Suite struct ExtremeExpirationTests {
    static let longest: [CacheExpirationTime] = [
        .seconds(Int.max), .minutes(Int.max), .hours(Int.max), .days(Int.max), .days(Int.max / 86_400 + 1),
    ]
    static let spent: [CacheExpirationTime] = [
        .seconds(0), .days(0), .seconds(-1), .seconds(Int.min), .minutes(Int.min), .hours(Int.min), .days(Int.min),
    ]

    /// The expiry in seconds, as the cache must count it.
    static func seconds(_ time: CacheExpirationTime) -> Double {
        switch time {
        case let .seconds(count): Double(count)
        case let .minutes(count): Double(count) * 60
        case let .hours(count): Double(count) * 3_600
        case let .days(count): Double(count) * 86_400
        }
    }

    @Test(arguments: longest)
    func theLongestExpiriesAreKept(_ time: CacheExpirationTime) async throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        try await fixture.withApplication { app in
            try await app.cache.set("k", to: "kept", expiresIn: time)
            let cache = try #require(app.cache as? ModelStoreCache)
            let entry = try #require(try cache.store.entry(String.self, forKey: "k"))
            let lifetime = try #require(entry.expiresAt).timeIntervalSince(entry.storedAt)
            let expected = Self.seconds(time)
            #expect(abs(lifetime - expected) <= expected * 1e-12)
            fixture.clock.advance(by: 1e12)
            #expect(try await app.cache.get("k", as: String.self) == "kept")
        }
    }

    @Test(arguments: spent)
    func zeroAndNegativeExpiriesDelete(_ time: CacheExpirationTime) async throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        try await fixture.withApplication { app in
            try await app.cache.set("k", to: "old")
            try await app.cache.set("k", to: "new", expiresIn: time)
            #expect(try await app.cache.get("k", as: String.self) == nil)
        }
    }
}
