import Foundation
import ModelStoreTestSupport
@testable import ModelStoreRedis

#if canImport(Glibc)
import Glibc
#endif

/// A real `redis-server` the tests start on a free loopback port, with nothing saved to disk
/// (`--save '' --appendonly no`) unless it is `persistent` (then `SAVE` writes a snapshot that a
/// restart loads); killed when the value goes away, or by a watchdog when the test process dies first.
final class RedisServer: @unchecked Sendable {
    // @unchecked: one test drives a server at a time.
    let port: Int
    private var process: Process?
    /// Where a persistent server keeps its snapshot (`dump.rdb`); nil: nothing on disk.
    private let directory: TemporaryDirectory?

    /// Whether `redis-server` is installed (`.ci/run` and scripts/install-dependencies install it).
    static var isInstalled: Bool { path != nil }

    static var path: String? {
        ["/usr/bin/redis-server", "/usr/local/bin/redis-server", "/opt/homebrew/bin/redis-server"]
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    init(persistent: Bool = false) throws {
        directory = persistent ? TemporaryDirectory() : nil
        port = try Self.freePort()
        try start()
    }

    deinit {
        kill()
    }

    /// Starts the server (again, after ``kill()``: empty, or from its last `SAVE` if persistent)
    /// and waits until it answers. A watchdog
    /// shell kills it if this test process dies first, so it never outlives the run.
    func start() throws {
        guard let path = Self.path else { throw RedisServerError(message: "redis-server is not installed") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = [
            "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
            "--protected-mode", "yes", "--loglevel", "warning",
        ] + (directory.map { ["--dir", $0.url.path, "--dbfilename", "dump.rdb"] } ?? [])
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        self.process = process
        try Watchdog.start(killing: process.processIdentifier)
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if (try? command(["PING"])) == .status("PONG") { return }
            usleep(20_000)
        }
        throw RedisServerError(message: "redis-server did not answer on port \(port)")
    }

    /// SIGKILLs the server: everything in it is gone.
    func kill() {
        guard let process else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        self.process = nil
    }

    /// Runs one command on a fresh connection.
    @discardableResult
    func command(_ arguments: [String]) throws -> RedisReply {
        try command(arguments.map { Array($0.utf8) })
    }

    @discardableResult
    func command(_ arguments: [[UInt8]]) throws -> RedisReply {
        let connection = try RedisConnection(
            RedisEndpoint(
                host: "127.0.0.1", port: port, password: nil, database: 0, connectTimeout: .seconds(1),
                commandTimeout: .seconds(2)))
        return try connection.command(arguments)
    }

    /// Appends an invalidation entry to `keys`' stream as another client would: the fields a
    /// node writes (`n` sequence, `o` origin, `d` database "users", `g` generation, `x` payload),
    /// with the values the test chooses.
    func appendInvalidation(to keys: RedisKeys, sequence: String, generation: String = "", payload: [UInt8]) throws {
        try command([
            Array("XADD".utf8), keys.stream, Array("*".utf8), Array("n".utf8), Array(sequence.utf8),
            Array("o".utf8), Array("elsewhere".utf8), Array("d".utf8), Array("users".utf8), Array("g".utf8),
            Array(generation.utf8), Array("x".utf8), payload,
        ])
    }

    /// A port nobody listens on: bound with port 0, read, closed.
    private static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw RedisServerError(message: "socket failed") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) }
        }
        guard bound == 0 else { throw RedisServerError(message: "bind failed") }
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        guard named == 0 else { throw RedisServerError(message: "getsockname failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

struct RedisServerError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
