import Foundation
import IntegrationTestSupport
import ModelStore
import UserAPI
import UserClient
import UserServer

/// One test's world: a user server on a free loopback port (its users in a database of its
/// own), a client store in a fresh temporary directory with a hand-moved clock, and a client
/// between them.
struct Harness {
    /// The `max-age` the server sends.
    static let maxAge = 60
    /// The client's fail-safe window past expiry.
    static let staleIfError: TimeInterval = 600
    /// How long the client remembers a 404.
    static let notFoundLifetime: TimeInterval = 30

    let server: UserServer
    let clock = TestClock()
    let directory: URL
    let store: ModelStore
    let client: UserClient

    static func start() async throws -> Harness {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("ServerFetchedTests-\(UUID().uuidString)", isDirectory: true)
        let server = try await UserServer.start(directory: directory.appendingPathComponent("server"), maxAge: maxAge)
        do {
            return try Harness(server: server, directory: directory)
        } catch {
            await server.stop()
            throw error
        }
    }

    private init(server: UserServer, directory: URL) throws {
        self.server = server
        self.directory = directory
        var configuration = ModelStore.Configuration()
        configuration.directory = directory.appendingPathComponent("client")
        let clock = clock
        configuration.now = { clock.now }
        store = try ModelStore(name: "users", policy: .never, configuration: configuration)
        var options = ReadThroughOptions()
        options.lifetime = 3_600  // Only when the server sends no max-age, which it always does.
        options.staleIfError = Self.staleIfError
        options.notFoundLifetime = Self.notFoundLifetime
        // A short timeout bounds how long a test can wait on a server that does not answer.
        client = UserClient(server: URL(string: server.baseURL)!, store: store, options: options, timeout: 5)
    }

    /// The client's stored record of user `id`, expired or not.
    func entry(_ id: String) throws -> ModelStore.Entry<User>? {
        try store.entry(User.self, forKey: UserClient.key(id), includingExpired: true)
    }

    /// Stops the server (if the test has not) and removes both databases' directory.
    func tearDown() async {
        await server.stop()
        try? store.close()
        try? FileManager.default.removeItem(at: directory)
    }
}
