public import Foundation
import Hummingbird
public import Logging
import ModelStore
import ModelStoreHummingbird
import ServiceLifecycle

/// A user server running on loopback inside this process, for tests and the example's
/// command. Its users live in a ModelStore database under `directory`, reached only through
/// Hummingbird's `PersistDriver` API (``UserDirectory`` over a `ModelStorePersistDriver`).
///
/// ```swift
/// let server = try await UserServer.start(directory: directory)  // 127.0.0.1, a free port
/// print("listening on", server.port)
/// // ...
/// await server.stop()
/// ```
public final class UserServer: Sendable {
    /// The port the server listens on.
    public let port: Int
    /// The address the server listens on.
    public let host: String
    /// What the server has answered so far.
    public let counters: ServerCounters
    /// The server's users: change one to give it a new ETag.
    public let users: UserDirectory
    private let services: ServiceGroup
    private let task: Task<Void, any Error>

    private init(
        host: String, port: Int, counters: ServerCounters, users: UserDirectory, services: ServiceGroup,
        task: Task<Void, any Error>
    ) {
        self.host = host
        self.port = port
        self.counters = counters
        self.users = users
        self.services = services
        self.task = task
    }

    /// The server's base URL, such as `http://127.0.0.1:49152`.
    public var baseURL: String { "http://\(host):\(port)" }

    /// The name of the server's database under its directory.
    public static let databaseName = "server-fetched-server-users"

    /// Starts a server on `host` and `port` and returns once it accepts connections.
    ///
    /// - Parameters:
    ///   - host: The address to bind. The default, 127.0.0.1, keeps the server on loopback.
    ///   - port: The port to bind; 0 (the default) lets the system pick a free one.
    ///   - directory: Where the server's user database lives (seeded with ``UserDirectory/seed``).
    ///   - maxAge: The `Cache-Control: max-age` the server sends with each user, in seconds.
    /// - Throws: If the database cannot be opened or the address cannot be bound.
    public static func start(
        host: String = "127.0.0.1", port: Int = 0, directory: URL, maxAge: Int = 60
    ) async throws -> UserServer {
        let (persist, users) = try await openUsers(directory: directory)
        let counters = ServerCounters()
        // The bound port is only known once the server runs; the stream carries it (or the
        // failure to bind) back here.
        let (bound, continuation) = AsyncStream.makeStream(of: Result<Int, any Error>.self)
        let app = Application(
            router: UserRoutes.router(users: users, maxAge: maxAge, counting: counters),
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "user-server"),
            onServerRunning: { channel in
                continuation.yield(.success(channel.localAddress?.port ?? port))
                continuation.finish()
            },
            logger: quietLogger())
        // A service group of our own, so stop() can ask the server to shut down gracefully
        // (cancelling its task works too, but makes Hummingbird log an error). The driver is a
        // service too: it sweeps expired records and closes the database when the app is done
        // (services shut down in reverse order, so the app stops first).
        let services = ServiceGroup(configuration: .init(services: [persist, app], logger: quietLogger()))
        let task = Task {
            do {
                try await services.run()
            } catch {
                continuation.yield(.failure(error))
                continuation.finish()
                throw error
            }
            continuation.finish()
        }
        for await result in bound {
            return UserServer(
                host: host, port: try result.get(), counters: counters, users: users, services: services, task: task)
        }
        task.cancel()
        throw CancellationError()
    }

    /// Stops the server and waits until it has closed its socket (and its database), so later
    /// requests fail to connect.
    public func stop() async {
        await services.triggerGracefulShutdown()
        _ = await task.result
    }

    /// Runs a server in the foreground until SIGINT or SIGTERM, for the `user-server` command.
    public static func runUntilSignalled(
        host: String, port: Int, directory: URL, maxAge: Int, logger: Logger
    ) async throws {
        let (persist, users) = try await openUsers(directory: directory)
        let app = Application(
            router: UserRoutes.router(users: users, maxAge: maxAge, counting: ServerCounters()),
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "user-server"),
            services: [persist],
            logger: logger)
        try await app.runService()
    }

    /// Opens the user database under `directory` through the persist driver and seeds it.
    private static func openUsers(directory: URL) async throws -> (ModelStorePersistDriver, UserDirectory) {
        var configuration = ModelStore.Configuration()
        configuration.directory = directory
        let persist = try ModelStorePersistDriver(name: databaseName, configuration: configuration)
        let users = UserDirectory(persist: persist)
        do {
            try await users.seedIfEmpty()
        } catch {
            try? await persist.shutdown()
            throw error
        }
        return (persist, users)
    }

    /// Hummingbird logs every request at info level; tests only want warnings and worse.
    private static func quietLogger() -> Logger {
        var logger = Logger(label: "user-server")
        logger.logLevel = .warning
        return logger
    }
}
