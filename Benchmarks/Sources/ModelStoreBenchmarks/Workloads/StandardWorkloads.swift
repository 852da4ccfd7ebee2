import Foundation

/// Runs every standard workload for one contender at `corpus.count` records, in a fixed
/// order, and returns one sample per workload the contender can run.
///
/// Three databases are written: the sequential one is thrown away; the one written in
/// random order gets every odd record stored as expired and is kept for the sweep; the
/// imported one is kept for the reads. Both are compacted, untimed, before they are read.
func runStandardWorkloads<Store: BenchmarkStore>(
    _ factory: StoreFactory<Store>, corpus: ProfileCorpus, directory: String
) async throws -> [Sample] {
    let count = corpus.count
    var samples: [Sample] = []
    try warmUp(factory, corpus: corpus, location: directory + "/warm-up")

    // Writes.
    let sequential = directory + "/sequential"
    var store = try factory.open(sequential)
    samples.append(try await measure(.putSequential, operations: count) {
        for number in 0..<count {
            try store.put(corpus.profile(number), forKey: ProfileCorpus.key(number), expired: false)
        }
    })
    try store.close()
    removeLocation(sequential)

    let expiring = directory + "/expiring"
    let order = corpus.shuffledNumbers(seed: 0xC0FFEE)
    store = try factory.open(expiring)
    samples.append(try await measure(.putRandom, operations: count) {
        for number in order {
            let number = Int(number)
            try store.put(corpus.profile(number), forKey: ProfileCorpus.key(number), expired: number & 1 == 1)
        }
    })
    try store.close()

    let main = directory + "/main"
    store = try factory.open(main)
    samples.append(try await measure(.importBatched, operations: count) {
        try await store.importProfiles(corpus.lazyProfiles, batchSize: 1_000)
    })
    try store.close()
    try factory.compact(main)
    try factory.compact(expiring)
    // The footprint: what the imported, compacted database takes on disk, kept beside the
    // report for the worker to pick up (the database itself is removed after the reads).
    try String(storedByteCount(main)).write(toFile: directory + "/" + diskBytesFileName, atomically: true, encoding: .utf8)

    // Reads.
    store = try factory.open(main)
    let lookups = min(count, 100_000)
    var random = SplitMix64(seed: 0xBEEF)
    for _ in 0..<(lookups / 10) {
        _ = try store.get(ProfileCorpus.key(random.index(below: count)))
    }
    samples.append(try await measure(.getExisting, operations: lookups) {
        for _ in 0..<lookups {
            let found = try store.get(ProfileCorpus.key(random.index(below: count)))
            guard found else { throw BenchmarkFailure("a stored record was not found") }
        }
    })
    samples.append(try await measure(.getAbsent, operations: lookups) {
        for _ in 0..<lookups {
            let found = try store.get(ProfileCorpus.absentKey(random.index(below: count)))
            guard !found else { throw BenchmarkFailure("an absent key was found") }
        }
    })
    samples.append(try await measure(.scan, operations: count) {
        let scanned = try store.scanAll()
        guard scanned == count else { throw BenchmarkFailure("the scan read \(scanned) of \(count) records") }
    })
    try store.close()
    removeLocation(main)

    // Sweep.
    store = try factory.open(expiring)
    samples.append(try await measure(.sweep, operations: count) {
        let removed = try store.removeExpired()
        guard removed == count / 2 else { throw BenchmarkFailure("the sweep removed \(removed) of \(count / 2)") }
    })
    try store.close()
    removeLocation(expiring)
    return samples
}

/// Runs each operation a few thousand times on a scratch database, untimed, so that lazy
/// binding, first-use initialisation and the codec's caches are paid before measuring.
private func warmUp<Store: BenchmarkStore>(
    _ factory: StoreFactory<Store>, corpus: ProfileCorpus, location: String
) throws {
    let store = try factory.open(location)
    let count = min(corpus.count, 2_000)
    for number in 0..<count {
        try store.put(corpus.profile(number), forKey: ProfileCorpus.key(number), expired: false)
    }
    for number in 0..<count {
        _ = try store.get(ProfileCorpus.key(number))
        _ = try store.get(ProfileCorpus.absentKey(number))
    }
    try store.close()
    removeLocation(location)
}
