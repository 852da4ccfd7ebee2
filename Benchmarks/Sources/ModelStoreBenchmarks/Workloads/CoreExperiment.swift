import Foundation
import ModelStore

/// The operations every key-level path goes through, timed in one process so that two builds of
/// ModelStore (before and after a change to its core) can be compared run against run:
/// `scripts/compare-core-bench` alternates two binaries and compares their medians.
///
/// Each round opens fresh databases and times, in CPU µs per operation (user + system time of
/// the process, which a busy neighbour disturbs far less than wall time):
/// - `put`, `put with metadata`: `set(_:forKey:)` of `records` profiles under fresh keys, without
///   and with a small ETag metadata value; `put with boxed metadata`: the same value passed as
///   `any Codable & Sendable`, as it is without the typed-metadata setter;
/// - `get`: `object(_:forKey:)` of each in a shuffled order, object cache off;
/// - `cached hit` on 1 thread and `cached hit ×2` on 2 threads (wall µs per operation of both):
///   `object(_:forKey:)` of one key the object cache holds;
/// - `read-through hit`: `object(_:forKey:options:fetch:)` of a live, cached key;
/// - `scan`: `entries(_:)` over every record, per record;
/// - `sweep`: `removeExpiredObjects()` over `records` records of which half have expired, per record.
func runCoreExperiment(records: Int, rounds: Int, directory: String) async throws -> String {
    let corpus = ProfileCorpus(count: records)
    let order = corpus.shuffledNumbers(seed: 0xC0DE).map(Int.init)
    let metadata = ETagMetadata(
        etag: "\"33a64df551425fcc55e4d42a148795d9f25f89d4\"", lastModified: "Tue, 24 Nov 2026 10:00:00 GMT")
    var samples: [String: [Double]] = [:]
    func record(_ name: String, _ value: Double) { samples[name, default: []].append(value) }

    for round in 0..<rounds {
        var configuration = ModelStore.Configuration()
        configuration.directory = URL(fileURLWithPath: directory + "/round\(round)", isDirectory: true)
        let clock = CoreBenchClock()
        configuration.now = { clock.now }

        let plain = try ModelStore(name: "plain", policy: .low, configuration: configuration)
        let keys = (0..<records).map { ProfileCorpus.key($0) }
        record("put", try cpuMicroseconds(records) {
            for number in 0..<records { try plain.set(corpus.profile(number), forKey: keys[number]) }
        })
        record("get", try cpuMicroseconds(records) {
            for number in order where try plain.object(Profile.self, forKey: keys[number]) == nil {
                throw BenchmarkFailure("a record just written was not found")
            }
        })
        record("scan", try cpuMicroseconds(records) {
            let cursor = try plain.entries(Profile.self)
            var count = 0
            while let entry = try cursor.next() { blackHole(entry); count += 1 }
            guard count == records else { throw BenchmarkFailure("the scan saw \(count) records") }
        })
        try plain.close()

        let withMetadata = try ModelStore(name: "metadata", policy: .low, configuration: configuration)
        record("put with metadata", try cpuMicroseconds(records) {
            for number in 0..<records {
                try withMetadata.set(corpus.profile(number), forKey: keys[number], metadata: metadata)
            }
        })
        try withMetadata.close()

        // The same metadata boxed as `any Codable & Sendable`: what a put with metadata costs
        // without the typed-metadata setter (which exists to save this box).
        let boxed = try ModelStore(name: "boxed", policy: .low, configuration: configuration)
        let boxedMetadata: any Codable & Sendable = metadata
        record("put with boxed metadata", try cpuMicroseconds(records) {
            for number in 0..<records {
                try boxed.set(corpus.profile(number), forKey: keys[number], metadata: boxedMetadata)
            }
        })
        try boxed.close()

        // Half the records written an hour earlier with a 30-minute lifetime: expired at sweep time.
        let swept = try ModelStore(name: "sweep", policy: .low, configuration: configuration)
        clock.advance(by: -3_600)
        for number in stride(from: 0, to: records, by: 2) {
            try swept.set(corpus.profile(number), forKey: keys[number], expiresAfter: 1_800)
        }
        clock.advance(by: 3_600)
        for number in stride(from: 1, to: records, by: 2) { try swept.set(corpus.profile(number), forKey: keys[number]) }
        var removed = 0
        record("sweep", try cpuMicroseconds(records) { removed = try swept.removeExpiredObjects() })
        guard removed == (records + 1) / 2 else { throw BenchmarkFailure("the sweep removed \(removed)") }
        try swept.close()

        var cachedConfiguration = configuration
        cachedConfiguration.objectCacheLimit = 1_000
        let cached = try ModelStore(name: "cached", policy: .low, configuration: cachedConfiguration)
        try cached.set(corpus.profile(7), forKey: "k")
        let hits = 200_000
        record("cached hit", try cpuMicroseconds(hits) {
            for _ in 0..<hits where try cached.object(Profile.self, forKey: "k") == nil {
                throw BenchmarkFailure("cache miss")
            }
        })
        record("cached hit ×2", try wallMicroseconds(2 * hits) {
            DispatchQueue.concurrentPerform(iterations: 2) { _ in
                for _ in 0..<hits { blackHole(try? cached.object(Profile.self, forKey: "k")) }
            }
        })
        var options = ReadThroughOptions()
        options.lifetime = 3_600
        let start = processCPUSeconds()
        for _ in 0..<hits {
            let value = try await cached.object(Profile.self, forKey: "k", options: options) { _ in
                throw BenchmarkFailure("a live record was fetched")
            }
            blackHole(value)
        }
        record("read-through hit", (processCPUSeconds() - start) * 1e6 / Double(hits))
        try cached.close()
        try? FileManager.default.removeItem(at: configuration.directory)
    }

    let names = ["put", "put with metadata", "put with boxed metadata", "get", "cached hit", "cached hit ×2", "read-through hit", "scan", "sweep"]
    var lines = ["| operation | µs/op (median of \(rounds)) | all rounds |", "|---|---:|---|"]
    for name in names {
        let values = samples[name] ?? []
        let sorted = values.sorted()
        let median = sorted.isEmpty ? 0 : sorted[sorted.count / 2]
        lines.append(
            "| \(name) | \(String(format: "%.3f", median)) | "
                + values.map { String(format: "%.3f", $0) }.joined(separator: " ") + " |")
    }
    return lines.joined(separator: "\n")
}

/// A clock the sweep round moves by hand.
private final class CoreBenchClock: @unchecked Sendable {
    // @unchecked: `offset` is only changed between operations, on the benchmark's one thread.
    private var offset: TimeInterval = 0
    private let base = Date()
    var now: Date { base.addingTimeInterval(offset) }
    func advance(by seconds: TimeInterval) { offset += seconds }
}

/// CPU µs (user + system, every thread) per operation of `body`.
private func cpuMicroseconds(_ operations: Int, _ body: () throws -> Void) throws -> Double {
    let start = processCPUSeconds()
    try body()
    return (processCPUSeconds() - start) * 1e6 / Double(operations)
}

/// Wall µs per operation of `body`.
private func wallMicroseconds(_ operations: Int, _ body: () throws -> Void) throws -> Double {
    let clock = ContinuousClock()
    let start = clock.now
    try body()
    let elapsed = clock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    return seconds * 1e6 / Double(operations)
}
