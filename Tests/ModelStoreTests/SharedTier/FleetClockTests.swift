import Testing
@testable import ModelStore

/// The fleet clock that issues a shared-tier database's `storedAt` times, which are the records'
/// versions across the fleet (FleetClock.swift): never twice the same, never behind what the
/// node heard of.
struct FleetClockTests {
    @Test func issuesStrictlyIncreasingTimesWhateverTheWallClockDoes() {
        let clock = FleetClock()
        var last = 0.0
        // Standing still, going back, then jumping ahead.
        for now in [100.0, 100.0, 100.0, 99.0, 50.0, 100.0, 200.0, 200.0] {
            let issued = clock.issue(now)
            #expect(issued > last)
            #expect(issued >= now)
            last = issued
        }
        #expect(last == 200.0.nextUp)
    }

    @Test func aTimeHeardOfFromAnotherNodeIsPassedByTheNextWrite() {
        let clock = FleetClock()
        _ = clock.issue(100)
        // Another node, whose clock is ahead, wrote at 500: this node's next write is newer.
        clock.observe(500)
        #expect(clock.issue(120) > 500)
        // Older news changes nothing; garbage is ignored.
        clock.observe(10)
        clock.observe(.nan)
        clock.observe(.infinity)
        #expect(clock.issue(130) == 500.0.nextUp.nextUp)
    }

    @Test func aRewriteThatKeepsItsTimeMovesOneStepAndNoFurther() {
        let clock = FleetClock()
        let stepped = clock.step(after: 1_000)
        #expect(stepped == 1_000.0.nextUp)
        #expect(clock.issue(0) > stepped)
    }

    @Test func versionsOrderByTime() {
        #expect(SharedTierVersion(time: 1) < SharedTierVersion(time: 2))
        #expect(!(SharedTierVersion(time: 2) < SharedTierVersion(time: 2)))
    }
}

/// The durable outbox's entries (FleetOutbox.swift): what they encode comes back, and hostile
/// bytes are refused, never a crash or another removal.
struct FleetOutboxTests {
    @Test func bulkRemovalsRoundTrip() throws {
        let removals: [SharedTierInvalidation] = [
            .prefix("", collection: nil), .prefix("user:", collection: nil), .prefix("a\0b", collection: "c:d"),
            .prefix("é", collection: "e\u{301}"), .tag("t\0"), .tag(""), .database,
        ]
        for removal in removals {
            let value = try #require(FleetOutbox.encode(removal))
            #expect(value.withUnsafeBytes { FleetOutbox.decode($0) } == removal)
        }
        #expect(FleetOutbox.encode(.keys([])) == nil)
        #expect(FleetOutbox.encode(.versioned([])) == nil)
    }

    @Test func hostileBulkEntriesAreRefused() {
        let hostile: [[UInt8]] = [[], [0x70], [0x70, 0x7F], [0x70, 0x05, 0xFE], [0x61, 0x00], [0x78], [0x70, 0x03, 0x41, 0x42, 0x43]]
        for bytes in hostile {
            #expect(bytes.withUnsafeBytes { FleetOutbox.decode($0) } == nil, "\(bytes)")
        }
    }

    @Test func removalEntriesKeepTheirTime() {
        let value = FleetOutbox.removal(at: 812_345_678.25)
        #expect(value.withUnsafeBytes { FleetOutbox.removalTime($0) } == 812_345_678.25)
        #expect([FleetOutbox.setMark].withUnsafeBytes { FleetOutbox.removalTime($0) } == nil)
        #expect(Array(value.dropLast()).withUnsafeBytes { FleetOutbox.removalTime($0) } == nil)
    }
}
