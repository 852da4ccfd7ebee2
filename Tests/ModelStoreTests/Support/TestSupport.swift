import Foundation
import ModelStore

/// A fresh directory for one test, under a per-process parent that is removed when the test
/// process exits.
///
/// Directories are not removed when the object is released: a test may drop its fixture
/// while a store opened in it is still in use, and LevelDB's files must not vanish under it.
final class TemporaryDirectory: Sendable {
    let url: URL

    private static let parent: URL = {
        let parent = FileManager.default.temporaryDirectory
            .appendingPathComponent("ModelStoreTests-\(getpid())", isDirectory: true)
        try? FileManager.default.removeItem(at: parent)
        try! FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: TemporaryDirectory.parent) }
        return parent
    }()

    init() {
        url = Self.parent.appendingPathComponent(UUID().uuidString, isDirectory: true)
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
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
