/// What one timed measurement does. Each is measured per contender in the same worker
/// process, in this order.
enum Workload: String, Codable, CaseIterable, Sendable {
    /// Writes every record once, keys in ascending order, one write per record.
    case putSequential = "put-sequential"
    /// Writes every record once, keys in a random order, one write per record.
    case putRandom = "put-random"
    /// Writes every record once from a lazy sequence, in atomic batches of 1,000.
    case importBatched = "import"
    /// Reads and decodes records with random existing keys from a compacted database.
    case getExisting = "get"
    /// Looks up keys that sort between stored keys but are not stored.
    case getAbsent = "get-absent"
    /// Reads and decodes every record in key order.
    case scan = "scan"
    /// Removes the expired half of the records; time is per record in the store.
    case sweep = "sweep"
    /// Reads one key again and again from ModelStore's object cache.
    case cacheHit = "cache-hit"

    /// The column heading in the report.
    var title: String {
        switch self {
        case .putSequential: return "put seq"
        case .putRandom: return "put random"
        case .importBatched: return "import ×1000"
        case .getExisting: return "get"
        case .getAbsent: return "get absent"
        case .scan: return "scan+decode"
        case .sweep: return "sweep"
        case .cacheHit: return "cache hit"
        }
    }
}
