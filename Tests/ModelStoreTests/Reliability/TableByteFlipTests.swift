import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// Every byte of a small table damaged in turn, one copy of the database per byte: each read
/// by key is exact or throws `corrupted`, each scan is exact or throws `corrupted`; never a
/// wrong value, never a hidden record, never another error, never a crash.
///
/// This is also why reads keep LevelDB's block checksum on: with `verifiesChecksums` off the
/// same loop aborted the process inside Debian's LevelDB 1.23 (built with assertions) at
/// table byte 340 (`dbformat.h:96: ExtractUserKey: Assertion internal_key.size() >= 8`).
///
/// The two cases run one after the other (`.serialized`): each blocks the thread it runs on for
/// seconds, and two at once would hold both of a 2-core machine's cooperative threads, starving
/// the suite's asynchronous tests.
@Suite("Every byte of a table flipped", .serialized)
struct TableByteFlipTests {
    @Test("Flipping each byte of a small table in turn: every read by key and every scan is exact or corrupted", .long,
          arguments: [false, true])
    func everyTableByteFlipped(compression: Bool) throws {
        let fixture = Fixture()
        let pristine = try SampleDatabase(
            fixture, name: "pristine", count: 6, placement: .tables, compression: compression)
        let table = try #require(pristine.recordTables.first)
        let tableName = URL(fileURLWithPath: table).lastPathComponent
        let copy = SampleDatabase(copying: pristine, as: "copy")
        let size = try FileDamage.size(of: table)
        var totals: [SampleDatabase.Outcome: Int] = [:]
        var openFailures = 0
        var scansReported = 0
        for offset in 0..<size {
            try FileDamage.copyDatabase(pristine.url, to: copy.url)
            try FileDamage.flipByte(in: copy.url.path + "/" + tableName, at: offset, mask: 0x5A)
            let store: ModelStore
            do {
                store = try ModelStore(name: copy.name, policy: .never, configuration: fixture.quietConfiguration)
            } catch ModelStoreError.corrupted {
                openFailures += 1
                continue
            }
            defer { try? store.close() }
            // By key: each record exact or `corrupted`; never missing, wrong, or another error.
            for index in 0..<copy.count {
                do {
                    let value = try store.object(String.self, forKey: SampleDatabase.key(index))
                    let outcome: SampleDatabase.Outcome =
                        value == SampleDatabase.value(index) ? .exact : value == nil ? .missing : .wrong
                    #expect(outcome == .exact, "offset \(offset), record \(index): \(value ?? "nil")")
                    totals[outcome, default: 0] += 1
                } catch ModelStoreError.corrupted {
                    totals[.corrupted, default: 0] += 1
                }
            }
            // In key order: every record exact, or the scan throws `corrupted`.
            do {
                let entries = try store.entries(String.self).collect()
                #expect(entries.map(\.key) == (0..<copy.count).map(SampleDatabase.key), "offset \(offset)")
                #expect(entries.map(\.value) == (0..<copy.count).map(SampleDatabase.value), "offset \(offset)")
            } catch ModelStoreError.corrupted {
                scansReported += 1
            }
        }
        // Flips inside records and block structure must have been reported, not read around.
        #expect(totals[.corrupted, default: 0] > 0)
        #expect(totals[.exact, default: 0] > 0)
        print("every byte of a \(size)-byte table (compression \(compression)): \(totals), "
            + "open failures \(openFailures), scans reporting corrupted \(scansReported)")
    }
}
