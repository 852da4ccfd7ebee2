// user-server: serves made-up users as JSON on loopback until Ctrl-C.
//
//   swift run user-server [--port 8080]
import Foundation
import Logging
import UserServer

/// The port from `--port N`, or 8080.
func requestedPort() -> Int {
    let arguments = CommandLine.arguments
    guard let flag = arguments.firstIndex(of: "--port") else { return 8080 }
    guard flag + 1 < arguments.count, let port = Int(arguments[flag + 1]), (0...65_535).contains(port) else {
        FileHandle.standardError.write(Data("usage: user-server [--port 0-65535]\n".utf8))
        exit(2)
    }
    return port
}

let port = requestedPort()
var logger = Logger(label: "user-server")
logger.logLevel = .info
logger.info("user-server on http://127.0.0.1:\(port): GET /users/{id}, GET /requests; Ctrl-C stops it")
try await UserServer.runUntilSignalled(host: "127.0.0.1", port: port, logger: logger)
