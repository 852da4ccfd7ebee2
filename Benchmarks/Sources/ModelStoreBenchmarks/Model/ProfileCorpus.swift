import Foundation

/// Deterministic profiles and keys for record numbers `0..<count`.
///
/// Building a profile with fresh strings for every record would put the generator's own
/// allocations into every measured write, so the corpus builds a pool of distinct profiles
/// once and record `i` is `pool[i % poolSize]` with its `id` set to `i`: copying a profile
/// shares its strings and allocates nothing. A pool of 4,096 keeps neighbouring records
/// distinct, so Snappy sees realistic blocks.
struct ProfileCorpus: Sendable {
    /// Distinct profiles in the pool.
    static let poolSize = 4_096

    /// The number of records.
    let count: Int
    private let pool: [Profile]

    init(count: Int) {
        self.count = count
        var random = SplitMix64(seed: 0x5EED_0F_9A0F_11E5)
        pool = (0..<Self.poolSize).map { Self.makeProfile(number: $0, random: &random) }
    }

    /// The profile stored as record `number`.
    @inline(__always)
    func profile(_ number: Int) -> Profile {
        var profile = pool[number & (Self.poolSize - 1)]
        profile.id = number
        return profile
    }

    /// The key of record `number`: `user:` and seven digits, 12 bytes, so Swift stores it
    /// inline without a heap allocation and keys sort in record order.
    @inline(__always)
    static func key(_ number: Int) -> String {
        precondition(number >= 0 && number < 10_000_000, "record numbers have seven digits")
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 12) { buffer in
            _ = buffer.initialize(from: "user:".utf8)
            var rest = number
            for index in stride(from: 11, through: 5, by: -1) {
                buffer[index] = UInt8(truncatingIfNeeded: 48 + rest % 10)
                rest /= 10
            }
            return String(decoding: buffer, as: UTF8.self)
        }
    }

    /// A key that sorts between existing keys but is never stored, so a lookup of it has to
    /// search the tables rather than stop at the key range's edge.
    @inline(__always)
    static func absentKey(_ number: Int) -> String {
        key(number) + "~"
    }

    /// Every record number once, in a deterministic random order.
    func shuffledNumbers(seed: UInt64) -> [UInt32] {
        var numbers = (0..<count).map { UInt32($0) }
        var random = SplitMix64(seed: seed)
        numbers.shuffle(using: &random)
        return numbers
    }

    /// The profiles of every record in order, generated as they are consumed.
    var lazyProfiles: LazyMapSequence<Range<Int>, Profile> {
        (0..<count).lazy.map { self.profile($0) }
    }

    // MARK: - Generation

    private static let givenNames = [
        "Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Frances", "John", "Radia", "Ken",
        "Margaret", "Niklaus", "Hedy", "Tim", "Sophie", "Dennis",
    ]
    private static let familyNames = [
        "Lovelace", "Hopper", "Turing", "Dijkstra", "Liskov", "Knuth", "Allen", "Backus",
        "Perlman", "Thompson", "Hamilton", "Wirth", "Lamarr", "Berners-Lee", "Wilson", "Ritchie",
    ]
    private static let tagWords = [
        "swift", "storage", "caching", "linux", "databases", "compilers", "networking", "ios",
        "servers", "testing", "design", "performance",
    ]
    private static let words = [
        "writes", "about", "systems", "that", "keep", "data", "safe", "and", "fast", "under",
        "load", "while", "teaching", "others", "to", "measure", "before", "they", "optimise",
        "anything", "in", "production", "code", "paths", "every", "day",
    ]
    private static let titles = [
        "Code Complete", "Programming Pearls", "Refactoring", "The Mythical Man-Month", "Clean Code",
        "Software Tools",
    ]

    private static func makeProfile(number: Int, random: inout SplitMix64) -> Profile {
        func pick(_ list: [String]) -> String { list[random.index(below: list.count)] }
        let given = pick(givenNames)
        let family = pick(familyNames)
        var bio = "\(given) \(family)"
        while bio.utf8.count < 180 {
            bio += " " + pick(words)
        }
        bio = String(bio.prefix(180))
        return Profile(
            id: number,
            name: "\(given) \(family)",
            email: "\(given.lowercased())\(number)@example.com",
            joined: Date(timeIntervalSinceReferenceDate: 600_000_000 + Double(random.index(below: 100_000_000))),
            tags: [pick(tagWords), pick(tagWords), pick(tagWords)],
            score: Double(random.index(below: 100_000)) / 100,
            book: Book(
                title: pick(titles),
                author: "\(pick(givenNames)) \(pick(familyNames))",
                price: Double(random.index(below: 10_000)) / 100,
                pages: 100 + random.index(below: 900)),
            bio: bio)
    }
}
