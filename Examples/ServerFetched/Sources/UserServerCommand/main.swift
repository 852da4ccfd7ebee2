// user-server: serves users as JSON on loopback until Ctrl-C, with ETag, Cache-Control and 304s.
// Its users live in a ModelStore database, reached through Hummingbird's PersistDriver API.
//
//   swift run user-server [--port 8080] [--root DIR] [--max-age SECONDS]
import Foundation
import Logging
import UserServer

/// The value after `flag`, parsed, or `fallback` when the flag is absent; exits on a bad value.
func option<T>(_ flag: String, _ fallback: T, _ parse: (String) -> T?) -> T {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: flag) else { return fallback }
    guard index + 1 < arguments.count, let value = parse(arguments[index + 1]) else {
        let usage = "usage: user-server [--port 0-65535] [--root DIR] [--max-age SECONDS (1 or more)]\n"
        FileHandle.standardError.write(Data(usage.utf8))
        exit(2)
    }
    return value
}

let port = option("--port", 8080) { Int($0).flatMap { (0...65_535).contains($0) ? $0 : nil } }
let maxAge = option("--max-age", 60) { Int($0).flatMap { $0 > 0 ? $0 : nil } }
let root = option("--root", FileManager.default.temporaryDirectory.appendingPathComponent("server-fetched")) {
    URL(fileURLWithPath: $0, isDirectory: true)
}
var logger = Logger(label: "user-server")
logger.logLevel = .info
let routes = "GET and PUT /users/{id} (ada, grace, linus to start with), GET /requests"
let place = "http://127.0.0.1:\(port) (users in \(root.path), max-age \(maxAge) s)"
logger.info("user-server on \(place): \(routes); Ctrl-C stops it")
try await UserServer.runUntilSignalled(host: "127.0.0.1", port: port, directory: root, maxAge: maxAge, logger: logger)
