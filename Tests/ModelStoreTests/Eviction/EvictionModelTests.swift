import Foundation
import Testing
@_spi(Benchmark) @testable import ModelStore
import ModelStoreTestSupport

/// The eviction walk (Eviction/EvictionWalk.swift) against a reference implementation of the
/// algorithm, written plainly over a sorted array: windows of 32 from the hand in key order, the
/// lowest-ranked (fewest recent uses in the sketch, then written first) leaving each window, as
/// many per window as the share of the database over the limit, a partial window at the end of
/// the range, the hand wrapping to the first key, and a walk from the first key to the end
/// measuring the database again.
@Suite("Eviction: the walk against a reference implementation")
struct EvictionModelTests {
    /// The reference: the same sketch class fed the same uses, and everything else re-implemented.
    struct Reference {
        let limit: Int
        let sketch: UseSketch
        /// storedAt of every record, by key (keys sort as LevelDB sorts these ASCII keys).
        var records: [String: Double] = [:]
        var tracked = 0
        /// Records stored since the count was measured.
        var storedSinceMeasured = 0
        /// The walk resumes at the first key after this one (nil: at the first key).
        var hand: String?

        init(limit: Int) {
            self.limit = limit
            sketch = UseSketch(capacity: limit)
        }

        func uses(_ key: String) -> UInt8 { sketch.count(KeyHash.key(key, in: .default)) }

        mutating func read(_ key: String) {
            if records[key] != nil { sketch.recordUse(KeyHash.key(key, in: .default)) }
        }

        mutating func set(_ key: String, at time: Double) {
            sketch.recordUse(KeyHash.key(key, in: .default))
            records[key] = time
            tracked += 1  // an overwrite counts as a new record until the database is measured
            storedSinceMeasured += 1
            guard tracked > limit else { return }
            // With an eighth of the database (at least 64 records) stored since the count was
            // measured, the count is measured again before anything is evicted.
            if storedSinceMeasured >= max(64, tracked / 8) {
                tracked = records.count
                storedSinceMeasured = 0
                guard tracked > limit else { return }
            }
            // Past the limit, eviction goes a 128th under it, so that it runs in batches.
            evict(to: limit - limit / 128)
        }

        mutating func evict(to target: Int) {
            let windowSize = ModelStore.Eviction.windowSize
            func perWindow() -> Int {
                let share = tracked > 0 ? Double(tracked - target) / Double(tracked) : 0
                return min(windowSize, max(1, Int((Double(windowSize) * max(0, share)).rounded(.up))))
            }
            var start = hand
            var per = perWindow()
            var evictedInWalk = 0
            while tracked > target {
                let keys = records.keys.sorted().filter { start == nil || $0 > start! }
                var window: [(rank: (UInt8, Double), key: String)] = []
                var seen = 0
                var segmentCount = 0
                var segmentEvicted = 0
                var stoppedAfter: String?
                let evictedBefore = evictedInWalk
                func flush() {
                    for candidate in window {
                        if tracked <= target { break }
                        records[candidate.key] = nil
                        tracked -= 1
                        segmentEvicted += 1
                        evictedInWalk += 1
                    }
                    window = []
                    seen = 0
                    per = perWindow()
                }
                for key in keys {
                    seen += 1
                    segmentCount += 1
                    let rank = (uses(key), records[key]!)
                    if window.count < per || rank < window[window.count - 1].rank {
                        let index = window.firstIndex { rank < $0.rank } ?? window.count
                        window.insert((rank, key), at: index)
                        if window.count > per { window.removeLast() }
                    }
                    if seen >= windowSize {
                        flush()
                        if tracked <= target {
                            stoppedAfter = key
                            break
                        }
                    }
                }
                if seen > 0 { flush() }
                if let stoppedAfter {
                    start = stoppedAfter
                    break
                }
                if start == nil {
                    tracked = segmentCount - segmentEvicted  // measured again
                    storedSinceMeasured = 0
                    if evictedInWalk == evictedBefore { break }
                }
                start = nil
            }
            hand = start
            sketch.adjustPeriod(records: tracked)
        }
    }

    @Test(
        "Thousands of random reads and writes evict exactly the records the reference evicts (object-cache hits count as the reads they answer)",
        arguments: [
            (limit: 40, keys: 120, seed: 1 as UInt64, objectCache: 0), (limit: 200, keys: 900, seed: 2, objectCache: 0),
            (limit: 7, keys: 30, seed: 3, objectCache: 0), (limit: 200, keys: 900, seed: 4, objectCache: 64),
        ])
    func matchesTheReference(limit: Int, keys: Int, seed: UInt64, objectCache: Int) throws {
        let fixture = Fixture()
        var configuration = fixture.configuration
        configuration.objectCacheLimit = objectCache
        configuration.maximumRecordCount = limit
        configuration.eviction = .leastRecentlyUsed
        configuration.evictsInline = true
        let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
        var reference = Reference(limit: limit)
        var random = SeededGenerator(seed: seed)
        // Popular keys are read more: a skewed choice, so uses matter.
        func pick() -> String {
            let rank = Int(Double(keys) * pow(Double.random(in: 0..<1, using: &random), 2.5))
            return String(format: "k%04d", rank)
        }
        for step in 0..<4_000 {
            let key = pick()
            if Int.random(in: 0..<10, using: &random) < 7 {
                let found = try store.object(Int.self, forKey: key) != nil
                #expect(found == (reference.records[key] != nil), "step \(step): read of \(key)")
                reference.read(key)
            } else {
                try store.set(step, forKey: key)
                reference.set(key, at: fixture.clock.now.timeIntervalSinceReferenceDate)
            }
            fixture.clock.advance(by: Double(Int.random(in: 0...2, using: &random)))
            #expect(store.database.limits?.tracked.count == reference.tracked, "step \(step)")
            if step % 100 == 99 {
                let stored = try store.keys().collect()
                #expect(stored == reference.records.keys.sorted(), "step \(step)")
                if stored != reference.records.keys.sorted() { return }
            }
        }
        #expect(try store.keys().collect() == reference.records.keys.sorted())
        #expect(try store.count() <= limit)
    }

    @Test("Under oldestWritten, reads change nothing: the oldest written go first")
    func oldestWrittenIgnoresReads() throws {
        let fixture = Fixture()
        var configuration = fixture.configuration
        configuration.maximumRecordCount = 10
        configuration.eviction = .oldestWritten
        configuration.evictsInline = true
        let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
        for index in 0..<10 {
            try store.set(index, forKey: "k\(index)")
            fixture.clock.advance(by: 1)
        }
        for _ in 0..<5 { _ = try store.object(Int.self, forKey: "k0") }
        try store.set(10, forKey: "k10")
        #expect(try store.object(Int.self, forKey: "k0") == nil)
    }

    @Test("Under leastRecentlyUsed, a record read often outlives records written after it and never read")
    func readRecordsStay() throws {
        let fixture = Fixture()
        var configuration = fixture.configuration
        configuration.maximumRecordCount = 10
        configuration.evictsInline = true
        let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
        try store.set(0, forKey: "hot")
        fixture.clock.advance(by: 1)
        for index in 0..<100 {
            _ = try store.object(Int.self, forKey: "hot")
            try store.set(index, forKey: "cold\(index)")
            fixture.clock.advance(by: 1)
        }
        #expect(try store.object(Int.self, forKey: "hot") == 0)
        #expect(try store.count() == 10)
    }
}
