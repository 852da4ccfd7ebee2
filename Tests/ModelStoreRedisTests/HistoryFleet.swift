import Foundation

/// The history test's fleet: one `redis-server` and its node processes, each on its own
/// directory, all under one key prefix and Redis database (0).
final class HistoryFleet: @unchecked Sendable {
    // @unchecked: `server` is driven by one thread at a time (the fault injector, then the test
    // once the injector is done); the nodes are thread-safe.
    let server: RedisServer
    let nodes: [HistoryNode]
    let recorder: HistoryRecorder
    /// The key prefix every node uses.
    static let prefix = "history:"

    /// Starts Redis and `count` nodes over it.
    init(nodes count: Int, recorder: HistoryRecorder) throws {
        let server = try RedisServer()
        self.server = server
        self.recorder = recorder
        nodes = try (0..<count).map {
            try HistoryNode(index: $0, port: server.port, prefix: Self.prefix, recorder: recorder)
        }
    }

    /// Reads every key on every node, once the clients stopped, and records the answers as the
    /// history's final reads (a node that does not answer is recorded as a failure).
    func readEverything(_ keys: [String]) {
        for node in nodes {
            for key in keys {
                guard let exchange = node.ask("get \(key)") else {
                    recorder.record(
                        HistoryNodeFailure(node: node.index, at: recorder.now(), what: "down at the final reads"))
                    break
                }
                let outcome: HistoryOperation.Outcome =
                    exchange.answer.map { .read($0 == "nil" ? nil : $0) } ?? .indeterminate
                recorder.recordFinal(
                    HistoryOperation(
                        key: key, node: node.index, action: .get, start: exchange.start, end: exchange.end,
                        outcome: outcome))
            }
        }
    }

    /// Ends every node and Redis; nothing is left running.
    func stop() {
        for node in nodes { node.stop() }
        server.kill()
    }
}
