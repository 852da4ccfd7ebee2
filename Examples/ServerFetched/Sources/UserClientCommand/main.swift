// user-client: looks users up through a ModelStore read-through cache.
//
//   swift run user-client [--server URL] [--root DIR] [--ttl SECONDS] [--stale] ID...
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
    var timeToLive: TimeInterval = 60
    var allowingStale = false
    var ids: [String] = []

    static let usage = "usage: user-client [--server URL] [--root DIR] [--ttl SECONDS] [--stale] ID..."

    init(_ arguments: ArraySlice<String>) throws {
        var arguments = arguments
        while let argument = arguments.popFirst() {
            switch argument {
            case "--server": server = try Self.value(&arguments, URL.init(string:))
            case "--root": root = try Self.value(&arguments) { URL(fileURLWithPath: $0, isDirectory: true) }
            case "--ttl": timeToLive = try Self.value(&arguments) { TimeInterval($0).flatMap { $0 > 0 ? $0 : nil } }
            case "--stale": allowingStale = true
            default:
                guard !argument.hasPrefix("--") else { throw UsageError() }
                ids.append(argument)
            }
        }
        if ids.isEmpty { throw UsageError() }
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
let store = try ModelStore(
    name: "server-fetched-users", policy: .custom(options.timeToLive), configuration: configuration)
let client = UserClient(server: options.server, store: store)
var failed = false
for id in options.ids {
    do {
        let lookup = try await client.user(id, allowingStale: options.allowingStale)
        let user = lookup.value
        print("\(id): \(user.name) <\(user.email)> revision \(user.revision) from \(lookup.source)")
    } catch {
        // URLError's own description is a dump of its user info; its localized one reads well.
        let message = (error as? URLError)?.localizedDescription ?? String(describing: error)
        FileHandle.standardError.write(Data("\(id): \(message)\n".utf8))
        failed = true
    }
}
exit(failed ? 1 : 0)
