import Foundation
import InMemoryTracing
import ModelStore
import ModelStoreTestSupport
import Testing
import Tracing

/// The spans a fleet read-through leaves in a trace: the Redis read, the fetch lock, the
/// upstream fetch and the publication, all in the caller's trace, so a request's trace shows
/// what the shared tier did for it.
@Suite(.serialized, .enabled(if: RedisServer.isInstalled, "needs redis-server (scripts/install-dependencies)"))
struct FleetSpanTests {
    @Test func aFleetReadThroughLeavesItsRedisRoundTripsAndItsFetchInTheCallersTrace() async throws {
        let tracer = TestTracer.shared
        let server = try RedisServer()
        let node = try FleetNode(server, name: "spans-\(UUID().uuidString)")
        let key = "span:\(UUID().uuidString)"
        let traceID = try await withSpan("request") { span in
            let value = try await node.store.object(Profile.self, forKey: key) { Profile(value: "upstream") }
            #expect(value.value == "upstream")
            return try #require(tracer.activeSpan(identifiedBy: span.context)?.traceID)
        }
        // The publication may end just after the call returns (it runs after the local commit).
        var names: Set<String> = []
        for _ in 0..<500 {
            names = Set(tracer.finishedSpans.filter { $0.traceID == traceID }.map(\.operationName))
            if names.contains("ModelStoreRedis.publish") { break }
            try await Task.sleep(for: .milliseconds(2))
        }
        #expect(names.isSuperset(of: ["ModelStoreRedis.get", "ModelStoreRedis.lock", "ModelStore.fetch", "ModelStoreRedis.publish"]),
            "spans in the caller's trace: \(names.sorted())")
        let fetch = try #require(TestTracer.finishedSpans("ModelStore.fetch", key: key).first)
        #expect(fetch.traceID == traceID)
    }
}
