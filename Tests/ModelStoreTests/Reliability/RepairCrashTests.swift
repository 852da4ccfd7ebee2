import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// A helper process repairs a database (with `repair(named:)`, or by opening it with the
/// `.repair` corruption policy) and dies with SIGKILL in the middle. After any kill, the next
/// open (default policy after `repair(named:)`, `.repair` after the policy) must hold exactly
/// what a finished repair keeps, every value exact, and leave none of the repair's own files.
@Suite("Crash safety: SIGKILL during a repair", .serialized)
struct RepairCrashTests {
    enum Way: String, CaseIterable, CustomTestStringConvertible {
        /// `ModelStore.repair(named:in:)` on a healthy database (a finished repair keeps everything).
        case named
        /// An open with `corruptionPolicy = .repair` of a database with one flipped log byte
        /// (paranoid checks report it; a finished repair keeps all but that log block).
        case policy
        var testDescription: String { self == .named ? "repair(named:)" : ".repair policy at open" }
    }

    /// A closed database with `tables` records in sorted tables, then `log` more in the
    /// write-ahead log; for `.policy`, one byte of the log flipped.
    static func makeDatabase(
        _ fixture: Fixture, name: String, tables: Int, log: Int, way: Way
    ) throws -> SampleDatabase {
        let first = try SampleDatabase(fixture, name: name, count: tables, placement: .tables)
        var configuration = fixture.quietConfiguration
        configuration.writeBufferSize = 256 << 20  // keep the whole second part in the log
        let store = try ModelStore(name: name, policy: .never, configuration: configuration)
        for index in tables..<(tables + log) {
            try store.set(SampleDatabase.value(index), forKey: SampleDatabase.key(index))
        }
        try store.close()
        let sample = SampleDatabase(copying: first, as: name, count: tables + log)
        if way == .policy {
            let file = try #require(FileDamage.files(.writeAheadLog, in: sample.url).last)
            try FileDamage.flipByte(in: file, at: try FileDamage.size(of: file) - 10_000)
        }
        return sample
    }

    static func configuration(_ fixture: Fixture, _ way: Way) -> ModelStore.Configuration {
        var configuration = fixture.quietConfiguration
        if way == .policy { configuration.corruptionPolicy = .repair }
        return configuration
    }

    /// What a repair that is not interrupted keeps of `pristine`.
    static func finishedRepairOutcome(_ pristine: SampleDatabase, _ way: Way) throws -> [SampleDatabase.Outcome: Int] {
        let reference = SampleDatabase(copying: pristine, as: "reference")
        try FileDamage.copyDatabase(pristine.url, to: reference.url)
        let outcome = try #require(try reference.readAll(configuration: configuration(pristine.fixture, .policy)))
        if way == .named { #expect(outcome == [.exact: pristine.count]) }
        #expect(outcome[.wrong] == nil)
        return outcome
    }

    static func repairArguments(_ fixture: Fixture, _ name: String, _ way: Way) -> [String] {
        ["repair", fixture.directory.path, name, way.rawValue]
    }

    /// Opens the database as a user would after the crash and checks every record.
    static func expect(
        _ sample: SampleDatabase, holds expected: [SampleDatabase.Outcome: Int], _ way: Way, _ context: String
    ) throws {
        let outcomes = try sample.readAll(configuration: configuration(sample.fixture, way))
        #expect(outcomes == expected, "\(context): \(String(describing: outcomes))")
        let left = DatabaseFiles.names(in: sample.url.path).filter { $0.hasPrefix(".modelstore-") }
        #expect(left.isEmpty, "\(context): left behind \(left)")
    }

    @Test(
        "Killed just after LevelDB archived the log (20,000 in tables, 40,000 in the log), the next open has them all", .long,
        arguments: Way.allCases)
    func killedAfterLogArchived(way: Way) throws {
        let fixture = Fixture()
        let pristine = try Self.makeDatabase(fixture, name: "pristine", tables: 20_000, log: 40_000, way: way)
        let expected = try Self.finishedRepairOutcome(pristine, way)
        let copy = SampleDatabase(copying: pristine, as: "copy")
        try FileDamage.copyDatabase(pristine.url, to: copy.url)
        let helper = try ChildProcess.testHelper(Self.repairArguments(fixture, "copy", way) + ["watch-lost"])
        let lines = helper.finish()
        #expect(helper.process.terminationReason == .uncaughtSignal, "not killed: \(lines)")
        #expect(!FileDamage.files(.writeAheadLog, in: copy.url.appendingPathComponent("lost")).isEmpty)
        try Self.expect(copy, holds: expected, way, "after the kill")
    }

    @Test("Killed after each of ModelStore's repair steps, the next open has every record", .long, arguments: Way.allCases)
    func killedAtEachStep(way: Way) throws {
        let fixture = Fixture()
        let pristine = try Self.makeDatabase(fixture, name: "pristine", tables: 3_000, log: 6_000, way: way)
        let expected = try Self.finishedRepairOutcome(pristine, way)
        let copy = SampleDatabase(copying: pristine, as: "copy")
        let steps: [CrashPoint] = [.repairBackedUp, .repairScrubbed, .repairRepaired, .repairCommitted]
        for step in steps {
            try FileDamage.copyDatabase(pristine.url, to: copy.url)
            let helper = try ChildProcess.testHelper(
                Self.repairArguments(fixture, "copy", way), environment: ["MODELSTORE_TEST_CRASH_AT": step.rawValue])
            let lines = helper.finish()
            #expect(helper.process.terminationReason == .uncaughtSignal, "\(step): not killed: \(lines)")
            try Self.expect(copy, holds: expected, way, "killed at \(step.rawValue)")
        }
    }

    @Test("Killed again while later repairs restore from the backup, the open after that has every record", .long)
    func killedDuringRestore() throws {
        let fixture = Fixture()
        let pristine = try Self.makeDatabase(fixture, name: "pristine", tables: 3_000, log: 6_000, way: .named)
        let copy = SampleDatabase(copying: pristine, as: "copy")
        try FileDamage.copyDatabase(pristine.url, to: copy.url)
        for step in [CrashPoint.repairRepaired, .restoreEmptied, .repairScrubbed, .restoreEmptied] {
            let helper = try ChildProcess.testHelper(
                Self.repairArguments(fixture, "copy", .named), environment: ["MODELSTORE_TEST_CRASH_AT": step.rawValue])
            _ = helper.finish()
            #expect(helper.process.terminationReason == .uncaughtSignal, "\(step): not killed")
        }
        try Self.expect(copy, holds: [.exact: copy.count], .named, "after four kills")
    }

    @Test("Killed at random moments, once or several times in a row, the next open has every record (20 rounds)", .long)
    func killedAtRandomMoments() throws {
        let fixture = Fixture()
        var random = SeededGenerator(seed: 0x4E9A1)
        var finished = 0
        for way in Way.allCases {
            let pristine = try Self.makeDatabase(fixture, name: "pristine-\(way)", tables: 3_000, log: 6_000, way: way)
            let expected = try Self.finishedRepairOutcome(pristine, way)
            let copy = SampleDatabase(copying: pristine, as: "copy")
            for round in 0..<10 {
                try FileDamage.copyDatabase(pristine.url, to: copy.url)
                for _ in 0..<Int.random(in: 1...3, using: &random) {
                    let helper = try ChildProcess.testHelper(Self.repairArguments(fixture, "copy", way))
                    #expect(helper.readLine() == "ready")
                    usleep(UInt32.random(in: 0..<150_000, using: &random))
                    helper.kill()
                    if helper.finish().contains(where: { $0.hasPrefix("done") }) { finished += 1 }
                }
                try Self.expect(copy, holds: expected, way, "round \(round) (\(way))")
            }
        }
        print("repair kill rounds: 20, repairs that finished before the kill: \(finished)")
    }

    @Test("A repair killed once is finished by the next repair(named:), which reports every record")
    func nextRepairFinishesTheJob() throws {
        let fixture = Fixture()
        let sample = try Self.makeDatabase(fixture, name: "db", tables: 1_000, log: 2_000, way: .named)
        let helper = try ChildProcess.testHelper(
            Self.repairArguments(fixture, "db", .named),
            environment: ["MODELSTORE_TEST_CRASH_AT": CrashPoint.repairRepaired.rawValue])
        _ = helper.finish()
        #expect(RepairJournal.isPending(in: sample.url.path))
        let report = try ModelStore.repair(named: "db", in: fixture.directory.url)
        #expect(report.recordsReadable == 3_000)
        #expect(!report.filesAfter.contains { $0.hasPrefix(".modelstore-repair") })
        try Self.expect(sample, holds: [.exact: 3_000], .named, "after the second repair")
    }

    @Test("A journal without its backup folder is reported as corrupted and no file is removed")
    func journalWithoutBackupRemovesNothing() throws {
        let fixture = Fixture()
        let sample = try SampleDatabase(fixture, count: 100, placement: .tables)
        try Data("x".utf8).write(to: sample.url.appendingPathComponent(RepairJournal.journalName))
        let before = DatabaseFiles.names(in: sample.url.path)
        #expect(errorCase { _ = try fixture.openQuietly() } == "corrupted")
        #expect(errorCase { _ = try ModelStore.repair(named: "db", in: fixture.directory.url) } == "corrupted")
        let after = DatabaseFiles.names(in: sample.url.path)
        #expect(after.filter { $0 != "LOG.old" } == before.filter { $0 != "LOG.old" })
    }

    @Test("A repair that fails puts every file back and leaves no journal")
    func failedRepairRollsBack() throws {
        let fixture = Fixture()
        let sample = try SampleDatabase(fixture, count: 300, placement: .log)
        // The scrubber refuses a log that is a symbolic link (it never follows links).
        try FileManager.default.createSymbolicLink(
            atPath: sample.url.path + "/000099.log", withDestinationPath: fixture.directory.path + "/elsewhere")
        let before = DatabaseFiles.names(in: sample.url.path)
        #expect(errorCase { _ = try ModelStore.repair(named: "db", in: fixture.directory.url) } == "io")
        #expect(DatabaseFiles.names(in: sample.url.path).filter { !$0.hasPrefix("LOG") }
            == before.filter { !$0.hasPrefix("LOG") })
        try FileManager.default.removeItem(atPath: sample.url.path + "/000099.log")
        #expect(try sample.readAll() == [.exact: 300])
    }

    @Test("The log scrubber replaces a damaged log with a checked copy and never writes through its inode")
    func scrubberWritesACopy() throws {
        let fixture = Fixture()
        let sample = try SampleDatabase(fixture, count: 500, placement: .log)
        let log = try #require(FileDamage.files(.writeAheadLog, in: sample.url).last)
        try FileDamage.flipByte(in: log, at: 100)
        let link = sample.url.path + "/../backup.log"
        #expect(Glibc.link(log, link) == 0)
        let linked = try Data(contentsOf: URL(fileURLWithPath: link))
        #expect(try LevelDBLogScrubber.scrub(logAt: log) == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: link)) == linked)
        #expect(try Data(contentsOf: URL(fileURLWithPath: log)) != linked)
        #expect(!DatabaseFiles.names(in: sample.url.path).contains { $0.hasPrefix(LevelDBLogScrubber.copyPrefix) })
    }
}
