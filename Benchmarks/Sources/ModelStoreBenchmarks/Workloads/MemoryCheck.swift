import ModelStore

/// The two halves of the memory check, each run in a process of its own so that
/// `getrusage`'s peak belongs to that half alone.
enum MemoryCheckPhase: String, Codable, Sendable {
    /// Imports every record from a lazy sequence into a new ModelStore (JSON, defaults).
    case importRecords = "import"
    /// Enumerates and decodes every record of the database the import wrote.
    case enumerate = "enumerate"
}

/// The peak resident set size that importing or enumerating 1,000,000 records must stay
/// under.
let memoryCheckLimitBytes = 150 << 20

/// Runs one half of the memory check and returns its sample (the import or the scan).
func runMemoryCheck(_ phase: MemoryCheckPhase, records: Int, directory: String) async throws -> Sample {
    let corpus = ProfileCorpus(count: records)
    let store = try ModelStoreContender(
        directory: directory + "/memory-check", codec: JSONModelCodec(), tuning: .modelStoreDefaults)
    defer { try? store.close() }
    switch phase {
    case .importRecords:
        return try await measure(.importBatched, operations: records) {
            try await store.importProfiles(corpus.lazyProfiles, batchSize: 1_000)
        }
    case .enumerate:
        return try await measure(.scan, operations: records) {
            let scanned = try store.scanAll()
            guard scanned == records else { throw BenchmarkFailure("enumerated \(scanned) of \(records) records") }
        }
    }
}
