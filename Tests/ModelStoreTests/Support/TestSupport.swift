import Foundation
import ModelStore

/// A fresh directory under the system's temporary directory, removed when released.
final class TemporaryDirectory: @unchecked Sendable {
    // @unchecked: immutable after init.
    let url: URL

    init() {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("ModelStoreTests-\(UUID().uuidString)", isDirectory: true)
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    var path: String { url.path }

    /// The names of the entries directly inside the directory.
    func entries() -> Set<String> {
        Set((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [])
    }
}

/// A clock the test moves by hand, so expiry is tested without sleeping.
final class TestClock: @unchecked Sendable {
    // @unchecked: `current` is guarded by `lock`.
    private let lock = NSLock()
    private var current: Date

    init(_ start: Date = Date(timeIntervalSinceReferenceDate: 800_000_000)) {
        current = start
    }

    var now: Date {
        lock.lock(); defer { lock.unlock() }
        return current
    }

    func advance(by seconds: TimeInterval) {
        lock.lock(); defer { lock.unlock() }
        current = current.addingTimeInterval(seconds)
    }

    func set(_ date: Date) {
        lock.lock(); defer { lock.unlock() }
        current = date
    }
}

/// One test's playground: a root directory, a clock, and a way to open stores in it.
struct Fixture {
    let directory = TemporaryDirectory()
    let clock = TestClock()

    var configuration: ModelStore.Configuration {
        var configuration = ModelStore.Configuration()
        configuration.directory = directory.url
        let clock = clock
        configuration.now = { clock.now }
        return configuration
    }

    func open(_ name: String = "db", policy: UpdatePolicy = .never) throws -> ModelStore {
        try ModelStore(name: name, policy: policy, configuration: configuration)
    }

    func open(_ name: String = "db", policy: UpdatePolicy = .never, codec: any ModelCodec) throws -> ModelStore {
        var configuration = configuration
        configuration.codec = codec
        return try ModelStore(name: name, policy: policy, configuration: configuration)
    }
}

struct Book: Codable, Equatable, Hashable, Sendable {
    var name: String
    var price: Double
}

struct User: Codable, Equatable, Hashable, Sendable {
    var userName: String
    var book: Book
}

extension User {
    static func sample(_ name: String = "ada") -> User {
        User(userName: name, book: Book(name: "Notes on the Analytical Engine", price: 12.5))
    }
}

/// Extracts the case name of a ModelStoreError so tests can assert on it compactly.
func errorCase(_ body: () throws -> Void) -> String? {
    do {
        try body()
        return nil
    } catch let error as ModelStoreError {
        return String(describing: Mirror(reflecting: error).children.first?.label ?? "\(error)")
    } catch {
        return "unexpected: \(error)"
    }
}
