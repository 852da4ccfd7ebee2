import Foundation

/// A count that several threads or processes' handlers add to (fetches made, calls seen).
public final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    public init() {}

    /// Adds one.
    public func add() {
        lock.lock()
        count += 1
        lock.unlock()
    }

    /// The count so far.
    public var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
}
