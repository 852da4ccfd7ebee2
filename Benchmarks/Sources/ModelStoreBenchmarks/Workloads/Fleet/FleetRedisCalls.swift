import Foundation
import ModelStore
import ModelStoreRedis

/// A Redis hit and a Redis miss through the tier, against a raw hiredis `GET` of the same record
/// key (and `GET` with `PTTL` pipelined, what the tier sends), interleaved in one process against
/// one redis-server, for two models: a ``Session`` (about 130 bytes stored, the size issue 37's
/// outside benchmark used) and a ``Profile`` (about 420 bytes, whose JSON decode is most of a hit's
/// own work). Each table's title gives the records' mean size as Redis holds them (`STRLEN`).
func fleetRedisCalls(rounds: Int, directory: String, port: Int) throws -> [String] {
    let sessions = SessionCorpus()
    let profiles = ProfileCorpus(count: 2_000)
    return try fleetRedisCalls(
        of: Session.self, named: "session", rounds: rounds, directory: directory, port: port, record: sessions.session)
        + [""]
        + fleetRedisCalls(
            of: Profile.self, named: "profile", rounds: rounds, directory: directory, port: port, record: profiles.profile)
}

/// The calls of ``fleetRedisCalls(rounds:directory:port:)`` for records of one model, `record(i)`
/// stored under ``ProfileCorpus/key(_:)``. A hit is `object(_:forKey:)` on a node whose local
/// store misses (a fresh directory each round) and the record is in Redis: the call reads Redis,
/// verifies the record, stores it locally and decodes it. A miss finds the key nowhere. The calls
/// run on a thread of their own (a server's request thread); the "from a task" row makes them from
/// Swift's cooperative pool, where the tier must hand the blocking call to a thread of its own.
private func fleetRedisCalls<Model: Codable & Sendable>(
    of model: Model.Type, named name: String, rounds: Int, directory: String, port: Int, record: (Int) -> Model
) throws -> [String] {
    let count = 2_000
    let prefix = "bench-get-\(name):"
    let writerTier = try RedisTier(host: "127.0.0.1", port: port, keyPrefix: prefix)
    let readerTier = try RedisTier(host: "127.0.0.1", port: port, keyPrefix: prefix)
    defer {
        writerTier.shutdown()
        readerTier.shutdown()
    }
    let writer = try fleetStore("gets", directory + "/gets-\(name)-writer", tier: writerTier)
    try writeInBatches(writer, count: count, record: record)
    let raw = try RawRedis(port: port)
    let recordKeys = raw.keys(matching: prefix + "r*").shuffled()
    guard recordKeys.count == count else { throw BenchmarkFailure("found \(recordKeys.count) record keys in Redis, not \(count)") }
    // What Redis holds per record (STRLEN): the record's envelope and the model's JSON.
    let storedBytes = Double(recordKeys.reduce(0) { $0 + (raw.get($1)?.count ?? 0) }) / Double(count)
    let missingKeys = recordKeys.map { $0 + Array("-missing".utf8) }
    let keys = (0..<count).map { ProfileCorpus.key($0) }.shuffled()
    let absent = keys.map { $0 + "-missing" }

    var samples: [String: [Double]] = [:]
    var found = 0
    var serial = 0
    /// A node whose local store holds nothing: a fresh directory, the reader tier.
    func freshNode() throws -> ModelStore {
        serial += 1
        let store = try fleetStore("gets", directory + "/gets-\(name)-reader-\(serial)", tier: readerTier)
        // The attachment's first round trips (the database's generation) before the clock runs.
        _ = try store.object(Model.self, forKey: "warm-up")
        return store
    }
    let missNode = try freshNode()
    let contenders = ["tier hit", "tier hit from a task", "tier miss", "GET", "GET+PTTL", "GET miss"]
    // Each round: fresh nodes, then its keys in chunks, the contenders rotating per chunk, so a
    // burst of load on the shared machine falls on every contender alike.
    let chunks = 8
    let chunkSize = count / chunks
    for round in 0..<rounds {
        let threadNode = try freshNode()
        let taskNode = try freshNode()
        for chunk in 0..<chunks {
            let range = (chunk * chunkSize)..<((chunk + 1) * chunkSize)
            let order = (0..<contenders.count).map { contenders[($0 + round + chunk) % contenders.count] }
            for contender in order {
                var ns = 0.0
                switch contender {
                case "tier hit":
                    let (elapsed, hits) = try onThread { try timeEach(keys[range]) { try threadNode.object(Model.self, forKey: $0) != nil } }
                    ns = elapsed
                    found += hits
                case "tier hit from a task":
                    let (elapsed, hits) = try onTask { try timeEach(keys[range]) { try taskNode.object(Model.self, forKey: $0) != nil } }
                    ns = elapsed
                    found += hits
                case "tier miss":
                    ns = try onThread { try timeEach(absent[range]) { try missNode.object(Model.self, forKey: $0) != nil } }.0
                case "GET":
                    ns = try onThread { try timeEach(recordKeys[range]) { raw.get($0) != nil } }.0
                case "GET+PTTL":
                    ns = try onThread { try timeEach(recordKeys[range]) { raw.getWithLifetime($0).0 != nil } }.0
                case "GET miss":
                    ns = try onThread { try timeEach(missingKeys[range]) { raw.get($0) != nil } }.0
                default: break
                }
                samples[contender, default: []].append(ns)
            }
        }
        try threadNode.close()
        try taskNode.close()
    }
    try missNode.close()
    try writer.close()
    guard found == 2 * rounds * count else { throw BenchmarkFailure("tier hits found \(found) of \(2 * rounds * count) records") }
    let value = { (name: String) in median(samples[name] ?? []) ?? 0 }
    var lines = [
        String(
            format: "### A Redis hit and miss through the tier against a raw hiredis GET (%d %@ records, %.0f bytes each in Redis)",
            count, name, storedBytes),
        "",
        "µs per call, median of \(rounds) rounds × 8 chunks of \(count / 8) calls, the six contenders rotating per chunk. A tier hit",
        "reads a record its node does not hold (fresh directories each round): Redis, verification, the",
        "local fill (queued) and the JSON decode of a \(name). The calls run on a thread of their own; \"from a task\"",
        "calls the same synchronous API from Swift's cooperative pool, where the tier must hand the",
        "blocking call to a thread of its own. The raw calls copy the value out, as any client does.",
        "",
        "| Call | µs per call | Ratio to GET | Ratio to GET+PTTL |",
        "|---|---:|---:|---:|",
    ]
    for name in ["GET", "GET+PTTL", "tier hit", "tier hit from a task"] {
        lines.append(String(format: "| %@ | %.1f | %.2fx | %.2fx |", name, value(name) / 1000, value(name) / value("GET"), value(name) / value("GET+PTTL")))
    }
    lines.append(String(format: "| GET of a missing key | %.1f | — | — |", value("GET miss") / 1000))
    lines.append(String(format: "| tier miss | %.1f | %.2fx of a GET miss | — |", value("tier miss") / 1000, value("tier miss") / value("GET miss")))
    lines.append("")
    lines.append("Targets: a hit at most 1.3x a GET, a miss at most 1.1x.")
    if ProcessInfo.processInfo.environment["MODELSTORE_FLEET_SAMPLES"] == "1" {
        for name in contenders {
            lines.append(name + ": " + (samples[name] ?? []).map { String(format: "%.1f", $0 / 1000) }.joined(separator: " "))
        }
    }
    return lines
}

/// Opens a store named `name` in `directory` over `tier`, without an object cache.
func fleetStore(_ name: String, _ directory: String, tier: RedisTier?, cacheLimit: Int = 0) throws -> ModelStore {
    var configuration = ModelStore.Configuration()
    configuration.directory = URL(fileURLWithPath: directory, isDirectory: true)
    configuration.objectCacheLimit = cacheLimit
    configuration.sharedTier = tier
    return try ModelStore(name: name, policy: .never, configuration: configuration)
}

/// Writes records `0..<count` through `store`, 1,000 to a batch (each batch one publication).
func writeInBatches(_ store: ModelStore, corpus: ProfileCorpus, count: Int, tagged: (Int) -> [String] = { _ in [] }) throws {
    try writeInBatches(store, count: count, record: corpus.profile, tagged: tagged)
}

/// Writes `record(i)` under ``ProfileCorpus/key(_:)`` for `i` in `0..<count` through `store`,
/// 1,000 to a batch (each batch one publication).
func writeInBatches<Model: Codable & Sendable>(
    _ store: ModelStore, count: Int, record: (Int) -> Model, tagged: (Int) -> [String] = { _ in [] }
) throws {
    var start = 0
    while start < count {
        let end = min(count, start + 1_000)
        try store.write { batch in
            for number in start..<end {
                try batch.set(record(number), forKey: ProfileCorpus.key(number), tags: tagged(number))
            }
        }
        start = end
    }
}

/// ns per call of `call` over `items`, once each; and how many calls answered true.
private func timeEach<Items: Collection>(_ items: Items, _ call: (Items.Element) throws -> Bool) throws -> (Double, Int) {
    var hits = 0
    let start = monotonicNanoseconds()
    for item in items where try call(item) { hits += 1 }
    return (Double(monotonicNanoseconds() - start) / Double(items.count), hits)
}

/// Runs `body` on a thread of its own (not Swift's cooperative pool) and waits for it.
func onThread<Value>(_ body: @escaping () throws -> Value) throws -> Value {
    let box = UncheckedBox<Result<Value, any Error>?>(nil)
    let work = UncheckedBox(body)
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        box.value = Result { try work.value() }
        done.signal()
    }
    thread.stackSize = 8 << 20
    thread.start()
    done.wait()
    return try box.value!.get()
}

/// Runs `body` in a task on Swift's cooperative pool and waits for it.
func onTask<Value>(_ body: @escaping () throws -> Value) throws -> Value {
    let box = UncheckedBox<Result<Value, any Error>?>(nil)
    let work = UncheckedBox(body)
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        box.value = Result { try work.value() }
        done.signal()
    }
    done.wait()
    return try box.value!.get()
}

/// A value handed between threads that the caller orders itself (a semaphore).
final class UncheckedBox<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}
