import Foundation
import ModelStoreTestSupport
import Testing

/// A randomized history of a fleet of node processes under faults, checked against the shared
/// tier's promises (issue #34): clients read and write a few keys on random nodes while Redis
/// is killed, restarted empty and flushed, and nodes are killed and paused; every read must be
/// fresh within the bound, no acknowledged write may be lost, and every node must end on one
/// value per key. `HistoryChecker` states the rules; `HistorySettings` the knobs
/// (`MODELSTORE_HISTORY_SEED`, `MODELSTORE_HISTORY_SECONDS`, `MODELSTORE_HISTORY_FAULTS`).
@Suite(.serialized, .enabled(if: RedisServer.isInstalled, "needs redis-server (scripts/install-dependencies)"))
struct FleetHistoryTests {
    @Test func readsStayFreshAndAcknowledgedWritesSurviveRandomFaults() throws {
        let settings = HistorySettings.fromEnvironment()
        // Printed first, so a run that hangs or crashes still names its seed.
        print(settings.header.joined(separator: "\n"))
        let recorder = HistoryRecorder()
        let fleet = try HistoryFleet(nodes: settings.nodes, recorder: recorder)
        let stop = HistoryStop()
        let clients = DispatchGroup()
        defer {
            stop.raise()
            fleet.stop()
            // The nodes are gone, so every client's request has ended.
            _ = clients.wait(timeout: .now() + 30)
        }
        settings.workload.start(seed: settings.seed, fleet: fleet, stop: stop, group: clients)

        Thread.sleep(forTimeInterval: settings.calmPhase.inSeconds)
        var generator = SeededGenerator(seed: settings.seed)
        let faultsEnd = recorder.now() + settings.faultPhase
        while recorder.now() < faultsEnd {
            Thread.sleep(forTimeInterval: Double(Int.random(in: settings.faultGap, using: &generator)) / 1_000)
            guard !settings.faultKinds.isEmpty else { continue }
            try fleet.inject(FleetFault.random(nodes: settings.nodes, kinds: settings.faultKinds, using: &generator))
        }
        Thread.sleep(forTimeInterval: (settings.bounds.settle + settings.calmPhase).inSeconds)

        stop.raise()
        let stopped = clients.wait(timeout: .now() + HistoryNode.answerLimit.inSeconds * 2) == .success
        #expect(stopped, "the clients did not stop")
        // The last writes reach every node within the calm bound.
        Thread.sleep(forTimeInterval: settings.bounds.calm.inSeconds)
        fleet.readEverything(settings.workload.keyNames)

        let history = recorder.history
        let verdict = HistoryChecker(history, bounds: settings.bounds).check()
        let report = HistoryReport(history: history, verdict: verdict, bounds: settings.bounds, header: settings.header)
        // A failure's issue carries the report; a passing run prints it for its numbers.
        if verdict.passed { print(report.text) } else { Issue.record(Comment(rawValue: report.text)) }
    }
}
