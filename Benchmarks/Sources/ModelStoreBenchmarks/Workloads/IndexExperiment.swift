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
    let interleaved = try interleavedIndexPuts(records: records, directory: directory + "/interleaved", corpus: corpus, keys: keys)
    func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
    func row(_ name: String, _ values: [Double]) -> String {
        "| \(name) | \(String(format: "%.2f", median(values))) | "
            + values.map { String(format: "%.2f", $0) }.joined(separator: " ") + " |"
    }
    let ratios = zip(indexedSamples, plainSamples).map { $0.all / $1.all }
    let callerRatios = zip(indexedSamples, plainSamples).map { $0.caller / $1.caller }
    return [
        "\(records) puts per round, \(rounds) rounds, plain and two indexes alternating",
        "",
        "| operation | µs/put (median) | all rounds |", "|---|---:|---|",
        row("put, no index", plainSamples.map(\.all)),
        row("put, two indexes", indexedSamples.map(\.all)),
        row("put, no index (putting thread)", plainSamples.map(\.caller)),
        row("put, two indexes (putting thread)", indexedSamples.map(\.caller)),
        "",
        String(format: "put with two indexes / plain put: median of rounds' ratios %.2fx, ratio of medians %.2fx (target ≤ 2x)",
               median(ratios), median(indexedSamples.map(\.all)) / median(plainSamples.map(\.all))),
        "rounds' ratios: " + ratios.map { String(format: "%.2f", $0) }.joined(separator: " "),
        String(format: "putting thread alone: median of rounds' ratios %.2fx", median(callerRatios)),
        "",
        "Interleaved: both databases open, \(interleaved.chunks) chunks of \(IndexPutChunks.size) puts each, taking turns:",
        "",
        "| operation | putting thread µs/put | LevelDB's thread µs/put (shared by compaction bytes) | all µs/put |", "|---|---:|---:|---:|",
        String(format: "| put, no index | %.2f | %.2f | %.2f |", interleaved.plain.caller, interleaved.plain.background,
               interleaved.plain.caller + interleaved.plain.background),
        String(format: "| put, two indexes | %.2f | %.2f | %.2f |", interleaved.indexed.caller, interleaved.indexed.background,
               interleaved.indexed.caller + interleaved.indexed.background),
        "",
        String(format: "interleaved put with two indexes / plain put: putting thread %.2fx, all %.2fx (target ≤ 2x)",
               interleaved.indexed.caller / interleaved.plain.caller,
               (interleaved.indexed.caller + interleaved.indexed.background)
                   / (interleaved.plain.caller + interleaved.plain.background)),
    ].joined(separator: "\n")
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
private func interleavedIndexPuts(
    records: Int, directory: String, corpus: ProfileCorpus, keys: [String]
) throws -> (chunks: Int, plain: (caller: Double, background: Double), indexed: (caller: Double, background: Double)) {
    var configuration = ModelStore.Configuration()
    configuration.directory = URL(fileURLWithPath: directory, isDirectory: true)
    defer { try? FileManager.default.removeItem(at: configuration.directory) }
    let groups = max(1, records / 20)
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
    var plainCaller = 0.0
    var indexedCaller = 0.0
    let processStart = processCPUSeconds()
    let threadStart = threadCPUSeconds()
    let chunks = (records + IndexPutChunks.size - 1) / IndexPutChunks.size
    for chunk in 0..<chunks {
        let numbers = (chunk * IndexPutChunks.size)..<min(records, (chunk + 1) * IndexPutChunks.size)
        func turn(_ collection: ModelStore.Collection) throws -> Double {
            let start = threadCPUSeconds()
            for number in numbers { try collection.set(corpus.profile(number), forKey: keys[number]) }
            return threadCPUSeconds() - start
        }
        if chunk % 2 == 0 {
            plainCaller += try turn(plain)
            indexedCaller += try turn(indexed)
        } else {
            indexedCaller += try turn(indexed)
            plainCaller += try turn(plain)
        }
    }
    let background = max(0, (processCPUSeconds() - processStart) - (threadCPUSeconds() - threadStart))
    let plainCompaction = try compactionMegabytes(plainStore.statistics())
    let indexedCompaction = try compactionMegabytes(indexedStore.statistics())
    let share = plainCompaction + indexedCompaction > 0 ? indexedCompaction / (plainCompaction + indexedCompaction) : 0.5
    let perPut = 1e6 / Double(records)
    return (
        chunks,
        (plainCaller * perPut, background * (1 - share) * perPut),
        (indexedCaller * perPut, background * share * perPut)
    )
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
