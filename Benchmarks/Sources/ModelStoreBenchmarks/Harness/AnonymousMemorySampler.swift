import Foundation
import Synchronization

/// Samples the process's anonymous resident memory (`RssAnon` in `/proc/self/status`)
/// on a background thread and keeps the peak.
///
/// `getrusage`'s peak RSS also counts file pages mapped into the process, and LevelDB maps
/// its table files: a full scan of a large database touches every page of them, so peak
/// RSS grows with the database even when the heap stays flat. Anonymous memory is the heap
/// (and stacks), which is what a streaming API must keep bounded. The sampler reads the file
/// into a buffer it allocates once, so it adds no allocations to the measurements. Linux
/// only; elsewhere ``stop()`` returns nil.
final class AnonymousMemorySampler: Sendable {
    private let peak = Atomic<Int>(0)
    private let running = Atomic<Bool>(true)
    private let stopped = Atomic<Bool>(false)

    /// Starts sampling every `interval` milliseconds.
    init(intervalMilliseconds interval: Int = 10) {
        guard Self.currentAnonymousBytes() != nil else {
            stopped.store(true, ordering: .sequentiallyConsistent)
            return
        }
        let thread = Thread { [self] in
            while running.load(ordering: .relaxed) {
                record()
                usleep(UInt32(interval * 1_000))
            }
            stopped.store(true, ordering: .sequentiallyConsistent)
        }
        thread.start()
    }

    /// Stops sampling and returns the peak anonymous resident bytes, or nil where
    /// `/proc/self/status` is not available.
    func stop() -> Int? {
        running.store(false, ordering: .relaxed)
        while !stopped.load(ordering: .sequentiallyConsistent) { usleep(1_000) }
        record()
        let value = peak.load(ordering: .sequentiallyConsistent)
        return value > 0 ? value : nil
    }

    private func record() {
        guard let bytes = Self.currentAnonymousBytes() else { return }
        if bytes > peak.load(ordering: .relaxed) { peak.store(bytes, ordering: .relaxed) }
    }

    private static let rssAnonLabel = Array("RssAnon:".utf8)

    /// `RssAnon` from `/proc/self/status`, in bytes.
    private static func currentAnonymousBytes() -> Int? {
        let descriptor = open("/proc/self/status", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 4_096) { buffer -> Int? in
            let count = read(descriptor, buffer.baseAddress, buffer.count)
            guard count > 0 else { return nil }
            let text = UnsafeBufferPointer(rebasing: buffer[..<count])
            let label = rssAnonLabel
            guard let start = (0..<(count - label.count)).first(where: { offset in
                (0..<label.count).allSatisfy { text[offset + $0] == label[$0] }
            }) else { return nil }
            var kilobytes = 0
            for byte in text[(start + label.count)...] {
                if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { continue }
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { break }
                kilobytes = kilobytes * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return kilobytes * 1_024
        }
    }
}
