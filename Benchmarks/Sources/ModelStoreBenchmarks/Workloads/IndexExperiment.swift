import CLevelDBBaseline
import Foundation
import GRDB
import ModelStore

/// Secondary indexes (issue 26) against their targets and against GRDB with SQL indexes on the
/// same data, in one process and one run, in CPU µs (user + system) per operation:
/// - `put, no index`, `put, one index` and `put, two indexes`: `set(_:forKey:)` of `records`
///   profiles under fresh keys into a collection without indexes, with `byGroup`
///   (`.int(id % groups)`, so each value holds `records / groups` records), and with `byGroup`
///   and `byJoined` (`.date(joined)`), each in a database of its own that starts empty;
/// - `equality query` (per query): `entries(_:where:equals:)` of a random group, collected and
///   decoded; it returns `records / groups` records (20 of 100,000 by default);
/// - `twenty gets` (per 20 gets): `object(_:forKey:)` of the same group's keys, object cache off;
/// - the same four with GRDB 7: one table (key TEXT PRIMARY KEY, value BLOB, grp INTEGER,
///   joined REAL) WITHOUT ROWID with two SQL indexes, each put its own implicit transaction,
///   the query `SELECT key, value FROM kv WHERE grp = ? ORDER BY key`, JSON values decoded by
///   Foundation's coders, as ``GRDBStore`` does.
func runIndexExperiment(records: Int, rounds: Int, directory: String) throws -> String {
    let corpus = ProfileCorpus(count: records)
    let groups = max(1, records / 20)
    let perGroup = records / groups
    let keys = (0..<records).map { ProfileCorpus.key($0) }
    let queries = 2_000
    var random = SplitMix64(seed: 0x1D3)
    let queryGroups = (0..<queries).map { _ in random.index(below: groups) }
    var samples: [String: [Double]] = [:]
    func record(_ name: String, _ value: Double) { samples[name, default: []].append(value) }

    for round in 0..<rounds {
        var configuration = ModelStore.Configuration()
        configuration.directory = URL(fileURLWithPath: directory + "/round\(round)", isDirectory: true)
        // Each kind of put into a database of its own, starting empty, so none pays for the
        // tables another left behind.
        let plainStore = try ModelStore(name: "plain", policy: .never, configuration: configuration)
        let plain = plainStore.collection("profiles")
        record("put, no index", try cpuMicroseconds(records) {
            for number in 0..<records { try plain.set(corpus.profile(number), forKey: keys[number]) }
        })
        try plainStore.close()
        let singleStore = try ModelStore(name: "single", policy: .never, configuration: configuration)
        let single = singleStore.collection("profiles")
        try single.defineIndex("byGroup", of: Profile.self, version: 1) { [.int(Int64($0.id % groups))] }
        record("put, one index", try cpuMicroseconds(records) {
            for number in 0..<records { try single.set(corpus.profile(number), forKey: keys[number]) }
        })
        try singleStore.close()
        let store = try ModelStore(name: "indexed", policy: .never, configuration: configuration)
        let indexed = store.collection("profiles")
        try indexed.defineIndex("byGroup", of: Profile.self, version: 1) { [.int(Int64($0.id % groups))] }
        try indexed.defineIndex("byJoined", of: Profile.self, version: 1) { [.date($0.joined)] }
        record("put, two indexes", try cpuMicroseconds(records) {
            for number in 0..<records { try indexed.set(corpus.profile(number), forKey: keys[number]) }
        })
        record("equality query", try cpuMicroseconds(queries) {
            for group in queryGroups {
                let found = try indexed.entries(Profile.self, where: "byGroup", equals: .int(Int64(group))).collect()
                guard found.count == perGroup else { throw BenchmarkFailure("a query found \(found.count)") }
                blackHole(found)
            }
        })
        record("twenty gets", try cpuMicroseconds(queries) {
            for group in queryGroups {
                for number in stride(from: group, to: records, by: groups) {
                    guard let profile = try indexed.object(Profile.self, forKey: keys[number]) else {
                        throw BenchmarkFailure("a record just written was not found")
                    }
                    blackHole(profile)
                }
            }
        })
        try store.close()

        let grdb = try IndexedGRDB(path: directory + "/round\(round)/grdb.sqlite", withIndexes: false)
        record("GRDB put, no index", try cpuMicroseconds(records) {
            for number in 0..<records { try grdb.put(corpus.profile(number), forKey: keys[number], groups: groups) }
        })
        try grdb.close()
        let indexedGRDB = try IndexedGRDB(path: directory + "/round\(round)/grdb-indexed.sqlite", withIndexes: true)
        record("GRDB put, two indexes", try cpuMicroseconds(records) {
            for number in 0..<records { try indexedGRDB.put(corpus.profile(number), forKey: keys[number], groups: groups) }
        })
        record("GRDB equality query", try cpuMicroseconds(queries) {
            for group in queryGroups {
                let found = try indexedGRDB.query(group: group)
                guard found == perGroup else { throw BenchmarkFailure("a GRDB query found \(found)") }
            }
        })
        record("GRDB twenty gets", try cpuMicroseconds(queries) {
            for group in queryGroups {
                for number in stride(from: group, to: records, by: groups) {
                    guard try indexedGRDB.get(keys[number]) else { throw BenchmarkFailure("GRDB lost a record") }
                }
            }
        })
        try indexedGRDB.close()
        try? FileManager.default.removeItem(at: configuration.directory)
    }

    func median(_ name: String) -> Double {
        let sorted = (samples[name] ?? []).sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }
    let names = [
        "put, no index", "put, one index", "put, two indexes", "equality query", "twenty gets", "GRDB put, no index",
        "GRDB put, two indexes", "GRDB equality query", "GRDB twenty gets",
    ]
    var lines = [
        "\(records) records, \(perGroup) per group, \(queries) queries per round",
        "",
        "| operation | µs/op (median of \(rounds)) | all rounds |", "|---|---:|---|",
    ]
    for name in names {
        lines.append(
            "| \(name) | \(String(format: "%.2f", median(name))) | "
                + (samples[name] ?? []).map { String(format: "%.2f", $0) }.joined(separator: " ") + " |")
    }
    lines.append("")
    lines.append(String(
        format: "put with two indexes / plain put: %.2fx (target ≤ 2x); GRDB: %.2fx",
        median("put, two indexes") / median("put, no index"),
        median("GRDB put, two indexes") / median("GRDB put, no index")))
    lines.append(String(
        format: "equality query / twenty gets: %.2fx (target ≤ 3x); GRDB: %.2fx",
        median("equality query") / median("twenty gets"), median("GRDB equality query") / median("GRDB twenty gets")))
    lines.append(String(
        format: "ModelStore / GRDB: put with two indexes %.2fx, equality query %.2fx",
        median("put, two indexes") / median("GRDB put, two indexes"),
        median("equality query") / median("GRDB equality query")))
    return lines.joined(separator: "\n")
}

/// The put target alone, paired: each round puts `records` profiles under fresh keys into a
/// collection without indexes and into one with `byGroup` and `byJoined`, each in a database of
/// its own that starts empty, the two in alternating order; CPU µs (user + system) per put, of
/// every thread (LevelDB's compactions included: the target's measure) and of the putting
/// thread alone (the write's own work), and each round's ratio.
func runIndexPutExperiment(records: Int, rounds: Int, directory: String) throws -> String {
    let corpus = ProfileCorpus(count: records)
    let groups = max(1, records / 20)
    let keys = (0..<records).map { ProfileCorpus.key($0) }
    var plainSamples: [(all: Double, caller: Double)] = []
    var indexedSamples: [(all: Double, caller: Double)] = []
    for round in 0..<rounds {
        var configuration = ModelStore.Configuration()
        configuration.directory = URL(fileURLWithPath: directory + "/round\(round)", isDirectory: true)
        func measured(_ body: () throws -> Void) rethrows -> (all: Double, caller: Double) {
            let process = processCPUSeconds()
            let thread = threadCPUSeconds()
            try body()
            let perPut = 1e6 / Double(records)
            return ((processCPUSeconds() - process) * perPut, (threadCPUSeconds() - thread) * perPut)
        }
        func plainPuts() throws -> (all: Double, caller: Double) {
            let store = try ModelStore(name: "plain", policy: .never, configuration: configuration)
            defer { try? store.close() }
            let plain = store.collection("profiles")
            return try measured {
                for number in 0..<records { try plain.set(corpus.profile(number), forKey: keys[number]) }
            }
        }
        func indexedPuts() throws -> (all: Double, caller: Double) {
            let store = try ModelStore(name: "indexed", policy: .never, configuration: configuration)
            defer { try? store.close() }
            let indexed = store.collection("profiles")
            try indexed.defineIndex("byGroup", of: Profile.self, version: 1) { [.int(Int64($0.id % groups))] }
            try indexed.defineIndex("byJoined", of: Profile.self, version: 1) { [.date($0.joined)] }
            return try measured {
                for number in 0..<records { try indexed.set(corpus.profile(number), forKey: keys[number]) }
            }
        }
        if round % 2 == 0 {
            plainSamples.append(try plainPuts())
            indexedSamples.append(try indexedPuts())
        } else {
            indexedSamples.append(try indexedPuts())
            plainSamples.append(try plainPuts())
        }
        try? FileManager.default.removeItem(at: configuration.directory)
    }
    let interleaved = try interleavedIndexPuts(
        order: Array(0..<records), directory: directory + "/interleaved", corpus: corpus, keys: keys)
    var random = SplitMix64(seed: 0x1D4)
    let randomOrder = Array(0..<records).shuffled(using: &random)
    let shuffled = try interleavedIndexPuts(order: randomOrder, directory: directory + "/shuffled", corpus: corpus, keys: keys)
    let engine = try engineIndexPuts(order: Array(0..<records), directory: directory + "/engine", corpus: corpus)
    let engineShuffled = try engineIndexPuts(order: randomOrder, directory: directory + "/engine-shuffled", corpus: corpus)
    let inRecord = try engineIndexPuts(
        order: Array(0..<records), directory: directory + "/in-record", corpus: corpus, valuesInRecord: true)
    let inRecordShuffled = try engineIndexPuts(
        order: randomOrder, directory: directory + "/in-record-shuffled", corpus: corpus, valuesInRecord: true)
    func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
    func row(_ name: String, _ values: [Double]) -> String {
        "| \(name) | \(String(format: "%.2f", median(values))) | "
            + values.map { String(format: "%.2f", $0) }.joined(separator: " ") + " |"
    }
    let ratios = zip(indexedSamples, plainSamples).map { $0.all / $1.all }
    let callerRatios = zip(indexedSamples, plainSamples).map { $0.caller / $1.caller }
    var lines: [String] = [
        "\(records) puts per round, \(rounds) rounds, plain and two indexes alternating",
        "",
        "| operation | µs/put (median) | all rounds |", "|---|---:|---|",
    ]
    lines.append(row("put, no index", plainSamples.map(\.all)))
    lines.append(row("put, two indexes", indexedSamples.map(\.all)))
    lines.append(row("put, no index (putting thread)", plainSamples.map(\.caller)))
    lines.append(row("put, two indexes (putting thread)", indexedSamples.map(\.caller)))
    lines.append("")
    lines.append(String(
        format: "put with two indexes / plain put: median of rounds' ratios %.2fx, ratio of medians %.2fx (target ≤ 2x)",
        median(ratios), median(indexedSamples.map(\.all)) / median(plainSamples.map(\.all))))
    lines.append("rounds' ratios: " + ratios.map { String(format: "%.2f", $0) }.joined(separator: " "))
    lines.append(String(format: "putting thread alone: median of rounds' ratios %.2fx", median(callerRatios)))
    lines.append("")
    lines += interleaved.report(
        "Interleaved: both databases open, \(interleaved.chunks) turns of \(IndexPutChunks.size) puts, keys ascending (target ≤ 2x):")
    lines += shuffled.report("The same with the keys in random order (as a cache fills):")
    lines += inRecord.report(
        "LevelDB alone (C API, ModelStore's options, key layout and LevelDB work: the values in the record), keys ascending:")
    lines += inRecordShuffled.report("LevelDB alone, keys in random order:")
    lines += engine.report("LevelDB alone with a values entry per record (the layout before sections), keys ascending:")
    lines += engineShuffled.report("LevelDB alone with a values entry per record, keys in random order:")
    return lines.joined(separator: "\n")
}

/// How the interleaved measurement splits its puts.
enum IndexPutChunks {
    /// Puts per turn: short enough that a change of the machine's speed (a virtual CPU moved to
    /// a slower core) falls on both databases alike.
    static let size = 1_000
}

/// The put target with both databases open at once, taking turns every ``IndexPutChunks/size``
/// puts (which goes first alternates), so that both see the same machine: the putting thread's
/// CPU is measured per turn; LevelDB's one background thread serves both databases, so its CPU
/// (the process's less the putting thread's) is shared out by the bytes each database's
/// compactions read and wrote.
///
/// - Parameter order: The record numbers, in the order they are put.
private func interleavedIndexPuts(
    order: [Int], directory: String, corpus: ProfileCorpus, keys: [String]
) throws -> TurnTakingPuts {
    var configuration = ModelStore.Configuration()
    configuration.directory = URL(fileURLWithPath: directory, isDirectory: true)
    defer { try? FileManager.default.removeItem(at: configuration.directory) }
    let groups = max(1, order.count / 20)
    let plainStore = try ModelStore(name: "plain", policy: .never, configuration: configuration)
    let indexedStore = try ModelStore(name: "indexed", policy: .never, configuration: configuration)
    defer {
        try? plainStore.close()
        try? indexedStore.close()
    }
    let plain = plainStore.collection("profiles")
    let indexed = indexedStore.collection("profiles")
    try indexed.defineIndex("byGroup", of: Profile.self, version: 1) { [.int(Int64($0.id % groups))] }
    try indexed.defineIndex("byJoined", of: Profile.self, version: 1) { [.date($0.joined)] }
    return try TurnTakingPuts(
        order: order, plain: { try plain.set(corpus.profile($0), forKey: keys[$0]) },
        indexed: { try indexed.set(corpus.profile($0), forKey: keys[$0]) },
        statistics: { (try plainStore.statistics(), try indexedStore.statistics()) })
}

/// What an indexed put costs LevelDB itself, through its C API, with ModelStore's options and
/// the same turns as ``interleavedIndexPuts(order:directory:corpus:keys:)``: a plain put is one
/// `leveldb_put` of a record (ModelStore's key layout, 460 bytes: an encoded profile and its
/// envelope); with `valuesInRecord` (ModelStore's layout), an indexed put is ModelStore's
/// LevelDB work for two indexes: a `leveldb_get` of the old record, then one batch with the
/// record (30 bytes more: its index values section) and its two index entries (the int and
/// date encodings of `byGroup` and `byJoined`). No encoding, no Swift: the ratio an indexed put
/// tends to as ModelStore's own work per put shrinks.
///
/// Without it, the layout before sections, measured to weigh them: a `leveldb_get` of the
/// record's values entry, then one batch with the record, the two entries and the values entry
/// (29 bytes).
private func engineIndexPuts(
    order: [Int], directory: String, corpus: ProfileCorpus, valuesInRecord: Bool = false
) throws -> TurnTakingPuts {
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let tuning = LevelDBTuning.modelStoreDefaults
    let options = CLevelDBOptions(tuning)
    func open(_ name: String) throws -> OpaquePointer {
        let db: OpaquePointer? = try withCLevelDBError { leveldb_open(options.options, directory + "/" + name, $0) }
        guard let db else { throw CLevelDBError(description: "leveldb_open returned no database") }
        return db
    }
    let plain = try open("plain")
    let indexed = try open("indexed")
    defer {
        leveldb_close(plain)
        leveldb_close(indexed)
    }
    let writeOptions = leveldb_writeoptions_create()
    let readOptions = leveldb_readoptions_create()
    leveldb_readoptions_set_verify_checksums(readOptions, tuning.verifiesChecksums ? 1 : 0)
    let batch = leveldb_writebatch_create()
    defer {
        leveldb_writeoptions_destroy(writeOptions)
        leveldb_readoptions_destroy(readOptions)
        leveldb_writebatch_destroy(batch)
    }
    // Every key and value is made before the turns, so they time LevelDB's calls alone.
    let groups = max(1, order.count / 20)
    let collection: [UInt8] = [0xFE, 8] + Array("profiles".utf8)
    func bigEndian(_ value: UInt64) -> [UInt8] { withUnsafeBytes(of: value.bigEndian) { Array($0) } }
    struct Keys {
        let record: [UInt8]
        let values: [UInt8]
        let groupEntry: [UInt8]
        let dateEntry: [UInt8]
        let valuesEntry: [UInt8]
    }
    let keys = (0..<order.count).map { number -> Keys in
        let user = Array(ProfileCorpus.key(number).utf8)
        let profile = corpus.profile(number)
        let group: [UInt8] = [0x02] + bigEndian(UInt64(bitPattern: Int64(profile.id % groups)) ^ (1 << 63))
        let joined = profile.joined.timeIntervalSinceReferenceDate.bitPattern
        let date: [UInt8] = [0x04] + bigEndian(joined & (1 << 63) == 0 ? joined ^ (1 << 63) : ~joined)
        return Keys(
            record: collection + user, values: [0xFF, 0x13] + collection + user,
            groupEntry: [0xFF, 0x11, 0, 0, 0, 1] + group + user, dateEntry: [0xFF, 0x11, 0, 0, 0, 2] + date + user,
            valuesEntry: [1, 0, 0, 0, 1, 9] + group + [0, 0, 0, 2, 9] + date)
    }
    var record = [UInt8](repeating: 0x61, count: 460)
    var indexedRecord = [UInt8](repeating: 0x61, count: valuesInRecord ? 490 : 460)
    func put(_ number: Int) throws {
        record.withUnsafeMutableBytes { $0.storeBytes(of: number, as: Int.self) }
        let key = keys[number].record
        try withCLevelDBError { leveldb_put(plain, writeOptions, key, key.count, record, record.count, $0) }
    }
    func indexedPut(_ number: Int) throws {
        indexedRecord.withUnsafeMutableBytes { $0.storeBytes(of: number, as: Int.self) }
        let keys = keys[number]
        // The old values: the values entry, or the record itself when they are kept in it.
        let oldValues = valuesInRecord ? keys.record : keys.values
        var length = 0
        let old = try withCLevelDBError { leveldb_get(indexed, readOptions, oldValues, oldValues.count, &length, $0) }
        if let old { leveldb_free(old) }
        leveldb_writebatch_clear(batch)
        leveldb_writebatch_put(batch, keys.record, keys.record.count, indexedRecord, indexedRecord.count)
        leveldb_writebatch_put(batch, keys.groupEntry, keys.groupEntry.count, nil, 0)
        leveldb_writebatch_put(batch, keys.dateEntry, keys.dateEntry.count, nil, 0)
        if !valuesInRecord {
            leveldb_writebatch_put(batch, keys.values, keys.values.count, keys.valuesEntry, keys.valuesEntry.count)
        }
        try withCLevelDBError { leveldb_write(indexed, writeOptions, batch, $0) }
    }
    func statistics(_ db: OpaquePointer) -> String {
        guard let value = leveldb_property_value(db, "leveldb.stats") else { return "" }
        defer { leveldb_free(value) }
        return String(cString: value)
    }
    return try TurnTakingPuts(
        order: order, plain: put, indexed: indexedPut, statistics: { (statistics(plain), statistics(indexed)) })
}

/// A plain and an indexed database put the same records in turns of ``IndexPutChunks/size``:
/// each one's CPU µs per put, of the putting thread and its share of LevelDB's background thread.
struct TurnTakingPuts {
    let chunks: Int
    let plain: (caller: Double, background: Double)
    let indexed: (caller: Double, background: Double)

    init(
        order: [Int], plain plainPut: (Int) throws -> Void, indexed indexedPut: (Int) throws -> Void,
        statistics: () throws -> (plain: String, indexed: String)
    ) throws {
        var plainCaller = 0.0
        var indexedCaller = 0.0
        let processStart = processCPUSeconds()
        let threadStart = threadCPUSeconds()
        chunks = (order.count + IndexPutChunks.size - 1) / IndexPutChunks.size
        for chunk in 0..<chunks {
            let numbers = order[(chunk * IndexPutChunks.size)..<min(order.count, (chunk + 1) * IndexPutChunks.size)]
            func turn(_ put: (Int) throws -> Void) throws -> Double {
                let start = threadCPUSeconds()
                for number in numbers { try put(number) }
                return threadCPUSeconds() - start
            }
            if chunk % 2 == 0 {
                plainCaller += try turn(plainPut)
                indexedCaller += try turn(indexedPut)
            } else {
                indexedCaller += try turn(indexedPut)
                plainCaller += try turn(plainPut)
            }
        }
        let background = max(0, (processCPUSeconds() - processStart) - (threadCPUSeconds() - threadStart))
        let (plainStatistics, indexedStatistics) = try statistics()
        let plainBytes = compactionMegabytes(plainStatistics)
        let indexedBytes = compactionMegabytes(indexedStatistics)
        let share = plainBytes + indexedBytes > 0 ? indexedBytes / (plainBytes + indexedBytes) : 0.5
        let perPut = 1e6 / Double(order.count)
        plain = (plainCaller * perPut, background * (1 - share) * perPut)
        indexed = (indexedCaller * perPut, background * share * perPut)
    }

    /// The table rows and the ratio line, under `title`.
    func report(_ title: String) -> [String] {
        func row(_ name: String, _ cost: (caller: Double, background: Double)) -> String {
            String(format: "| %@ | %.2f | %.2f | %.2f |", name, cost.caller, cost.background, cost.caller + cost.background)
        }
        return [
            title, "",
            "| operation | putting thread µs/put | LevelDB's thread µs/put (shared by compaction bytes) | all µs/put |",
            "|---|---:|---:|---:|",
            row("put, no index", plain), row("put, two indexes", indexed), "",
            String(format: "two indexes / no index: putting thread %.2fx, all %.2fx",
                   indexed.caller / plain.caller, (indexed.caller + indexed.background) / (plain.caller + plain.background)),
            "",
        ]
    }
}

/// The MiB a database's memtable writes and compactions read and wrote, from the `Read(MB)` and
/// `Write(MB)` columns of its `leveldb.stats` report (its `Time(sec)` column is rounded to whole
/// seconds): what LevelDB's background thread did for it.
private func compactionMegabytes(_ statistics: String) -> Double {
    statistics.split(separator: "\n").reduce(0) { total, line in
        let fields = line.split(separator: " ")
        guard fields.count == 6, Int(fields[0]) != nil, let read = Double(fields[4]), let written = Double(fields[5]) else {
            return total
        }
        return total + read + written
    }
}

/// GRDB with the profile's key, its JSON and two indexed columns.
private final class IndexedGRDB {
    private let queue: DatabaseQueue
    private let codec = JSONModelCodec.foundation

    init(path: String, withIndexes: Bool) throws {
        queue = try DatabaseQueue(path: path, configuration: GRDBStore.configuration())
        try queue.inDatabase { db in
            try db.execute(sql: """
                CREATE TABLE kv (key TEXT PRIMARY KEY NOT NULL, value BLOB NOT NULL, grp INTEGER NOT NULL, \
                joined REAL NOT NULL) WITHOUT ROWID
                """)
            if withIndexes {
                try db.execute(sql: "CREATE INDEX kv_grp ON kv (grp); CREATE INDEX kv_joined ON kv (joined)")
            }
        }
    }

    func close() throws { try queue.close() }

    func put(_ profile: Profile, forKey key: String, groups: Int) throws {
        try queue.inDatabase { db in
            let statement = try db.cachedStatement(
                sql: "INSERT OR REPLACE INTO kv (key, value, grp, joined) VALUES (?, ?, ?, ?)")
            statement.setUncheckedArguments([
                key, try codec.encode(profile), profile.id % groups, profile.joined.timeIntervalSinceReferenceDate,
            ])
            try statement.execute()
        }
    }

    func query(group: Int) throws -> Int {
        try queue.inDatabase { db in
            let statement = try db.cachedStatement(sql: "SELECT key, value FROM kv WHERE grp = ? ORDER BY key")
            let rows = try Row.fetchCursor(statement, arguments: [group])
            var count = 0
            while let row = try rows.next() {
                blackHole(row[0] as String)
                try decode(row, column: 1)
                count += 1
            }
            return count
        }
    }

    func get(_ key: String) throws -> Bool {
        try queue.inDatabase { db in
            let statement = try db.cachedStatement(sql: "SELECT value FROM kv WHERE key = ?")
            let rows = try Row.fetchCursor(statement, arguments: [key])
            guard let row = try rows.next() else { return false }
            try decode(row, column: 0)
            return true
        }
    }

    private func decode(_ row: Row, column: Int) throws {
        try row.withUnsafeData(atIndex: column) { data in
            guard let data else { throw BenchmarkFailure("a stored value is NULL") }
            blackHole(try codec.decode(Profile.self, from: data))
        }
    }
}

/// CPU µs (user + system, every thread) per operation of `body`.
private func cpuMicroseconds(_ operations: Int, _ body: () throws -> Void) throws -> Double {
    let start = processCPUSeconds()
    try body()
    return (processCPUSeconds() - start) * 1e6 / Double(operations)
}
