import Synchronization

/// Counts the user requests a server has answered, so tests can assert how many fetches the
/// client's cache let through.
///
/// A final class over a `Mutex` rather than an actor: route handlers bump it and tests read
/// it, and neither should have to hop executors for an integer.
public final class RequestCounter: Sendable {
    private let count = Mutex(0)

    /// Creates a counter at zero.
    public init() {}

    /// The number of requests counted so far.
    public var value: Int {
        count.withLock { $0 }
    }

    /// Counts one more request and returns the new total.
    func increment() -> Int {
        count.withLock { value in
            value += 1
            return value
        }
    }
}
