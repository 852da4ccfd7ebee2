import Foundation
import ModelStore
import UserClient
import UserServer

/// A clock the test moves by hand, so expiry is tested without sleeping.
final class TestClock: @unchecked Sendable {
    // @unchecked: `current` is only touched under `lock`.
    private let lock = NSLock()
    private var current = Date(timeIntervalSinceReferenceDate: 800_000_000)

    var now: Date {
        lock.withLock { current }
    }

    func advance(by seconds: TimeInterval) {
        lock.withLock { current += seconds }
    }
}

/// One test's world: a user server on a free loopback port, a store in a fresh temporary
/// directory with a 60-second policy and a hand-moved clock, and a client between them.
struct Harness {
    static let timeToLive: TimeInterval = 60

    let server: UserServer
    let clock = TestClock()
    let directory: URL
    let store: ModelStore
    let client: UserClient

    static func start() async throws -> Harness {
        let server = try await UserServer.start()
        do {
            return try Harness(server: server)
        } catch {
            await server.stop()
            throw error
        }
    }

    private init(server: UserServer) throws {
        self.server = server
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("ServerFetchedTests-\(UUID().uuidString)", isDirectory: true)
        var configuration = ModelStore.Configuration()
        configuration.directory = directory
        let clock = clock
        configuration.now = { clock.now }
        store = try ModelStore(name: "users", policy: .custom(Self.timeToLive), configuration: configuration)
        // A short timeout bounds how long a test can wait on a server that does not answer.
        client = UserClient(server: URL(string: server.baseURL)!, store: store, timeout: 5)
    }

    /// Stops the server (if the test has not) and removes the store's directory.
    func tearDown() async {
        await server.stop()
        try? store.close()
        try? FileManager.default.removeItem(at: directory)
    }
}
