import Foundation

/// One operation a client of the history test issued to one node, with when it ran and what
/// came back. Times are durations since the run's origin, read from the test process's
/// `ContinuousClock`, so every process's operations share one timeline.
struct HistoryOperation: Sendable, Equatable {
    /// What the client asked.
    enum Action: Sendable, Equatable {
        /// `set KEY VALUE`; values are unique across the run, so a read names the write it saw.
        case set(String)
        /// `remove KEY`.
        case remove
        /// `get KEY`.
        case get
    }

    /// What came back.
    enum Outcome: Sendable, Equatable {
        /// A write the node answered `ok` for.
        case acknowledged
        /// A read's answer; nil: the node found nothing.
        case read(String?)
        /// No answer: the node was killed, ended, or did not answer in time. A write may or may
        /// not have happened (it cannot happen later: the client records this only once the
        /// process is gone); a read tells nothing.
        case indeterminate
    }

    /// The key it read or wrote.
    var key: String
    /// The node's index (`n0`, `n1`, …).
    var node: Int
    /// What was asked.
    var action: Action
    /// When the client sent the request.
    var start: Duration
    /// When the answer arrived, or when the client knew none would.
    var end: Duration
    /// What came back.
    var outcome: Outcome

    /// Whether this is a `set` or a `remove`, whatever its outcome.
    var isWrite: Bool { action != .get }

    /// Whether this is a write the node acknowledged: one that must never be lost or undone.
    var isAcknowledgedWrite: Bool { isWrite && outcome == .acknowledged }
}

/// A fault the history test injected, as it happened.
struct HistoryFault: Sendable, Equatable {
    /// What was done (``FleetFault``'s description).
    var description: String
    /// When it started.
    var start: Duration
    /// When the fleet was whole again (Redis answering, the node restarted or resumed).
    var end: Duration
    /// Which nodes it cut off from the others' writes while it lasted; nil: none.
    var isolates: HistoryIsolation? = nil
}

/// Nodes a fault cut off from each other's writes: while Redis is down, every node serves its
/// own local tiers (the RunningAFleet article: "until Redis answers"); a paused node reads no
/// invalidations. A write acknowledged meanwhile reaches such a node only after the fault ends.
enum HistoryIsolation: Sendable, Equatable {
    /// Every node from every other (Redis down).
    case everyNode
    /// One node from the others (paused).
    case node(Int)

    /// Whether a write made on `writer` (nil: the key's initial absence) may not reach `reader`.
    func separates(writer: Int?, reader: Int) -> Bool {
        switch self {
        case .everyNode: true
        case .node(let node): node == reader || node == writer
        }
    }
}

/// Something a node did that no fault explains: it ended by itself, or did not answer in time.
/// Each is a failure of the run, whatever the reads show.
struct HistoryNodeFailure: Sendable, Equatable {
    /// The node's index.
    var node: Int
    /// When the test noticed.
    var at: Duration
    /// What happened, in words.
    var what: String
}

/// Everything one run recorded: the clients' operations, the faults, the nodes' failures, and
/// the final read of every key on every node (after the faults stopped and the fleet settled).
struct History: Sendable {
    /// The clients' operations, in the order they started.
    var operations: [HistoryOperation] = []
    /// The injected faults, in the order they happened.
    var faults: [HistoryFault] = []
    /// What nodes did that no fault explains.
    var nodeFailures: [HistoryNodeFailure] = []
    /// One `get` per key and node, made after the clients stopped.
    var finalReads: [HistoryOperation] = []
}

/// Collects a ``History`` from the clients' threads, the fault injector and the final reads,
/// all on one clock.
final class HistoryRecorder: @unchecked Sendable {
    // @unchecked: `history` is only touched under `lock`; `origin` and `clock` never change.
    private let lock = NSLock()
    private var recorded = History()
    private let clock = ContinuousClock()
    private let origin: ContinuousClock.Instant

    init() {
        origin = clock.now
    }

    /// The time since the run's origin.
    func now() -> Duration {
        clock.now - origin
    }

    /// Adds a client's operation.
    func record(_ operation: HistoryOperation) {
        lock.withLock { recorded.operations.append(operation) }
    }

    /// Adds an injected fault once it is over.
    func record(_ fault: HistoryFault) {
        lock.withLock { recorded.faults.append(fault) }
    }

    /// Adds a node's failure.
    func record(_ failure: HistoryNodeFailure) {
        lock.withLock { recorded.nodeFailures.append(failure) }
    }

    /// Adds one of the final reads.
    func recordFinal(_ read: HistoryOperation) {
        lock.withLock { recorded.finalReads.append(read) }
    }

    /// What was recorded so far, operations in the order they started.
    var history: History {
        var history = lock.withLock { recorded }
        history.operations.sort { $0.start < $1.start }
        return history
    }
}

extension Duration {
    /// The duration in seconds, for sleeping and printing.
    var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
