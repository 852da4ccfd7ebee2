import Foundation
import ModelStore

/// Puts and gets of the benchmark's profile through the store (the default collection) and
/// through a collection, in one database: µs per operation, and the collection's overhead.
///
/// Each round writes `records` profiles under fresh keys, then reads them back in a shuffled
/// order (object cache off, so every get reaches LevelDB and the codec), once through the
/// store and once through the collection, alternating which goes first so neither always
/// meets a warmer LevelDB. Each cell is the median of `rounds` rounds. Then cached gets
/// (object cache on) of one key, a million times, through each.
func runCollectionExperiment(records: Int, rounds: Int, directory: String) throws -> String {
    let corpus = ProfileCorpus(count: records)
    let order = corpus.shuffledNumbers(seed: 0x0C011).map(Int.init)
    var configuration = ModelStore.Configuration()
    configuration.directory = URL(fileURLWithPath: directory, isDirectory: true)
    let store = try ModelStore(name: "collections", policy: .never, configuration: configuration)
    defer { try? store.close() }
    let collection = store.collection("users")

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

    var lines = [
        "### Collections: µs per operation (median of \(rounds) rounds, \(records) records)",
        "",
        "| Operation | Store | Collection | Overhead |",
        "|---|---:|---:|---:|",
    ]
    for operation in ["put", "get", "cached get"] {
        let base = median(timings["\(operation) store"] ?? []) ?? 0
        let through = median(timings["\(operation) collection"] ?? []) ?? 0
        let overhead = base > 0 ? (through / base - 1) * 100 : 0
        lines.append(
            "| \(operation) | " + String(format: "%.3f | %.3f | %+.1f %%", base, through, overhead) + " |")
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
