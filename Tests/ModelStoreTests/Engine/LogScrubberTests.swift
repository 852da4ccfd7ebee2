import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// ModelStore checks LevelDB's log records itself before a repair, because LevelDB's repair
/// replays logs without checksums.
@Suite("Log checks before a repair")
struct LogScrubberTests {
    @Test("CRC-32C matches the standard check values and LevelDB's masking round-trips")
    func crc32c() {
        #expect(Array("123456789".utf8).withUnsafeBytes { CRC32C.checksum($0) } == 0xE306_9283)
        #expect([UInt8](repeating: 0, count: 32).withUnsafeBytes { CRC32C.checksum($0) } == 0x8A91_36AA)
        #expect([UInt8](repeating: 0xFF, count: 32).withUnsafeBytes { CRC32C.checksum($0) } == 0x62A8_AB43)
        for value: UInt32 in [0, 1, 0xE306_9283, .max] {
            #expect(CRC32C.unmask(CRC32C.mask(value)) == value)
            #expect(CRC32C.mask(value) != value)
        }
    }

    @Test("An intact log has no damaged records; each flipped byte in a record is found")
    func findsFlippedRecords() throws {
        let fixture = Fixture()
        let sample = try SampleDatabase(fixture, placement: .log)
        let log = try #require(FileDamage.files(.writeAheadLog, in: sample.url).last)
        let pristine = try [UInt8](Data(contentsOf: URL(fileURLWithPath: log)))
        #expect(pristine.withUnsafeBytes { LevelDBLogScrubber.damagedRecordOffsets(in: $0) }.isEmpty)

        let layout = LogLayout(pristine)
        var random = SeededGenerator(seed: 3)
        for _ in 0..<500 {
            var damaged = pristine
            let offset = Int.random(in: 0..<damaged.count, using: &random)
            damaged[offset] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &random)
            let found = damaged.withUnsafeBytes { LevelDBLogScrubber.damagedRecordOffsets(in: $0) }
            // A flip in a length field can make a record overrun its block, which LevelDB's
            // reader drops by itself; every other flip must be found, in the flipped block.
            if let first = found.first {
                #expect(found.count == 1)
                #expect(first / LevelDBLogScrubber.blockSize == offset / LevelDBLogScrubber.blockSize)
                #expect(first <= offset)
            } else {
                #expect(layout.ignoredOffsets.contains(offset), "flip at \(offset) not found")
            }
        }
    }

    /// Where flips need not be found, worked out independently of the scrubber: a flipped
    /// length field (LevelDB's reader drops the overrunning record itself) and the zero
    /// padding at the end of a block (which no reader looks at).
    private struct LogLayout {
        var ignoredOffsets = Set<Int>()

        init(_ bytes: [UInt8]) {
            let block = LevelDBLogScrubber.blockSize
            var position = 0
            while position < bytes.count {
                let left = block - position % block
                if left < 7 {
                    ignoredOffsets.formUnion(position..<(position + left))
                    position += left
                    continue
                }
                guard position + 7 <= bytes.count else { break }
                ignoredOffsets.formUnion([position + 4, position + 5])
                position += 7 + (Int(bytes[position + 4]) | Int(bytes[position + 5]) << 8)
            }
        }
    }

    @Test("A record cut short at the end of the log (a torn write) is not reported")
    func tornTailIsNotDamage() throws {
        let fixture = Fixture()
        let sample = try SampleDatabase(fixture, count: 100, placement: .log)
        let log = try #require(FileDamage.files(.writeAheadLog, in: sample.url).last)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: log)))
        for cut in [1, 5, 7, 20, 100] {
            let torn = Array(bytes.dropLast(cut))
            #expect(torn.withUnsafeBytes { LevelDBLogScrubber.damagedRecordOffsets(in: $0) }.isEmpty)
        }
    }

    @Test("LevelDB's repair alone brings a damaged log record back with a wrong value; checked first, it does not")
    func levelDBRepairNeedsCheckedLogs() throws {
        let fixture = Fixture()
        let pristine = try SampleDatabase(fixture, name: "pristine", placement: .log)
        let logName = try #require(FileDamage.files(.writeAheadLog, in: pristine.url).last.map {
            URL(fileURLWithPath: $0).lastPathComponent
        })
        // Flip a byte inside a value (the last quarter of the log is values and keys).
        let offset = try FileDamage.size(of: pristine.url.path + "/" + logName) * 3 / 4
        let unchecked = SampleDatabase(copying: pristine, as: "unchecked")
        try FileDamage.copyDatabase(pristine.url, to: unchecked.url)
        try FileDamage.flipByte(in: unchecked.url.path + "/" + logName, at: offset, mask: 0x01)
        try LevelDB.repair(path: unchecked.url.path, options: fixture.configuration.engineOptions)
        let (wrong, caught) = try uncheckedOutcomes(unchecked, fixture: fixture)
        #expect(caught > 0, "LevelDB's repair now checks logs itself; the scrubber may no longer be needed")
        #expect(wrong == 0)  // the record's own checksum turns the damaged value into `corrupted`

        let checked = SampleDatabase(copying: pristine, as: "checked")
        try FileDamage.copyDatabase(pristine.url, to: checked.url)
        try FileDamage.flipByte(in: checked.url.path + "/" + logName, at: offset, mask: 0x01)
        let report = try ModelStore.repair(named: "checked", in: fixture.directory.url)
        #expect(report.discardedLogRecords == 1)
        let outcomes = try #require(try checked.readAll())
        #expect(outcomes[.wrong] == nil)
        #expect(outcomes[.missing, default: 0] > 0)
    }

    /// Counts wrong values, and damaged values the record's checksum caught, without recording
    /// issues (this database is expected to have them).
    private func uncheckedOutcomes(_ sample: SampleDatabase, fixture: Fixture) throws -> (wrong: Int, caught: Int) {
        let store = try ModelStore(name: sample.name, policy: .never, configuration: fixture.quietConfiguration)
        defer { try? store.close() }
        var wrong = 0
        var caught = 0
        for index in 0..<sample.count {
            do {
                let value = try store.object(String.self, forKey: SampleDatabase.key(index))
                if value != nil && value != SampleDatabase.value(index) { wrong += 1 }
            } catch let ModelStoreError.corrupted(_, message) where message.contains("fails its checksum") {
                caught += 1
            } catch {}
        }
        return (wrong, caught)
    }
}
