import Foundation
import ModelStoreTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A node of the history test's fleet: a `ModelStoreRedisNode` process on its own directory,
/// asked by several client threads one request at a time, and killed, restarted on the same
/// directory, or paused by the fault injector meanwhile.
///
/// A request whose node ends or hangs gets no answer; the node is then restarted, and a node
/// that ended or hung without an injected kill is recorded as a failure.
final class HistoryNode: @unchecked Sendable {
    // @unchecked: `run` and its I/O are only touched while `requests` is held; `down` and
    // `signalled` only under `state`, which is never held while waiting for `requests`.
    /// Its index in the fleet (`n0`, `n1`, …).
    let index: Int
    /// Where its store lives, across restarts.
    let directory = TemporaryDirectory()
    private let port: Int
    private let prefix: String
    private let recorder: HistoryRecorder
    /// Held for a whole request and its answer (a node answers its input in order), and for a restart.
    private let requests = NSLock()
    private let state = NSLock()
    private var run: HistoryNodeProcess?
    /// Killed by the injector and not restarted yet: clients leave it alone.
    private var down = false
    /// The run to signal, read without waiting for a request to finish.
    private var signalled: HistoryNodeProcess?

    /// How long a node may take to answer one request (a paused node answers once resumed;
    /// pauses are much shorter) before it counts as hung.
    static let answerLimit: Duration = .seconds(10)
    /// How long a node may take to open its store and answer `ready`.
    static let startLimit: Duration = .seconds(30)

    /// One request and its answer.
    struct Exchange {
        /// When the request was sent and when the answer came (or the node was known to be gone).
        var start: Duration
        var end: Duration
        /// The answer; nil when none came.
        var answer: String?
    }

    /// Starts node `index` over Redis at `port`, with every node's keys under `prefix`.
    init(index: Int, port: Int, prefix: String, recorder: HistoryRecorder) throws {
        self.index = index
        self.port = port
        self.prefix = prefix
        self.recorder = recorder
        try requests.withLock { try start() }
    }

    deinit {
        stop()
    }

    /// Sends `line` and waits for its answer; nil when the node is down (nothing was sent).
    func ask(_ line: String) -> Exchange? {
        requests.withLock {
            guard !isDown, let run else { return nil }
            let sent = recorder.now()
            guard run.send(line) else { return lost(run, sent: sent, asked: line, what: "its input was closed") }
            switch run.readLine(within: Self.answerLimit) {
            case .line(let answer):
                return Exchange(start: sent, end: recorder.now(), answer: answer)
            case .ended:
                return lost(run, sent: sent, asked: line, what: "it ended")
            case .timedOut:
                return lost(run, sent: sent, asked: line, what: "no answer within \(Self.answerLimit)")
            }
        }
    }

    /// A request that got no answer. Unless the injector killed the node, records the failure
    /// and restarts the node, so the run goes on. The exchange ends once the process is gone, so
    /// a write it carried can no longer take effect after that time.
    private func lost(_ run: HistoryNodeProcess, sent: Duration, asked line: String, what: String) -> Exchange {
        run.finish(within: .zero)
        let end = recorder.now()
        if !isDown {
            let exit = run.exitDescription.map { " (\($0))" } ?? ""
            recorder.record(HistoryNodeFailure(node: index, at: end, what: "asked `\(line)`: \(what)\(exit)"))
            do {
                try start()
            } catch {
                recorder.record(HistoryNodeFailure(node: index, at: recorder.now(), what: "did not restart: \(error)"))
                markDown()
            }
        }
        return Exchange(start: sent, end: end, answer: nil)
    }

    // MARK: - Faults

    /// SIGKILLs the node (a request in flight gets no answer); clients leave it alone until
    /// ``restart()``.
    func kill() {
        let run = state.withLock {
            down = true
            return signalled
        }
        run?.signal(SIGKILL)
    }

    /// Starts the node again on its directory after ``kill()`` and waits until it is ready.
    func restart() throws {
        try requests.withLock {
            run?.finish(within: .zero)
            try start()
        }
    }

    /// Stops the node's process for `duration` (SIGSTOP, then SIGCONT): requests to it wait.
    /// A shell sends SIGCONT again a little later, so the node resumes (and, reading the end of
    /// its input, exits) even if this test process dies during the pause.
    func pause(for duration: Duration) {
        guard let run = state.withLock({ signalled }) else { return }
        let backup = Process()
        backup.executableURL = URL(fileURLWithPath: "/bin/sh")
        let seconds = duration.components.seconds + 2
        backup.arguments = ["-c", "sleep \(seconds); kill -CONT \(run.pid) 2>/dev/null"]
        try? backup.run()
        run.signal(SIGSTOP)
        Thread.sleep(forTimeInterval: duration.inSeconds)
        run.signal(SIGCONT)
    }

    /// Ends the node for good: closes its input, kills it if it does not exit, and reaps it.
    func stop() {
        markDown()
        requests.withLock {
            run?.finish()
            run = nil
        }
        state.withLock { signalled = nil }
    }

    // MARK: - Runs

    /// Whether clients must leave the node alone (killed and not restarted, or stopped).
    private var isDown: Bool { state.withLock { down } }

    /// Makes clients leave the node alone.
    private func markDown() {
        state.withLock { down = true }
    }

    /// Starts a new run and waits for `ready`; the caller holds `requests`.
    private func start() throws {
        let next = try HistoryNodeProcess(port: port, directory: directory.path, prefix: prefix)
        run = next
        state.withLock { signalled = next }
        let line = next.readLine(within: Self.startLimit)
        guard line == .line("ready") else {
            next.finish(within: .zero)
            run = nil
            throw RedisServerError(message: "node n\(index) did not start: \(line)")
        }
        state.withLock { down = false }
    }
}
