import Foundation
import Testing
@_spi(Benchmark) @testable import ModelStore
import ModelStoreTestSupport

@Suite("Expiry sweeps, limits and disk space")
struct SweepTests {
    @Test("removeExpiredObjects removes exactly the expired records and returns how many")
    func sweepCounts() throws {
        let fixture = Fixture()
        let store = try fixture.open(policy: .high)
        for index in 0..<40_000 { if index % 2 == 0 { try store.set(index, forKey: "k\(index)") } }
        fixture.clock.advance(by: 30)
        for index in 0..<40_000 { if index % 2 == 1 { try store.set(index, forKey: "k\(index)") } }
        try store.set(0, forKey: "own", expiresAfter: 10)
        try store.set(0, forKey: "longer", expiresAfter: 3_600)
        fixture.clock.advance(by: 30)  // the first half is 60 s old: expired

        #expect(try store.removeExpiredObjects() == 20_001)  // the even keys and "own"
        #expect(try store.removeExpiredObjects() == 0)
        let relaxed = try fixture.open(policy: .never)
        #expect(try relaxed.count() == 20_001)
        #expect(try relaxed.contains("k1"))
        #expect(try relaxed.contains("k0") == false)
        #expect(try relaxed.contains("longer"))
    }

    @Test("A sweep never decodes models: it removes expired records whose payload is garbage")
    func sweepDoesNotDecode() throws {
        let fixture = Fixture()
        let store = try fixture.open(policy: .highest)
        // A valid header followed by bytes no codec can decode.
        var record: [UInt8] = []
        RecordHeader(storedAt: fixture.clock.now.timeIntervalSinceReferenceDate, expiresAt: nil, codec: .json)
            .writeVersionOne(to: &record)
        record += [0xFF, 0x00, 0x13]
        try store.database.write { engine in
            try Array("garbage".utf8).withUnsafeBytes { key in
                try record.withUnsafeBytes { try engine.put(key: key, value: $0, sync: false) }
            }
        }
        #expect(errorCase { _ = try store.object(String.self, forKey: "garbage") } == "decodingFailed")
        fixture.clock.advance(by: 10)
        #expect(try store.removeExpiredObjects() == 1)
    }

    @Test("A record with a damaged header is never swept")
    func damagedHeaderSurvivesSweep() throws {
        let fixture = Fixture()
        let store = try fixture.open(policy: .highest)
        try store.database.write { engine in
            try Array("odd".utf8).withUnsafeBytes { key in
                try [UInt8]([42]).withUnsafeBytes { try engine.put(key: key, value: $0, sync: false) }
            }
        }
        fixture.clock.advance(by: 1_000)
        #expect(try store.removeExpiredObjects() == 0)
        #expect(try store.contains("odd"))
    }

    @Test("After a large purge the sweep compacts, so disk usage shrinks", .long)
    func compactionReclaimsSpace() async throws {
        let fixture = Fixture()
        let store = try fixture.open(policy: .high)
        let bio = String(repeating: "lorem ipsum ", count: 40)
        try await store.importObjects((0..<30_000).map { "\($0) \(bio)" }, key: { $0 }, batchSize: 1_000)
        try store.compact()
        let before = try directorySize(store.url)
        fixture.clock.advance(by: 60)
        #expect(try store.removeExpiredObjects() == 30_000)
        store.database.waitForMaintenance()  // the sweep compacts in the background
        let after = try directorySize(store.url)
        #expect(before > 1_000_000)
        #expect(after < before / 4, "before \(before) bytes, after \(after) bytes")
    }

    @Test("A count limit evicts the oldest records first, as writes arrive")
    func countLimit() throws {
        let fixture = Fixture()
        var configuration = fixture.configuration
        configuration.maximumRecordCount = 3
        configuration.eviction = .oldestWritten
        configuration.evictsInline = true
        let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
        for key in ["e", "d", "c", "b", "a"] {  // stored oldest first, in reverse key order
            try store.set(key, forKey: key)
            fixture.clock.advance(by: 1)
        }
        #expect(try store.keys().collect() == ["a", "b", "c"])
        #expect(try store.removeExpiredObjects() == 0)
    }

    @Test("A sweep evicts to a count limit exactly, oldest first, when the database was opened without limits")
    func countLimitBySweep() throws {
        let fixture = Fixture()
        let unlimited = try fixture.open("db", policy: .never)
        for key in ["e", "d", "c", "b", "a"] {  // stored oldest first, in reverse key order
            try unlimited.set(key, forKey: key)
            fixture.clock.advance(by: 1)
        }
        var configuration = fixture.configuration
        configuration.maximumRecordCount = 3
        let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
        #expect(try store.removeExpiredObjects() == 2)
        #expect(try store.keys().collect() == ["a", "b", "c"])
    }

    @Test("A byte limit evicts the oldest records until the rest fits")
    func byteLimit() throws {
        let fixture = Fixture()
        let probe = try fixture.open("probe")
        try probe.set(String(repeating: "x", count: 1_000), forKey: "k0")
        let recordSize = try #require(try probe.entry(String.self, forKey: "k0")).byteCount + 2
        var configuration = fixture.configuration
        configuration.maximumTotalBytes = recordSize * 4
        configuration.evictsInline = true
        let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
        for index in 0..<10 {
            try store.set(String(repeating: "x", count: 1_000), forKey: "k\(index)")
            fixture.clock.advance(by: 1)
        }
        #expect(try store.keys().collect() == ["k6", "k7", "k8", "k9"])
        #expect(try store.removeExpiredObjects() == 0)
    }

    @Test("The automatic sweep runs in the background and stops when the store closes")
    func automaticSweep() async throws {
        let fixture = Fixture()
        var configuration = fixture.configuration
        configuration.automaticSweepInterval = 0.02
        let store = try ModelStore(name: "db", policy: .highest, configuration: configuration)
        let observer = try fixture.open("db", policy: .never)  // sees records without purging them
        try store.set(1, forKey: "a")
        fixture.clock.advance(by: 10)
        #expect(try await eventually { try observer.count() == 0 })

        try store.close()
        try observer.set(2, forKey: "b")
        fixture.clock.advance(by: 10)
        try await Task.sleep(for: .milliseconds(200))  // several intervals: no sweep may run now
        #expect(try observer.count() == 1)
    }

    @Test("An invalid sweep interval is refused at open")
    func invalidSweepInterval() throws {
        let fixture = Fixture()
        var configuration = fixture.configuration
        configuration.automaticSweepInterval = 0
        #expect(errorCase { _ = try ModelStore(name: "db", policy: .low, configuration: configuration) }
            == "invalidPolicy")
    }

    private func directorySize(_ url: URL) throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: url.path).reduce(0) { total, name in
            let attributes = try FileManager.default.attributesOfItem(atPath: url.path + "/" + name)
            return total + ((attributes[.size] as? NSNumber)?.intValue ?? 0)
        }
    }
}

/// Polls `condition` until it holds or `timeout` passes: for background work whose timing
/// the test does not control (not for expiry, which uses the injected clock). It returns as soon
/// as the condition holds; the bound only decides how long a failing test takes. Two minutes: on
/// a 2-core machine running the suite beside a build, a background task (a refresh-ahead, an
/// offloaded write) waited more than 10 seconds for a thread (three CI-like runs out of seven).
func eventually(timeout: Duration = .seconds(120), _ condition: () throws -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        try await Task.sleep(for: .milliseconds(10))
    }
    return try condition()
}
