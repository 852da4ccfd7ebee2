import Foundation
import ModelStoreTestSupport

/// The clients of a history run: threads that send random `set`, `remove` and `get` of a few
/// keys to random nodes until told to stop, and record each operation.
///
/// Writes go to a few *hot* keys that change every `slot`; reads go to every key. A key written
/// all the time always has a write within the bound before any read, which excuses any value
/// (or a nil: a recent removal); keys that rest for longer than the bound are where a stale or
/// lost value shows.
struct HistoryWorkload: Sendable {
    /// The key space: `k0` … `k(keys-1)`; small, so that writes of one key overlap and reads
    /// often follow a recent write.
    var keys = 20
    /// How many keys take writes at a time.
    var hotKeyCount = 5
    /// How long a set of hot keys lasts; longer than the bounds, so that the others rest.
    var slot: Duration = .seconds(2)
    /// How many client threads run at once.
    var clients = 4
    /// Out of 100 operations, how many are reads.
    var readShare = 60
    /// Out of 100 operations, how many are `set`s (the rest, after the reads, are removals).
    var setShare = 30

    /// The keys' names.
    var keyNames: [String] { (0..<keys).map { "k\($0)" } }

    /// Starts the clients, each with its own generator derived from `seed`; `group` is left
    /// when all have stopped (after `stop` is raised, once their current request ends).
    func start(seed: UInt64, fleet: HistoryFleet, stop: HistoryStop, group: DispatchGroup) {
        for client in 0..<clients {
            group.enter()
            let thread = Thread {
                // Each client's stream differs from the injector's (which uses the seed itself).
                var generator = SeededGenerator(seed: seed &+ UInt64(client + 1) &* 0x9E37_79B9_7F4A_7C15)
                run(client, seed: seed, fleet: fleet, stop: stop, generator: &generator)
                group.leave()
            }
            thread.name = "history-client-\(client)"
            thread.start()
        }
    }

    /// One client's loop.
    private func run(
        _ client: Int, seed: UInt64, fleet: HistoryFleet, stop: HistoryStop, generator: inout SeededGenerator
    ) {
        var serial = 0
        while !stop.isRaised {
            let node = fleet.nodes.randomElement(using: &generator)!
            let roll = Int.random(in: 0..<100, using: &generator)
            let key =
                roll < readShare
                ? "k\(Int.random(in: 0..<keys, using: &generator))"
                : hotKeys(at: fleet.recorder.now(), seed: seed).randomElement(using: &generator)!
            let action: HistoryOperation.Action
            let line: String
            if roll < readShare {
                (action, line) = (.get, "get \(key)")
            } else if roll < readShare + setShare {
                // Unique across the run: a read's value names the one write that wrote it.
                let value = "c\(client)-\(serial)"
                serial += 1
                (action, line) = (.set(value), "set \(key) \(value)")
            } else {
                (action, line) = (.remove, "remove \(key)")
            }
            if let exchange = node.ask(line) {
                fleet.recorder.record(
                    HistoryOperation(
                        key: key, node: node.index, action: action, start: exchange.start, end: exchange.end,
                        outcome: outcome(of: action, answer: exchange.answer, node: node.index, fleet: fleet)))
            }
            // A short, random pause: the nodes, Redis and the test share two cores with other builds.
            usleep(UInt32.random(in: 0...4_000, using: &generator))
        }
    }

    /// The keys that take writes at `time`: the same for every client, drawn from `seed` and the slot.
    func hotKeys(at time: Duration, seed: UInt64) -> ArraySlice<String> {
        let slotIndex = UInt64(max(0, time / slot))
        var generator = SeededGenerator(seed: seed ^ (slotIndex &* 0xD1B5_4A32_D192_ED03))
        return keyNames.shuffled(using: &generator).prefix(hotKeyCount)
    }

    /// What an answer means for `action`; an answer the node should never give is a failure.
    private func outcome(
        of action: HistoryOperation.Action, answer: String?, node: Int, fleet: HistoryFleet
    ) -> HistoryOperation.Outcome {
        guard let answer else { return .indeterminate }
        if action == .get { return .read(answer == "nil" ? nil : answer) }
        if answer == "ok" { return .acknowledged }
        let failure = HistoryNodeFailure(node: node, at: fleet.recorder.now(), what: "answered `\(answer)` to a write")
        fleet.recorder.record(failure)
        return .indeterminate
    }
}

/// A flag the test raises to stop the clients.
final class HistoryStop: @unchecked Sendable {
    // @unchecked: `raised` is only touched under `lock`.
    private let lock = NSLock()
    private var raised = false

    /// Whether the clients should stop.
    var isRaised: Bool { lock.withLock { raised } }

    /// Tells the clients to stop after their current request.
    func raise() {
        lock.withLock { raised = true }
    }
}
