import Foundation
import ModelStoreTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// `scripts/fault-proxy` (Python 3) on a free loopback port in front of a `RedisServer`: what a
/// node's tier connects to when a test needs the network between them to fail in a chosen way.
///
/// Each method sends one command to the proxy's control port and throws unless it answers `ok`.
/// The proxy is SIGKILLed when the value goes away; it also exits by itself when this test
/// process dies (`--parent`, and a watchdog shell as `RedisServer` has), and after 15 minutes.
final class FaultProxy: @unchecked Sendable {
    // @unchecked: one test drives a proxy at a time; the process handle is only read.
    /// The port nodes connect to instead of the server's.
    let port: Int
    /// The port the proxy takes its commands on.
    let controlPort: Int
    private let process: Process

    /// Where the script is: `scripts/fault-proxy` in the package.
    static var script: URL { PackageRoot.url.appendingPathComponent("scripts/fault-proxy") }

    /// Starts a proxy in front of `server` and waits for its one line of ports.
    convenience init(_ server: RedisServer) throws {
        try self.init(target: server.port)
    }

    /// Starts a proxy to `target` on loopback and waits for its one line of ports.
    init(target: Int) throws {
        // A connection the proxy resets after Redis closed it makes hiredis's next write raise
        // SIGPIPE, which kills a process that does not ignore it, and this test process holds
        // nodes of its own. FleetFaultTests has a node process for that finding.
        signal(SIGPIPE, SIG_IGN)
        let process = Process()
        process.executableURL = Self.script
        process.arguments = ["--target", String(target), "--parent", String(getpid()), "--lifetime", "900"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        self.process = process
        // Besides the proxy's own `--parent` check, as RedisServer does.
        try Watchdog.start(killing: process.processIdentifier)
        // `listening LISTEN_PORT control CONTROL_PORT`, or the end of the output if it failed.
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let words = String(decoding: line, as: UTF8.self).split(whereSeparator: \.isWhitespace)
        guard words.count == 4, words[0] == "listening", words[2] == "control", let port = Int(words[1]),
            let controlPort = Int(words[3])
        else {
            Self.kill(process)
            throw RedisServerError(message: "fault-proxy did not start: \(String(decoding: line, as: UTF8.self))")
        }
        self.port = port
        self.controlPort = controlPort
    }

    deinit {
        Self.kill(process)
    }

    private static func kill(_ process: Process) {
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    // MARK: - Faults

    /// Connections open now stop forwarding what their client sends (kept in order); replies
    /// still flow, and connections opened later are not held.
    func hold() throws { try send("hold") }

    /// Held connections deliver what they kept, in order, then flow normally.
    func release() throws { try send("release") }

    /// Delays every chunk, both ways, by `milliseconds` from now on (0: none).
    func delay(milliseconds: Int) throws { try send("delay \(milliseconds)") }

    /// Holds open connections both ways, and new ones (accepted, never connected) until ``heal()``.
    func partition() throws { try send("partition") }

    /// Ends the partition: what it held is delivered in order.
    func heal() throws { try send("heal") }

    /// Resets every open connection, both sides; what they kept is lost.
    func drop() throws { try send("drop") }

    /// New connections go to `port` on loopback from now on (a failover's virtual address).
    func retarget(to port: Int) throws { try send("retarget \(port)") }

    /// How many proxied connections are open.
    var openConnections: Int {
        get throws {
            let answer = try send("count")
            guard let count = Int(answer.dropFirst(3)) else { throw RedisServerError(message: "fault-proxy: \(answer)") }
            return count
        }
    }

    // MARK: - Control connection

    /// Sends one command on a fresh control connection and returns the answer; throws unless it
    /// starts with `ok`.
    @discardableResult
    private func send(_ command: String) throws -> String {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw RedisServerError(message: "fault-proxy: socket failed") }
        defer { close(socket) }
        // A proxy that stopped answering fails the test in seconds rather than hanging it.
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(controlPort).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw RedisServerError(message: "fault-proxy: cannot reach its control port") }
        let request = Array((command + "\n").utf8)
        guard request.withUnsafeBytes({ Glibc.send(socket, $0.baseAddress, $0.count, 0) }) == request.count else {
            throw RedisServerError(message: "fault-proxy: could not send \(command)")
        }
        var answer: [UInt8] = []
        var byte: UInt8 = 0
        while recv(socket, &byte, 1, 0) == 1, byte != UInt8(ascii: "\n") { answer.append(byte) }
        let text = String(decoding: answer, as: UTF8.self)
        guard text.hasPrefix("ok") else { throw RedisServerError(message: "fault-proxy, \(command): \(text)") }
        return text
    }
}
