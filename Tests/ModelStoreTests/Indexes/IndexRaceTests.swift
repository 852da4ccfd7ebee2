import Dispatch
import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// Sets whose index values were computed before an index changed: a set computes its values
/// against the indexes of the moment, outside the write gate, and an index may be redefined,
/// dropped or defined again before the write applies them.
@Suite("Indexes: sets racing definitions")
struct IndexRaceTests {
    /// The index every round ends with, and the versions the definer moves between.
    static let versions = [1, 2, 3]

    @Test("Sets on one thread while another redefines, drops and defines the index again: every record ends with exactly its entry")
    func setsRacingRedefinitions() throws {
        let store = try Fixture().open()
        let posts = store.collection("posts")
        try posts.defineIndex("byAuthor", of: Post.self, version: 1) { [.string($0.author)] }
        let keys = (0..<64).map { "k\($0)" }
        let authors = ["ada", "bob", "cy", "dee"]
        let writes = 4_000
        let writesPerRedefinition = 100
        let written = AtomicWord()
        let failures = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { worker in
            do {
                if worker == 0 {
                    defer { written.store(UInt64(writes)) }
                    for number in 0..<writes {
                        let post = Post(
                            author: authors[number % authors.count] + "\(number % 3)",
                            createdAt: Date(timeIntervalSinceReferenceDate: Double(number)))
                        try posts.set(post, forKey: keys[(number * 7) % keys.count])
                        written.store(UInt64(number + 1))
                    }
                } else {
                    // One redefinition per 100 writes, while the writes go on: a definer that
                    // never waited would take the write gate over and over and starve them.
                    for round in 1..<(writes / writesPerRedefinition) {
                        while written.load() < UInt64(round * writesPerRedefinition) { sched_yield() }
                        if round % 5 == 0 {
                            try posts.dropIndex("byAuthor")
                        }
                        let version = Self.versions[round % Self.versions.count]
                        try posts.defineIndex("byAuthor", of: Post.self, version: version) { [.string($0.author)] }
                    }
                }
            } catch {
                failures.withLock { $0.append(String(describing: error)) }
                written.store(UInt64(writes))
            }
        }
        #expect(failures.withLock { $0 } == [])
        // The index as the race left it: no rebuild, no write after it.
        var expected: [String: [String]] = [:]
        for key in keys {
            guard let post = try posts.object(Post.self, forKey: key) else { continue }
            expected[post.author, default: []].append(key)
        }
        for (author, keys) in expected {
            #expect(try posts.keys(where: "byAuthor", equals: .string(author)).collect() == keys.sorted(), "\(author)")
        }
        #expect(try store.rawIndexKeys().entries == expected.values.reduce(0) { $0 + $1.count })
    }

    @Test(
        "A set whose indexer ran before the index was dropped and defined again (or given a new version) writes its entry under the new definition",
        arguments: [false, true])
    func setComputedBeforeARedefinition(newVersion: Bool) throws {
        let store = try Fixture().open()
        let posts = store.collection("posts")
        try posts.set(Post(author: "old", createdAt: Date(timeIntervalSinceReferenceDate: 0)), forKey: "k")
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        // The first definition's indexer holds the set of "slow" between computing its values
        // and the write, which is where a redefinition can come between them.
        try posts.defineIndex("byAuthor", of: Post.self, version: 1) { post in
            if post.author == "slow" {
                entered.signal()
                proceed.wait()
            }
            return [.string(post.author)]
        }
        // A second index, defined after it, so the redefinition's id is a new one (a database
        // with no other definition may give a dropped index's id out again).
        try posts.defineIndex("byTime", of: Post.self, version: 1) { [.date($0.createdAt)] }
        let done = DispatchGroup()
        let failure = Locked<String?>(nil)
        DispatchQueue.global().async(group: done) {
            do {
                try posts.set(Post(author: "slow", createdAt: Date(timeIntervalSinceReferenceDate: 1)), forKey: "k")
            } catch {
                failure.withLock { $0 = String(describing: error) }
            }
        }
        entered.wait()
        if !newVersion { try posts.dropIndex("byAuthor") }
        try posts.defineIndex("byAuthor", of: Post.self, version: newVersion ? 2 : 1) { [.string($0.author)] }
        #expect(try posts.keys(where: "byAuthor", equals: .string("old")).collect() == ["k"])
        proceed.signal()
        done.wait()
        #expect(failure.withLock { $0 } == nil)
        #expect(try posts.keys(where: "byAuthor", equals: .string("slow")).collect() == ["k"])
        #expect(try posts.keys(where: "byAuthor", equals: .string("old")).collect() == [])
        #expect(try store.rawIndexKeys() == (2, 1))
    }
}
