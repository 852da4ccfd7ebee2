import Foundation

/// Fans changes out to every ``ModelStore/changes(bufferingPolicy:)`` stream of a database.
///
/// Writers check ``isObserved`` first, so with no observer a write pays one atomic load and
/// builds no change values.
final class ChangeBroadcaster: Sendable {
    private let subscribers = Locked<[Int: AsyncStream<ModelStore.Change>.Continuation]>([:])
    /// `subscribers.count`, set under its lock, so that writers read it without the lock (one
    /// every write takes would make concurrent writers queue on it).
    private let subscriberCount = AtomicWord()
    private let nextID = Locked(0)
    private let finished = Locked(false)

    var isObserved: Bool {
        subscriberCount.load() != 0
    }

    func subscribe(
        bufferingPolicy: AsyncStream<ModelStore.Change>.Continuation.BufferingPolicy
    ) -> AsyncStream<ModelStore.Change> {
        let (stream, continuation) = AsyncStream.makeStream(of: ModelStore.Change.self, bufferingPolicy: bufferingPolicy)
        if finished.withLock({ $0 }) {
            continuation.finish()
            return stream
        }
        let id = nextID.withLock { id -> Int in
            id += 1
            return id
        }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            subscribers.withLock { subscribers in
                subscribers[id] = nil
                subscriberCount.store(UInt64(subscribers.count))
            }
        }
        subscribers.withLock { subscribers in
            subscribers[id] = continuation
            subscriberCount.store(UInt64(subscribers.count))
        }
        return stream
    }

    /// Hands `changes` to every stream, in order.
    func publish(_ changes: [ModelStore.Change]) {
        for continuation in subscribers.withLock({ Array($0.values) }) {
            for change in changes { continuation.yield(change) }
        }
    }

    /// Ends every stream; called when the database closes.
    func finishAll() {
        finished.withLock { $0 = true }
        let continuations = subscribers.withLock { subscribers in
            defer {
                subscribers.removeAll()
                subscriberCount.store(0)
            }
            return Array(subscribers.values)
        }
        for continuation in continuations { continuation.finish() }
    }
}
