import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// Damaged files (log, table, MANIFEST, CURRENT) yield `corrupted` with LevelDB's message,
/// or correct data: never a crash, never a wrong value, never a silently missing record.
@Suite("Corruption: damaged files are reported, never misread")
struct CorruptionTests {
    @Test("One flipped byte in the write-ahead log makes the open throw corrupted with LevelDB's message")
    func flippedLogByteIsReportedAtOpen() throws {
        let fixture = Fixture()
        let sample = try SampleDatabase(fixture, placement: .log)
        let log = try #require(FileDamage.files(.writeAheadLog, in: sample.url).last)
        try FileDamage.flipByte(in: log, at: try FileDamage.size(of: log) / 2)
        do {
            _ = try fixture.openQuietly("db")
            Issue.record("expected corrupted")
        } catch let ModelStoreError.corrupted(path, message) {
            #expect(path == sample.url.resolvingSymlinksInPath().path)
            #expect(message.hasPrefix("Corruption:"))
            #expect(message.contains("checksum mismatch"))
        }
    }

    @Test("Without paranoid checks LevelDB drops damaged log records silently: why they are on by default")
    func withoutParanoidChecksLogDamageIsSilentlyDropped() throws {
        let fixture = Fixture()
        let sample = try SampleDatabase(fixture, placement: .log)
        let log = try #require(FileDamage.files(.writeAheadLog, in: sample.url).last)
        try FileDamage.flipByte(in: log, at: try FileDamage.size(of: log) / 2)
        var configuration = fixture.quietConfiguration
        configuration.paranoidChecks = false
        let outcomes = try #require(try sample.readAll(configuration: configuration))
        #expect(outcomes[.missing, default: 0] > 0)   // lost without any error
        #expect(outcomes[.wrong] == nil)
    }

    @Test("Without LevelDB's read checksums a flipped byte in a table is still caught, by the record's own checksum")
    func withoutReadChecksumsTableDamageIsCaughtByRecordChecksum() throws {
        let fixture = Fixture()
        let sample = try SampleDatabase(fixture, placement: .tables, compression: false)
        let index = sample.count / 2
        let value = Array(SampleDatabase.value(index).utf8)
        // Find the record's value in the table files and flip one of its letters.
        var damaged = false
        for table in FileDamage.files(.table, in: sample.url) {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: table))
            guard let range = bytes.range(of: Data(value)) else { continue }
            try FileDamage.flipByte(in: table, at: range.lowerBound + value.count - 1)
            damaged = true
        }
        try #require(damaged)
        var configuration = fixture.quietConfiguration
        configuration.verifiesChecksums = false
        do {
            let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
            defer { try? store.close() }
            // Before format 2 this read returned a wrong value without any error.
            let read = try store.object(String.self, forKey: SampleDatabase.key(index))
            Issue.record("expected the record checksum to fail, read \(read ?? "nil")")
        } catch let ModelStoreError.corrupted(_, message) {
            #expect(message.contains("fails its checksum"))
            #expect(message.contains(SampleDatabase.key(index)))
        }
        let store = try fixture.openQuietly("db")
        defer { try? store.close() }
        // With the default, the same read reports the damage.
        do {
            let read = try store.object(String.self, forKey: SampleDatabase.key(index))
            Issue.record("expected corrupted, read \(read ?? "nil")")
        } catch let ModelStoreError.corrupted(_, message) {
            #expect(message.contains("checksum mismatch"))
        }
    }

    @Test("Flipping any of 60 bytes spread over the log: corrupted at open or exact data")
    func logFlipSweep() throws {
        let fixture = Fixture()
        let pristine = try SampleDatabase(fixture, name: "pristine", placement: .log)
        let log = try #require(FileDamage.files(.writeAheadLog, in: pristine.url).last)
        let size = try FileDamage.size(of: log)
        let copy = SampleDatabase(copying: pristine, as: "copy")
        var reported = 0
        for step in 0..<60 {
            let offset = step * (size - 1) / 59
            try FileDamage.copyDatabase(pristine.url, to: copy.url)
            try FileDamage.flipByte(in: copy.url.path + "/" + URL(fileURLWithPath: log).lastPathComponent, at: offset)
            if let outcomes = try copy.readAll() {
                #expect(outcomes == [.exact: copy.count], "offset \(offset): \(outcomes)")
            } else {
                reported += 1
            }
        }
        #expect(reported > 50)
    }

    @Test("Flipping bytes in a table gives corrupted or exact values, never wrong or missing ones", .long,
          arguments: [true, false])
    func tableFlipSweep(compression: Bool) throws {
        let fixture = Fixture()
        let pristine = try SampleDatabase(fixture, name: "pristine", placement: .tables, compression: compression)
        let tables = pristine.recordTables
        try #require(!tables.isEmpty)
        let copy = SampleDatabase(copying: pristine, as: "copy")
        var random = SeededGenerator(seed: compression ? 11 : 12)
        var totals: [SampleDatabase.Outcome: Int] = [:]
        var openFailures = 0
        for _ in 0..<40 {
            let table = tables.randomElement(using: &random)!
            let offset = Int.random(in: 0..<(try FileDamage.size(of: table)), using: &random)
            try FileDamage.copyDatabase(pristine.url, to: copy.url)
            try FileDamage.flipByte(
                in: copy.url.path + "/" + URL(fileURLWithPath: table).lastPathComponent, at: offset,
                mask: UInt8(1) << UInt8.random(in: 0..<8, using: &random))
            guard let outcomes = try copy.readAll() else { openFailures += 1; continue }
            #expect(outcomes[.missing] == nil, "offset \(offset): \(outcomes)")
            #expect(outcomes[.wrong] == nil)
            totals.merge(outcomes, uniquingKeysWith: +)
        }
        #expect(totals[.corrupted, default: 0] > 0)
        print("table flips (compression \(compression)): \(totals), open failures \(openFailures)")
    }

    @Test("Flipping any byte of the MANIFEST makes the open throw corrupted")
    func manifestFlipSweep() throws {
        let fixture = Fixture()
        let pristine = try SampleDatabase(fixture, name: "pristine", count: 300, placement: .tables)
        let manifest = try #require(FileDamage.files(.manifest, in: pristine.url).last)
        let name = URL(fileURLWithPath: manifest).lastPathComponent
        let copy = SampleDatabase(copying: pristine, as: "copy")
        for offset in 0..<(try FileDamage.size(of: manifest)) {
            try FileDamage.copyDatabase(pristine.url, to: copy.url)
            try FileDamage.flipByte(in: copy.url.path + "/" + name, at: offset)
            if let outcomes = try copy.readAll() {
                #expect(outcomes == [.exact: copy.count], "offset \(offset): \(outcomes)")
            }
        }
    }

    enum CurrentDamage: String, CaseIterable, Sendable {
        case empty, missingNewline, garbage, pointsToMissingManifest, deleted
    }

    @Test("A damaged or missing CURRENT file makes the open throw corrupted and changes nothing",
          arguments: CurrentDamage.allCases)
    func damagedCurrent(damage: CurrentDamage) throws {
        let fixture = Fixture()
        let sample = try SampleDatabase(fixture, count: 500, placement: .tables)
        let current = sample.url.path + "/CURRENT"
        let manifest = try String(contentsOfFile: current, encoding: .utf8)
        switch damage {
        case .empty: try FileDamage.truncate(current, to: 0)
        case .missingNewline: try FileDamage.overwrite(current, with: Array(manifest.dropLast().utf8))
        case .garbage: try FileDamage.overwrite(current, with: [0xFF, 0x00, 0x13, 0x0A])
        case .pointsToMissingManifest: try FileDamage.overwrite(current, with: Array("MANIFEST-999999\n".utf8))
        case .deleted: try FileManager.default.removeItem(atPath: current)
        }
        let before = DatabaseFiles.names(in: sample.url.path).filter { !$0.hasPrefix("LOG") }
        #expect(errorCase { _ = try fixture.openQuietly("db") } == "corrupted")
        // Nothing was deleted or rewritten: the tables are still there for a repair.
        #expect(DatabaseFiles.names(in: sample.url.path).filter { !$0.hasPrefix("LOG") } == before)
    }

    @Test("Random garbage written over random parts of random files never crashes or misreads")
    func randomGarbage() throws {
        let fixture = Fixture()
        let pristine = try SampleDatabase(fixture, name: "pristine", count: 1000, placement: .tables)
        do {  // leave some records in the log as well
            let store = try fixture.openQuietly("pristine")
            for index in 0..<200 { try store.set(SampleDatabase.value(index), forKey: SampleDatabase.key(index)) }
            try store.close()
        }
        let copy = SampleDatabase(copying: pristine, as: "copy")
        var random = SeededGenerator(seed: 99)
        var outcomes: [String: Int] = [:]
        for _ in 0..<40 {
            try FileDamage.copyDatabase(pristine.url, to: copy.url)
            let files = DatabaseFiles.names(in: copy.url.path).filter {
                [.writeAheadLog, .table, .manifest, .current].contains(DatabaseFiles.kind(ofName: $0))
            }
            let file = copy.url.path + "/" + files.randomElement(using: &random)!
            var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))
            guard !bytes.isEmpty else { continue }
            let start = Int.random(in: 0..<bytes.count, using: &random)
            let length = min(bytes.count - start, Int.random(in: 1...64, using: &random))
            bytes.replaceSubrange(start..<(start + length), with: random.bytes(length))
            try FileDamage.overwrite(file, with: bytes)
            if let result = try copy.readAll() {
                #expect(result[.wrong] == nil)
                #expect(result[.missing] == nil, "\(file) at \(start): \(result)")
                outcomes["opened", default: 0] += 1
            } else {
                outcomes["corrupted at open", default: 0] += 1
            }
        }
        print("random garbage: \(outcomes)")
    }

    @Test("Enumerating over a damaged table throws corrupted instead of silently skipping its records",
          arguments: [false, true])
    func enumerationOverDamagedTable(usePrefix: Bool) throws {
        let fixture = Fixture()
        let pristine = try SampleDatabase(fixture, name: "pristine", placement: .tables, compression: false)
        let tables = pristine.recordTables
        let copy = SampleDatabase(copying: pristine, as: "copy")
        let allKeys = (0..<pristine.count).map(SampleDatabase.key)
        // A prefix that ends inside the data, so a cursor stops at the range's end, not the database's.
        let range: KeyRange = usePrefix ? .prefix("k00") : .all
        let expected = usePrefix ? allKeys.filter { $0.hasPrefix("k00") } : allKeys
        var random = SeededGenerator(seed: usePrefix ? 31 : 32)
        var reported = 0
        for _ in 0..<20 {
            // Damage a data block of keys in the prefix.
            try FileDamage.damageDataBlock(ofOneOf: tables, copying: pristine.url, to: copy.url, using: &random)
            let store: ModelStore
            do { store = try fixture.openQuietly("copy") } catch ModelStoreError.corrupted { reported += 1; continue }
            defer { try? store.close() }
            for attempt in ["keys", "entries", "count", "snapshot"] {
                do {
                    switch attempt {
                    case "keys":
                        let keys = try store.keys(in: range).collect()
                        #expect(keys == expected, "keys: \(keys.count) of \(expected.count), no error")
                    case "entries":
                        let entries = try store.entries(String.self, in: range).collect()
                        let keys = entries.map(\.key)
                        #expect(keys == expected, "entries: \(keys.count) of \(expected.count), no error")
                        #expect(entries.allSatisfy { $0.value == SampleDatabase.value(Int($0.key.dropFirst())!) })
                    case "count":
                        let count = try store.count(in: range)
                        #expect(count == expected.count, "count \(count) instead of \(expected.count) without an error")
                    default:
                        let snapshot = try store.snapshot()
                        defer { snapshot.close() }
                        let keys = try snapshot.keys(in: range).collect()
                        #expect(keys == expected, "snapshot keys: \(keys.count) of \(expected.count), no error")
                    }
                } catch ModelStoreError.corrupted {
                    reported += 1
                }
            }
        }
        #expect(reported > 0)
    }

    @Test("A sweep over a damaged table throws corrupted and removes nothing it read alongside the damage")
    func sweepOverDamagedTable() throws {
        let fixture = Fixture()
        let pristine = try SampleDatabase(fixture, name: "pristine", placement: .tables, compression: false)
        let tables = pristine.recordTables
        let copy = SampleDatabase(copying: pristine, as: "copy")
        var random = SeededGenerator(seed: 33)
        var reported = 0
        for _ in 0..<12 {
            try FileDamage.damageDataBlock(ofOneOf: tables, copying: pristine.url, to: copy.url, using: &random)
            // Every record is expired under a one-second policy once the clock has moved on.
            fixture.clock.advance(by: 10)
            let store: ModelStore
            do {
                store = try fixture.openQuietly("copy", policy: .custom(1))
            } catch ModelStoreError.corrupted {
                continue
            }
            defer { try? store.close() }
            do {
                let removed = try store.removeExpiredObjects()
                #expect(removed == pristine.count, "swept \(removed) of \(pristine.count) without an error")
                continue
            } catch ModelStoreError.corrupted {
                reported += 1
            }
            // The sweep is one chunk here, so nothing was deleted: every key is either still
            // stored or unreadable because of the damage, never silently gone. (Read through a
            // store without expiry: under the sweep's policy every record reads as absent.)
            let reader = try fixture.openQuietly("copy")
            var gone = 0
            for index in 0..<pristine.count {
                do {
                    if try !reader.contains(SampleDatabase.key(index)) { gone += 1 }
                } catch ModelStoreError.corrupted {}
            }
            #expect(gone == 0, "\(gone) records were removed by a sweep that failed")
        }
        #expect(reported > 0)
    }
}
