import Foundation
import Testing
@_spi(Benchmark) @testable import ModelStore
import ModelStoreTestSupport

@Suite("Change observation")
struct ChangeObservationTests {
    typealias Change = ModelStore.Change

    /// Collects `count` changes from `stream`, failing after a timeout instead of hanging.
    func collect(_ count: Int, from stream: AsyncStream<Change>) async throws -> [Change] {
        try await withThrowingTaskGroup(of: [Change]?.self) { group in
            group.addTask {
                var changes: [Change] = []
                for await change in stream {
                    changes.append(change)
                    if changes.count == count { break }
                }
                return changes
            }
            group.addTask {
                try await Task.sleep(for: .seconds(10))
                return nil
            }
            let first = try await group.next()!
            group.cancelAll()
            return first ?? []
        }
    }

    @Test("Every write path reports its changes, in order")
    func allWritePaths() async throws {
        let fixture = Fixture()
        let store = try fixture.open(policy: .high)
        let stream = store.changes()
        try store.set(1, forKey: "a")
        try store.write { batch in
            try batch.set(2, forKey: "b")
            batch.removeObject(forKey: "a")
        }
        try await store.importObjects([3, 4], key: { "i\($0)" })
        try store.removeObjects(forKeys: ["b"])
        try store.removeObjects(withPrefix: "i3")
        fixture.clock.advance(by: 60)
        _ = try store.object(Int.self, forKey: "i4")  // expired: purged by the read
        try store.set(5, forKey: "c")
        fixture.clock.advance(by: 60)
        try store.removeExpiredObjects()
        try store.set(6, forKey: "d")
        try store.removeObject(forKey: "d")

        let changes = try await collect(11, from: stream)
        #expect(changes == [
            Change(key: "a", kind: .set),
            Change(key: "b", kind: .set), Change(key: "a", kind: .removed),
            Change(key: "i3", kind: .set), Change(key: "i4", kind: .set),
            Change(key: "b", kind: .removed),
            Change(key: "i3", kind: .removed),
            Change(key: "i4", kind: .expired),
            Change(key: "c", kind: .set),
            Change(key: "c", kind: .expired),
            Change(key: "d", kind: .set),
        ])
    }

    @Test("Evictions by the limits are reported as evicted")
    func evictions() async throws {
        let fixture = Fixture()
        var configuration = fixture.configuration
        configuration.maximumRecordCount = 1
        configuration.evictsInline = true
        let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
        try store.set(1, forKey: "old")
        fixture.clock.advance(by: 1)
        let stream = store.changes()
        try store.set(2, forKey: "new")
        #expect(
            try await collect(2, from: stream) == [Change(key: "new", kind: .set), Change(key: "old", kind: .evicted)])
    }

    @Test("Changes made through another instance of the same database are seen")
    func otherInstance() async throws {
        let fixture = Fixture()
        let observer = try fixture.open()
        let writer = try fixture.open()
        let stream = observer.changes()
        try writer.set(1, forKey: "k")
        #expect(try await collect(1, from: stream) == [Change(key: "k", kind: .set)])
    }

    @Test("The stream finishes when the database is closed or deleted")
    func finishesOnClose() async throws {
        let store = try Fixture().open()
        let stream = store.changes()
        try store.deleteFromDisk()
        var count = 0
        for await _ in stream { count += 1 }
        #expect(count == 0)
        var after = 0
        for await _ in store.changes() { after += 1 }  // a closed store gives a finished stream
        #expect(after == 0)
    }

    /// Lines printed by the documented example, which calls `print`.
    final class PrintLog: @unchecked Sendable {
        // @unchecked: guarded by `lock`.
        private let lock = NSLock()
        private var lines: [String] = []
        func append(_ line: String) {
            lock.lock(); defer { lock.unlock() }
            lines.append(line)
        }
        var all: [String] {
            lock.lock(); defer { lock.unlock() }
            return lines
        }
    }

    @Test("The documented pattern (stream first, then the task) sees the first write")
    func documentedPatternSeesFirstWrite() async throws {
        let store = try Fixture().open()
        let user = User.sample()
        let log = PrintLog()
        // Shadows Swift's print, so the example below runs verbatim and its output is checked.
        @Sendable func print(_ items: Any...) { log.append(items.map { "\($0)" }.joined(separator: " ")) }
        // DocC: changes
        let changes = store.changes()       // subscribe first: the stream sees every later write
        let observer = Task {
            for await change in changes {
                print(change.key, change.kind)   // user:1 set
            }
        }
        try store.set(user, forKey: "user:1")
        // DocC: end
        try store.close()  // ends the stream, so the observer's loop finishes
        await observer.value
        #expect(log.all == ["user:1 set"])
    }

    @Test("The DocC article and changes()' doc comment show the tested example verbatim")
    func documentedPatternIsTheTestedOne() throws {
        let root = PackageRoot.url
        let test = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let start = try #require(test.range(of: "        // DocC: changes\n"))
        let end = try #require(test.range(of: "        // DocC: end\n", range: start.upperBound..<test.endIndex))
        let block = test[start.upperBound..<end.lowerBound].split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.dropFirst(8) }.joined(separator: "\n")
        let article = try String(
            contentsOf: root.appendingPathComponent("Sources/ModelStore/ModelStore.docc/ReadThroughAndChanges.md"),
            encoding: .utf8)
        #expect(article.contains("```swift\n" + block + "```"))
        let source = try String(
            contentsOf: root.appendingPathComponent("Sources/ModelStore/Store/ModelStore+Changes.swift"),
            encoding: .utf8)
        let commented = block.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            .map { "    /// " + $0 }.joined(separator: "\n")
        #expect(source.contains("    /// ```swift\n" + commented + "\n    /// ```"))
    }
}
