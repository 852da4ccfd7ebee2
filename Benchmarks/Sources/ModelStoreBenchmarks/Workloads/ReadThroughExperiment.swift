import CoreMetrics
import Foundation
import Metrics
import ModelStore
import Synchronization

/// Nanoseconds per hit: `object(_:forKey:)` against `object(_:forKey:options:fetch:)` on the same
/// live records, without and with the object cache, first with no metrics backend (swift-metrics'
/// no-op handlers), then with a counting backend bootstrapped. The issue's targets: a read-through
/// hit costs at most 10 % more than a plain read; metrics with no backend cost at most 2 %.
///
/// Each round reads 1,000 records in a fixed shuffled order, each call form for about 20 ms,
/// interleaved so drift affects them alike; each cell is the median of `rounds` rounds.
func runReadThroughExperiment(rounds: Int, directory: String) async throws -> String {
    let corpus = ProfileCorpus(count: 1_000)
    let keys = corpus.shuffledNumbers(seed: 0xF00D).map { ProfileCorpus.key(Int($0)) }
    var lines = [
        "### Read-through hit vs plain read, ns per read (1,000 live records, JSON codec)",
        "",
        "Median of \(rounds) rounds. \"Metrics on\": a counting backend bootstrapped before the store opens.",
        "",
        "| Metrics | Object cache | object(_:forKey:) | same, via an async function | "
            + "object(_:forKey:options:fetch:) | Extra over object(_:forKey:) |",
        "|---|---|---:|---:|---:|---:|",
    ]
    var plainWithoutBackend: [Int: Double] = [:]
    _ = noOpIncrementNanoseconds  // before the backend is bootstrapped below
    for metricsOn in [false, true] {
        if metricsOn { MetricsSystem.bootstrap(CountingMetrics()) }
        for cacheLimit in [0, 1_000] {
            var configuration = ModelStore.Configuration()
            configuration.directory = URL(fileURLWithPath: directory, isDirectory: true)
            configuration.objectCacheLimit = cacheLimit
            let store = try ModelStore(
                name: "readthrough-\(metricsOn ? "on" : "off")-\(cacheLimit)", policy: .never,
                configuration: configuration)
            for number in 0..<corpus.count {
                try store.set(corpus.profile(number), forKey: ProfileCorpus.key(number))
            }
            var plain: [Double] = []
            var plainAsync: [Double] = []
            var through: [Double] = []
            for _ in 0..<rounds {
                plain.append(try nanosecondsPerRead(keys) { key in try store.object(Profile.self, forKey: key) })
                // The floor an async API pays: the same plain read behind one async call.
                plainAsync.append(try await asyncNanosecondsPerRead(keys) { key in
                    try await asyncPlainRead(store, key)
                })
                through.append(try await readThroughNanosecondsPerRead(store, keys))
            }
            let plainMedian = median(plain) ?? 0
            let throughMedian = median(through) ?? 0
            if !metricsOn { plainWithoutBackend[cacheLimit] = throughMedian }
            var extra = String(format: "%+.1f %%", (throughMedian / plainMedian - 1) * 100)
            if metricsOn, let off = plainWithoutBackend[cacheLimit] {
                extra += String(format: " (vs metrics off: %+.1f %%)", (throughMedian / off - 1) * 100)
            }
            lines.append(
                "| \(metricsOn ? "on" : "off (no backend)") | \(cacheLimit == 0 ? "off" : "1,000") | "
                    + String(format: "%.0f | %.0f | %.0f | ", plainMedian, median(plainAsync) ?? 0, throughMedian)
                    + extra + " |")
            try store.close()
        }
    }
    lines.append("")
    lines.append(
        String(format: "A no-op counter increment (no backend): %.2f ns; a hit counts one.", noOpIncrementNanoseconds))
    return lines.joined(separator: "\n")
}

/// Nanoseconds per increment of a counter created before any backend is bootstrapped, as the
/// read path's counters are when the application bootstraps none. Measured once, before the
/// experiment bootstraps its own backend.
private let noOpIncrementNanoseconds: Double = {
    let counter = Counter(label: "modelstore_bench_noop_total", dimensions: [("database", "bench")])
    let clock = ContinuousClock()
    var calls = 0
    let start = clock.now
    var elapsed = Duration.zero
    repeat {
        for _ in 0..<1_000 { counter.increment() }
        calls += 1_000
        elapsed = clock.now - start
    } while elapsed < .milliseconds(50)
    return nanoseconds(elapsed) / Double(calls)
}()

/// A plain read behind an async call, not inlined, as the read-through is reached.
@inline(never)
private func asyncPlainRead(_ store: ModelStore, _ key: String) async throws -> Profile? {
    try store.object(Profile.self, forKey: key)
}

/// ns per call of `read` over `keys`, repeated for at least `minimum` (20 ms: a read-through
/// round; the fleet experiment's hits take 50).
func nanosecondsPerRead(
    _ keys: [String], forAtLeast minimum: Duration = .milliseconds(20), _ read: (String) throws -> Profile?
) throws -> Double {
    let clock = ContinuousClock()
    var calls = 0
    let start = clock.now
    var elapsed = Duration.zero
    repeat {
        for key in keys { blackHole(try read(key)) }
        calls += keys.count
        elapsed = clock.now - start
    } while elapsed < minimum
    return nanoseconds(elapsed) / Double(calls)
}

private func asyncNanosecondsPerRead(
    _ keys: [String], _ read: (String) async throws -> Profile?
) async throws -> Double {
    let clock = ContinuousClock()
    var calls = 0
    let start = clock.now
    var elapsed = Duration.zero
    repeat {
        for key in keys { blackHole(try await read(key)) }
        calls += keys.count
        elapsed = clock.now - start
    } while elapsed < .milliseconds(20)
    return nanoseconds(elapsed) / Double(calls)
}

/// The read-through called straight from an async loop, as an application calls it: no async
/// closure between the loop and the call (the plain row's closure is synchronous, and an async
/// closure call alone costs what the "via an async function" column shows).
private func readThroughNanosecondsPerRead(_ store: ModelStore, _ keys: [String]) async throws -> Double {
    let clock = ContinuousClock()
    let options = ReadThroughOptions()
    var calls = 0
    let start = clock.now
    var elapsed = Duration.zero
    repeat {
        for key in keys {
            blackHole(try await store.object(Profile.self, forKey: key, options: options) { _ in .notFound })
        }
        calls += keys.count
        elapsed = clock.now - start
    } while elapsed < .milliseconds(20)
    return nanoseconds(elapsed) / Double(calls)
}

private func nanoseconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) * 1e9 + Double(attoseconds) / 1e9
}

/// A metrics backend that only counts: the cheapest real backend, an atomic add per increment.
private final class CountingMetrics: MetricsFactory {
    final class Count: CounterHandler, FloatingPointCounterHandler, RecorderHandler, TimerHandler, MeterHandler {
        let value = Atomic<Int64>(0)
        func increment(by amount: Int64) { value.add(amount, ordering: .relaxed) }
        func increment(by amount: Double) { value.add(Int64(amount), ordering: .relaxed) }
        func reset() { value.store(0, ordering: .relaxed) }
        func record(_ value: Int64) { increment(by: value) }
        func record(_ value: Double) { increment(by: value) }
        func recordNanoseconds(_ duration: Int64) { increment(by: duration) }
        func set(_ value: Int64) { self.value.store(value, ordering: .relaxed) }
        func set(_ value: Double) { self.value.store(Int64(value), ordering: .relaxed) }
        func decrement(by amount: Double) { value.add(-Int64(amount), ordering: .relaxed) }
    }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler { Count() }
    func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler {
        Count()
    }
    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        Count()
    }
    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler { Count() }
    func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler { Count() }
    func destroyCounter(_ handler: any CounterHandler) {}
    func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {}
    func destroyRecorder(_ handler: any RecorderHandler) {}
    func destroyTimer(_ handler: any TimerHandler) {}
    func destroyMeter(_ handler: any MeterHandler) {}
}
