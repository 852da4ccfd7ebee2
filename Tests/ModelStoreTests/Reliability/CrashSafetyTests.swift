import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// A helper process writes, and the test kills it with SIGKILL at a random moment, again
/// and again on the same database. After each kill the database must open (with paranoid
/// checks), hold every acknowledged write, hold no damaged record, and show the one write
/// in flight either completely or not at all.
@Suite("Crash safety: SIGKILL in the middle of writes", .serialized)
struct CrashSafetyTests {
    /// Rounds per test; `MODELSTORE_CRASH_ROUNDS` raises them for a longer local soak.
    static let rounds = ProcessInfo.processInfo.environment["MODELSTORE_CRASH_ROUNDS"].flatMap { Int($0) } ?? 50

    @Test("Every acknowledged write survives SIGKILL; batches, multi-key removals and import chunks are all-or-nothing (50 rounds)", .long)
    func killDuringWrites() throws {
        let summary = try runCrashRounds(rounds: Self.rounds, seed: 0xC0FFEE, sync: false)
        print("crash rounds (non-sync): \(summary)")
    }

    @Test("Sync writes survive SIGKILL the same way (10 rounds)", .long)
    func killDuringSyncWrites() throws {
        let summary = try runCrashRounds(rounds: max(10, Self.rounds / 5), seed: 0x5EED, sync: true)
        print("crash rounds (sync): \(summary)")
    }

    struct Summary: CustomStringConvertible {
        var rounds = 0
        var acknowledged = 0
        var inFlightApplied = 0
        var inFlightDropped = 0
        var killedBeforeReady = 0
        var kinds: [String: Int] = [:]
        var description: String {
            "\(rounds) rounds, \(acknowledged) acknowledged operations verified "
                + "(\(kinds.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))), "
                + "in-flight operation applied \(inFlightApplied)x / absent \(inFlightDropped)x, "
                + "\(killedBeforeReady) kills during open"
        }
    }

    private func runCrashRounds(rounds: Int, seed: UInt64, sync: Bool) throws -> Summary {
        let fixture = Fixture()
        var random = SeededGenerator(seed: seed)
        var summary = Summary()
        var nextOp = 1
        for round in 0..<rounds {
            let before = try fixture.crashState()
            var arguments = ["write-mixed", fixture.directory.path, "db", "\(nextOp)", "\(random.next())"]
            if sync { arguments.append("sync") }
            let helper = try ChildProcess.testHelper(arguments)
            var lines: [String] = []
            if round % 5 == 4 {
                // Now and then kill at any moment, possibly while the database is opening.
                usleep(UInt32.random(in: 0..<60_000, using: &random))
            } else {
                // Otherwise let a random number of writes through first, so every such round
                // kills a process that is busy writing however loaded the machine is.
                let target = Int.random(in: 1...(sync ? 6 : 60), using: &random)
                var acks = 0
                while acks < target, let line = helper.readLine() {
                    lines.append(line)
                    if line.hasPrefix("ack ") { acks += 1 }
                }
                try #require(lines.first == "ready", "helper failed: \(lines.first ?? "no output")")
                usleep(UInt32.random(in: 0..<2_000, using: &random))
            }
            helper.kill()
            lines += helper.finish()
            #expect(helper.process.terminationReason == .uncaughtSignal)

            let model = try CrashModel(lines: lines)
            let after = try fixture.crashState()
            let allowed = model.allowedStates(from: before)
            guard let match = allowed.firstIndex(of: after) else {
                Issue.record("""
                    round \(round): database state matches no allowed outcome
                    acknowledged ops: \(model.acknowledged.count), in flight: \(String(describing: model.inFlight))
                    differences from the acknowledged state: \(difference(allowed[0], after))
                    """)
                break
            }
            summary.rounds += 1
            summary.acknowledged += model.acknowledged.count
            summary.kinds.merge(model.kinds, uniquingKeysWith: +)
            if !lines.contains("ready") { summary.killedBeforeReady += 1 }
            if model.inFlight != nil {
                if match == 1 { summary.inFlightApplied += 1 } else { summary.inFlightDropped += 1 }
            }
            nextOp = (model.lastOp ?? nextOp) + 1
        }
        #expect(summary.rounds == rounds)
        #expect(summary.acknowledged > rounds)  // the kills really landed in the middle of writing
        return summary
    }

    private func difference(_ expected: CrashModel.State, _ actual: CrashModel.State) -> String {
        CrashModel.keys.compactMap { key in
            expected[key] == actual[key] ? nil : "\(key): expected \(expected[key].map(String.init) ?? "absent"), "
                + "found \(actual[key].map(String.init) ?? "absent")"
        }.joined(separator: "; ")
    }
}
