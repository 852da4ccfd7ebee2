import Foundation
import MetricsTestKit
import Testing
@_spi(Benchmark) @testable import ModelStore
import ModelStoreTestSupport

@Suite("Eviction: metrics and status by reason")
struct EvictionMetricsTests {
    @Test("modelstore_evictions_total counts evictions by the limit the database was over, and sweeps' expired records")
    func evictionsByReason() throws {
        let fixture = Fixture()
        let metrics = TestMetrics()
        var configuration = fixture.configuration
        configuration.maximumRecordCount = 5
        configuration.evictsInline = true
        configuration.readThrough.metricsFactory = metrics
        let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
        for index in 0..<12 { try store.set(index, forKey: "k\(index)") }
        try store.set(0, forKey: "short", expiresAfter: 10)
        fixture.clock.advance(by: 20)
        #expect(try store.removeExpiredObjects() == 1)
        func counter(_ reason: String) -> Int64 {
            metrics.counters(label: EvictionMetrics.label, dimensions: [("database", "db"), ("reason", reason)])
                .first?.totalValue ?? 0
        }
        #expect(counter("maximum_record_count") == 8)  // 13 written, 5 kept
        #expect(counter("maximum_total_bytes") == 0)
        #expect(counter("expired") == 1)
        let status = try store.limitStatus()
        #expect(status.maximumRecordCount == 5 && status.maximumTotalBytes == nil)
        #expect(status.eviction == .leastRecentlyUsed)
        #expect(status.recordCount == 4)
        #expect((status.evictedOverCount, status.evictedOverBytes, status.removedExpired) == (8, 0, 1))
    }
}
