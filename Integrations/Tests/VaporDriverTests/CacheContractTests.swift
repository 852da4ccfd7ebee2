import IntegrationTestSupport
import Foundation
import ModelStore
import ModelStoreVapor
import NIOCore
import Testing
import Vapor

/// What Vapor's own CacheTests (futures) and AsyncCacheTests check, written fresh against
/// ModelStoreCache, with the store's clock moved by hand instead of sleeping.
@Suite struct CacheContractTests {
    @Test func futureAPIGetsSetsExpiresAndDeletes() async throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        try await fixture.withApplication { app in
            let cache = app.cache
            #expect(try await cache.get("foo", as: String.self).get() == nil)
            try await cache.set("foo", to: "bar").get()
            #expect(try await cache.get("foo", as: String.self).get() == "bar")

            try await cache.set("foo2", to: "bar2", expiresIn: .seconds(1)).get()
            #expect(try await cache.get("foo2", as: String.self).get() == "bar2")
            fixture.clock.advance(by: 1)
            #expect(try await cache.get("foo2", as: String.self).get() == nil)

            try await cache.set("foo3", to: "bar3").get()
            #expect(try await cache.get("foo3", as: String.self).get() == "bar3")
            try await cache.delete("foo3").get()
            #expect(try await cache.get("foo3", as: String.self).get() == nil)
        }
    }

    @Test func asyncAPIGetsSetsExpiresAndDeletes() async throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        try await fixture.withApplication { app in
            #expect(try await app.cache.get("foo", as: String.self) == nil)
            try await app.cache.set("foo", to: "bar")
            let value: String? = try await app.cache.get("foo")
            #expect(value == "bar")

            try await app.cache.set("foo2", to: "bar2", expiresIn: .seconds(1))
            #expect(try await app.cache.get("foo2", as: String.self) == "bar2")
            fixture.clock.advance(by: 1)
            #expect(try await app.cache.get("foo2", as: String.self) == nil)

            try await app.cache.set("foo3", to: "bar3")
            try await app.cache.delete("foo3")
            #expect(try await app.cache.get("foo3", as: String.self) == nil)
        }
    }

    @Test func settingNilDeletesTheKey() async throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        try await fixture.withApplication { app in
            try await app.cache.set("foo", to: "bar")
            try await app.cache.set("foo", to: String?.none)
            #expect(try await app.cache.get("foo", as: String.self) == nil)
        }
    }

    @Test func expiresInIsHonouredToTheSecondAndZeroMeansExpired() async throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        try await fixture.withApplication { app in
            try await app.cache.set("minutes", to: 1, expiresIn: .minutes(2))
            fixture.clock.advance(by: 119.999)
            #expect(try await app.cache.get("minutes", as: Int.self) == 1)
            fixture.clock.advance(by: 0.001)
            #expect(try await app.cache.get("minutes", as: Int.self) == nil)
            try await app.cache.set("zero", to: 1)
            try await app.cache.set("zero", to: 2, expiresIn: .seconds(0))
            #expect(try await app.cache.get("zero", as: Int.self) == nil)
        }
    }

    @Test func overwritingAKeyReplacesItsValueAndExpiry() async throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        try await fixture.withApplication { app in
            try await app.cache.set("foo", to: "bar", expiresIn: .seconds(1))
            try await app.cache.set("foo", to: "baz")
            fixture.clock.advance(by: 10)
            #expect(try await app.cache.get("foo", as: String.self) == "baz")
        }
    }

    @Test func valueOfAnotherTypeFailsWithTheStoreError() async throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        try await fixture.withApplication { app in
            try await app.cache.set("foo", to: ["a": 1])
            await #expect(throws: ModelStoreError.self) { try await app.cache.get("foo", as: String.self) }
        }
    }

    @Test func providerOverAnOpenStoreLeavesItOpen() async throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let store = try ModelStore(name: "shared", policy: .never, configuration: fixture.configuration)
        let app = try await Application.make(Environment(name: "testing", arguments: ["vapor"]))
        app.caches.use(.modelStore(store))
        do {
            try await app.cache.set("foo", to: "bar")
        } catch {
            try? await app.asyncShutdown()
            throw error
        }
        try await app.asyncShutdown()
        #expect(!store.isClosed)
        #expect(try store.object(String.self, forKey: "foo") == "bar")
        try store.close()
    }

    @Test func providerByNameClosesItsStoreAtShutdown() async throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let cache = try await fixture.withApplication { app in
            try #require(app.cache as? ModelStoreCache)
        }
        #expect(cache.store.isClosed)
    }
}
