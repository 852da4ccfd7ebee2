import Foundation

/// A shell that SIGKILLs a process the tests started (a `redis-server`, a fault proxy) once this
/// test process has died, so that nothing outlives the run.
///
/// "Died" includes a zombie: a test process killed by a signal stays one until `swift test`
/// reaps it, and `swift test` first waits for the end of its output, which the started process
/// (and this shell) hold open through the inherited standard error. Waiting for the zombie to
/// vanish would wait forever, so the shell asks `ps` for the state too (without `ps`, it falls
/// back to `kill -0` alone).
enum Watchdog {
    /// Starts the shell; it polls every second and exits once either process is gone.
    static func start(killing pid: Int32) throws {
        let watchdog = Process()
        watchdog.executableURL = URL(fileURLWithPath: "/bin/sh")
        let tests = getpid()
        watchdog.arguments = [
            "-c",
            "alive() { kill -0 $1 2>/dev/null && ! ps -o stat= -p $1 2>/dev/null | grep -q '^Z'; }; "
                + "while alive \(tests) && kill -0 \(pid) 2>/dev/null; do sleep 1; done; kill -9 \(pid) 2>/dev/null",
        ]
        watchdog.standardOutput = FileHandle.nullDevice
        watchdog.standardError = FileHandle.nullDevice
        try watchdog.run()
    }
}
