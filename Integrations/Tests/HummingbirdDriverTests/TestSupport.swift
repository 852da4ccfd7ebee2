import IntegrationTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Hummingbird
import Logging
import ModelStore
import ModelStoreHummingbird
import ServiceLifecycle

/// One test's world: a fresh directory and a clock, and drivers over stores opened in it.
struct Fixture {
    let location = TestStoreLocation(label: "HummingbirdDriverTests")
    var directory: URL { location.directory }
    var clock: TestClock { location.clock }
    var configuration: ModelStore.Configuration { location.configuration }

    func driver(sweepInterval: Duration = .seconds(600)) throws -> ModelStorePersistDriver {
        try ModelStorePersistDriver(name: "persist", configuration: configuration, sweepInterval: sweepInterval)
    }

    func remove() {
        location.remove()
    }
}

/// A Hummingbird application running on a free loopback port inside the test process.
struct LoopbackApp {
    let port: Int
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    /// Starts `router` (and `services`) on 127.0.0.1 and returns once it accepts connections.
    static func start<Responder: HTTPResponder>(
        _ responder: Responder, services: [any Service] = []
    ) async throws -> LoopbackApp where Responder.Context: RequestContext, Responder.Context.Source == ApplicationRequestContextSource {
        var logger = Logger(label: "loopback-app")
        logger.logLevel = .warning
        let (bound, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            responder: responder,
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
            services: services,
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            },
            logger: logger)
        let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
        let task = Task {
            defer { continuation.finish() }
            try await group.run()
        }
        for await port in bound {
            return LoopbackApp(port: port, group: group, task: task)
        }
        try await task.value
        throw CancellationError()
    }

    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Shuts the app down gracefully (its services too) and waits for it.
    func stop() async throws {
        await group.triggerGracefulShutdown()
        try await task.value
    }
}

/// A small HTTP client for loopback tests: no cookie jar, no cache, a short timeout.
struct LoopbackClient {
    private let session: URLSession

    init() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        configuration.timeoutIntervalForRequest = 10
        session = URLSession(configuration: configuration)
    }

    /// Sends a request and returns the status, the body as text and the Set-Cookie header.
    func send(
        _ method: String, _ url: String, cookie: String? = nil
    ) async throws -> (status: Int, body: String, setCookie: String?) {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        if let cookie { request.setValue(cookie, forHTTPHeaderField: "Cookie") }
        let (data, response) = try await session.data(for: request)
        let http = response as! HTTPURLResponse
        return (http.statusCode, String(decoding: data, as: UTF8.self), http.value(forHTTPHeaderField: "Set-Cookie"))
    }
}
