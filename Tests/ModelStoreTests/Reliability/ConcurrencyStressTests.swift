import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// 8 threads perform 100,000 mixed operations across 4 databases. Each thread owns its
/// keys, so every read has one right answer and the final contents are deterministic; a
/// shared key adds contention whose value only has to decode. Run it under ThreadSanitizer
/// with `scripts/sanitize thread`.
@Suite("Concurrency stress")
struct ConcurrencyStressTests {
    struct Item: Codable, Equatable, Sendable {
        var owner: Int
        var version: Int
    }

    static let threads = 8
    static let databases = 4
    static let keysPerThread = 40
    /// Total operations; `MODELSTORE_STRESS_OPERATIONS` overrides it.
    static let operations = ProcessInfo.processInfo.environment["MODELSTORE_STRESS_OPERATIONS"].flatMap { Int($0) }
        ?? 100_000

    /// What one thread believes is stored under its keys, per database.
    typealias Model = [[String: Item]]

    @Test("8 threads, 100,000 mixed operations (set, get, remove, batch, snapshot, enumerate, reopen) on 4 databases: final contents equal the model after reopen", .long)
    func stress() throws {
        let fixture = Fixture()
        let configuration = {
            var configuration = fixture.quietConfiguration
            configuration.objectCacheLimit = 256
            configuration.writeBufferSize = 256 << 10  // flushes and compactions happen during the run
            return configuration
        }()
        let stores = try (0..<Self.databases).map {
            try ModelStore(name: "s\($0)", policy: .never, configuration: configuration)
        }
        let failures = Locked<[String]>([])
        let models = Locked<[Int: Model]>([:])
        let perThread = Self.operations / Self.threads

        let group = DispatchGroup()
        for owner in 0..<Self.threads {
            group.enter()
            let thread = Thread {
                defer { group.leave() }
                var worker = Worker(owner: owner, stores: stores, configuration: configuration)
                do {
                    for _ in 0..<perThread { try worker.step() }
                } catch {
                    worker.problemLog.append("thread \(owner): \(error)")
                }
                let (problems, model) = (worker.problems, worker.model)
                failures.withLock { $0 += problems }
                models.withLock { $0[owner] = model }
            }
            thread.stackSize = 4 << 20
            thread.start()
        }
        group.wait()
        let problems = failures.withLock { $0 }
        #expect(problems.isEmpty, "\(problems.count) problems, first: \(problems.prefix(5))")
        for store in stores { try store.close() }

        // Reopen and compare everything with the union of the threads' models.
        let finalModels = models.withLock { $0 }
        #expect(finalModels.count == Self.threads)
        for database in 0..<Self.databases {
            let store = try ModelStore(name: "s\(database)", policy: .never, configuration: configuration)
            var expected: [String: Item] = [:]
            for model in finalModels.values { expected.merge(model[database]) { $1 } }
            let stored = try store.keys().collect().filter { $0 != "hot" }
            #expect(stored == expected.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
            for (key, item) in expected {
                #expect(try store.object(Item.self, forKey: key) == item, "s\(database)/\(key)")
            }
            try store.close()
        }
    }

    /// One thread's operations and its model of its own keys.
    struct Worker {
        let owner: Int
        let stores: [ModelStore]
        let configuration: ModelStore.Configuration
        var random: SeededGenerator
        var model: Model
        var version = 0
        let problemLog = ProblemLog()
        var problems: [String] { problemLog.entries }

        init(owner: Int, stores: [ModelStore], configuration: ModelStore.Configuration) {
            self.owner = owner
            self.stores = stores
            self.configuration = configuration
            random = SeededGenerator(seed: UInt64(1000 + owner))
            model = Array(repeating: [:], count: stores.count)
        }

        mutating func key() -> String {
            "t\(owner):k\(Int.random(in: 0..<ConcurrencyStressTests.keysPerThread, using: &random))"
        }

        func check(_ condition: Bool, _ message: @autoclosure () -> String) {
            if !condition { problemLog.append("thread \(owner): \(message())") }
        }

        mutating func step() throws {
            let database = Int.random(in: 0..<stores.count, using: &random)
            let store = stores[database]
            version += 1
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<30:
                let key = key()
                let item = Item(owner: owner, version: version)
                try store.set(item, forKey: key)
                model[database][key] = item
            case 30..<55:
                let key = key()
                let read = try store.object(Item.self, forKey: key)
                let expected = model[database][key]
                check(read == expected, "get \(key): \(String(describing: read)) != \(String(describing: expected))")
            case 55..<65:
                let key = key()
                try store.removeObject(forKey: key)
                model[database][key] = nil
            case 65..<70:
                let key = key()
                check(try store.contains(key) == (model[database][key] != nil), "contains \(key)")
            case 70..<78:
                var changes: [(String, Item?)] = []
                try store.write { batch in
                    for _ in 0..<Int.random(in: 2...5, using: &random) {
                        let key = key()
                        if Bool.random(using: &random) {
                            let item = Item(owner: owner, version: version)
                            try batch.set(item, forKey: key)
                            changes.append((key, item))
                        } else {
                            batch.removeObject(forKey: key)
                            changes.append((key, nil))
                        }
                    }
                }
                for (key, item) in changes { model[database][key] = item }
            case 78..<81:
                let keys = (0..<3).map { _ in key() }
                try store.removeObjects(forKeys: keys)
                for key in keys { model[database][key] = nil }
            case 81..<87:
                // A snapshot keeps showing what was there when it was taken, whatever is written after.
                let snapshot = try store.snapshot()
                defer { snapshot.close() }
                let key = key()
                let before = model[database][key]
                let item = Item(owner: owner, version: version)
                try store.set(item, forKey: key)
                model[database][key] = item
                check(try snapshot.object(Item.self, forKey: key) == before, "snapshot \(key)")
                let seen = try snapshot.keys(in: .prefix("t\(owner):")).collect()
                check(Set(seen) == Set(model[database].keys).subtracting(before == nil ? [key] : []), "snapshot keys")
            case 87..<93:
                let keys = try store.keys(in: .prefix("t\(owner):")).collect()
                check(Set(keys) == Set(model[database].keys), "keys: \(keys.count) vs \(model[database].count)")
                check(try store.count(in: .prefix("t\(owner):")) == model[database].count, "count")
                let entries = try store.entries(Item.self, in: .prefix("t\(owner):")).collect()
                check(entries.allSatisfy { model[database][$0.key] == $0.value }, "entries")
            case 93..<98:
                // Contention on one shared key: any value written by anyone is fine.
                if Bool.random(using: &random) {
                    try store.set(Item(owner: owner, version: version), forKey: "hot")
                } else if let hot = try store.object(Item.self, forKey: "hot") {
                    check((0..<ConcurrencyStressTests.threads).contains(hot.owner), "hot \(hot)")
                }
            default:
                // Another instance of the same database: shares the handle, then lets it go.
                let other = try ModelStore(name: "s\(database)", policy: .never, configuration: configuration)
                let key = key()
                check(try other.object(Item.self, forKey: key) == model[database][key], "second instance \(key)")
                try other.close()
            }
        }
    }
}

/// Problems one worker thread found (used by that thread only), kept short.
final class ProblemLog {
    private(set) var entries: [String] = []

    func append(_ problem: String) {
        if entries.count < 20 { entries.append(problem) }
    }
}
