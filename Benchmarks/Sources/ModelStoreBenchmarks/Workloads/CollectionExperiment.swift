import Foundation
import ModelStore

/// Puts and gets of the benchmark's profile through a store (the default collection) and
/// through a collection of another, identical database: µs per operation, and the
/// collection's overhead.
///
/// Two databases, so both sides meet the same LevelDB state (memtable size, flushes, files):
/// in one database the side written second would find the other's records in the memtable
/// and flush at other moments. Each round writes `records` profiles under fresh keys, then
/// reads them back in a shuffled order (object cache off, so every get reaches LevelDB and
/// the codec), alternating which side goes first. Each cell is the median of `rounds`
/// rounds. Then cached gets (object cache on) of one key, 200,000 times, through each.
func runCollectionExperiment(records: Int, rounds: Int, directory: String) throws -> String {
    let corpus = ProfileCorpus(count: records)
    let order = corpus.shuffledNumbers(seed: 0x0C011).map(Int.init)
    var configuration = ModelStore.Configuration()
    configuration.directory = URL(fileURLWithPath: directory, isDirectory: true)
    let store = try ModelStore(name: "plain", policy: .never, configuration: configuration)
    defer { try? store.close() }
    let named = try ModelStore(name: "named", policy: .never, configuration: configuration)
    defer { try? named.close() }
    let collection = named.collection("users")

    typealias Put = (Profile, String) throws -> Void
    typealias Get = (String) throws -> Profile?
    let storeSide: (put: Put, get: Get) = (
        { try store.set($0, forKey: $1) }, { try store.object(Profile.self, forKey: $0) }
    )
    let collectionSide: (put: Put, get: Get) = (
        { try collection.set($0, forKey: $1) }, { try collection.object(Profile.self, forKey: $0) }
    )
    var timings: [String: [Double]] = [:]
    for round in 0..<rounds {
        let sides = round % 2 == 0
            ? [("store", storeSide), ("collection", collectionSide)]
            : [("collection", collectionSide), ("store", storeSide)]
        for (name, side) in sides {
            let keys = (0..<records).map { "r\(round):" + ProfileCorpus.key($0) }
            timings["put \(name)", default: []].append(try microseconds(records) {
                for number in 0..<records { try side.put(corpus.profile(number), keys[number]) }
            })
            timings["get \(name)", default: []].append(try microseconds(records) {
                for number in order where try side.get(keys[number]) == nil {
                    throw BenchmarkFailure("a record just written was not found")
                }
            })
        }
    }

    var cached = configuration
    cached.objectCacheLimit = 1_000
    let cachedStore = try ModelStore(name: "cached", policy: .never, configuration: cached)
    defer { try? cachedStore.close() }
    let cachedCollection = cachedStore.collection("users")
    try cachedStore.set(corpus.profile(7), forKey: "k")
    try cachedCollection.set(corpus.profile(7), forKey: "k")
    let hits = 200_000
    for round in 0..<rounds {
        let sides: [(String, Get)] = [
            ("store", { try cachedStore.object(Profile.self, forKey: $0) }),
            ("collection", { try cachedCollection.object(Profile.self, forKey: $0) }),
        ]
        for (name, get) in round % 2 == 0 ? sides : sides.reversed() {
            timings["cached get \(name)", default: []].append(try microseconds(hits) {
                for _ in 0..<hits where try get("k") == nil { throw BenchmarkFailure("cache miss") }
            })
        }
    }

    // The policy record: `collection(_:policy:)` compares its policy with what the process
    // last recorded (a lookup under a lock), so a put through a collection made for every
    // put pays that; a collection made once pays nothing per put. Both stamp the same lifetime.
    let perPut = try ModelStore(name: "perput", policy: .never, configuration: configuration)
    defer { try? perPut.close() }
    let once = perPut.collection("sessions", policy: .low)
    for round in 0..<rounds {
        let sides: [(String, Put)] = [
            ("once", { try once.set($0, forKey: $1) }),
            ("per put", { try perPut.collection("sessions", policy: .low).set($0, forKey: $1) }),
        ]
        for (name, put) in round % 2 == 0 ? sides : sides.reversed() {
            let keys = (0..<records).map { "p\(round)\(name):" + ProfileCorpus.key($0) }
            timings["policy put \(name)", default: []].append(try microseconds(records) {
                for number in 0..<records { try put(corpus.profile(number), keys[number]) }
            })
        }
        let creations = 200_000
        for (name, make) in [
            ("without policy", { _ = perPut.collection("sessions") }),
            ("with policy", { _ = perPut.collection("sessions", policy: .low) }),
        ] as [(String, () -> Void)] {
            timings["creation \(name)", default: []].append(try microseconds(creations) {
                for _ in 0..<creations { make() }
            })
        }
    }

    var lines = [
        "### Collections: µs per operation (\(rounds) rounds of \(records) records)",
        "",
        "Median and best round of each side; on a shared machine the best round is the one least",
        "disturbed by other processes.",
        "",
        "| Operation | Store, median | Collection, median | Overhead | Store, best | Collection, best | Overhead |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for operation in ["put", "get", "cached get"] {
        let stored = timings["\(operation) store"] ?? [], through = timings["\(operation) collection"] ?? []
        var cells: [String] = []
        for statistic in [{ median($0) ?? 0 }, { ($0 as [Double]).min() ?? 0 }] as [([Double]) -> Double] {
            let base = statistic(stored), other = statistic(through)
            let overhead = base > 0 ? (other / base - 1) * 100 : 0
            cells.append(String(format: "%.3f | %.3f | %+.1f %%", base, other, overhead))
        }
        lines.append("| \(operation) | " + cells.joined(separator: " | ") + " |")
    }
    lines += [
        "",
        "Recorded policies: a put through `collection(_:policy:)` made once vs for every put, and",
        "making a collection without and with a policy (median and best, µs).",
        "",
        "| Operation | Median | Best |",
        "|---|---:|---:|",
    ]
    for name in ["policy put once", "policy put per put", "creation without policy", "creation with policy"] {
        let values = timings[name] ?? []
        lines.append("| \(name) | " + String(format: "%.3f | %.3f", median(values) ?? 0, values.min() ?? 0) + " |")
    }
    return lines.joined(separator: "\n")
}

/// Microseconds per operation of `body`, which performs `operations` operations.
private func microseconds(_ operations: Int, _ body: () throws -> Void) throws -> Double {
    let clock = ContinuousClock()
    let start = clock.now
    try body()
    let elapsed = clock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    return seconds * 1e6 / Double(operations)
}
