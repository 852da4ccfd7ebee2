import Hummingbird
public import Logging
import ServiceLifecycle

/// A user server running on loopback inside this process, for tests and the example's
/// command.
///
/// ```swift
/// let server = try await UserServer.start()          // 127.0.0.1, a free port
/// print("listening on", server.port)
/// // ...
/// await server.stop()
/// ```
public final class UserServer: Sendable {
    /// The port the server listens on.
    public let port: Int
    /// The address the server listens on.
    public let host: String
    /// Counts the user requests answered so far.
    public let requests: RequestCounter
    private let services: ServiceGroup
    private let task: Task<Void, any Error>

    private init(
        host: String, port: Int, requests: RequestCounter, services: ServiceGroup, task: Task<Void, any Error>
    ) {
        self.host = host
        self.port = port
        self.requests = requests
        self.services = services
        self.task = task
    }

    /// The server's base URL, such as `http://127.0.0.1:49152`.
    public var baseURL: String { "http://\(host):\(port)" }

    /// Starts a server on `host` and `port` and returns once it accepts connections.
    ///
    /// - Parameters:
    ///   - host: The address to bind. The default, 127.0.0.1, keeps the server on loopback.
    ///   - port: The port to bind; 0 (the default) lets the system pick a free one.
    /// - Throws: If the address cannot be bound.
    public static func start(host: String = "127.0.0.1", port: Int = 0) async throws -> UserServer {
        let requests = RequestCounter()
        // The bound port is only known once the server runs; the stream carries it (or the
        // failure to bind) back here.
        let (bound, continuation) = AsyncStream.makeStream(of: Result<Int, any Error>.self)
        let app = Application(
            router: UserRoutes.router(counting: requests),
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "user-server"),
            onServerRunning: { channel in
                continuation.yield(.success(channel.localAddress?.port ?? port))
                continuation.finish()
            },
            logger: quietLogger())
        // A service group of our own, so stop() can ask the server to shut down gracefully
        // (cancelling its task works too, but makes Hummingbird log an error).
        let services = ServiceGroup(configuration: .init(services: [app], logger: quietLogger()))
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
            return UserServer(host: host, port: try result.get(), requests: requests, services: services, task: task)
        }
        task.cancel()
        throw CancellationError()
    }

    /// Stops the server and waits until it has closed its socket, so later requests fail to
    /// connect.
    public func stop() async {
        await services.triggerGracefulShutdown()
        _ = await task.result
    }

    /// Runs a server in the foreground until SIGINT or SIGTERM, for the `user-server` command.
    public static func runUntilSignalled(host: String, port: Int, logger: Logger) async throws {
        let app = Application(
            router: UserRoutes.router(counting: RequestCounter()),
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "user-server"),
            logger: logger)
        try await app.runService()
    }

    /// Hummingbird logs every request at info level; tests only want warnings and worse.
    private static func quietLogger() -> Logger {
        var logger = Logger(label: "user-server")
        logger.logLevel = .warning
        return logger
    }
}
