import ModelStore

/// How many records one key space holds (a collection, or the database's own keys), and how
/// many of them are fresh under the policy: `records` in `stats`, `collections` and `list`.
struct RecordCounts: Encodable, Equatable {
    /// Every stored record, expired or not (until a sweep or a program's read removes it).
    var total = 0
    /// The records still fresh under the policy (or their own lifetime).
    var live = 0
    /// `total - live`.
    var expired = 0

    static func + (left: RecordCounts, right: RecordCounts) -> RecordCounts {
        RecordCounts(total: left.total + right.total, live: left.live + right.live, expired: left.expired + right.expired)
    }
}

/// The one way `list`, `stats` and `collections` count records, so they never disagree:
/// every record through a store whose clock is frozen before any was written (nothing reads
/// as expired, nothing is removed), the live ones through a store with the real clock under
/// the policy (`--policy`, else the database's recorded one). Expired records are never
/// removed: counting reads headers only and the stores never write.
final class RecordCounter {
    /// The policy the live records were counted under.
    let policy: InspectionPolicy
    private let everything: ModelStore
    private let current: ModelStore

    /// Opens database `name` twice (one LevelDB handle): to count every record, and the live
    /// ones under `option`, else the recorded policy.
    init(_ name: String, inspector: Inspector, policy option: PolicyArgument?) throws {
        everything = try inspector.unchanged(name)
        do {
            (current, policy) = try inspector.current(name, policyOption: option)
        } catch {
            try? everything.close()
            throw error
        }
    }

    deinit {
        try? current.close()
        try? everything.close()
    }

    /// The store that sees every record, for what else a command reads (sizes, statistics).
    var store: ModelStore { everything }

    /// The counts of the collection `name`, or of the database's own keys when nil.
    func counts(in collection: String?) throws -> RecordCounts {
        let total = try collection.map { try everything.collection($0).count() } ?? everything.count()
        let live = try collection.map { try current.collection($0).count() } ?? current.count()
        // A record written between the two counts (by another store in this process; none
        // can come from another process while the tool holds the lock) is never negative.
        return RecordCounts(total: total, live: min(live, total), expired: max(0, total - live))
    }

    /// The counts of every key space of the database: its own keys first (collection nil), then
    /// each collection that holds records, by name.
    func everyKeySpace() throws -> [(collection: String?, counts: RecordCounts)] {
        let names: [String?] = [nil] + (try everything.collectionNames()).map { $0 }
        return try names.map { ($0, try counts(in: $0)) }
    }

    /// The counts of the whole database: every key space added up.
    func database() throws -> RecordCounts {
        try everyKeySpace().reduce(RecordCounts()) { $0 + $1.counts }
    }
}
