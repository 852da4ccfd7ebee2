import IntegrationTestSupport
import Foundation
import Hummingbird
import HummingbirdAuth
import ModelStore
import ModelStoreHummingbird
import Testing

/// A real Hummingbird app with hummingbird-auth sessions stored through the driver, over
/// loopback: a session created before a restart of the app is still valid after it.
@Suite struct SessionRestartTests {
    struct Login: Codable, Sendable {
        let user: String
    }

    typealias Context = BasicSessionRequestContext<Login, String>

    /// `PUT /login/:user` starts a session; `GET /me` answers the session's user or 401.
    static func router(persist: ModelStorePersistDriver) -> Router<Context> {
        let router = Router(context: Context.self)
        router.addMiddleware { SessionMiddleware(storage: persist) }
        router.put("login/:user") { _, context -> HTTPResponse.Status in
            context.sessions.createSession(Login(user: try context.parameters.require("user")), expiresIn: .seconds(600))
            return .ok
        }
        router.get("me") { _, context -> Response in
            guard let login = context.sessions.session else { return Response(status: .unauthorized) }
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: login.user)))
        }
        return router
    }

    @Test func sessionSurvivesARestartOfTheApp() async throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let client = LoopbackClient()

        let first = try fixture.driver()
        let before = try await LoopbackApp.start(Self.router(persist: first).buildResponder(), services: [first])
        let login = try await client.send("PUT", "\(before.baseURL)/login/ada")
        #expect(login.status == 200)
        let cookie = try #require(login.setCookie?.split(separator: ";").first.map(String.init))
        #expect(try await client.send("GET", "\(before.baseURL)/me", cookie: cookie).body == "ada")
        try await before.stop()
        #expect(first.store.isClosed)

        // A new app, a new driver, the same database: the session is still there.
        let second = try fixture.driver()
        let after = try await LoopbackApp.start(Self.router(persist: second).buildResponder(), services: [second])
        let me = try await client.send("GET", "\(after.baseURL)/me", cookie: cookie)
        #expect(me.status == 200)
        #expect(me.body == "ada")
        #expect(try await client.send("GET", "\(after.baseURL)/me").status == 401)
        try await after.stop()
    }

    @Test func expiredSessionIsRejectedAfterARestart() async throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let client = LoopbackClient()
        let first = try fixture.driver()
        let before = try await LoopbackApp.start(Self.router(persist: first).buildResponder(), services: [first])
        let login = try await client.send("PUT", "\(before.baseURL)/login/ada")
        let cookie = try #require(login.setCookie?.split(separator: ";").first.map(String.init))
        try await before.stop()

        fixture.clock.advance(by: 600)
        let second = try fixture.driver()
        let after = try await LoopbackApp.start(Self.router(persist: second).buildResponder(), services: [second])
        #expect(try await client.send("GET", "\(after.baseURL)/me", cookie: cookie).status == 401)
        try await after.stop()
    }
}
