import Dispatch
import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// Every kind of write on one thread while another defines, redefines and drops indexes in the
/// same collections: the writes' computed values and the removals' index work meet every state
/// the definitions pass through. Bounded (no sleep): the definer changes something once per
/// `writesPerChange` writes, coordinated by a counter.
@Suite("Indexes: writes of every kind racing definitions")
struct IndexDefinitionRaceTests {
    @Test("Sets, batches, removals by key, prefix and tag, removeAllObjects, sweeps applying a record limit, refreshes and metadata rewrites, while indexes of two collections and the default one are redefined and dropped")
    func everyWriteRacingDefinitions() async throws {
        let fixture = Fixture()
        var configuration = fixture.configuration
        // Sweeps apply the limit: records beyond it go in chunks, with their entries.
        configuration.maximumRecordCount = 60
        let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
        let posts = store.collection("posts")
        let other = store.collection("other")
        let author: @Sendable (Post) -> [IndexValue] = { [.string($0.author)] }
        let upper: @Sendable (Post) -> [IndexValue] = { [.string($0.author.uppercased())] }
        let score: @Sendable (Post) -> [IndexValue] = { [.int($0.score), .int($0.score / 2)] }
        let tags: @Sendable (Post) -> [IndexValue] = { $0.tags.map { .string($0) } }
        try store.defineIndex("byAuthor", of: Post.self, version: 2, author)
        try posts.defineIndex("byAuthor", of: Post.self, version: 2, author)
        try other.defineIndex("byAuthor", of: Post.self, version: 2, author)
        let writes = 2_000
        let writesPerChange = 40
        let written = AtomicWord()
        let failures = Locked<[String]>([])
        // What the definer left defined: (scope, name) → version (even: `author`, odd: `upper`).
        let definitions = Locked<[String: Int]>(["default/byAuthor": 2, "posts/byAuthor": 2, "other/byAuthor": 2])
        DispatchQueue.concurrentPerform(iterations: 2) { worker in
            do {
                if worker == 0 {
                    defer { written.store(UInt64(writes)) }
                    var generator = SeededGenerator(seed: 26)
                    let scopes: [any ModelWriter] = [store, posts, other]
                    for number in 0..<writes {
                        let scope = scopes[Int.random(in: 0..<3, using: &generator)]
                        let key = "k\(Int.random(in: 0..<40, using: &generator))"
                        let post = Post(
                            author: ["ada", "bob", "cy"][Int.random(in: 0..<3, using: &generator)] + "\(number % 5)",
                            createdAt: Date(timeIntervalSinceReferenceDate: Double(number)),
                            tags: number % 3 == 0 ? ["t\(number % 4)", "u"] : [], score: Int64(number % 11))
                        switch Int.random(in: 0..<12, using: &generator) {
                        case 0...3: try scope.set(post, forKey: key, tags: post.tags)
                        case 4:
                            try store.write { batch in
                                try batch.set(post, forKey: key, in: posts)
                                try batch.set(post, forKey: key)
                                try batch.set(post, forKey: key + "b", in: other)
                                batch.removeObject(forKey: "k\(number % 40)", in: posts)
                                try batch.set(Post(author: "again", createdAt: post.createdAt), forKey: key, in: posts)
                            }
                        case 5: try scope.removeObject(forKey: key)
                        case 6: _ = try scope.removeObjects(withPrefix: "k\(number % 4)")
                        case 7: _ = try store.removeObjects(taggedWith: "t\(number % 4)")
                        case 8: _ = try scope.refresh(forKey: key, expiresAfter: 3_600)
                        case 9: _ = try scope.replaceMetadata(["n": number], forKey: key)
                        case 10: _ = try store.removeExpiredObjects()
                        default: if number % 5 == 0 { _ = try scope.removeAllObjects() } else { try scope.set(post, forKey: key) }
                        }
                        written.store(UInt64(number + 1))
                    }
                } else {
                    var generator = SeededGenerator(seed: 62)
                    let scopes: [(String, any ModelWriter)] = [("default", store), ("posts", posts), ("other", other)]
                    var round = 1
                    while written.load() < UInt64(writes) {
                        while written.load() < min(UInt64(round * writesPerChange), UInt64(writes)) { sched_yield() }
                        round += 1
                        let (scopeName, scope) = scopes[Int.random(in: 0..<3, using: &generator)]
                        let name = ["byAuthor", "byScore", "byTag"][Int.random(in: 0..<3, using: &generator)]
                        let key = scopeName + "/" + name
                        let current = definitions.withLock { $0[key] }
                        switch Int.random(in: 0..<4, using: &generator) {
                        case 0 where name != "byAuthor" && current != nil:
                            // byAuthor stays: a space keeps an index, so its values entries are kept exact.
                            try scope.dropIndex(name)
                            definitions.withLock { $0[key] = nil }
                            continue
                        case 1:
                            // The same version again (no rebuild).
                            let version = current ?? 1
                            try Self.define(name, version: version, on: scope, author, upper, score, tags)
                            definitions.withLock { $0[key] = version }
                        default:
                            let version = (current ?? 0) + 1
                            try Self.define(name, version: version, on: scope, author, upper, score, tags)
                            definitions.withLock { $0[key] = version }
                        }
                    }
                }
            } catch {
                failures.withLock { $0.append(String(describing: error)) }
                written.store(UInt64(writes))
            }
        }
        #expect(failures.withLock { $0 } == [])
        var expected: [ExpectedIndex] = []
        for (key, version) in definitions.withLock({ $0 }) {
            let parts = key.split(separator: "/").map(String.init)
            let values: @Sendable (Post) -> [IndexValue] =
                switch parts[1] {
                case "byAuthor": version % 2 == 0 ? author : upper
                case "byScore": score
                default: tags
                }
            switch parts[0] {
            case "default": expected.append(.posts(store, parts[1], values))
            default: expected.append(.posts(store.collection(parts[0]), parts[1], values))
            }
        }
        #expect(try store.indexProblems(expected) == [])
    }

    @Test("Two definitions of the same index whose builds interleave (every open defines its indexes): the index ends built and queryable, whichever build finishes it")
    func sameIndexDefinedTwiceWhileItBuilds() async throws {
        let store = try Fixture().open()
        let count = DefinedIndex.buildChunkSize * 2 + 10
        let posts = try PausedDefinition.posts(in: store, count: count)
        let author: @Sendable (Post) -> [IndexValue] = { [.string($0.author)] }
        // The first build stops after its first chunk; the second (registered later) builds a
        // chunk and stops; the first finishes the build; then the second goes on.
        let first = await PausedDefinition.start(on: posts, author)
        let second = await PausedDefinition.start(on: posts, author)
        let firstReport = try await first.goOn()
        let secondReport = try await second.goOn()
        #expect(!firstReport.wasCancelled && !secondReport.wasCancelled)
        #expect(firstReport.indexed + secondReport.indexed == count)
        #expect(try posts.count(where: "byAuthor", equals: .string("a0")) == (count + 2) / 3)
        let problems = try store.indexProblems([.posts(posts, "byAuthor", author)])
        #expect(problems == [], "\(problems)")
    }

    @Test("A build paused while its index is dropped and defined again with another indexer (the only index, whose id was given out again before the fix) never indexes a record with the dropped indexer")
    func buildPausedWhileTheIndexIsDroppedAndDefinedAgain() async throws {
        let store = try Fixture().open()
        let count = DefinedIndex.buildChunkSize * 2 + 10
        let posts = try PausedDefinition.posts(in: store, count: count)
        let author: @Sendable (Post) -> [IndexValue] = { [.string($0.author)] }
        let upper: @Sendable (Post) -> [IndexValue] = { [.string($0.author.uppercased())] }
        let first = await PausedDefinition.start(on: posts, author)
        try posts.dropIndex("byAuthor")
        let second = await PausedDefinition.start(on: posts, upper)
        _ = try await first.goOn()
        let report = try await second.goOn()
        #expect(!report.wasCancelled)
        #expect(try posts.count(where: "byAuthor", equals: .string("A0")) == (count + 2) / 3)
        #expect(try posts.count(where: "byAuthor", equals: .string("a0")) == 0)
        let problems = try store.indexProblems([.posts(posts, "byAuthor", upper)])
        #expect(problems == [], "\(problems.prefix(3))")
    }

    @Test("A batch whose values were computed for the old version applies while the new version's build is paused between chunks, one record behind the build and one ahead: the index ends exact")
    func heldBatchAppliedDuringABuild() async throws {
        let store = try Fixture().open()
        let posts = store.collection("posts")
        let count = DefinedIndex.buildChunkSize * 2 + 10
        try store.write { batch in
            for index in 0..<count {
                try batch.set(Post(author: "a\(index % 3)", createdAt: Date(timeIntervalSinceReferenceDate: 0)), forKey: String(format: "m%04d", index), in: posts)
            }
        }
        let hold = IndexHeldWriteTests.Hold()
        try posts.defineIndex("byAuthor", of: Post.self, version: 1) { post in
            hold.pass(post)
            return [.string(post.author)]
        }
        let upper: @Sendable (Post) -> [IndexValue] = { [.string($0.author.uppercased())] }
        let writing = OffPool {
            try store.write { batch in
                // "a" sorts before every record (behind the paused build), "z" after (ahead).
                try batch.set(Post(author: "zed", createdAt: Date(timeIntervalSinceReferenceDate: 0)), forKey: "z", in: posts)
                try batch.set(IndexHeldWriteTests.slow, forKey: "a", in: posts)
                try batch.set(Post(author: "mid", createdAt: Date(timeIntervalSinceReferenceDate: 0)), forKey: "m0600", in: posts)
            }
        }
        await IndexHeldWriteTests.wait(hold.entered)
        let building = await PausedDefinition.start(on: posts, version: 2, upper)
        hold.proceed.signal()
        try await writing.value
        let report = try await building.goOn()
        #expect(!report.wasCancelled)
        #expect(try posts.keys(where: "byAuthor", equals: .string("SLOW")).collect() == ["a"])
        #expect(try posts.keys(where: "byAuthor", equals: .string("ZED")).collect() == ["z"])
        #expect(try posts.keys(where: "byAuthor", equals: .string("MID")).collect() == ["m0600"])
        let problems = try store.indexProblems([.posts(posts, "byAuthor", upper)])
        #expect(problems == [], "\(problems.prefix(3))")
    }

    /// Defines `name` at `version`; "byAuthor" computes `author` at an even version, `upper` at an odd one.
    static func define(
        _ name: String, version: Int, on scope: any ModelWriter, _ author: @escaping @Sendable (Post) -> [IndexValue],
        _ upper: @escaping @Sendable (Post) -> [IndexValue], _ score: @escaping @Sendable (Post) -> [IndexValue],
        _ tags: @escaping @Sendable (Post) -> [IndexValue]
    ) throws {
        let indexer =
            switch name {
            case "byAuthor": version % 2 == 0 ? author : upper
            case "byScore": score
            default: tags
            }
        try scope.defineIndex(name, of: Post.self, version: version, indexer)
    }
}

/// Runs a body that may block on a thread of its own, off the cooperative pool (whose few
/// threads a blocked body would take from the test awaiting it).
final class OffPool<Value: Sendable>: Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let outcome = Locked<Result<Value, any Error>?>(nil)

    init(_ body: @escaping @Sendable () throws -> Value) {
        DispatchQueue.global().async { [done, outcome] in
            let result = Result { try body() }
            outcome.withLock { $0 = result }
            done.signal()
        }
    }

    /// What the body returned, once it has.
    var value: Value {
        get async throws {
            await IndexHeldWriteTests.wait(done)
            return try outcome.withLock { $0! }.get()
        }
    }
}

/// A `defineIndex` of "byAuthor" off the cooperative pool whose build stops after
/// its first chunk until ``goOn()``: where another definition can come between its chunks.
struct PausedDefinition {
    let report: OffPool<ModelStore.IndexBuildReport>
    private let goesOn: DispatchSemaphore

    /// Starts the definition and returns once its build has paused.
    static func start(
        on posts: ModelStore.Collection, version: Int = 1, _ indexer: @escaping @Sendable (Post) -> [IndexValue]
    ) async -> PausedDefinition {
        let paused = DispatchSemaphore(value: 0)
        let goesOn = DispatchSemaphore(value: 0)
        let calls = AtomicWord()
        let report = OffPool {
            try posts.defineIndex("byAuthor", of: Post.self, version: version, progress: { _ in
                if calls.load() == 0 {
                    paused.signal()
                    goesOn.wait()
                }
                calls.store(calls.load() + 1)
            }, indexer)
        }
        await IndexHeldWriteTests.wait(paused)
        return PausedDefinition(report: report, goesOn: goesOn)
    }

    private init(report: OffPool<ModelStore.IndexBuildReport>, goesOn: DispatchSemaphore) {
        self.report = report
        self.goesOn = goesOn
    }

    /// Lets the build go on, and waits for its report.
    func goOn() async throws -> ModelStore.IndexBuildReport {
        goesOn.signal()
        return try await report.value
    }

    /// A collection of `count` posts by three authors, `a0` to `a2`: more than two build chunks.
    static func posts(in store: ModelStore, count: Int = DefinedIndex.buildChunkSize * 2 + 10) throws -> ModelStore.Collection {
        let posts = store.collection("posts")
        try store.write { batch in
            for index in 0..<count {
                try batch.set(Post(author: "a\(index % 3)", createdAt: Date(timeIntervalSinceReferenceDate: 0)), forKey: "k\(index)", in: posts)
            }
        }
        return posts
    }
}
