import Dispatch
import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// A model every ``Post`` decodes as too (one of its fields).
struct AuthorOnly: Codable, Sendable {
    var author: String
}

/// Writes whose index values were computed before the indexes changed, held deterministically:
/// the indexer of "byAuthor" in "posts" stops the write of the post by "slow" between
/// computing its values (outside the write gate) and the write, while the test changes the
/// indexes; then every index is checked against every record (``ModelStore/indexProblems(_:)``).
@Suite("Indexes: writes held while the indexes change", .serialized)
struct IndexHeldWriteTests {
    /// Holds the first indexer call on the post by "slow" until ``proceed`` is signalled.
    final class Hold: Sendable {
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        private let armed = Locked(true)

        func pass(_ post: Post) {
            guard post.author == "slow", armed.withLock({ armed in defer { armed = false }; return armed }) else { return }
            entered.signal()
            proceed.wait()
        }
    }

    /// How the held post is written.
    enum Write: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case set, tagged, batch, importing
        var testDescription: String { rawValue }
    }

    /// What changes while it is held.
    enum Change: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// The index dropped, another one of the collection defined: it gets the dropped id.
        case dropThenOtherIndexReusingTheID
        /// Dropped and defined again (same version) with another indexer: under the same id.
        case dropThenSameNameReusingTheID
        case newVersion
        case sameVersionAgain
        case secondIndexInTheCollection
        case indexesOfOtherModelTypes
        case sameNameInAnotherCollection
        case defaultCollectionRedefined
        var testDescription: String { rawValue }
    }

    static let slow = Post(author: "slow", createdAt: Date(timeIntervalSinceReferenceDate: 1), score: 5)

    static func post(_ author: String, _ seconds: Double, score: Int64 = 1) -> Post {
        Post(author: author, createdAt: Date(timeIntervalSinceReferenceDate: seconds), score: score)
    }

    /// Waits for `semaphore` off the cooperative pool.
    static func wait(_ semaphore: DispatchSemaphore) async {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                semaphore.wait()
                continuation.resume()
            }
        }
    }

    @Test("A write held between computing its index values and applying them, while the indexes change: every index is exact after it", arguments: Write.allCases, Change.allCases)
    func heldWrite(write: Write, change: Change) async throws {
        let store = try Fixture().open()
        let posts = store.collection("posts")
        let other = store.collection("other")
        let hold = Hold()
        // The default collection's index first, so that "posts"' is the highest id: dropped,
        // its id is given out again.
        try store.defineIndex("byAuthor", of: Post.self, version: 1) { [.string($0.author + "@default")] }
        try posts.defineIndex("byAuthor", of: Post.self, version: 1) { post in
            hold.pass(post)
            return [.string(post.author)]
        }
        for index in 0..<4 { try posts.set(Self.post("a\(index)", Double(index)), forKey: "k\(index)") }
        try store.set(Self.post("d", 0), forKey: "d0")
        try other.set(Self.post("o", 0), forKey: "o0")

        // Sync writes on a thread of their own; the import blocks one thread of the pool.
        let writing: OffPool<Void>
        if write == .importing {
            let imported = Task.detached {
                try await posts.importObjects(
                    [Self.post("i1", 1), Self.slow, Self.post("i2", 2)], key: { "i\($0.createdAt.timeIntervalSinceReferenceDate)" })
            }
            writing = OffPool {
                let done = DispatchSemaphore(value: 0)
                let failure = Locked<(any Error)?>(nil)
                Task {
                    if case .failure(let error) = await imported.result { failure.withLock { $0 = error } }
                    done.signal()
                }
                done.wait()
                if let error = failure.withLock({ $0 }) { throw error }
            }
        } else {
            writing = OffPool {
                switch write {
                case .set: try posts.set(Self.slow, forKey: "k")
                case .tagged: try posts.set(Self.slow, forKey: "k", tags: ["t"])
                default:
                    try store.write { batch in
                        try batch.set(Self.post("b2", 2), forKey: "k2", in: posts)
                        try batch.set(Self.slow, forKey: "k", in: posts)
                        try batch.set(Self.post("b3", 3), forKey: "k3", in: posts)
                        try batch.set(Self.post("d1", 1), forKey: "d1")
                        try batch.set(Self.post("o1", 1), forKey: "o1", in: other)
                        batch.removeObject(forKey: "k0", in: posts)
                    }
                }
            }
        }
        await Self.wait(hold.entered)

        let author: @Sendable (Post) -> [IndexValue] = { [.string($0.author)] }
        let upper: @Sendable (Post) -> [IndexValue] = { [.string($0.author.uppercased())] }
        let score: @Sendable (Post) -> [IndexValue] = { [.int($0.score)] }
        var expected: [ExpectedIndex] = [.posts(store, "byAuthor") { [.string($0.author + "@default")] }]
        switch change {
        case .dropThenOtherIndexReusingTheID:
            try posts.dropIndex("byAuthor")
            try posts.defineIndex("byScore", of: Post.self, version: 1, score)
            expected.append(.posts(posts, "byScore", score))
        case .dropThenSameNameReusingTheID:
            try posts.dropIndex("byAuthor")
            try posts.defineIndex("byAuthor", of: Post.self, version: 1, upper)
            expected.append(.posts(posts, "byAuthor", upper))
        case .newVersion:
            try posts.defineIndex("byAuthor", of: Post.self, version: 2, upper)
            expected.append(.posts(posts, "byAuthor", upper))
        case .sameVersionAgain:
            try posts.defineIndex("byAuthor", of: Post.self, version: 1, author)
            expected.append(.posts(posts, "byAuthor", author))
        case .secondIndexInTheCollection:
            try posts.defineIndex("byScore", of: Post.self, version: 1, score)
            expected += [.posts(posts, "byAuthor", author), .posts(posts, "byScore", score)]
        case .indexesOfOtherModelTypes:
            try posts.defineIndex("lite", of: AuthorOnly.self, version: 1) { [.string($0.author + "!")] }
            try posts.defineIndex("body", of: RichPost.self, version: 1) { [.string($0.body)] }
            expected += [
                .posts(posts, "byAuthor", author), .posts(posts, "lite") { [.string($0.author + "!")] },
                .posts(posts, "body") { _ in [] },
            ]
        case .sameNameInAnotherCollection:
            try other.defineIndex("byAuthor", of: Post.self, version: 1, upper)
            expected += [.posts(posts, "byAuthor", author), .posts(other, "byAuthor", upper)]
        case .defaultCollectionRedefined:
            try store.dropIndex("byAuthor")
            try store.defineIndex("byAuthor", of: Post.self, version: 1, upper)
            expected = [.posts(posts, "byAuthor", author), .posts(store, "byAuthor", upper)]
        }
        hold.proceed.signal()
        try await writing.value
        let problems = try store.indexProblems(expected)
        #expect(problems == [], "\(problems)")
        // And the next writes of the same keys leave them exact too.
        try posts.set(Self.post("again", 9, score: 9), forKey: "k")
        try posts.removeObject(forKey: "k1")
        let after = try store.indexProblems(expected)
        #expect(after == [], "\(after)")
    }
}
