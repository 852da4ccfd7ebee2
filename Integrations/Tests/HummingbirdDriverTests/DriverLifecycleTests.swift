import IntegrationTestSupport
import Foundation
import Hummingbird
import ModelStore
import ModelStoreHummingbird
import Testing

/// The driver as a service: run() sweeps until graceful shutdown, shutdown() closes the store,
/// and errors reach the caller.
@Suite struct DriverLifecycleTests {
    @Test func runSweepsExpiredRecordsUntilGracefulShutdown() async throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let persist = try fixture.driver(sweepInterval: .milliseconds(1))
        try await persist.set(key: "expired", value: "gone", expires: .seconds(1))
        try await persist.set(key: "live", value: "NotExpired", expires: .seconds(10))
        fixture.clock.advance(by: 1)
        let app = try await LoopbackApp.start(Router().buildResponder(), services: [persist])
        // Real time is unavoidable here (the sweep runs on its own timer): poll, bounded.
        var swept = false
        for _ in 0..<500 where !swept {
            swept = try persist.store.entry(String.self, forKey: "expired", includingExpired: true) == nil
            if !swept { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(swept)
        #expect(try persist.store.entry(String.self, forKey: "live", includingExpired: true)?.value == "NotExpired")
        try await app.stop()
        #expect(persist.store.isClosed)
    }

    @Test func shutdownClosesTheStore() async throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let persist = try fixture.driver()
        try await persist.shutdown()
        #expect(persist.store.isClosed)
    }

    @Test func storeErrorsAreThrownNotSwallowed() async throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let persist = try fixture.driver()
        try await persist.shutdown()
        await #expect(throws: ModelStoreError.self) { try await persist.set(key: "tag", value: "v") }
        await #expect(throws: ModelStoreError.self) { try await persist.create(key: "tag", value: "v") }
        await #expect(throws: ModelStoreError.self) { try await persist.get(key: "tag", as: String.self) }
        await #expect(throws: ModelStoreError.self) { try await persist.remove(key: "tag") }
    }

    @Test func invalidKeyIsThrown() async throws {
        let fixture = Fixture()
        defer { fixture.remove() }
        let persist = try fixture.driver()
        await #expect(throws: ModelStoreError.self) { try await persist.set(key: "", value: "v") }
        try await persist.shutdown()
    }
}
