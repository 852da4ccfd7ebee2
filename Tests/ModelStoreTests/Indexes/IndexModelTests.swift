import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// Thousands of random writes, removals, expiries and sweeps, after which every query must
/// answer what a plain filter over an in-memory copy of the records answers, and the index
/// must hold exactly the entries of the stored records (no entry without its record, no
/// record without its entries).
@Suite("Indexes: randomized model test")
struct IndexModelTests {
    struct Stored {
        var post: Post
        var deadline: Date?
    }

    static let authors = ["ada", "bob", "carol", "dan", "\u{E9}ve", "e\u{301}ve"]
    static let tags = ["swift", "db", "x\u{0}y", "news"]

    final class Run {
        let fixture = Fixture()
        let store: ModelStore
        let posts: ModelStore.Collection
        var model: [String: Stored] = [:]
        var random: SeededGenerator

        init(seed: UInt64) throws {
            store = try fixture.open()
            posts = store.collection("posts")
            try PostIndexes.define(on: posts)
            random = SeededGenerator(seed: seed)
        }

        var now: Date { fixture.clock.now }

        func isLive(_ stored: Stored) -> Bool { stored.deadline.map { now < $0 } ?? true }

        func randomKey() -> String { String(format: "k%03d", Int.random(in: 0..<150, using: &random)) }

        func randomPost() -> Post {
            Post(
                author: IndexModelTests.authors.randomElement(using: &random)!,
                createdAt: Date(timeIntervalSinceReferenceDate: Double(Int.random(in: -50...50, using: &random))),
                tags: IndexModelTests.tags.filter { _ in Int.random(in: 0..<3, using: &random) == 0 },
                score: Int64.random(in: -5...5, using: &random))
        }

        func randomLifetime() -> TimeInterval? {
            Bool.random(using: &random) ? nil : TimeInterval(Int.random(in: 10...300, using: &random))
        }

        func set(_ key: String) throws {
            let post = randomPost()
            let lifetime = randomLifetime()
            try posts.set(post, forKey: key, expiresAfter: lifetime)
            model[key] = Stored(post: post, deadline: lifetime.map { now.addingTimeInterval($0) })
        }

        func step() throws {
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<40:
                try set(randomKey())
            case 40..<50:
                let key = randomKey()
                try posts.removeObject(forKey: key)
                model[key] = nil
            case 50..<55:
                let keys = (0..<4).map { _ in randomKey() }
                try posts.removeObjects(forKeys: keys)
                for key in keys { model[key] = nil }
            case 55..<65:
                var pending: [(String, Stored?)] = []
                try store.write { batch in
                    for _ in 0..<Int.random(in: 1...5, using: &random) {
                        let key = randomKey()
                        if Int.random(in: 0..<3, using: &random) == 0 {
                            batch.removeObject(forKey: key, in: posts)
                            pending.append((key, nil))
                        } else {
                            let post = randomPost()
                            let lifetime = randomLifetime()
                            try batch.set(post, forKey: key, in: posts, expiresAfter: lifetime)
                            pending.append((key, Stored(post: post, deadline: lifetime.map { now.addingTimeInterval($0) })))
                        }
                    }
                }
                for (key, stored) in pending { model[key] = stored }
            case 65..<67:
                let prefix = "k0\(Int.random(in: 0..<10, using: &random))"
                try posts.removeObjects(withPrefix: prefix)
                for key in model.keys where key.hasPrefix(prefix) { model[key] = nil }
            case 67..<82:
                fixture.clock.advance(by: TimeInterval(Int.random(in: 5...60, using: &random)))
            case 82..<86:
                try posts.removeExpiredObjects()
                model = model.filter { isLive($0.value) }
            case 86..<91:
                let key = randomKey()
                _ = try posts.object(Post.self, forKey: key)  // purges an expired record
                if let stored = model[key], !isLive(stored) { model[key] = nil }
            case 91..<95:
                let key = randomKey()
                let lifetime = TimeInterval(Int.random(in: 10...300, using: &random))
                let refreshed = try posts.refresh(forKey: key, expiresAfter: lifetime)
                if let stored = model[key], isLive(stored) {
                    #expect(refreshed)
                    model[key]?.deadline = now.addingTimeInterval(lifetime)
                }
            case 95..<97:
                let tag = IndexModelTests.tags.randomElement(using: &random)!
                try store.removeObjects(taggedWith: tag)
                // Only records written with tags carry them: these posts' tags are index values, not store tags.
                _ = tag
            default:
                let tag = IndexModelTests.tags.randomElement(using: &random)!
                let key = randomKey()
                let post = randomPost()
                try posts.set(post, forKey: key, tags: [tag])
                model[key] = Stored(post: post, deadline: nil)
                try store.removeObjects(taggedWith: tag)
                model[key] = nil
            }
        }

        /// Every query against the in-memory filter, and the raw entries against the stored records.
        func check(_ context: String) throws {
            let live = model.filter { isLive($0.value) }
            for author in IndexModelTests.authors {
                let expected = live.filter { $0.value.post.author.utf8.elementsEqual(author.utf8) }.keys.sorted()
                #expect(try posts.keys(where: "byAuthor", equals: .string(author)).collect() == expected, "\(context)")
                #expect(try posts.count(where: "byAuthor", equals: .string(author)) == expected.count, "\(context)")
            }
            for tag in IndexModelTests.tags {
                let expected = live.filter { $0.value.post.tags.contains(tag) }.keys.sorted()
                #expect(try posts.keys(where: "byTag", equals: .string(tag)).collect() == expected, "\(context)")
            }
            let limit = Int.random(in: 1...20, using: &random)
            let low = Int64.random(in: -6...2, using: &random)
            let high = low + Int64.random(in: 0...6, using: &random)
            let expected = live.filter { (low...high).contains($0.value.post.score) }
                .sorted { ($0.value.post.score, $0.key) > ($1.value.post.score, $1.key) }
                .prefix(limit).map(\.key)
            let found = try posts.entries(Post.self, where: "byScore", in: .int(low) ... .int(high), reverse: true, limit: limit)
                .collect()
            #expect(found.map(\.key) == Array(expected), "\(context)")
            #expect(found.allSatisfy { live[$0.key]?.post == $0.value }, "\(context)")
            let since = Date(timeIntervalSinceReferenceDate: Double(Int.random(in: -50...50, using: &random)))
            let times = try posts.keys(where: "byTime", equals: .date(since)).collect()
            #expect(times == live.filter { $0.value.post.createdAt == since }.keys.sorted(), "\(context)")
            // Exactly the entries of the stored records, expired or not.
            let values = model.values.reduce(0) { $0 + 3 + Set($1.post.tags).count }
            #expect(try store.rawIndexKeys().entries == values, "\(context)")
            // Each stored record's values are known (author, time and score always have one), in
            // its section: no values entry is left, as every record is written with its values.
            #expect(try store.rawIndexValues().count == model.values.count, "\(context)")
            #expect(try store.rawIndexKeys().reverse == 0, "\(context)")
        }
    }

    @Test("3,000 random operations: every query matches the in-memory filter", arguments: [UInt64(1), 2])
    func randomOperations(seed: UInt64) throws {
        let run = try Run(seed: seed)
        for step in 0..<3_000 {
            try run.step()
            if step % 100 == 99 { try run.check("seed \(seed), step \(step)") }
        }
        try run.check("seed \(seed), end")
    }

    @Test("30,000 random operations over 8 seeds", .long, arguments: Array(UInt64(10)..<18))
    func manyRandomOperations(seed: UInt64) throws {
        let run = try Run(seed: seed)
        for step in 0..<3_750 {
            try run.step()
            if step % 250 == 249 { try run.check("seed \(seed), step \(step)") }
        }
    }
}
