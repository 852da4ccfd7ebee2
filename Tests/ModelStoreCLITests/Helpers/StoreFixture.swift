import Foundation
import ModelStore
import ModelStoreTestSupport

/// A root directory of stores for one test, filled with the library and then closed, so the
/// tool (another process) can open them.
///
/// The root is a ``TemporaryDirectory``: removed when the test process exits.
struct StoreFixture {
    /// The moment records written by ``write(_:in:storedAgo:codec:)`` are dated from.
    static let now = Date()

    let root = TemporaryDirectory().url

    /// `--root` and the root's path, for the tool's command lines.
    var rootArguments: [String] { ["--root", root.path] }

    /// This root, with the real clock, and without the background finisher of interrupted
    /// deletions: a test that leaves a `.modelstore-trash-*` folder for the tool to find would
    /// otherwise race the finisher its own fixture's open started (it removed the folder the
    /// test was still filling). The tool itself never finishes deletions while it inspects.
    var baseConfiguration: ModelStore.Configuration {
        var configuration = ModelStore.Configuration()
        configuration.directory = root
        configuration.finishesInterruptedDeletions = false
        return configuration
    }

    /// A configuration for this root whose clock says `storedAgo` seconds before ``now``.
    func configuration(storedAgo: TimeInterval = 0, codec: (any ModelCodec)? = nil) -> ModelStore.Configuration {
        var configuration = baseConfiguration
        let date = Self.now.addingTimeInterval(-storedAgo)
        configuration.now = { date }
        if let codec { configuration.codec = codec }
        return configuration
    }

    /// Stores `models` (key to model) in database `name`, dated `storedAgo` seconds ago, and
    /// closes the database again. The open records `policy` in the database.
    func write<Model: Encodable>(
        _ models: [String: Model], in name: String, storedAgo: TimeInterval = 0, codec: (any ModelCodec)? = nil,
        policy: UpdatePolicy = .never
    ) throws {
        let store = try Self.open(
            name, policy: policy, configuration: configuration(storedAgo: storedAgo, codec: codec))
        for (key, model) in models {
            try store.set(model, forKey: key)
        }
        try store.close()
    }

    /// Stores `models` in database `name` as a release from before policy records did: the
    /// database records no policy.
    func writeWithoutRecordedPolicy<Model: Encodable>(
        _ models: [String: Model], in name: String, storedAgo: TimeInterval = 0, policy: UpdatePolicy = .never
    ) throws {
        var configuration = configuration(storedAgo: storedAgo)
        configuration.recordsPolicies = false
        let store = try Self.open(name, policy: policy, configuration: configuration)
        for (key, model) in models {
            try store.set(model, forKey: key)
        }
        try store.close()
    }

    /// Opens database `name` with the real clock (the caller closes it).
    func open(_ name: String, policy: UpdatePolicy = .never) throws -> ModelStore {
        try Self.open(name, policy: policy, configuration: baseConfiguration)
    }

    /// Opens database `name` with a clock `storedAgo` seconds before ``now`` (the caller closes it).
    func open(_ name: String, policy: UpdatePolicy, storedAgo: TimeInterval) throws -> ModelStore {
        try Self.open(name, policy: policy, configuration: configuration(storedAgo: storedAgo))
    }

    /// Opens a store, retrying briefly while it reads as locked.
    ///
    /// Tests run in parallel and spawn processes. Between fork and exec a child holds copies
    /// of the test process's descriptors, among them the flock on a database this process
    /// just closed; for that instant a reopen here reads as "locked by another process".
    private static func open(
        _ name: String, policy: UpdatePolicy, configuration: ModelStore.Configuration
    ) throws -> ModelStore {
        var attempt = 0
        while true {
            do {
                return try ModelStore(name: name, policy: policy, configuration: configuration)
            } catch ModelStoreError.locked where attempt < 50 {
                attempt += 1
                usleep(10_000)
            }
        }
    }

    /// Whether the root holds an entry called `name`.
    func contains(_ name: String) -> Bool {
        FileManager.default.fileExists(atPath: root.appendingPathComponent(name).path)
    }
}

/// A small model for the stores the tests build.
struct Book: Codable, Equatable {
    var title: String
    var pages: Int
    var price: Double
    var tags: [String]
    var subtitle: String?
}

extension Book {
    static func sample(_ title: String = "Notes") -> Book {
        Book(title: title, pages: 42, price: 12.5, tags: ["math", "history"], subtitle: nil)
    }
}

/// A codec that claims the JSON identifier but writes JSON cut in half, like a damaged record.
struct TruncatedJSONCodec: ModelCodec {
    var identifier: ModelCodecIdentifier { .json }

    func encode<Value: Encodable>(_ value: Value) throws -> Data {
        let json = try JSONEncoder().encode(value)
        return json.prefix(json.count / 2)
    }

    func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        try JSONDecoder().decode(type, from: data)
    }
}

/// A codec the tool cannot read: its identifier is a custom one, so only a store configured
/// with it could decode the records.
struct ReversedJSONCodec: ModelCodec {
    var identifier: ModelCodecIdentifier { .custom(7) }

    func encode<Value: Encodable>(_ value: Value) throws -> Data {
        Data(try JSONEncoder().encode(value).reversed())
    }

    func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        try JSONDecoder().decode(type, from: Data(data.reversed()))
    }
}
