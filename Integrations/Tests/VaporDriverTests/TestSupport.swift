import Foundation
import ModelStore
import ModelStoreVapor
import Vapor

/// A clock the test moves by hand, so expiry is tested without sleeping.
final class TestClock: @unchecked Sendable {
    // @unchecked: `current` is only touched under `lock`.
    private let lock = NSLock()
    private var current = Date(timeIntervalSinceReferenceDate: 800_000_000)

    var now: Date { lock.withLock { current } }

    func advance(by seconds: TimeInterval) {
        lock.withLock { current += seconds }
    }
}

/// One test's world: a fresh directory, a clock, and Vapor applications whose cache is a
/// ModelStore database in that directory.
struct Fixture {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("VaporDriverTests-\(UUID().uuidString)", isDirectory: true)
    let clock = TestClock()

    var configuration: ModelStore.Configuration {
        var configuration = ModelStore.Configuration()
        configuration.directory = directory
        let clock = clock
        configuration.now = { clock.now }
        return configuration
    }

    /// A testing application whose cache opens the database "cache" by name (and closes it
    /// when the application shuts down).
    func application() async throws -> Application {
        let app = try await Application.make(Environment(name: "testing", arguments: ["vapor"]))
        app.logger.logLevel = .warning
        do {
            app.caches.use(try .modelStore(name: "cache", configuration: configuration))
        } catch {
            try await app.asyncShutdown()
            throw error
        }
        return app
    }

    /// Runs `body` with a new ``application()`` and shuts it down afterwards, also when
    /// `body` throws (Vapor asserts that every application is shut down).
    func withApplication<Result>(_ body: (Application) async throws -> Result) async throws -> Result {
        let app = try await application()
        let result: Result
        do {
            result = try await body(app)
        } catch {
            try? await app.asyncShutdown()
            throw error
        }
        try await app.asyncShutdown()
        return result
    }

    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }
}
