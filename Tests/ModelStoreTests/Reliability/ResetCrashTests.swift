import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// `.reset` deletes several files; a kill in between must not leave part of the data for a
/// later open to bring back or to report as damage.
@Suite("Crash safety: SIGKILL during a reset", .serialized)
struct ResetCrashTests {
    /// A damaged database whose `.reset` a helper began and was killed in, half-way.
    private func interruptedReset(_ fixture: Fixture) throws -> SampleDatabase {
        let sample = try SampleDatabase(fixture, count: 500, placement: .tables)
        try FileDamage.overwrite(sample.url.path + "/CURRENT", with: Array("garbage\n".utf8))
        let helper = try ChildProcess.testHelper(
            ["open-with-policy", fixture.directory.path, "db", "reset"],
            environment: ["MODELSTORE_TEST_CRASH_AT": CrashPoint.resetStarted.rawValue])
        let lines = helper.finish()
        #expect(helper.process.terminationReason == .uncaughtSignal, "not killed: \(lines)")
        #expect(!FileDamage.files(.table, in: sample.url).isEmpty)  // the kill came half-way
        return sample
    }

    @Test("Killed after a reset removed CURRENT, the next open finishes the reset whatever its policy",
          arguments: [CorruptionPolicy.fail, .repair])
    func killedDuringReset(nextPolicy: CorruptionPolicy) throws {
        let fixture = Fixture()
        let sample = try interruptedReset(fixture)

        var configuration = fixture.quietConfiguration
        configuration.corruptionPolicy = nextPolicy
        let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
        defer { try? store.close() }
        #expect(try store.count() == 0)
        #expect(!DatabaseFiles.names(in: sample.url.path).contains(DatabaseResetter.journalName))
    }

    @Test("A repair(named:) after an interrupted reset finishes the reset instead of bringing data back")
    func repairFinishesReset() throws {
        let fixture = Fixture()
        let sample = try interruptedReset(fixture)
        #expect(try ModelStore.repair(named: "db", in: fixture.directory.url).recordsReadable == 0)
        #expect(!DatabaseFiles.names(in: sample.url.path).contains(DatabaseResetter.journalName))
    }
}
