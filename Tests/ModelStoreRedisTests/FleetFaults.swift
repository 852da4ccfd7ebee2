import Foundation
import ModelStoreTestSupport

/// A fault the history test injects into a running fleet, chosen from a seeded generator so
/// that a seed names the run's sequence of faults.
///
/// HOOK, proxy faults: a TCP proxy that sits between each node and Redis is being written on
/// another branch. When it lands, add its faults here, for example `stall(node:for:)` (hold
/// the node's bytes in flight, as packet loss with retransmission back-off does, then release
/// them), `partition(node:for:)` (refuse and drop the node's connections) and `drop(node:)`
/// (reset its connections now); add their kinds to ``Kind`` and ``random(nodes:kinds:using:)``,
/// apply them in ``HistoryFleet/inject(_:)``, and start each node on its proxy's port in
/// ``HistoryFleet/init(nodes:recorder:)``.
enum FleetFault: Sendable, Equatable, CustomStringConvertible {
    /// Redis SIGKILLed, kept down for a while, then started again empty.
    case redisKilled(downFor: Duration)
    /// Redis shut down cleanly without saving and started again at once: empty, as a cache
    /// Redis without persistence is after a restart.
    case redisRestarted
    /// `FLUSHALL`: Redis up, every key gone.
    case flushAll
    /// A node SIGKILLed (a request in flight gets no answer), then started again on its directory.
    case nodeKilled(node: Int, downFor: Duration)
    /// A node stopped (SIGSTOP) and resumed (SIGCONT): it misses nothing on the wire but answers late.
    case nodePaused(node: Int, for: Duration)

    /// The kinds of fault, without their parameters, named as `MODELSTORE_HISTORY_FAULTS` names them.
    enum Kind: String, CaseIterable, Sendable {
        case redisKilled, redisRestarted, flushAll, nodeKilled, nodePaused
    }

    /// A fault of one of `kinds`, with its node and durations drawn from `generator`.
    static func random(
        nodes: Int, kinds: [Kind] = Kind.allCases, using generator: inout SeededGenerator
    ) -> FleetFault {
        let node = Int.random(in: 0..<nodes, using: &generator)
        let duration = Duration.milliseconds(Int.random(in: 100...1_500, using: &generator))
        switch kinds.randomElement(using: &generator)! {
        case .redisKilled: return .redisKilled(downFor: duration)
        case .redisRestarted: return .redisRestarted
        case .flushAll: return .flushAll
        case .nodeKilled: return .nodeKilled(node: node, downFor: duration)
        case .nodePaused: return .nodePaused(node: node, for: duration)
        }
    }

    /// The nodes it cuts off from each other's writes while it lasts (README: with Redis down,
    /// every node serves its own local tiers until Redis answers; a paused node reads nothing);
    /// the checker holds reads to the bound only from its end.
    var isolation: HistoryIsolation? {
        switch self {
        case .redisKilled, .redisRestarted: .everyNode
        case .nodePaused(let node, _): .node(node)
        // Redis answers throughout; a killed node serves no reads, and attaching clears it.
        case .flushAll, .nodeKilled: nil
        }
    }

    /// What the report prints for it.
    var description: String {
        switch self {
        case .redisKilled(let downFor): "Redis killed, down \(HistoryReport.format(downFor)), restarted empty"
        case .redisRestarted: "Redis restarted (SHUTDOWN NOSAVE), empty"
        case .flushAll: "FLUSHALL"
        case .nodeKilled(let node, let downFor):
            "n\(node) killed (-9), down \(HistoryReport.format(downFor)), restarted"
        case .nodePaused(let node, let duration): "n\(node) paused (SIGSTOP) for \(HistoryReport.format(duration))"
        }
    }
}

extension HistoryFleet {
    /// Injects `fault` and records it once the fleet is whole again (Redis answering, the node
    /// ready or resumed). Faults come one at a time: the injector waits for each to end.
    func inject(_ fault: FleetFault) throws {
        let start = recorder.now()
        defer {
            recorder.record(
                HistoryFault(
                    description: fault.description, start: start, end: recorder.now(), isolates: fault.isolation))
        }
        switch fault {
        case .redisKilled(let downFor):
            server.kill()
            Thread.sleep(forTimeInterval: downFor.inSeconds)
            try server.start()
        case .redisRestarted:
            // The connection ends without a reply: SHUTDOWN's success.
            _ = try? server.command(["SHUTDOWN", "NOSAVE"])
            _ = timeUntil { (try? server.command(["PING"])) == nil }
            server.kill()
            try server.start()
        case .flushAll:
            try server.command(["FLUSHALL"])
        case .nodeKilled(let node, let downFor):
            nodes[node].kill()
            Thread.sleep(forTimeInterval: downFor.inSeconds)
            try nodes[node].restart()
        case .nodePaused(let node, let duration):
            nodes[node].pause(for: duration)
        }
    }
}
