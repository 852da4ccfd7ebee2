import Foundation
import ModelStore

/// Throughput of one operation with 1 and with 2 threads.
struct ScalingResult: Codable {
    var name: String
    /// Operations per wall second, median over the rounds, for 1 and 2 threads.
    var oneThread: Double
    var twoThreads: Double
    /// Operations per CPU second of the measured threads (median): a machine busy with other
    /// work lowers wall throughput, not this; contention (cache lines moving between cores,
    /// spinning) lowers it.
    var oneThreadPerCPUSecond: Double
    var twoThreadsPerCPUSecond: Double
    /// The 2-thread target (≥ this many times one thread), nil for reference rows.
    var target: Double?

    var ratio: Double { twoThreads / oneThread }
    var cpuRatio: Double { twoThreadsPerCPUSecond / oneThreadPerCPUSecond * 2 }
}

/// Measures `operation(thread, i)` for `i` in `0..<operationsPerThread` on 1 and 2 threads,
/// `rounds` times each (alternating which goes first), and returns the medians.
func measureScaling(
    _ name: String, rounds: Int, operationsPerThread: Int, target: Double?,
    prepare: (() throws -> Void)? = nil,
    _ operation: @escaping @Sendable (_ thread: Int, _ index: Int) -> Void
) rethrows -> ScalingResult {
    var wall: [Int: [Double]] = [:]
    var cpu: [Int: [Double]] = [:]
    for round in 0..<rounds {
        for threads in round.isMultiple(of: 2) ? [1, 2] : [2, 1] {
            try prepare?()
            let run = runOnThreads(threads) { thread in
                for index in 0..<operationsPerThread { operation(thread, index) }
            }
            let operations = Double(threads * operationsPerThread)
            wall[threads, default: []].append(operations / (Double(run.wallNanoseconds) / 1e9))
            cpu[threads, default: []].append(operations / (Double(run.cpuNanoseconds) / 1e9))
        }
    }
    let result = ScalingResult(
        name: name, oneThread: median(wall[1]!)!, twoThreads: median(wall[2]!)!,
        oneThreadPerCPUSecond: median(cpu[1]!)!, twoThreadsPerCPUSecond: median(cpu[2]!)!, target: target)
    log("  \(name): 1 thread \(Int(result.oneThread))/s, 2 threads \(Int(result.twoThreads))/s "
        + String(format: "(%.2fx; per CPU second %.2fx)", result.ratio, result.cpuRatio))
    return result
}

/// Opens a ModelStore with its default settings (JSON codec) under `directory`.
func openConcurrencyStore(
    _ directory: String, name: String, objectCacheLimit: Int = 0, writeBufferSize: Int? = nil
) throws -> ModelStore {
    var configuration = ModelStore.Configuration()
    configuration.directory = URL(fileURLWithPath: directory, isDirectory: true)
    configuration.objectCacheLimit = objectCacheLimit
    if let writeBufferSize { configuration.writeBufferSize = writeBufferSize }
    return try ModelStore(name: name, policy: .never, configuration: configuration)
}

/// Keys of random records, `count` per thread, precomputed so a measured read does only the read.
func randomKeys(threads: Int, count: Int, records: Int, seed: UInt64) -> [[String]] {
    (0..<threads).map { thread in
        var random = SplitMix64(seed: seed &+ UInt64(thread))
        return (0..<count).map { _ in ProfileCorpus.key(random.index(below: records)) }
    }
}

/// Part (a) and (b) of the concurrency workload: reads (ModelStore without and with the object
/// cache, and LevelDB's C API beside them) and puts, with 1 and 2 threads.
func runScalingExperiment(
    records: Int, rounds: Int, directory: String, quick: Bool, onlyCacheHits: Bool = false
) throws -> [ScalingResult] {
    let corpus = ProfileCorpus(count: records)
    let reads = quick ? 50_000 : 300_000
    let keys = randomKeys(threads: 2, count: reads, records: records, seed: 0xC0C0_0001)
    var results: [ScalingResult] = []

    // ModelStore, no object cache.
    let storeDirectory = directory + "/scaling-reads"
    let store = try openConcurrencyStore(storeDirectory, name: "reads")
    try importSynchronously(store, corpus: corpus)
    try store.compact()
    try store.close()
    if !onlyCacheHits {
        let store = try openConcurrencyStore(storeDirectory, name: "reads")
        let sendableKeys = keys
        results.append(measureScaling(
            "object(_:forKey:), no object cache", rounds: rounds, operationsPerThread: reads, target: 1.8
        ) { thread, index in
            blackHole(try? store.object(Profile.self, forKey: sendableKeys[thread][index]))
        })
        try store.close()
    }

    // ModelStore, object cache of 1,000 entries holding every key read (all hits).
    do {
        let store = try openConcurrencyStore(storeDirectory, name: "reads", objectCacheLimit: 1_000)
        let hits = quick ? 500_000 : 3_000_000
        let hot = (0..<2).map { thread in
            var random = SplitMix64(seed: 0xCAC4E + UInt64(thread))
            return (0..<hits).map { _ in ProfileCorpus.key(random.index(below: min(1_000, records))) }
        }
        for number in 0..<min(1_000, records) {
            _ = try store.object(Profile.self, forKey: ProfileCorpus.key(number))
        }
        results.append(measureScaling(
            "object(_:forKey:), object cache (1,000 entries, all hits)", rounds: rounds,
            operationsPerThread: hits, target: 1.8
        ) { thread, index in
            blackHole(try? store.object(Profile.self, forKey: hot[thread][index]))
        })
        try store.close()
    }
    removeLocation(storeDirectory)
    if onlyCacheHits { return results }

    // LevelDB's C API with ModelStore's settings: the engine's own scaling, on pre-encoded
    // bytes (no decoding) and with Foundation's JSON decoder.
    let pool = try (0..<ProfileCorpus.poolSize).map { Array(try JSONModelCodec().encode(corpus.profile($0))) }
    results.append(try measureCAPIReads(
        "C API get, pre-encoded bytes (engine floor)", codec: nil as JSONModelCodec?, pool: pool, corpus: corpus,
        keys: keys, rounds: rounds, directory: directory))
    results.append(try measureCAPIReads(
        "C API get + Foundation JSON", codec: JSONModelCodec.foundation, pool: [], corpus: corpus,
        keys: keys, rounds: rounds, directory: directory))

    // Puts of random keys (asynchronous writes), each measurement in a fresh database.
    let puts = quick ? 30_000 : 200_000
    let putDirectory = directory + "/scaling-puts"
    let putNumbers = (0..<2).map { thread in
        var random = SplitMix64(seed: 0x9075 + UInt64(thread))
        return (0..<puts).map { _ in random.index(below: max(records, 1_000_000)) }
    }
    let current = Locked<ModelStore?>(nil)
    results.append(try measureScaling(
        "set(_:forKey:), random keys", rounds: rounds, operationsPerThread: puts, target: 1.3,
        prepare: {
            try current.withLock { store in
                try store?.close()
                removeLocation(putDirectory)
                store = try openConcurrencyStore(putDirectory, name: "puts")
            }
        }
    ) { thread, index in
        let number = putNumbers[thread][index]
        let store = current.withLock { $0! }
        try? store.set(corpus.profile(number), forKey: ProfileCorpus.key(number))
    })
    try current.withLock { try $0?.close() }
    removeLocation(putDirectory)

    // The same puts through LevelDB's C API on pre-encoded bytes: how far the engine itself
    // lets two writers scale (LevelDB appends one writer's batch at a time).
    let cPutPath = directory + "/scaling-c-puts"
    let cStore = Locked<UncheckedSendable<CLevelDBStore<JSONModelCodec>>?>(nil)
    results.append(try measureScaling(
        "C API put, pre-encoded bytes, random keys (engine floor)", rounds: rounds, operationsPerThread: puts,
        target: nil,
        prepare: {
            try cStore.withLock { store in
                try store?.value.close()
                removeLocation(cPutPath)
                store = UncheckedSendable(
                    value: try CLevelDBStore(
                        path: cPutPath, codec: nil, encodedPool: pool, tuning: .modelStoreDefaults))
            }
        }
    ) { thread, index in
        let number = putNumbers[thread][index]
        let store = cStore.withLock { $0!.value }
        try? store.putPreEncodedFromAnyThread(corpus.profile(number), forKey: ProfileCorpus.key(number))
    })
    try cStore.withLock { try $0?.value.close() }
    removeLocation(cPutPath)
    return results
}

/// Reads of random keys through LevelDB's C API (the benchmarks' C contender) opened with
/// ModelStore's settings, on a compacted database.
private func measureCAPIReads<Codec: ModelCodec>(
    _ name: String, codec: Codec?, pool: [[UInt8]], corpus: ProfileCorpus, keys: [[String]], rounds: Int,
    directory: String
) throws -> ScalingResult {
    let path = directory + "/scaling-c"
    let tuning = LevelDBTuning.modelStoreDefaults
    let writer = try CLevelDBStore(path: path, codec: codec, encodedPool: pool, tuning: tuning)
    try awaitImport(writer, corpus: corpus)
    try writer.close()
    try compactLevelDB(at: path, tuning: tuning)
    let store = UncheckedSendable(value: try CLevelDBStore(path: path, codec: codec, encodedPool: pool, tuning: tuning))
    defer { removeLocation(path) }
    let result = measureScaling(name, rounds: rounds, operationsPerThread: keys[0].count, target: nil) { thread, index in
        blackHole(try? store.value.get(keys[thread][index]))
    }
    try store.value.close()
    return result
}

/// Imports every profile of `corpus` in batches of 1,000, from a thread of its own.
func importSynchronously(_ store: ModelStore, corpus: ProfileCorpus) throws {
    let failure = Locked<(any Error)?>(nil)
    _ = runOnThreads(1) { _ in
        let semaphore = DispatchSemaphore(value: 0)
        Task {
            do {
                try await store.importObjects(corpus.lazyProfiles, key: \.storageKey, batchSize: 1_000)
            } catch {
                failure.withLock { $0 = error }
            }
            semaphore.signal()
        }
        semaphore.wait()
    }
    if let error = failure.withLock({ $0 }) { throw error }
}

private func awaitImport<Codec>(_ store: CLevelDBStore<Codec>, corpus: ProfileCorpus) throws {
    let box = UncheckedSendable(value: store)
    let failure = Locked<(any Error)?>(nil)
    _ = runOnThreads(1) { _ in
        let semaphore = DispatchSemaphore(value: 0)
        Task {
            do {
                try await box.value.importProfiles(corpus.lazyProfiles, batchSize: 1_000)
            } catch {
                failure.withLock { $0 = error }
            }
            semaphore.signal()
        }
        semaphore.wait()
    }
    if let error = failure.withLock({ $0 }) { throw error }
}
