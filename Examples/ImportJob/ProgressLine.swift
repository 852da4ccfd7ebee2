import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A progress bar on standard error for the import, drawn only when standard output and
/// standard error are terminals, so a log file or a pipe gets plain lines.
///
/// ModelStore calls the import's progress closure from the importing task after each
/// committed chunk; that closure is `@Sendable`, hence the lock.
final class ProgressLine: @unchecked Sendable {
    // @unchecked: `lastDraw` is only touched under `lock`.
    private let lock = NSLock()
    private let totalBytes: Int
    private let bytesRead: ByteCounter
    private let started = ContinuousClock.now
    private var lastDraw: ContinuousClock.Instant?
    let enabled = isatty(STDOUT_FILENO) == 1 && isatty(STDERR_FILENO) == 1

    /// Tracks a file of `totalBytes` bytes whose reader counts into `bytesRead`.
    init(totalBytes: Int, bytesRead: ByteCounter) {
        self.totalBytes = totalBytes
        self.bytesRead = bytesRead
    }

    /// Redraws with `records` imported, at most ten times a second.
    func update(records: Int) {
        guard enabled else { return }
        lock.lock()
        defer { lock.unlock() }
        let now = ContinuousClock.now
        if let lastDraw, now - lastDraw < .milliseconds(100) { return }
        lastDraw = now
        let fraction = totalBytes > 0 ? min(1, Double(bytesRead.value) / Double(totalBytes)) : 1
        let width = 30
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let seconds = (now - started).components.seconds
        let line = "Importing [\(bar)] \(Int(fraction * 100))%  \(records) records  \(seconds) s"
        FileHandle.standardError.write(Data(("\r\u{1B}[2K" + line).utf8))
    }

    /// Erases the bar.
    func finish() {
        guard enabled, lastDraw != nil else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
    }
}
