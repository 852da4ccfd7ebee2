import IntegrationTestSupport
import Foundation
import ModelStore
import ModelStoreVapor
import Testing
import Vapor

/// The cache over a collection: its keys live apart from the store's own, `req.cache` keeps
/// the collection, and the shared store stays open after the app shuts down.
@Suite struct CollectionCacheTests {
    /// Runs `body` with an application whose cache is `collection`, then shuts it down.
    static func withApplication(
        cache collection: ModelStore.Collection, _ body: (Application) async throws -> Void
    ) async throws {
        let app = try await Application.make(Environment(name: "testing", arguments: ["vapor"]))
        app.logger.logLevel = .warning
        app.caches.use(.modelStore(collection))
        do {
            try await body(app)
        } catch {
            try? await app.asyncShutdown()
            throw error
        }
        try await app.asyncShutdown()
    }

    @Test func keysLiveInTheCollectionOnly() async throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let store = try ModelStore(name: "app", policy: .never, configuration: fixture.configuration)
        try store.set("the store's own", forKey: "k")
        try await Self.withApplication(cache: store.collection("cache")) { app in
            let cache = try #require(app.cache as? ModelStoreCache)
            #expect(cache.store === store)
            #expect(cache.collection?.name == "cache")
            try await app.cache.set("k", to: "cached", expiresIn: .seconds(5))
            #expect(try await app.cache.get("k", as: String.self) == "cached")
            fixture.clock.advance(by: 5)
            #expect(try await app.cache.get("k", as: String.self) == nil)
            try await app.cache.set("k", to: "again")
            try await app.cache.delete("k")
            #expect(try await app.cache.get("k", as: String.self) == nil)
            try await app.cache.set("k", to: "last")
        }
        #expect(!store.isClosed)
        #expect(try store.object(String.self, forKey: "k") == "the store's own")
        #expect(try store.collection("cache").object(String.self, forKey: "k") == "last")
        try store.close()
    }

    @Test func requestCacheKeepsTheCollection() async throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let store = try ModelStore(name: "app", policy: .never, configuration: fixture.configuration)
        try await Self.withApplication(cache: store.collection("cache")) { app in
            RequestCacheTests.configure(app)
            try await app.startup()
            #expect(try await RequestCacheTests.get("/visits", from: app) == "1")
            #expect(try await RequestCacheTests.get("/visits", from: app) == "2")
            #expect(try await RequestCacheTests.get("/loop", from: app) == "true")
        }
        #expect(try store.collection("cache").object(Int.self, forKey: "visits") == 2)
        #expect(try !store.contains("visits"))
        try store.close()
    }
}
