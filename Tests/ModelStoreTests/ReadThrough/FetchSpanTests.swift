import Foundation
import Testing
import InMemoryTracing
import Tracing
@testable import ModelStore
import ModelStoreTestSupport

/// The `ModelStore.fetch` span around each read-through fetch (`FetchSpanLabels`): what an
/// application that bootstraps a tracer sees of the upstream calls a read-through makes. Every
/// test uses keys of its own, since all tests of the process share one tracer.
@Suite("Spans around read-through fetches")
struct FetchSpanTests {
    typealias Harness = ReadThroughOptionsTests.Harness

    /// A key no other test of the process uses.
    static func uniqueKey(_ name: String) -> String { "span-\(name)-\(UUID().uuidString)" }

    @Test("A miss runs its fetch inside one client span, a child of the caller's span, that names the key, collection and model")
    func missFetchesInsideAChildSpan() async throws {
        let tracer = TestTracer.shared
        let harness = Harness()
        let store = try harness.open()
        let users = store.collection("users")
        let key = Self.uniqueKey("miss")
        let callerSpanID = try await withSpan("request") { span in
            let user = try await users.object(User.self, forKey: key, options: ReadThroughOptions()) { _ in
                .value(User.sample("ada"))
            }
            #expect(user == User.sample("ada"))
            return try #require(tracer.activeSpan(identifiedBy: span.context)?.spanID)
        }
        let spans = TestTracer.finishedSpans(FetchSpanLabels.operationName, key: key)
        #expect(spans.count == 1)
        let span = try #require(spans.first)
        #expect(span.kind == .client)
        #expect(span.parentSpanID == callerSpanID)
        #expect(span.attributes.get("modelstore.collection") == .string("users"))
        #expect(span.attributes.get("modelstore.model") == .string("User"))
        #expect(span.attributes.get("modelstore.refresh_ahead") == .bool(false))
        #expect(span.errors.isEmpty)
    }

    @Test("A hit fetches nothing and starts no fetch span")
    func hitStartsNoSpan() async throws {
        _ = TestTracer.shared
        let harness = Harness()
        let store = try harness.open()
        let key = Self.uniqueKey("hit")
        try store.set(User.sample("ada"), forKey: key)
        let user = try await store.object(User.self, forKey: key, options: ReadThroughOptions()) { _ in .notFound }
        #expect(user == User.sample("ada"))
        #expect(TestTracer.finishedSpans(FetchSpanLabels.operationName, key: key).isEmpty)
    }

    @Test("A fetch that throws records its error on the span, and the caller gets the error")
    func failedFetchRecordsItsError() async throws {
        struct BackendDown: Error {}
        _ = TestTracer.shared
        let harness = Harness()
        let store = try harness.open()
        let key = Self.uniqueKey("failure")
        await #expect(throws: BackendDown.self) {
            _ = try await store.object(User.self, forKey: key, options: ReadThroughOptions()) { _ in throw BackendDown() }
        }
        let span = try #require(TestTracer.finishedSpans(FetchSpanLabels.operationName, key: key).first)
        #expect(span.errors.count == 1)
        #expect(span.errors.first?.error is BackendDown)
        #expect(span.attributes.get("modelstore.collection") == nil)
    }

    @Test("Ten concurrent callers of one cold key share one fetch: one span")
    func coalescedCallersShareOneSpan() async throws {
        _ = TestTracer.shared
        let harness = Harness()
        let store = try harness.open()
        let key = Self.uniqueKey("coalesced")
        let gate = AsyncStream<Void>.makeStream()
        let fetches = Counter()
        try await withThrowingTaskGroup(of: User?.self) { group in
            for _ in 0..<10 {
                group.addTask {
                    try await store.object(User.self, forKey: key, options: ReadThroughOptions()) { _ in
                        fetches.add()
                        for await _ in gate.stream { break }
                        return .value(User.sample("ada"))
                    }
                }
            }
            // Release the fetch once every caller waits on it (bounded: 5 s of 1 ms polls).
            for _ in 0..<5_000 where store.database.fetches.waiters < 10 {
                try await Task.sleep(for: .milliseconds(1))
            }
            gate.continuation.yield()
            gate.continuation.finish()
            for try await user in group { #expect(user == User.sample("ada")) }
        }
        #expect(fetches.value == 1)
        #expect(TestTracer.finishedSpans(FetchSpanLabels.operationName, key: key).count == 1)
    }
}
