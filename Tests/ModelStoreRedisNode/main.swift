// A node of a fleet for the shared tier's tests: one process with a store over a RedisTier,
// driven line by line on standard input, answering one line per command on standard output.
//
// Usage: ModelStoreRedisNode <redis port> <directory> <key prefix>
// Commands: `set KEY VALUE`, `get KEY`, `remove KEY`, `fetch KEY DELAY_MS CALLERS` (CALLERS
// concurrent read-throughs of KEY whose fetch takes DELAY_MS; answers `fetches N values V,…`),
// `hold KEY` (a read-through whose fetch never ends; answers `holding` once it fetches),
// `await KEY VALUE LIMIT_MS` (answers the microseconds until KEY reads VALUE locally), `quit`.
import Foundation
import Logging
import ModelStore
import ModelStoreRedis
import ModelStoreTestSupport

struct Profile: Codable, Sendable, Equatable {
    var value: String
}

// SIGPIPE's default action, as any Swift program has it: the test process that starts this one
// ignores SIGPIPE (its in-process nodes meet reset connections), and an ignored signal stays
// ignored across exec.
signal(SIGPIPE, SIG_DFL)

let arguments = CommandLine.arguments
guard arguments.count == 4, let port = Int(arguments[1]) else {
    FileHandle.standardError.write(Data("usage: ModelStoreRedisNode <port> <directory> <prefix>\n".utf8))
    exit(2)
}

/// Writes one line of output at once (standard output is a pipe: `print` would buffer it).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

// MODELSTORE_REDIS_LOCK_MS shortens the fetch lock's lifetime, for the test that kills its holder.
let lockMilliseconds = ProcessInfo.processInfo.environment["MODELSTORE_REDIS_LOCK_MS"].flatMap { Int($0) } ?? 5_000
// MODELSTORE_REDIS_STREAM_LENGTH shortens the stream, for the test that trims it past a paused node.
let streamLength = ProcessInfo.processInfo.environment["MODELSTORE_REDIS_STREAM_LENGTH"].flatMap { Int($0) } ?? 100_000
// The log names the node (its directory) and its process, so a fleet's interleaved logs can be
// told apart; MODELSTORE_NODE_LOG_LEVEL (`debug`, `trace`) shows more of what the tier does.
var logger = Logger(label: "ModelStoreRedis[\(URL(fileURLWithPath: arguments[2]).lastPathComponent) \(getpid())]")
logger.logLevel = ProcessInfo.processInfo.environment["MODELSTORE_NODE_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
let tier = try RedisTier(
    host: "127.0.0.1", port: port, keyPrefix: arguments[3], commandTimeout: .milliseconds(500),
    streamLength: streamLength, fetchLockLifetime: .milliseconds(lockMilliseconds), logger: logger)
var configuration = ModelStore.Configuration()
configuration.directory = URL(fileURLWithPath: arguments[2])
configuration.sharedTier = tier
let store = try ModelStore(name: "fleet", policy: .never, configuration: configuration)
let fetches = Counter()

say("ready")
while let line = readLine() {
    let words = line.split(separator: " ").map(String.init)
    guard let command = words.first else { continue }
    switch command {
    case "set":
        try store.set(Profile(value: words[2]), forKey: words[1])
        say("ok")
    case "get":
        say(try store.object(Profile.self, forKey: words[1])?.value ?? "nil")
    case "remove":
        try store.removeObject(forKey: words[1])
        say("ok")
    case "fetch":
        let key = words[1]
        let delay = Int(words[2]) ?? 0
        let callers = Int(words[3]) ?? 1
        let before = fetches.value
        let values = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<callers {
                group.addTask {
                    var options = ReadThroughOptions()
                    options.hardTimeout = .seconds(20)
                    let profile = try await store.object(Profile.self, forKey: key, options: options) { _ in
                        fetches.add()
                        try await Task.sleep(for: .milliseconds(delay))
                        return .value(Profile(value: "fetched-by-\(getpid())"))
                    }
                    return profile?.value ?? "nil"
                }
            }
            var values: [String] = []
            for try await value in group { values.append(value) }
            return values
        }
        say("fetches \(fetches.value - before) values \(Set(values).sorted().joined(separator: ","))")
    case "hold":
        let key = words[1]
        // Detached: top-level code runs on the main actor, whose thread is blocked reading stdin.
        Task.detached {
            _ = try await store.object(Profile.self, forKey: key, options: ReadThroughOptions()) { _ in
                say("holding")
                try await Task.sleep(for: .seconds(3600))
                return .value(Profile(value: "never"))
            }
        }
    case "await":
        // `await KEY VALUE LIMIT_MS`: polls the local store until KEY reads VALUE (`nil`: none);
        // answers the microseconds it took, or `timeout`.
        let key = words[1]
        let expected = words[2] == "nil" ? nil : words[2]
        let limit = Duration.milliseconds(Int(words[3]) ?? 1_000)
        let clock = ContinuousClock()
        let start = clock.now
        var answer = "timeout"
        while clock.now - start < limit {
            if try store.object(Profile.self, forKey: key)?.value == expected {
                let elapsed = clock.now - start
                answer = String(elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000)
                break
            }
            usleep(200)
        }
        say(answer)
    case "quit":
        exit(0)
    default:
        say("unknown \(command)")
    }
}
