import Foundation

/// A progress line on standard error: a bar when the total is known, a spinner otherwise.
///
/// It draws only when ``Terminal/showsProgress`` says a person is watching, so piped and
/// redirected runs print nothing but their results. Redraws are throttled to ten a second,
/// which keeps a tight loop calling ``update(completed:)`` cheap.
final class Progress: @unchecked Sendable {
    // @unchecked: every mutable property is read and written under `lock`, because the
    // spinner's timer draws from a Dispatch queue while the caller's thread updates.
    private let lock = NSLock()
    private let title: String
    private let total: Int?
    private let unit: String
    private let enabled: Bool
    private let started = ContinuousClock.now
    private var completed = 0
    private var lastDraw: ContinuousClock.Instant?
    private var frame = 0
    private var isFinished = false
    private var timer: (any DispatchSourceTimer)?

    /// Creates a progress line; nothing is drawn until the first update.
    ///
    /// - Parameters:
    ///   - title: What is happening, such as `Dumping users`.
    ///   - total: How many units the work has, if known.
    ///   - unit: The unit counted, such as `records`; nil to show only the spinner and time.
    ///   - enabled: Whether to draw at all; defaults to ``Terminal/showsProgress``.
    init(_ title: String, total: Int? = nil, unit: String? = nil, enabled: Bool = Terminal.showsProgress) {
        self.title = title
        self.total = total
        self.unit = unit ?? ""
        self.enabled = enabled
    }

    /// Runs `work` with a spinner and the elapsed time, for calls that report no progress of
    /// their own (a sweep, a compaction).
    static func spinning<Result>(
        _ title: String, enabled: Bool = Terminal.showsProgress, _ work: () throws -> Result
    )
        rethrows -> Result
    {
        let progress = Progress(title, enabled: enabled)
        progress.startSpinning()
        defer { progress.finish() }
        return try work()
    }

    /// Records that `completed` units are done and redraws if the last draw is old enough.
    func update(completed: Int) {
        guard enabled else { return }
        locked {
            guard !isFinished else { return }
            self.completed = completed
            let now = ContinuousClock.now
            if let lastDraw, now - lastDraw < .milliseconds(100) { return }
            lastDraw = now
            draw()
        }
    }

    /// Stops the spinner and erases the line, so the command's own output starts clean.
    func finish() {
        guard enabled else { return }
        locked {
            // A timer tick already waiting for the lock must not draw after the line is erased.
            let wasFinished = isFinished
            isFinished = true
            timer?.cancel()
            timer = nil
            if lastDraw != nil, !wasFinished { Terminal.writeError("\r\u{1B}[2K") }
        }
    }

    private func startSpinning() {
        guard enabled else { return }
        let timer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
        timer.schedule(deadline: .now(), repeating: .milliseconds(100))
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            self.locked {
                guard !self.isFinished else { return }
                self.lastDraw = ContinuousClock.now
                self.draw()
            }
        }
        locked { self.timer = timer }
        timer.resume()
    }

    /// Runs `body` holding `lock` (NSLock's own `withLock` needs macOS 14; the package
    /// supports 13).
    private func locked<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// Draws the line; the caller holds `lock`.
    private func draw() {
        let elapsed = Format.seconds(ContinuousClock.now - started)
        var line: String
        if let total, total > 0 {
            let fraction = min(1, Double(completed) / Double(total))
            let width = 30
            let filled = Int(fraction * Double(width))
            line =
                "\(title) [" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
                + "] " + String(format: "%3d%%", Int(fraction * 100)) + "  \(completed)/\(total) \(unit)"
        } else {
            let spinner = Array("|/-\\")
            frame = (frame + 1) % spinner.count
            line = "\(spinner[frame]) \(title)"
            if !unit.isEmpty { line += "  \(completed) \(unit)" }
        }
        Terminal.writeError("\r\u{1B}[2K" + line + "  " + elapsed)
    }
}
