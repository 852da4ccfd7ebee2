import Foundation
import Logging
@testable import ModelStore
import ModelStoreTestSupport

/// A swift-log handler that keeps messages in memory, so tests can assert what ModelStore
/// logged, and keeps expected errors out of the test output.
final class LogCapture: @unchecked Sendable {
    // @unchecked: `entries` is only touched under `lock`.
    struct Entry: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: [String: String]
    }

    private let lock = NSLock()
    private var entries: [Entry] = []

    var logger: Logger {
        Logger(label: "ModelStoreTests") { _ in Handler(capture: self) }
    }

    var all: [Entry] {
        lock.lock(); defer { lock.unlock() }
        return entries
    }

    fileprivate func append(_ entry: Entry) {
        lock.lock(); defer { lock.unlock() }
        entries.append(entry)
    }

    private struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }
            capture.append(Entry(
                level: event.level, message: event.message.description,
                metadata: merged.mapValues { "\($0)" }))
        }
    }
}

extension Fixture {
    /// The fixture's configuration with logs captured instead of printed.
    func configuration(logs: LogCapture) -> ModelStore.Configuration {
        var configuration = configuration
        configuration.logger = logs.logger
        return configuration
    }

    /// The fixture's configuration with logging silenced (expected failures stay quiet).
    var quietConfiguration: ModelStore.Configuration {
        configuration(logs: LogCapture())
    }
}

extension Fixture {
    /// Opens `name` with logging silenced.
    func openQuietly(_ name: String = "db", policy: UpdatePolicy = .never) throws -> ModelStore {
        try ModelStore(name: name, policy: policy, configuration: quietConfiguration)
    }
}
