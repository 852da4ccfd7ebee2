/// Every store configuration the benchmarks compare.
enum Contender: String, CaseIterable, Codable, Sendable {
    case cRaw = "c-raw"
    case cJSON = "c-json"
    case cBinary = "c-binary"
    case cPropertyList = "c-plist"
    case modelStoreJSON = "modelstore-json"
    case modelStoreJSONLevelDBDefaults = "modelstore-json-leveldb-defaults"
    case modelStoreJSONSnappy = "modelstore-json-snappy"
    case modelStoreJSONZstd = "modelstore-json-zstd"
    case modelStoreBinary = "modelstore-binary"
    case modelStorePropertyList = "modelstore-plist"
    case grdbJSON = "grdb-json"
    case modelStoreObjectCache = "modelstore-json-object-cache"

    /// The row heading in the report.
    var title: String {
        switch self {
        case .cRaw: return "C API, pre-encoded bytes (engine floor)"
        case .cJSON: return "C API + JSON (baseline)"
        case .cBinary: return "C API + binary (baseline)"
        case .cPropertyList: return "C API + plist (baseline)"
        case .modelStoreJSON: return "ModelStore JSON"
        case .modelStoreJSONLevelDBDefaults: return "ModelStore JSON, LevelDB defaults, Foundation JSON"
        case .modelStoreJSONSnappy: return "ModelStore JSON, Snappy on"
        case .modelStoreJSONZstd: return "ModelStore JSON, zstd records (dictionary)"
        case .modelStoreBinary: return "ModelStore binary"
        case .modelStorePropertyList: return "ModelStore plist"
        case .grdbJSON: return "GRDB 7.10 JSON (SQLite WAL)"
        case .modelStoreObjectCache: return "ModelStore JSON, object cache"
        }
    }

    /// The C API contender with the same codec, which ratios are taken against.
    var baseline: Contender? {
        switch self {
        case .cRaw, .cJSON, .cBinary, .cPropertyList: return nil
        case .modelStoreJSON, .modelStoreJSONLevelDBDefaults, .modelStoreJSONSnappy, .modelStoreJSONZstd, .grdbJSON,
            .modelStoreObjectCache:
            return .cJSON
        case .modelStoreBinary: return .cBinary
        case .modelStorePropertyList: return .cPropertyList
        }
    }

    /// The workloads this contender runs.
    var workloads: [Workload] {
        switch self {
        case .modelStoreObjectCache: return [.cacheHit]
        default: return Workload.allCases.filter { $0 != .cacheHit }
        }
    }

    /// Whether the contender runs at `records` records: property lists are slow enough on
    /// Linux that they run up to 100,000 records only; the object cache, whose one workload
    /// does not depend on the record count, and the Snappy comparison (see the tuning
    /// experiment for its effect at a million records) run there too.
    func runs(atRecords records: Int) -> Bool {
        switch self {
        case .cPropertyList, .modelStorePropertyList, .modelStoreObjectCache, .modelStoreJSONSnappy:
            return records <= 100_000
        default: return true
        }
    }
}
