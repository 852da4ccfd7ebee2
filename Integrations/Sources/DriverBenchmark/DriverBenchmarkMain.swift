// driver-bench: the server side of `make bench-drivers`.
//
//   DriverBenchmark --variant none|memory|modelstore --directory DIR [--object-cache N]
//
// Serves GET /users/:id on 127.0.0.1 (a free port, printed as "PORT n") from a simulated
// upstream that takes 5 ms per call, through no cache, Hummingbird's MemoryPersistDriver or
// ModelStorePersistDriver; GET /stats answers "hits misses". SIGTERM or SIGINT stops it.
import Foundation
import Hummingbird
import Logging
import ModelStore
import ModelStoreHummingbird

/// The model the upstream returns.
struct User: Codable, Sendable, ResponseEncodable {
    let id: String
    let name: String
    let email: String
    let bio: String
}

/// Counts cache hits and misses for /stats.
final class HitCounter: @unchecked Sendable {
    // @unchecked: both counts are only touched under `lock`.
    private let lock = NSLock()
    private var hits = 0
    private var misses = 0

    func record(hit: Bool) {
        lock.withLock { if hit { hits += 1 } else { misses += 1 } }
    }

    var summary: String { lock.withLock { "\(hits) \(misses)" } }
}

/// The simulated upstream: 5 ms of waiting (not CPU), then a made-up user.
func fetchFromUpstream(_ id: String) async throws -> User {
    try await Task.sleep(for: .milliseconds(5))
    return User(id: id, name: "User \(id)", email: "\(id)@example.com", bio: String(repeating: "x", count: 200))
}

enum Variant: String {
    case none, memory, modelstore
}

func argument(_ name: String) -> String? {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

guard let variant = argument("--variant").flatMap(Variant.init(rawValue:)) else {
    FileHandle.standardError.write(Data("usage: DriverBenchmark --variant none|memory|modelstore --directory DIR\n".utf8))
    exit(2)
}

var logger = Logger(label: "driver-bench")
logger.logLevel = .warning

let persist: (any PersistDriver)?
switch variant {
case .none:
    persist = nil
case .memory:
    persist = MemoryPersistDriver()
case .modelstore:
    var configuration = ModelStore.Configuration()
    configuration.directory = URL(fileURLWithPath: argument("--directory") ?? "/tmp/driver-bench", isDirectory: true)
    // ModelStore's in-memory cache of decoded models (off by default): a hit then skips
    // LevelDB and the JSON decoder, as the memory driver does. 0 measures the disk path.
    configuration.objectCacheLimit = argument("--object-cache").flatMap(Int.init) ?? 10_000
    persist = try ModelStorePersistDriver(name: "users", configuration: configuration)
}

let counter = HitCounter()
let router = Router()
router.get("users/:id") { _, context -> User in
    let id = try context.parameters.require("id")
    guard let persist else { return try await fetchFromUpstream(id) }
    let key = "user:\(id)"
    if let cached = try await persist.get(key: key, as: User.self) {
        counter.record(hit: true)
        return cached
    }
    counter.record(hit: false)
    let user = try await fetchFromUpstream(id)
    try await persist.set(key: key, value: user, expires: .seconds(3600))
    return user
}
router.get("stats") { _, _ -> String in counter.summary }

let app = Application(
    router: router,
    configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0), serverName: "driver-bench"),
    services: persist.map { [$0] } ?? [],
    onServerRunning: { channel in
        // Unbuffered: the script waits for this line.
        FileHandle.standardOutput.write(Data("PORT \(channel.localAddress?.port ?? 0)\n".utf8))
    },
    logger: logger)
// Shuts down gracefully on SIGTERM or SIGINT (the drivers' services stop with the app).
try await app.runService()
