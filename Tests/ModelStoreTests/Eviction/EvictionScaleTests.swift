import Foundation
import Synchronization
import Testing
@_spi(Benchmark) @testable import ModelStore
import ModelStoreTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Whether this run includes the scale tests: `make test-scale` (and CI) sets
/// `MODELSTORE_SCALE_TESTS=1`; `make test` leaves them out, since importing ten million records
/// takes minutes.
enum ScaleTests {
    static let enabled = ProcessInfo.processInfo.environment["MODELSTORE_SCALE_TESTS"] == "1"
}

@Suite("Limits at scale: ten million records")
struct EvictionScaleTests {
    /// What eviction may hold in anonymous memory beyond the sketch: the walk's chunk of 4,096
    /// keys and its removal batch, a window of 32 candidates, the expiry pass's and the walk's
    /// LevelDB iterators (a data block each) and the allocator's slack. A structure of even one
    /// byte per record would exceed it: ten million records are 9.5 MiB.
    static let margin = 4 << 20

    @Test(
        "Ten million small records, count limit at 99 %: a sweep evicts exactly the excess, one window per record evicted, in the sketch's 8 MiB plus a margin of 4 MiB",
        .enabled(if: ScaleTests.enabled, "a scale test: `make test-scale` runs it (MODELSTORE_SCALE_TESTS=1)"))
    func tenMillionRecords() async throws {
        let fixture = Fixture()
        let records = 10_000_000
        var configuration = fixture.configuration
        configuration.codec = BinaryModelCodec()
        let clock = ContinuousClock()
        var started = clock.now
        do {
            let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
            try await store.importObjects(0..<records, key: { Self.key($0) }, batchSize: 10_000)
            try store.close()
        }
        let imported = clock.now - started

        // What the same sweep costs without limits, measured the same way: LevelDB's own memory
        // (the index and filter blocks of every table it opens: 10 bits a key, 12 MiB of filters
        // here) and the expiry pass's. What the limits add beyond it is eviction's.
        configuration.writeBufferSize = 1 << 20  // LevelDB's memtable holds the evictions' deletions
        let plain = try Self.sweepMeasured(configuration)
        #expect(plain.removed == 0)

        var limited = configuration
        limited.maximumRecordCount = records - records / 100
        limited.evictsInline = true  // the open measures the database before it returns
        var enforcer: LimitEnforcer?
        var windows = 0
        started = clock.now
        let evicting = try Self.sweepMeasured(limited) { store throws in
            enforcer = store.database.limits
            windows = enforcer.map { enforcer in enforcer.walking.withLock { enforcer.windowsWalked } } ?? 0
            #expect(try LimitEnforcer.measuredRecords(of: store.database).count == records - records / 100)
            #expect(try store.limitStatus().evictedOverCount == records / 100)
        }
        let swept = clock.now - started
        let removed = evicting.removed
        let sketch = enforcer?.sketch?.byteCount ?? 0
        print(
            "tenMillionRecords: imported in \(imported), opened and swept in \(swept); anonymous memory growth "
                + "\(plain.growth >> 10) KiB without limits, \(evicting.growth >> 10) KiB with them "
                + "(+\((evicting.growth - plain.growth) >> 10) KiB); sketch \(sketch >> 10) KiB; \(removed) evicted, "
                + "\(windows) windows walked")

        // (a) Exactly the excess goes, and LevelDB agrees.
        #expect(removed == records / 100)
        // (b) Memory: the sketch at its cap, and nothing per record.
        #expect(sketch == 8 << 20)
        #expect(evicting.growth - plain.growth <= (8 << 20) + Self.margin)
        // (c) One window of 32 walked per record evicted.
        #expect(windows > 0 && windows <= removed + 1)
    }

    /// Opens the database with `configuration`, sweeps it (`removeExpiredObjects()`), runs
    /// `check` and closes it; returns what the sweep removed and the peak growth of anonymous
    /// memory from before the open to the close.
    static func sweepMeasured(
        _ configuration: ModelStore.Configuration, check: (ModelStore) throws -> Void = { _ in }
    ) throws -> (removed: Int, growth: Int) {
        trimMalloc()  // what earlier steps freed goes back, so that the baseline is what is held
        let sampler = AnonymousMemorySampler()
        let before = sampler.current
        let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
        let removed = try store.removeExpiredObjects()
        let peak = sampler.stop()
        try check(store)
        try store.close()
        return (removed, peak - before)
    }

    /// "k" and the index in nine digits: keys in ascending order, as an import of sorted data has.
    static func key(_ index: Int) -> String {
        var digits: (UInt64, UInt16) = (0, 0)
        return withUnsafeMutableBytes(of: &digits) { bytes in
            bytes[0] = UInt8(ascii: "k")
            var value = index
            for position in stride(from: 9, to: 0, by: -1) {
                bytes[position] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            }
            return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[..<10]), as: UTF8.self)
        }
    }
}

/// Gives the heap's free memory back to the system (glibc's `malloc_trim`), so that a baseline
/// of resident memory is what is held, not what was freed.
func trimMalloc() {
    #if os(Linux)
    _ = mallocTrim(0)
    #endif
}

#if os(Linux)
@_silgen_name("malloc_trim")
private func mallocTrim(_ pad: Int) -> Int32
#endif

/// The process's anonymous resident memory (`RssAnon` in `/proc/self/status`: the heap and the
/// stacks, not LevelDB's mapped table files), sampled every millisecond on a thread of its own
/// until ``stop()``, which returns the peak.
final class AnonymousMemorySampler: Sendable {
    private let peak = Atomic<Int>(0)
    private let running = Atomic<Bool>(true)
    private let done = Atomic<Bool>(false)

    init() {
        record()
        Thread { [self] in
            while running.load(ordering: .acquiring) {
                record()
                usleep(1_000)
            }
            done.store(true, ordering: .releasing)
        }.start()
    }

    /// The anonymous resident bytes now.
    var current: Int { Self.anonymousBytes() }

    /// Stops sampling; the peak anonymous resident bytes seen.
    func stop() -> Int {
        running.store(false, ordering: .releasing)
        while !done.load(ordering: .acquiring) { usleep(1_000) }
        record()
        return peak.load(ordering: .acquiring)
    }

    private func record() {
        let bytes = Self.anonymousBytes()
        if bytes > peak.load(ordering: .relaxed) { peak.store(bytes, ordering: .releasing) }
    }

    private static let label = Array("RssAnon:".utf8)

    /// `RssAnon` in bytes, read into a buffer on the stack (no allocation to measure).
    static func anonymousBytes() -> Int {
        let descriptor = open("/proc/self/status", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return 0 }
        defer { close(descriptor) }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 4_096) { buffer in
            let count = read(descriptor, buffer.baseAddress, buffer.count)
            guard count > 0 else { return 0 }
            let label = label
            var index = 0
            while index + label.count < count {
                if buffer[index] == label[0], (0..<label.count).allSatisfy({ buffer[index + $0] == label[$0] }) {
                    var kilobytes = 0
                    for byte in buffer[(index + label.count)..<count] {
                        if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { continue }
                        guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { break }
                        kilobytes = kilobytes * 10 + Int(byte - UInt8(ascii: "0"))
                    }
                    return kilobytes << 10
                }
                index += 1
            }
            return 0
        }
    }
}
