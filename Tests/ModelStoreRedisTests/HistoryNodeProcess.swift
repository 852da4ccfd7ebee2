import Foundation
import ModelStoreTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// One run of the `ModelStoreRedisNode` executable for the history test, read with a time
/// limit: unlike ``ChildProcess`` (whose `readLine()` blocks for as long as the process lives),
/// a paused or hung node must never hang the test.
///
/// The node's standard input and output are one end of a socket pair, not pipes: a line sent
/// to a node that was just killed fails with `EPIPE` (`MSG_NOSIGNAL`) instead of raising
/// SIGPIPE in the test process, and the pair is created close-on-exec in one call, so no other
/// child (another node, `redis-server`) can inherit the test's end: a node whose test process
/// dies reads the end of its input and exits. Not thread-safe: ``HistoryNode`` serializes its use.
final class HistoryNodeProcess {
    /// What ``readLine(within:)`` got.
    enum Line: Equatable {
        /// A whole line, without its newline.
        case line(String)
        /// The output ended: the process exited or was killed.
        case ended
        /// Nothing within the limit.
        case timedOut
    }

    private let process = Process()
    /// The test's end of the socket pair: requests go out on it, answers come back.
    private let socket: Int32
    private var buffered: [UInt8] = []

    /// Starts a node over Redis at `port` with its store in `directory` under `prefix`;
    /// it answers `ready` once its store is open.
    init(port: Int, directory: String, prefix: String) throws {
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw RedisServerError(message: "socketpair failed: errno \(errno)")
        }
        // Closed once the child has its copies (or failed to start).
        defer { close(pair[1]) }
        process.executableURL = try ChildProcess.executable(named: "ModelStoreRedisNode")
        process.arguments = [String(port), directory, prefix]
        // Foundation duplicates it onto the child's 0 and 1, which clears close-on-exec there.
        let childEnd = FileHandle(fileDescriptor: pair[1], closeOnDealloc: false)
        process.standardInput = childEnd
        process.standardOutput = childEnd
        do {
            try process.run()
        } catch {
            close(pair[0])
            throw error
        }
        socket = pair[0]
    }

    deinit {
        close(socket)
    }

    /// The node's process id.
    var pid: Int32 { process.processIdentifier }

    /// Sends one line; false when the node is gone.
    func send(_ line: String) -> Bool {
        let bytes = Array((line + "\n").utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes {
                Glibc.send(socket, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL))
            }
            if count < 0 {
                if errno == EINTR { continue }
                return false
            }
            sent += count
        }
        return true
    }

    /// Reads one line of output, waiting at most `limit` (polled, so a stopped node only delays it).
    func readLine(within limit: Duration) -> Line {
        let clock = ContinuousClock()
        let deadline = clock.now + limit
        while true {
            if let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffered[..<newline], as: UTF8.self)
                buffered.removeSubrange(...newline)
                return .line(line)
            }
            let left = deadline - clock.now
            if left <= .zero { return .timedOut }
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, Int32(max(1, min(1_000, left / .milliseconds(1)))))
            if ready < 0 && errno != EINTR { return .ended }
            if ready <= 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 4_096)
            let count = read(socket, &chunk, chunk.count)
            if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            if count <= 0 { return .ended }
            buffered += chunk[..<count]
        }
    }

    /// Sends `signal` (SIGKILL, SIGSTOP, SIGCONT) to the node, unless it has already been reaped
    /// (its process id could then name another process).
    func signal(_ signal: Int32) {
        if process.isRunning { _ = kill(pid, signal) }
    }

    /// Ends the node: closes its input (it exits at the end of it), waits at most `limit`, then
    /// SIGKILLs it (after SIGCONT, in case it is paused: a stopped process cannot read), and reaps it.
    func finish(within limit: Duration = .seconds(3)) {
        signal(SIGCONT)
        shutdown(socket, Int32(SHUT_WR))
        let clock = ContinuousClock()
        let deadline = clock.now + limit
        while process.isRunning && clock.now < deadline { usleep(10_000) }
        if process.isRunning { signal(SIGKILL) }
        process.waitUntilExit()
    }

    /// How the process ended, once it has (nil while it runs).
    var exitDescription: String? {
        guard !process.isRunning else { return nil }
        let reason = process.terminationReason == .uncaughtSignal ? "signal" : "status"
        return "\(reason) \(process.terminationStatus)"
    }
}
