/// The operations every contender implements, each the way a careful user of that library
/// would write it. Workloads are generic over this protocol, so calls are specialised and
/// cost no dynamic dispatch.
protocol BenchmarkStore: AnyObject {
    /// Stores `profile` under `key`. An `expired` record is stored as if written two hours
    /// ago, past the one-hour lifetime every contender uses.
    func put(_ profile: Profile, forKey key: String, expired: Bool) throws

    /// Stores every profile under ``ProfileCorpus/key(_:)`` of its id, in atomic batches of
    /// `batchSize`.
    func importProfiles<Profiles: Sequence<Profile>>(_ profiles: Profiles, batchSize: Int) async throws

    /// Reads and decodes the record for `key`; false if there is none.
    func get(_ key: String) throws -> Bool

    /// Reads and decodes every record in key order; returns how many it read.
    func scanAll() throws -> Int

    /// Removes every expired record; returns how many it removed.
    func removeExpired() throws -> Int

    /// Closes the database.
    func close() throws
}

/// Seconds every store adds to its clock: 0 normally, -7,200 while writing expired records.
///
/// It is a plain global read on every write by every contender, so all pay the same.
nonisolated(unsafe) var clockOffset: Double = 0

/// Records older than this many seconds are expired, for every contender.
let recordLifetime: Double = 3_600

/// The offset that makes a record written now already expired.
let expiredOffset: Double = -2 * recordLifetime
