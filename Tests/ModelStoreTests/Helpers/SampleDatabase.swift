import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// A closed database with known records, for tests that damage its files.
struct SampleDatabase {
    /// Where the records live when the database is closed.
    enum Placement {
        /// In the write-ahead log (LevelDB 1.23 does not flush the memtable on close).
        case log
        /// In sorted tables (the log was converted by a reopen).
        case tables
    }

    let fixture: Fixture
    let name: String
    let count: Int
    /// With ``Placement/tables``, the paths of the table files that hold the records, in file
    /// order (a new database also has a table of its own for its policy record, which tests that
    /// damage the records' tables must not pick).
    let recordTables: [String]

    static func value(_ index: Int) -> String {
        "value-\(index)-" + String(repeating: Character(UnicodeScalar(UInt8(97 + index % 26))), count: 40 + index % 60)
    }

    static func key(_ index: Int) -> String {
        "k" + String(index + 100_000).dropFirst()
    }

    /// Writes `count` records into the database `name` and closes it.
    @discardableResult
    init(_ fixture: Fixture, name: String = "db", count: Int = 2000, placement: Placement,
         compression: Bool = true) throws {
        self.fixture = fixture
        self.name = name
        self.count = count
        var configuration = fixture.quietConfiguration
        configuration.usesSnappyCompression = compression
        do {
            let store = try ModelStore(name: name, policy: .never, configuration: configuration)
            for index in 0..<count { try store.set(Self.value(index), forKey: Self.key(index)) }
            try store.close()
        }
        if placement == .tables {
            let store = try ModelStore(name: name, policy: .never, configuration: configuration)
            defer { try? store.close() }
            recordTables = try Self.tablesHoldingRecords(of: store)
            try store.close()
        } else {
            recordTables = []
        }
    }

    /// The tables of `store` whose smallest key is a record's rather than a system record's
    /// (0xFF…), read from LevelDB's `leveldb.sstables` report: a line per table,
    /// ` 12:4096['k00000' @ 7 : 1 .. 'k01999' @ 2006 : 1]`, keys escaped as `\xff`.
    private static func tablesHoldingRecords(of store: ModelStore) throws -> [String] {
        let report = try #require(try store.property(named: "leveldb.sstables"))
        let numbers = report.split(separator: "\n").compactMap { line -> Int? in
            guard line.hasPrefix(" "), let colon = line.firstIndex(of: ":"), let open = line.range(of: "['"),
                !line[open.upperBound...].hasPrefix("\\xff")
            else { return nil }
            return Int(line[line.index(after: line.startIndex)..<colon])
        }
        let directory = store.url.path
        return numbers.sorted().map { directory + "/" + String(format: "%06d.ldb", $0) }
    }

    /// The same records under another name in the same root; the caller copies the files
    /// with ``FileDamage/copyDatabase(_:to:)``.
    init(copying other: SampleDatabase, as name: String, count: Int? = nil) {
        fixture = other.fixture
        self.name = name
        self.count = count ?? other.count
        let directory = other.fixture.directory.url.appendingPathComponent(name, isDirectory: true).path
        recordTables = other.recordTables.map { directory + "/" + URL(fileURLWithPath: $0).lastPathComponent }
    }

    var url: URL { fixture.directory.url.appendingPathComponent(name, isDirectory: true) }

    /// How each record reads back.
    enum Outcome: Equatable { case exact, missing, corrupted, wrong }

    /// Opens the database and reads every record: each one must be exact, and (where the
    /// caller allows it) missing or `corrupted`; nothing may ever come back wrong.
    /// Returns how many records had each outcome, or nil if the open itself threw `corrupted`.
    func readAll(configuration: ModelStore.Configuration? = nil) throws -> [Outcome: Int]? {
        let store: ModelStore
        do {
            let configuration = configuration ?? fixture.quietConfiguration
            store = try ModelStore(name: name, policy: .never, configuration: configuration)
        } catch ModelStoreError.corrupted {
            return nil
        }
        defer { try? store.close() }
        var outcomes: [Outcome: Int] = [:]
        for index in 0..<count {
            let outcome: Outcome
            do {
                switch try store.object(String.self, forKey: Self.key(index)) {
                case nil: outcome = .missing
                case Self.value(index)?: outcome = .exact
                case let other?:
                    outcome = .wrong
                    Issue.record("WRONG value for \(Self.key(index)): \(other.prefix(60))")
                }
            } catch ModelStoreError.corrupted {
                outcome = .corrupted
            } catch ModelStoreError.decodingFailed(_, _, let message) {
                outcome = .wrong
                Issue.record("damaged record reached the decoder for \(Self.key(index)): \(message)")
            }
            outcomes[outcome, default: 0] += 1
        }
        return outcomes
    }
}
