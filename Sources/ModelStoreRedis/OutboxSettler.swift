import Dispatch

/// Lets outbox entries go once Redis has kept what they published for ``RedisPublisher/settleDelay``,
/// and only then: the other nodes have read the stream's entry by that time, unless Redis lost
/// its data first, and then the writer must still hold the entry to publish it again
/// (``RedisPublisher/republishOutboxes()``).
///
/// A timer alone is not enough. A write published just before Redis is killed, with Redis down
/// for longer than the delay, would be let go while no node could have read its entry; Redis then
/// comes back empty and the nodes that held the older record keep it for good. So when the delay
/// has passed, one check (for every entry due) asks Redis whether the epoch the entry was
/// published under is still there and its counter has not gone back below the entry's number:
/// - yes: the entries go;
/// - another epoch, or a counter gone back: they stay (the loss's republication sends them again
///   and settles them anew);
/// - Redis unreachable: they stay, and the check is made again shortly.
final class OutboxSettler: Sendable {
    private let pool: RedisPool
    private let keys: RedisKeys
    /// The publisher's serial queue: settling writes to the database's outbox, off Swift's
    /// cooperative pool, in order with the publications.
    private let queue: DispatchQueue
    private let delay: Duration
    private let state = Guarded(State())

    /// How much later than due a check may come, so one check settles the publications of a
    /// tenth of a second (a busy writer publishes a batch per round trip).
    static let coalescing: Duration = .milliseconds(100)

    /// What one publication lets go once Redis kept it.
    private struct Settlement: Sendable {
        var due: ContinuousClock.Instant
        /// The epoch the publication's script checked.
        var epoch: [UInt8]
        /// The stream entry's number (0: none known).
        var sequence: Int64
        /// Lets the outbox entries go.
        var settle: @Sendable () -> Void
    }

    private struct State {
        var waiting: [Settlement] = []
        var timerArmed = false
    }

    init(pool: RedisPool, keys: RedisKeys, queue: DispatchQueue, delay: Duration) {
        self.pool = pool
        self.keys = keys
        self.queue = queue
        self.delay = delay
    }

    /// Lets what `settle` names go once Redis kept it for the delay under `epoch`, its counter at
    /// `sequence` or past it.
    func settle(epoch: [UInt8], sequence: Int64, _ settle: @escaping @Sendable () -> Void) {
        let settlement = Settlement(due: .now + delay, epoch: epoch, sequence: sequence, settle: settle)
        let arm = state.withLock { state -> Bool in
            state.waiting.append(settlement)
            defer { state.timerArmed = true }
            return !state.timerArmed
        }
        if arm { schedule(after: delay + Self.coalescing) }
    }

    private func schedule(after wait: Duration) {
        queue.asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds(wait)))) { [self] in fire() }
    }

    /// Settles (or keeps) every settlement that is due, with one check; arms the timer again for
    /// the next one due.
    private func fire() {
        let now = ContinuousClock.now
        let due = state.withLock { state -> [Settlement] in
            let due = state.waiting.filter { $0.due <= now }
            state.waiting.removeAll { $0.due <= now }
            return due
        }
        var retry: [Settlement] = []
        if !due.isEmpty {
            let replies = pool.run { [keys] connection in
                try connection.pipeline([[Array("GET".utf8), keys.epoch], [Array("GET".utf8), keys.sequence]])
            }
            if case .success(let replies) = replies, replies.count == 2 {
                let epoch = replies[0].bytes
                let counter = replies[1].integer
                for settlement in due where settlement.epoch == epoch && (counter ?? 0) >= settlement.sequence {
                    settlement.settle()
                }
            } else {
                retry = due
            }
        }
        let next = state.withLock { state -> Duration? in
            if !retry.isEmpty { state.waiting.insert(contentsOf: retry, at: 0) }
            guard !state.waiting.isEmpty else {
                state.timerArmed = false
                return nil
            }
            if !retry.isEmpty { return RedisPool.longestBackgroundBackoff }
            let first = state.waiting.map(\.due).min()!
            return max(.zero, first - .now) + Self.coalescing
        }
        if let next { schedule(after: next) }
    }
}
