import Foundation
import Testing

@testable import ModelStore
import ModelStoreTestSupport

/// The policy records under `0xFF 0x03`: what opens and `collection(_:policy:)` record, what
/// they cost, and how they survive damage and older databases.
@Suite struct RecordedPolicyTests {
    /// The policy record of `space`, as LevelDB holds it.
    private func rawPolicyRecord(_ store: ModelStore, _ space: KeySpace = .default) throws -> [UInt8]? {
        try store.database.run { engine in
            try StoredPolicies.key(for: space).withUnsafeBytes { key in
                try engine.withValue(forKey: key) { $0.map { Array($0) } }
            }
        }
    }

    /// Replaces the policy record of `space` behind ModelStore's back.
    private func putRawPolicyRecord(_ store: ModelStore, _ value: [UInt8], space: KeySpace = .default) throws {
        try store.database.write { engine in
            try StoredPolicies.key(for: space).withUnsafeBytes { key in
                try value.withUnsafeBytes { try engine.put(key: key, value: $0, sync: false) }
            }
        }
    }

    /// The bytes LevelDB has logged since the database was last opened: a fresh log is empty
    /// until something is written.
    private func loggedBytes(_ store: ModelStore) throws -> Int {
        let files = try FileManager.default.contentsOfDirectory(atPath: store.url.path).filter { $0.hasSuffix(".log") }
        let newest = try #require(files.max { $0.count == $1.count ? $0 < $1 : $0.count < $1.count })
        let attributes = try FileManager.default.attributesOfItem(atPath: store.url.path + "/" + newest)
        return (attributes[.size] as? NSNumber)?.intValue ?? -1
    }

    @Test func openRecordsItsPolicyAndAnOpenWithTheSamePolicyWritesNothing() throws {
        let fixture = Fixture()
        try fixture.open(policy: .low).close()
        #expect(try ModelStore.recordedPolicy(ofDatabaseNamed: "db", in: fixture.directory.url) == .low)

        let again = try fixture.open(policy: .low)
        #expect(try loggedBytes(again) == 0)  // read, found equal, not written
        let second = try fixture.open(policy: .low)  // known in memory: no I/O at all
        #expect(try loggedBytes(again) == 0)
        #expect(try second.recordedPolicy() == .low)
        try second.close()
        try again.close()

        let changed = try fixture.open(policy: .custom(90.5))
        #expect(try loggedBytes(changed) > 0)
        #expect(try changed.recordedPolicy() == .custom(90.5))
        try changed.close()
    }

    @Test func theLaterOpenOfTwoWithDifferentPoliciesIsRecorded() throws {
        let fixture = Fixture()
        let low = try fixture.open(policy: .low)
        let never = try fixture.open(policy: .never)
        #expect(try low.recordedPolicy() == .never)
        // Each instance still applies its own policy.
        try low.set(User.sample(), forKey: "u")
        #expect(try low.entry(User.self, forKey: "u")?.expiresAt != nil)
        #expect(try never.entry(User.self, forKey: "u")?.expiresAt == nil)
        let low2 = try fixture.open(policy: .low)
        #expect(try never.recordedPolicy() == .low)
        for store in [low, never, low2] { try store.close() }
        #expect(try ModelStore.recordedPolicy(ofDatabaseNamed: "db", in: fixture.directory.url) == .low)
    }

    @Test func everyPolicyRoundTrips() throws {
        let fixture = Fixture()
        let policies: [UpdatePolicy] = [
            .never, .lowest, .low, .middle, .high, .highest, .custom(0.001), .custom(1e300),
            .custom(.greatestFiniteMagnitude), .custom(.leastNonzeroMagnitude),
        ]
        for policy in policies {
            let store = try fixture.open(policy: policy)
            #expect(try store.recordedPolicy() == policy)
            let collection = store.collection("c", policy: policy)
            #expect(try collection.recordedPolicy() == policy)
            try store.close()
        }
    }

    @Test func collectionsRecordTheirOwnPolicyByTheirNamesBytes() throws {
        let fixture = Fixture()
        let store = try fixture.open(policy: .low)
        defer { try? store.close() }
        _ = store.collection("sessions", policy: .highest)
        _ = store.collection("forever", policy: .never)
        _ = store.collection("plain")
        _ = store.collection("\u{E9}", policy: .middle)  // é, NFC
        _ = store.collection("e\u{301}", policy: .high)  // é, NFD: another collection
        let longest = String(repeating: "n", count: 255)
        _ = store.collection(longest, policy: .custom(7))
        _ = store.collection("a", policy: .lowest)  // a prefix of "ab": keys FF 03 FE 01 61 and FF 03 FE 02 61 62
        #expect(try store.collection(longest).recordedPolicy() == .custom(7))
        #expect(try store.collection("a").recordedPolicy() == .lowest)
        #expect(try store.collection("ab").recordedPolicy() == nil)
        #expect(try store.collection("sessions").recordedPolicy() == .highest)
        #expect(try store.collection("forever").recordedPolicy() == .never)
        #expect(try store.collection("plain").recordedPolicy() == nil)
        #expect(try store.collection("\u{E9}").recordedPolicy() == .middle)
        #expect(try store.collection("e\u{301}").recordedPolicy() == .high)
        #expect(try store.recordedPolicy() == .low)
        // The last policy given wins, in memory and on disk.
        _ = store.collection("sessions", policy: .low)
        #expect(try store.collection("sessions").recordedPolicy() == .low)
        _ = store.collection("sessions", policy: .highest)
        try store.close()
        let reopened = try fixture.open(policy: .low)
        defer { try? reopened.close() }
        #expect(try reopened.collection("sessions").recordedPolicy() == .highest)
    }

    @Test func policyRecordsAreNeverSeenAsRecords() throws {
        let fixture = Fixture()
        let store = try fixture.open(policy: .highest)
        defer { try? store.close() }
        let sessions = store.collection("sessions", policy: .low)
        #expect(try store.count() == 0)
        #expect(try store.keys().next() == nil)
        #expect(try store.collectionNames().isEmpty)
        #expect(try sessions.count() == 0)
        fixture.clock.advance(by: 30 * 86_400)
        #expect(try store.removeExpiredObjects() == 0)
        #expect(try store.removeAllObjects() == 0)
        #expect(try sessions.removeAllObjects() == 0)
        #expect(try store.recordedPolicy() == .highest)
        #expect(try sessions.recordedPolicy() == .low)
        #expect(try store.rawKeys(includingPolicyRecords: true).count == 2)
    }

    @Test func invalidCollectionsRecordNothingAndReportTheirError() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        defer { try? store.close() }
        for policy in [UpdatePolicy.custom(-5), .custom(0), .custom(.nan), .custom(.infinity)] {
            let collection = store.collection("c", policy: policy)
            #expect(errorCase { _ = try collection.recordedPolicy() } == "invalidPolicy")
        }
        let unnamed = store.collection("", policy: .low)
        #expect(errorCase { _ = try unnamed.recordedPolicy() } == "invalidName")
        #expect(try store.collection("c").recordedPolicy() == nil)
        #expect(try store.rawKeys(includingPolicyRecords: true) == [StoredPolicies.key(for: .default)])
    }

    @Test func aDamagedRecordIsReportedAndTheNextOpenRecordsThePolicyAgain() throws {
        let fixture = Fixture()
        let store = try fixture.open(policy: .low)
        let sessions = store.collection("sessions", policy: .middle)
        let good = try #require(try rawPolicyRecord(store))
        // Every bit of the record, and every length.
        for bit in 0..<(good.count * 8) {
            var bad = good
            bad[bit / 8] ^= 1 << (bit % 8)
            try putRawPolicyRecord(store, bad)
            #expect(errorCase { _ = try store.recordedPolicy() } == "corrupted", "bit \(bit)")
        }
        for length in [0, 1, 13, 15] {
            try putRawPolicyRecord(store, Array((good + [0]).prefix(length)))
            #expect(errorCase { _ = try store.recordedPolicy() } == "corrupted", "length \(length)")
        }
        // A record from a newer release: another format byte.
        var newer = good
        newer[0] = 2
        try putRawPolicyRecord(store, newer)
        do {
            _ = try store.recordedPolicy()
            Issue.record("read a record of an unknown format")
        } catch let error as ModelStoreError {
            #expect(error.description.contains("newer"))
            #expect(error.description.contains("Opening the database with a policy records it again"))
        }
        // A collection's record copied under the database's key fails its checksum.
        let copied = try #require(try rawPolicyRecord(store, sessions.scope.checkedSpace))
        try putRawPolicyRecord(store, copied)
        #expect(errorCase { _ = try store.recordedPolicy() } == "corrupted")
        try store.close()

        let reopened = try fixture.open(policy: .low)
        defer { try? reopened.close() }
        #expect(try reopened.recordedPolicy() == .low)
    }

    /// The tables of `store` as LevelDB lists them (`leveldb.sstables`), one line each:
    /// ` 5:262['\xff\x03' @ 1 : 1 .. '\xff\x03' @ 1 : 1]`.
    private func tableLines(_ store: ModelStore) throws -> [Substring] {
        try #require(try store.property(named: "leveldb.sstables")).split(separator: "\n").filter { $0.hasPrefix(" ") }
    }

    /// Left in the first memtable, the record (sorted after every user key) made the first table
    /// span the whole key range, so LevelDB merged every later table of ascending keys into it.
    @Test func aNewDatabasesPolicyRecordIsInATableOfItsOwnApartFromTheRecordsWrittenNext() throws {
        let fixture = Fixture()
        let store = try fixture.open(policy: .low)
        defer { try? store.close() }
        // Smallest and largest key FF 03: the policy record and nothing else.
        func policyOnly(_ line: Substring) -> Bool { line.contains("['\\xff\\x03' @") && line.contains(".. '\\xff\\x03' @") }
        #expect(try tableLines(store).map(policyOnly) == [true])
        #expect(try store.approximateSize() == 0)  // policy records are not counted
        for index in 0..<100 { try store.set(index, forKey: "k\(100 + index)") }
        try store.compact(in: .prefix("k"))
        let tables = try tableLines(store)
        #expect(tables.count == 2)
        #expect(tables.filter(policyOnly).count == 1)
        #expect(tables.filter { $0.contains("['k100' @") && $0.contains(".. 'k199' @") }.count == 1)
        #expect(try store.approximateSize() > 0)
    }

    /// A store opened with limits records them (FF 17) before its policy, so a new database's
    /// first table holds both and nothing else: with the limits left in the write buffer, the
    /// first flush spanned every later key and LevelDB compacted ascending puts once more
    /// (PERFORMANCE.md, "Eviction by use").
    @Test func aNewDatabasesLimitsGoIntoThePolicysTableOfItsOwn() throws {
        let fixture = Fixture()
        var configuration = fixture.configuration
        configuration.maximumRecordCount = 1_000_000
        let store = try ModelStore(name: "db", policy: .low, configuration: configuration)
        defer { try? store.close() }
        func settingsOnly(_ line: Substring) -> Bool { line.contains("['\\xff\\x03' @") && line.contains(".. '\\xff\\x17' @") }
        #expect(try tableLines(store).map(settingsOnly) == [true])
        #expect(try store.approximateSize() == 0)  // recorded settings are not records
        for index in 0..<100 { try store.set(index, forKey: "k\(100 + index)") }
        try store.compact(in: .prefix("k"))
        let tables = try tableLines(store)
        #expect(tables.count == 2)
        #expect(tables.filter(settingsOnly).count == 1)
        #expect(try store.approximateSize() > 0)
    }

    /// As a release from before this rule left it: the policy record in one table with the
    /// records, whose bytes the estimate keeps counting (LevelDB estimates by whole blocks).
    @Test func aPolicyRecordSharingATableWithRecordsLeavesThemInTheEstimate() throws {
        let fixture = Fixture()
        var configuration = fixture.configuration
        configuration.recordsPolicies = false
        let store = try ModelStore(name: "db", policy: .low, configuration: configuration)
        defer { try? store.close() }
        for index in 0..<100 { try store.set(index, forKey: "k\(100 + index)") }
        try putRawPolicyRecord(store, StoredPolicies.value(of: .low, key: StoredPolicies.key(for: .default)))
        try store.compact()
        let tables = try tableLines(store)
        #expect(tables.count == 1 && tables[0].contains("['k100' @") && tables[0].contains(".. '\\xff\\x03' @"))
        #expect(try store.approximateSize() > 0)
    }

    @Test func aDatabaseFromBeforePolicyRecordsHasNone() throws {
        let fixture = Fixture()
        var configuration = fixture.configuration
        configuration.recordsPolicies = false  // what a release from before policy records wrote
        let old = try ModelStore(name: "db", policy: .low, configuration: configuration)
        try old.collection("c", policy: .high).set(User.sample(), forKey: "u")
        #expect(try old.recordedPolicy() == nil)
        #expect(try old.collection("c").recordedPolicy() == nil)
        #expect(try old.rawKeys(includingPolicyRecords: true).count == 1)  // the record only
        try old.close()
        #expect(try ModelStore.recordedPolicy(ofDatabaseNamed: "db", in: fixture.directory.url) == nil)
        // The first open by this release records its policy.
        try fixture.open(policy: .middle).close()
        #expect(try ModelStore.recordedPolicy(ofDatabaseNamed: "db", in: fixture.directory.url) == .middle)
    }

    @Test func readingTheRecordedPolicyOfADatabaseChangesAndCreatesNothing() throws {
        let fixture = Fixture()
        #expect(errorCase { _ = try ModelStore.recordedPolicy(ofDatabaseNamed: "ghost", in: fixture.directory.url) }
            == "notAModelStore")
        #expect(errorCase { _ = try ModelStore.recordedPolicy(ofDatabaseNamed: "a/b", in: fixture.directory.url) }
            == "invalidName")
        let missingRoot = fixture.directory.url.appendingPathComponent("nowhere")
        #expect(errorCase { _ = try ModelStore.recordedPolicy(ofDatabaseNamed: "db", in: missingRoot) }
            == "notAModelStore")
        #expect(fixture.directory.entries().isEmpty)

        try fixture.open(policy: .low).close()
        #expect(try ModelStore.recordedPolicy(ofDatabaseNamed: "db", in: fixture.directory.url) == .low)
        // Open in this process: read through the open database, which keeps working.
        let open = try fixture.open(policy: .high)
        #expect(try ModelStore.recordedPolicy(ofDatabaseNamed: "db", in: fixture.directory.url) == .high)
        try open.set(User.sample(), forKey: "u")
        #expect(try open.count() == 1)
        try open.close()
        let reopened = try fixture.open(policy: .high)
        #expect(try loggedBytes(reopened) == 0)
        try reopened.close()
    }

    @Test func recordedPolicyOfADatabaseWithoutBlockingTheCaller() async throws {
        let fixture = Fixture()
        try fixture.open(policy: .lowest).close()
        #expect(try await ModelStore.recordedPolicy(ofDatabaseNamed: "db", in: fixture.directory.url) == .lowest)
    }

    @Test func concurrentCreationsOfOneCollectionLeaveTheRecordAndMemoryAgreeing() async throws {
        let fixture = Fixture()
        let store = try fixture.open()
        let policies: [UpdatePolicy] = [.low, .middle, .high, .never]
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for round in 0..<200 {
                        _ = store.collection("c", policy: policies[(task + round) % policies.count])
                    }
                }
            }
        }
        let recorded = try store.collection("c").recordedPolicy()
        // What memory holds is what the disk holds: giving that policy again writes nothing.
        let before = try loggedBytes(store)
        _ = store.collection("c", policy: try #require(recorded))
        #expect(try loggedBytes(store) == before)
        #expect(try store.collection("c").recordedPolicy() == recorded)
        try store.close()
        let reopened = try fixture.open()
        defer { try? reopened.close() }
        #expect(try reopened.collection("c").recordedPolicy() == recorded)
    }

    @Test func aClosedStoresCollectionRecordsNothing() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.close()
        let collection = store.collection("c", policy: .low)
        #expect(errorCase { _ = try collection.recordedPolicy() } == "closed")
        let reopened = try fixture.open()
        defer { try? reopened.close() }
        #expect(try reopened.collection("c").recordedPolicy() == nil)
    }

    /// The record only informs tools: a full disk that refuses it never fails the open (the
    /// failed write disables writes, as any failed write does, and is logged once).
    @Test(.enabled(if: SmallFileSystem.unavailableReason == nil, "tmpfs cannot be mounted here"))
    func aPolicyThatCannotBeWrittenNeverFailsTheOpen() throws {
        let fileSystem = try SmallFileSystem.mount(megabytes: 4).get()
        var configuration = Fixture().quietConfiguration
        configuration.directory = URL(fileURLWithPath: fileSystem.path + "/root")
        var silent = configuration
        silent.recordsPolicies = false  // so LevelDB's log holds nothing yet: the next write needs a page
        let first = try ModelStore(name: "db", policy: .low, configuration: silent)
        fileSystem.fill()
        let second = try ModelStore(name: "db", policy: .middle, configuration: configuration)
        let collection = second.collection("c", policy: .high)
        #expect(try second.recordedPolicy() == nil)
        #expect(try collection.recordedPolicy() == nil)
        #expect(try collection.count() == 0)
        #expect(errorCase { try second.set(Data([1]), forKey: "k") } == "writesDisabled")
        fileSystem.free()
        try second.close()
        try first.close()
        // Reopened with space again: recorded.
        let reopened = try ModelStore(name: "db", policy: .middle, configuration: configuration)
        defer { try? reopened.close() }
        #expect(try reopened.recordedPolicy() == .middle)
    }
}
