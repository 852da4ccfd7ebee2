import ModelStore

/// Reads one key a million times from a ModelStore whose object cache holds it, after a
/// warm-up that puts it there.
func runCacheHitWorkload(corpus: ProfileCorpus, directory: String) async throws -> Sample {
    let location = directory + "/cache"
    let store = try ModelStoreContender(
        directory: location, codec: JSONModelCodec(), tuning: .modelStoreDefaults, objectCacheLimit: 1_000)
    let key = ProfileCorpus.key(7)
    try store.put(corpus.profile(7), forKey: key, expired: false)
    for _ in 0..<10_000 {
        _ = try store.get(key)
    }
    let reads = 1_000_000
    let sample = try await measure(.cacheHit, operations: reads) {
        for _ in 0..<reads {
            guard try store.get(key) else { throw BenchmarkFailure("the cached record was not found") }
        }
    }
    try store.close()
    removeLocation(location)
    return sample
}
