import Synchronization

/// Counts something a server did, so tests can assert how many requests the client's store
/// let through and how they were answered.
///
/// A final class over a `Mutex` rather than an actor: route handlers bump it and tests read
/// it, and neither should have to hop executors for an integer.
public final class RequestCounter: Sendable {
    private let count = Mutex(0)

    /// Creates a counter at zero.
    public init() {}

    /// The number counted so far.
    public var value: Int {
        count.withLock { $0 }
    }

    /// Counts one more.
    func increment() {
        count.withLock { $0 += 1 }
    }
}

/// What a user server has answered so far.
public struct ServerCounters: Sendable {
    /// Every `GET /users/{id}`, whatever its answer.
    public let requests = RequestCounter()
    /// The user requests answered `304 Not Modified`.
    public let notModified = RequestCounter()
    /// The user requests answered 404.
    public let notFound = RequestCounter()

    /// Creates counters at zero.
    public init() {}
}
