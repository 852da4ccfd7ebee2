/// What one worker process measured, written as JSON for the coordinator.
struct WorkerReport: Codable, Sendable {
    var contender: Contender
    var records: Int
    var samples: [Sample]
    /// The worker's peak resident set size, in bytes, from `getrusage(2)`.
    var peakResidentBytes: Int
}
