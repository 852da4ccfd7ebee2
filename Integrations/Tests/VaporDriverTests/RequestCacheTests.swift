import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ModelStore
import ModelStoreVapor
import NIOCore
import Testing
import Vapor

/// A real Vapor app on loopback whose routes use `req.cache`.
@Suite struct RequestCacheTests {
    /// `GET /visits` counts visits in `req.cache` and answers the new count; `GET /loop`
    /// answers whether a request's cache completes on the request's event loop.
    static func configure(_ app: Application) {
        app.http.server.configuration.hostname = "127.0.0.1"
        app.http.server.configuration.port = 0
        app.get("visits") { req async throws -> String in
            let visits = try await req.cache.get("visits", as: Int.self) ?? 0
            try await req.cache.set("visits", to: visits + 1, expiresIn: .hours(1))
            return String(visits + 1)
        }
        app.get("loop") { req -> EventLoopFuture<String> in
            let future = req.cache.get("missing", as: String.self)
            return future.map { _ in String(future.eventLoop === req.eventLoop && req.eventLoop.inEventLoop) }
        }
    }

    static func get(_ path: String, from app: Application) async throws -> String {
        let port = try #require(app.http.server.shared.localAddress?.port)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 10
        let session = URLSession(configuration: configuration)
        let (data, response) = try await session.data(from: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        return String(decoding: data, as: UTF8.self)
    }

    @Test func requestCacheKeepsItsValuesAcrossARestartOfTheApp() async throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        try await fixture.withApplication { first in
            Self.configure(first)
            try await first.startup()
            #expect(try await Self.get("/visits", from: first) == "1")
            #expect(try await Self.get("/visits", from: first) == "2")
        }
        try await fixture.withApplication { second in
            Self.configure(second)
            try await second.startup()
            #expect(try await Self.get("/visits", from: second) == "3")
        }
    }

    @Test func requestCacheCompletesOnTheRequestsEventLoop() async throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        try await fixture.withApplication { app in
            Self.configure(app)
            try await app.startup()
            #expect(try await Self.get("/loop", from: app) == "true")
        }
    }
}
