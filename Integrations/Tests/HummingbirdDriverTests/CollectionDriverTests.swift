import IntegrationTestSupport
import Foundation
import Hummingbird
import HummingbirdAuth
import ModelStore
import ModelStoreHummingbird
import Testing

/// The driver over a collection: its keys live apart from the store's own and other
/// collections', sessions work in a real app, `run()` sweeps only its collection, and the
/// shared store stays open when the app shuts down.
@Suite struct CollectionDriverTests {
    @Test func keysLiveInTheCollectionOnly() async throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let store = try ModelStore(name: "app", policy: .never, configuration: fixture.configuration)
        let persist = ModelStorePersistDriver(collection: store.collection("sessions"))
        #expect(persist.store === store)
        #expect(persist.collection?.name == "sessions")
        try store.set("the store's own", forKey: "k")
        try await persist.set(key: "k", value: "the driver's", expires: .seconds(60))
        #expect(try await persist.get(key: "k", as: String.self) == "the driver's")
        #expect(try store.object(String.self, forKey: "k") == "the store's own")
        #expect(try store.collection("sessions").object(String.self, forKey: "k") == "the driver's")
        // create sees only the collection: the store's own "own" does not make it a duplicate.
        try store.set("x", forKey: "own")
        try await persist.create(key: "own", value: "y", expires: nil)
        await #expect(throws: PersistError.duplicate) { try await persist.create(key: "own", value: "z", expires: nil) }
        // KEEPTTL reads the collection's record.
        fixture.clock.advance(by: 30)
        try await persist.set(key: "k", value: "kept lifetime", expires: nil)
        #expect(try await persist.getWithTTL(key: "k", as: String.self)?.ttl == .seconds(30))
        try await persist.remove(key: "k")
        #expect(try await persist.get(key: "k", as: String.self) == nil)
        #expect(try store.object(String.self, forKey: "k") == "the store's own")
        try await persist.shutdown()
        #expect(!store.isClosed)  // shared: its owner closes it
        try store.close()
    }

    @Test func runSweepsOnlyTheCollectionAndLeavesTheStoreOpen() async throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let store = try ModelStore(name: "app", policy: .never, configuration: fixture.configuration)
        let persist = ModelStorePersistDriver(collection: store.collection("sessions"), sweepInterval: .milliseconds(1))
        try await persist.set(key: "expired", value: "gone", expires: .seconds(1))
        try store.set("stays until the store's own sweep", forKey: "expired", expiresAfter: 1)
        fixture.clock.advance(by: 1)
        let service = Task { try await persist.run() }
        // Real time is unavoidable here (the sweep runs on its own timer): poll, bounded.
        var swept = false
        for _ in 0..<500 where !swept {
            swept = try store.collection("sessions").entry(String.self, forKey: "expired", includingExpired: true) == nil
            if !swept { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(swept)
        #expect(try store.entry(String.self, forKey: "expired", includingExpired: true) != nil)
        service.cancel()
        try await service.value
        #expect(!store.isClosed)
        try store.close()
    }

    struct Login: Codable, Sendable {
        let user: String
    }

    @Test func sessionsShareTheAppsDatabase() async throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let store = try ModelStore(name: "app", policy: .never, configuration: fixture.configuration)
        let persist = ModelStorePersistDriver(collection: store.collection("sessions"))
        try store.set("a record of the app's own", forKey: "profile")
        let router = Router(context: BasicSessionRequestContext<Login, String>.self)
        router.addMiddleware { SessionMiddleware(storage: persist) }
        router.put("login/:user") { _, context -> HTTPResponse.Status in
            context.sessions.createSession(Login(user: try context.parameters.require("user")), expiresIn: .seconds(600))
            return .ok
        }
        router.get("me") { _, context -> String in
            context.sessions.session?.user ?? "nobody"
        }
        let app = try await LoopbackApp.start(router.buildResponder(), services: [persist])
        let client = LoopbackClient()
        let login = try await client.send("PUT", "\(app.baseURL)/login/ada")
        let cookie = try #require(login.setCookie?.split(separator: ";").first.map(String.init))
        #expect(try await client.send("GET", "\(app.baseURL)/me", cookie: cookie).body == "ada")
        try await app.stop()
        #expect(!store.isClosed)
        #expect(try store.collection("sessions").count() == 1)
        #expect(try store.keys().collect() == ["profile"])
        try store.close()
    }
}
