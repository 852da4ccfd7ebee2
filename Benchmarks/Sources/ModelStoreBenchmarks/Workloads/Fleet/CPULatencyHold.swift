import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Holds Linux's `/dev/cpu_dma_latency` at 0 µs while the fleet benchmark runs, as cyclictest
/// does: idle CPUs then spin instead of entering an idle state, and the benchmark's ping-pong
/// round trips to a local redis-server stop paying a wake-up each. On a VM that wake-up is the
/// host's (a halted vCPU is descheduled), and it dominated every round trip: a raw GET took
/// about 52 µs idle and 17 µs held, so ratios against it measured the wake-up more than the tier.
///
/// The request lasts while the file stays open (the kernel drops it when the descriptor closes,
/// also if the process dies), so ``release()`` closes it at the end. Opening it needs root;
/// without it, the benchmark runs as it is and says so.
final class CPULatencyHold {
    private var descriptor: Int32 = -1
    /// One line for the report: whether the hold is in place, and why (or why not).
    let summary: String

    init() {
        #if os(Linux)
        if ProcessInfo.processInfo.environment["MODELSTORE_FLEET_IDLE_CPUS"] == "1" {
            summary = "CPU wake-up latency: not held (MODELSTORE_FLEET_IDLE_CPUS=1): idle CPUs sleep, and each round trip pays their wake-up."
            return
        }
        let opened = open("/dev/cpu_dma_latency", O_WRONLY)
        guard opened >= 0 else {
            let reason = String(cString: strerror(errno))
            summary = "CPU wake-up latency: not held (/dev/cpu_dma_latency: \(reason)): idle CPUs sleep, and on a VM each round trip pays the host's wake-up, which can outweigh everything else measured."
            return
        }
        var zero: Int32 = 0
        guard write(opened, &zero, MemoryLayout<Int32>.size) == MemoryLayout<Int32>.size else {
            let reason = String(cString: strerror(errno))
            close(opened)
            summary = "CPU wake-up latency: not held (writing /dev/cpu_dma_latency: \(reason)): idle CPUs sleep, and each round trip pays their wake-up."
            return
        }
        descriptor = opened
        summary = "CPU wake-up latency: held at 0 µs through /dev/cpu_dma_latency while the benchmark runs (as cyclictest does), so idle CPUs do not sleep: on a VM their wake-up otherwise dominates every round trip (MODELSTORE_FLEET_IDLE_CPUS=1 measures without it)."
        #else
        summary = "CPU wake-up latency: not held (no /dev/cpu_dma_latency on this system)."
        #endif
    }

    /// Ends the hold (closes the file); idempotent.
    func release() {
        #if os(Linux)
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
        #endif
    }

    deinit { release() }
}
