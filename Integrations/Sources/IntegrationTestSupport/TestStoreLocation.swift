public import Foundation
public import ModelStore

/// A clock the test moves by hand, so expiry is tested without sleeping.
public final class TestClock: @unchecked Sendable {
    // @unchecked: `current` is only touched under `lock`.
    private let lock = NSLock()
    private var current = Date(timeIntervalSinceReferenceDate: 800_000_000)

    /// Creates a clock at a fixed moment.
    public init() {}

    /// The clock's current time.
    public var now: Date { lock.withLock { current } }

    /// Moves the clock forward by `seconds`.
    public func advance(by seconds: TimeInterval) {
        lock.withLock { current += seconds }
    }
}

/// Where one driver test keeps its databases: a fresh temporary directory and a clock, shared
/// by the Hummingbird and Vapor driver tests' fixtures.
public struct TestStoreLocation: Sendable {
    /// The root directory of the test's databases.
    public let directory: URL
    /// The clock every store of the test reads.
    public let clock = TestClock()

    /// A new directory named after the test target (`label`) and a unique id.
    public init(label: String) {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(label)-\(UUID().uuidString)", isDirectory: true)
    }

    /// A configuration for stores in ``directory`` that read ``clock``.
    public var configuration: ModelStore.Configuration {
        var configuration = ModelStore.Configuration()
        configuration.directory = directory
        let clock = clock
        configuration.now = { clock.now }
        return configuration
    }

    /// Deletes the directory and everything in it.
    public func remove() {
        try? FileManager.default.removeItem(at: directory)
    }
}
