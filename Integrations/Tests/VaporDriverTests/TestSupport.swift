import IntegrationTestSupport
import Foundation
import ModelStore
import ModelStoreVapor
import Vapor

/// One test's world: a fresh directory, a clock, and Vapor applications whose cache is a
/// ModelStore database in that directory.
struct Fixture {
    let location = TestStoreLocation(label: "VaporDriverTests")
    var directory: URL { location.directory }
    var clock: TestClock { location.clock }
    var configuration: ModelStore.Configuration { location.configuration }

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
        location.remove()
    }
}
