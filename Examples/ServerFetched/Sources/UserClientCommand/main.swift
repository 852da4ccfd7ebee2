// user-client: looks users up through ModelStore's read-through API (ETag revalidation,
// max-age lifetimes, stale copies while the server is down, remembered 404s).
//
//   swift run user-client [--server URL] [--root DIR] [--ttl SECONDS] [--stale SECONDS] [--not-found SECONDS] ID...
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking  // URLError lives here on Linux
#endif
import ModelStore
import UserAPI
import UserClient

/// The command line, parsed by hand: the example is about caching, not argument parsing.
struct Options {
    var server = URL(string: "http://127.0.0.1:8080")!
    var root = ModelStore.defaultDirectory
    var readThrough = ReadThroughOptions()
    var ids: [String] = []

    static let usage =
        "usage: user-client [--server URL] [--root DIR] [--ttl SECONDS] [--stale SECONDS] [--not-found SECONDS] ID..."

    init(_ arguments: ArraySlice<String>) throws {
        var arguments = arguments
        readThrough.lifetime = 60  // used only when the server sends no max-age
        while let argument = arguments.popFirst() {
            switch argument {
            case "--server": server = try Self.value(&arguments, URL.init(string:))
            case "--root": root = try Self.value(&arguments) { URL(fileURLWithPath: $0, isDirectory: true) }
            case "--ttl": readThrough.lifetime = try Self.value(&arguments, Self.seconds)
            case "--stale": readThrough.staleIfError = try Self.value(&arguments, Self.seconds)
            case "--not-found": readThrough.notFoundLifetime = try Self.value(&arguments, Self.seconds)
            default:
                guard !argument.hasPrefix("--") else { throw UsageError() }
                ids.append(argument)
            }
        }
        if ids.isEmpty { throw UsageError() }
    }

    /// A positive, finite number of seconds.
    private static func seconds(_ text: String) -> TimeInterval? {
        TimeInterval(text).flatMap { $0 > 0 && $0.isFinite ? $0 : nil }
    }

    private static func value<T>(_ arguments: inout ArraySlice<String>, _ parse: (String) -> T?) throws -> T {
        guard let text = arguments.popFirst(), let value = parse(text) else { throw UsageError() }
        return value
    }
}

/// A malformed command line.
struct UsageError: Error {}

let options: Options
do {
    options = try Options(CommandLine.arguments.dropFirst())
} catch {
    FileHandle.standardError.write(Data((Options.usage + "\n").utf8))
    exit(2)
}

var configuration = ModelStore.Configuration()
configuration.directory = options.root
let store = try ModelStore(name: "server-fetched-users", policy: .never, configuration: configuration)
let client = UserClient(server: options.server, store: store, options: options.readThrough)
var failed = false
for id in options.ids {
    do {
        if let user = try await client.user(id) {
            // Including expired: a copy served while the server is down has expired.
            let entry = try store.entry(User.self, forKey: UserClient.key(id), includingExpired: true)
            let expiry = entry?.expiresAt.map { "\(entry?.isExpired == true ? "expired" : "expires") \($0)" } ?? ""
            print("\(id): \(user.name) <\(user.email)> revision \(user.revision), \(expiry)")
        } else {
            print("\(id): not found")
        }
    } catch {
        // URLError's own description is a dump of its user info; its localized one reads well.
        let message = (error as? URLError)?.localizedDescription ?? String(describing: error)
        FileHandle.standardError.write(Data("\(id): \(message)\n".utf8))
        failed = true
    }
}
try store.close()
exit(failed ? 1 : 0)
