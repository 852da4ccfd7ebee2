import Foundation
import GRDB
import ModelStore

/// GRDB 7 with a key-value table of JSON values, tuned as a careful user would tune it:
/// WAL, `synchronous = OFF` (no fsync, like LevelDB's non-sync writes), an 8 MiB page cache
/// (LevelDB's default block cache), cached prepared statements, one connection held for
/// the whole workload, and each put in its own implicit transaction (like one
/// `leveldb_put`). Imports use explicit transactions of 1,000 rows.
final class GRDBStore: BenchmarkStore {
    private let queue: DatabaseQueue
    /// Foundation's JSONEncoder and JSONDecoder, as a GRDB user would write them.
    private let codec = JSONModelCodec.foundation

    /// What every GRDB contender opens with: WAL, `synchronous = OFF` (no fsync, like LevelDB's
    /// non-sync writes) and an 8 MiB page cache.
    static func configuration() -> Configuration {
        var configuration = Configuration()
        configuration.journalMode = .wal
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = OFF; PRAGMA cache_size = -8192")
        }
        return configuration
    }

    /// Opens (creating) the database file at `path`.
    init(path: String) throws {
        queue = try DatabaseQueue(path: path, configuration: Self.configuration())
        try queue.inDatabase { db in
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY NOT NULL, value BLOB NOT NULL, \
                storedAt REAL NOT NULL) WITHOUT ROWID
                """)
        }
    }

    func close() throws {
        try queue.close()
    }

    /// Rewrites the database without free pages and empties the WAL: SQLite's counterpart
    /// of a full LevelDB compaction.
    static func compact(path: String) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.inDatabase { db in
            try db.execute(sql: "VACUUM")
            try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        }
        try queue.close()
    }

    private static let upsert = "INSERT OR REPLACE INTO kv (key, value, storedAt) VALUES (?, ?, ?)"

    @inline(__always)
    private func write(_ profile: Profile, forKey key: String, expired: Bool, in db: Database) throws {
        let statement = try db.cachedStatement(sql: Self.upsert)
        let storedAt = Date().timeIntervalSinceReferenceDate + clockOffset + (expired ? expiredOffset : 0)
        statement.setUncheckedArguments([key, try codec.encode(profile), storedAt])
        try statement.execute()
    }

    func put(_ profile: Profile, forKey key: String, expired: Bool) throws {
        try queue.inDatabase { db in try write(profile, forKey: key, expired: expired, in: db) }
    }

    func importProfiles<Profiles: Sequence<Profile>>(_ profiles: Profiles, batchSize: Int) async throws {
        var iterator = profiles.makeIterator()
        var done = false
        while !done {
            try queue.inTransaction { db in
                for _ in 0..<batchSize {
                    guard let profile = iterator.next() else {
                        done = true
                        break
                    }
                    try write(profile, forKey: ProfileCorpus.key(profile.id), expired: false, in: db)
                }
                return .commit
            }
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

    func scanAll() throws -> Int {
        try queue.inDatabase { db in
            let rows = try Row.fetchCursor(db, sql: "SELECT key, value FROM kv ORDER BY key")
            var count = 0
            while let row = try rows.next() {
                blackHole(row[0] as String)
                try decode(row, column: 1)
                count += 1
            }
            return count
        }
    }

    func removeExpired() throws -> Int {
        try queue.inDatabase { db in
            let now = Date().timeIntervalSinceReferenceDate + clockOffset
            try db.execute(sql: "DELETE FROM kv WHERE storedAt <= ?", arguments: [now - recordLifetime])
            return db.changesCount
        }
    }

    /// Decodes the blob in `column` without copying it out of SQLite.
    @inline(__always)
    private func decode(_ row: Row, column: Int) throws {
        try row.withUnsafeData(atIndex: column) { data in
            guard let data else { throw BenchmarkFailure("a stored value is NULL") }
            blackHole(try codec.decode(Profile.self, from: data))
        }
    }
}
