import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

@Suite("Bulk import")
struct ImportTests {
    struct Item: Codable, Equatable, Sendable {
        var id: Int
        var name: String
    }

    /// Progress reports collected from the import's callback.
    final class ProgressLog: @unchecked Sendable {
        // @unchecked: guarded by `lock`.
        private let lock = NSLock()
        private var reports: [ModelStore.ImportProgress] = []
        func append(_ progress: ModelStore.ImportProgress) {
            lock.lock(); defer { lock.unlock() }
            reports.append(progress)
        }
        var all: [ModelStore.ImportProgress] {
            lock.lock(); defer { lock.unlock() }
            return reports
        }
    }

    @Test("Importing 1,000,000 models from a lazy sequence writes them all with per-chunk progress", .long)
    func millionModels() async throws {
        let store = try Fixture().open()
        let log = ProgressLog()
        let models = (0..<1_000_000).lazy.map { Item(id: $0, name: "n") }
        let report = try await store.importObjects(models, key: \.id, batchSize: 10_000) { log.append($0) }
        #expect(report.written == 1_000_000)
        #expect(report.chunks == 100)
        #expect(report.wasCancelled == false)
        #expect(log.all.count == 100)
        #expect(log.all.last?.completed == 1_000_000)
        #expect(log.all.last?.total == 1_000_000)
        #expect(log.all.map(\.completed) == Array(stride(from: 10_000, through: 1_000_000, by: 10_000)))
        #expect(try store.object(Item.self, forKey: "999999") == Item(id: 999_999, name: "n"))
        #expect(try store.count(in: .prefix("99999")) == 11)  // 99999 and 999990...999999
    }

    @Test("A sequence without a known count reports a nil total")
    func unknownTotal() async throws {
        let store = try Fixture().open()
        let log = ProgressLog()
        let models = sequence(first: 0) { $0 < 2_499 ? $0 + 1 : nil }.map { Item(id: $0, name: "x") }
        _ = try await store.importObjects(AnySequence(models), key: { "item:\($0.id)" }, batchSize: 1_000) {
            log.append($0)
        }
        #expect(log.all.map(\.completed) == [1_000, 2_000, 2_500])
        #expect(log.all.allSatisfy { $0.total == nil })
        #expect(try store.count() == 2_500)
    }

    @Test("A cancelled import stops at a chunk boundary and reports exactly what it wrote")
    func cancellation() async throws {
        let store = try Fixture().open()
        let started = ProgressLog()
        let task = Task {
            let models = (0..<10_000_000).lazy.map { Item(id: $0, name: "c") }
            return try await store.importObjects(models, key: \.id, batchSize: 1_000) { started.append($0) }
        }
        while started.all.count < 3 { await Task.yield() }
        task.cancel()
        let report = try await task.value
        #expect(report.wasCancelled)
        #expect(report.written % 1_000 == 0)
        #expect(report.written >= 3_000)
        #expect(report.written < 10_000_000)
        #expect(try store.count() == report.written)
    }

    @Test("An AsyncSequence imports too")
    func asyncSequence() async throws {
        let store = try Fixture().open()
        let stream = AsyncStream<Item> { continuation in
            for id in 0..<1_234 { continuation.yield(Item(id: id, name: "a")) }
            continuation.finish()
        }
        let report = try await store.importObjects(stream, key: \.id, batchSize: 500)
        #expect(report.written == 1_234)
        #expect(report.chunks == 3)
        #expect(try store.object(Item.self, forKey: "1233") == Item(id: 1_233, name: "a"))
    }

    @Test("A failing model stops the import; earlier chunks stay and the failing chunk is not written")
    func failureMidway() async throws {
        struct Flaky: Encodable {
            var id: Int
            func encode(to encoder: any Encoder) throws {
                if id == 2_500 { throw EncodingError.invalidValue(id, .init(codingPath: [], debugDescription: "bad")) }
                var container = encoder.singleValueContainer()
                try container.encode(id)
            }
        }
        let store = try Fixture().open()
        await #expect(throws: ModelStoreError.self) {
            try await store.importObjects((0..<5_000).map(Flaky.init), key: \.id, batchSize: 1_000)
        }
        #expect(try store.count() == 2_000)
    }

    /// Counts how often the sequence's elements are produced. Not Sendable: the import runs
    /// in the caller's isolation, so the sequence and its closures need not be.
    final class ReadCounter {
        var reads = 0
    }

    /// A sequence that is not a Collection and counts the elements it produces.
    struct CountingSequence: Sequence {
        let count: Int
        let counter: ReadCounter
        func makeIterator() -> AnyIterator<Item> {
            var next = 0
            return AnyIterator {
                guard next < count else { return nil }
                defer { next += 1 }
                counter.reads += 1
                return Item(id: next, name: "c")
            }
        }
    }

    @Test("A lazily filtered collection is read once, and its total is nil rather than counted")
    func lazyFilterReadOnce() async throws {
        let store = try Fixture().open()
        let counter = ReadCounter()
        let models = (0..<10_000).map { Item(id: $0, name: "f") }.lazy.filter { _ in
            counter.reads += 1
            return true
        }
        var totals: [Int?] = []
        let report = try await store.importObjects(models, key: \.id) { totals.append($0.total) }
        #expect(report.written == 10_000)
        #expect(counter.reads == 10_000)
        #expect(totals.allSatisfy { $0 == nil })
    }

    @Test("A sequence that is not a collection is read once")
    func plainSequenceReadOnce() async throws {
        let store = try Fixture().open()
        let counter = ReadCounter()
        let report = try await store.importObjects(CountingSequence(count: 2_500, counter: counter), key: \.id)
        #expect(report.written == 2_500)
        #expect(counter.reads == 2_500)
    }

    @Test("A random-access collection reports its count as the total")
    func randomAccessTotal() async throws {
        let store = try Fixture().open()
        var totals: [Int?] = []
        let models = (0..<1_500).map { Item(id: $0, name: "a") }
        try await store.importObjects(models, key: \.id) { totals.append($0.total) }
        #expect(totals == [1_500, 1_500])
    }
}
