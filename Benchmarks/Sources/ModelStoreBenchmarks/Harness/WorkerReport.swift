/// What one worker process measured, written as JSON for the coordinator.
struct WorkerReport: Codable, Sendable {
    var contender: Contender
    var records: Int
    var samples: [Sample]
    /// The worker's peak resident set size, in bytes, from `getrusage(2)`: heap and
    /// stacks, plus the file pages LevelDB maps (its table files).
    var peakResidentBytes: Int
    /// The worker's peak anonymous resident memory (heap and stacks only), sampled every
    /// 10 ms; nil where it cannot be read.
    var peakAnonymousBytes: Int?
    /// The bytes the imported database takes on disk after a full compaction; nil for
    /// workers that build no such database.
    var diskBytes: Int? = nil
}
