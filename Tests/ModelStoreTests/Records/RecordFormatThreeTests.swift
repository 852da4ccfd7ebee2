import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// Record format 3 (issue 23, item 2): the checksum covers every byte of the value, every write
/// path writes it, and a read never deletes a record it has not verified in full; version-2
/// records, whose bytes 0-2 no checksum covers, still read but are never purged by a read.
@Suite("Record format 3")
struct RecordFormatThreeTests {
    /// A version-2 record exactly as a format-2 release wrote it (JSON), sealed for `key` in
    /// `collection`.
    static func versionTwoRecord<Value: Encodable>(
        _ value: Value, key: String, in collection: String? = nil, storedAt: Double, expiresAt: Double? = nil,
        metadata: String? = nil
    ) throws -> [UInt8] {
        var bytes: [UInt8] = []
        RecordHeader(storedAt: storedAt, expiresAt: expiresAt, codec: .json)
            .writeVersionTwo(to: &bytes, hasMetadata: metadata != nil, hasTags: false)
        if let metadata {
            try RecordHeader.appendMetadataSection(encoding: metadata, with: JSONModelCodec(), to: &bytes)
        }
        bytes += Array(try JSONEncoder().encode(value))
        try physicalKey(key, in: collection).withUnsafeBytes { RecordHeader.seal(&bytes, key: $0) }
        return bytes
    }

    /// Whether `record` is a version-3 value whose checksum matches `key` in `collection`.
    static func isSealedVersionThree(_ record: [UInt8]?, key: String, in collection: String? = nil) throws -> Bool {
        guard let record, record.first == RecordHeader.versionThree else { return false }
        let physical = try physicalKey(key, in: collection)
        return record.withUnsafeBytes { value in
            guard let header = RecordHeader(parsing: value) else { return false }
            return physical.withUnsafeBytes { header.checksumMatches(value: value, key: $0) }
        }
    }

    /// The case of the error `body` throws, with the message of a `corrupted` one.
    static func outcome(_ body: () throws -> Any?) -> String {
        do {
            return try body() == nil ? "nil" : "value"
        } catch let ModelStoreError.corrupted(_, message) {
            return "corrupted: \(message)"
        } catch {
            return "\(error)"
        }
    }

    // MARK: - Version 2 stays readable

    @Test("Version-2 records (crafted raw) still read everywhere: object, entry, metadata, count, keys, sweep")
    func versionTwoStillReads() throws {
        let fixture = Fixture()
        let store = try fixture.open(policy: .high)
        let now = fixture.clock.now.timeIntervalSinceReferenceDate
        try putRawRecord(store, "plain", try Self.versionTwoRecord(User.sample("plain"), key: "plain", storedAt: now))
        try putRawRecord(store, "timed", try Self.versionTwoRecord(
            User.sample("timed"), key: "timed", storedAt: now, expiresAt: now + 600, metadata: "etag"))
        try putRawRecord(store, "k", in: "c", try Self.versionTwoRecord(
            User.sample("c"), key: "k", in: "c", storedAt: now, expiresAt: now + 600))
        #expect(try store.object(User.self, forKey: "plain") == User.sample("plain"))
        let timed = try #require(try store.entry(User.self, forKey: "timed"))
        #expect(timed.value == User.sample("timed"))
        #expect(timed.expiresAt == Date(timeIntervalSinceReferenceDate: now + 600))
        #expect(try store.metadata(String.self, forKey: "timed") == "etag")
        #expect(try store.collection("c").object(User.self, forKey: "k") == User.sample("c"))
        #expect(try store.count() == 2)
        #expect(try store.keys().collect() == ["plain", "timed"])
        #expect(try store.contains("plain"))
        #expect(try store.removeExpiredObjects() == 0)
        // Past the store's policy (1 minute): expired, read as missing, left for the sweep.
        fixture.clock.advance(by: 120)
        #expect(try store.object(User.self, forKey: "plain") == nil)
        #expect(try store.entry(User.self, forKey: "plain") == nil)
        #expect(try store.contains("plain") == false)
        #expect(try store.count() == 1)
        #expect(try rawRecord(store, "plain") != nil)  // no read deleted it
        #expect(try store.removeExpiredObjects() == 1)  // the sweep verified it, and did
        #expect(try rawRecord(store, "plain") == nil)
        #expect(try store.object(User.self, forKey: "timed") == User.sample("timed"))
    }

    @Test("A version-2 record with a flipped deadline flag is not purged or rewritten by any read, nor swept")
    func versionTwoFlippedDeadlineFlag() throws {
        let fixture = Fixture()
        let store = try fixture.open(policy: .never)
        let now = fixture.clock.now.timeIntervalSinceReferenceDate
        // The first 8 bytes after storedAt (the model's first bytes, or the metadata section) now
        // read as a deadline: as a Float64, text is a deadline no write stores, long past or
        // millennia ahead, or the metadata section no longer parses.
        let records: [(key: String, record: [UInt8])] = [
            ("dictionary", try Self.versionTwoRecord(["abcd": 1], key: "dictionary", storedAt: now)),
            ("user", try Self.versionTwoRecord(User.sample(), key: "user", storedAt: now)),
            ("meta", try Self.versionTwoRecord(User.sample(), key: "meta", storedAt: now, metadata: "etag")),
        ]
        for (key, intact) in records {
            var record = intact
            record[1] |= RecordHeader.hasDeadlineFlag  // the checksum does not cover byte 1
            try putRawRecord(store, key, record)
            let reads: [(String, () throws -> Any?)] = [
                ("object", { try store.object(User.self, forKey: key) }),
                ("entry", { try store.entry(User.self, forKey: key) }),
                ("entries", { try store.entries(User.self, in: .prefix(key)).collect() }),
                ("objects", { try store.objects(User.self, forKeys: [key]) }),
                ("metadata", { try store.metadata(String.self, forKey: key) }),
                // A rewrite would seal the misread envelope as a verified version-3 record.
                ("refresh", { try store.refresh(forKey: key) }),
                ("replaceMetadata", { try store.replaceMetadata("new", forKey: key) }),
            ]
            for (name, read) in reads {
                // Typed errors naming the key only: never a value, never "missing" (but a record
                // stored without metadata may still say it has none).
                let outcome = Self.outcome(read)
                if name == "metadata", key != "meta", outcome == "nil" { continue }
                let typed = outcome.hasPrefix("corrupted") || outcome.contains("does not decode")
                #expect(typed && outcome.contains("\"\(key)\""), "\(key) \(name): \(outcome)")
            }
            #expect(try store.contains(key))
            #expect(try store.keys(in: .prefix(key)).collect() == [key])
            #expect(try store.count(in: .prefix(key)) == 1)
            #expect(try store.removeExpiredObjects() == 0)
            #expect(try rawRecord(store, key) == record)
        }
        // The same under a store whose policy has long passed: still not deleted by reads or a sweep.
        let expiring = try fixture.open(policy: .highest)
        fixture.clock.advance(by: 3600)
        for key in ["dictionary", "user", "meta"] {
            #expect(Self.outcome { try expiring.object(User.self, forKey: key) } != "nil")
            #expect(try expiring.contains(key))
        }
        #expect(try expiring.removeExpiredObjects() == 0)
        for (key, _) in records { #expect(try rawRecord(store, key) != nil) }
    }

    // MARK: - Version 3

    @Test("An expired version-3 record is deleted by the read that finds it, once verified")
    func expiredVersionThreeIsPurgedByRead() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.set(User.sample(), forKey: "a", expiresAfter: 10)
        try store.set(User.sample(), forKey: "b", expiresAfter: 10)
        try store.collection("c").set(User.sample(), forKey: "m", expiresAfter: 10, metadata: "etag")
        fixture.clock.advance(by: 11)
        #expect(try store.object(User.self, forKey: "a") == nil)
        #expect(try rawRecord(store, "a") == nil)
        #expect(try store.contains("b") == false)
        #expect(try rawRecord(store, "b") == nil)
        #expect(try store.collection("c").metadata(String.self, forKey: "m") == nil)
        #expect(try rawRecord(store, "m", in: "c") == nil)
    }

    @Test("Every write path writes sealed version-3 records, compression and collections included")
    func everyWritePathWritesVersionThree() async throws {
        let fixture = Fixture()
        let store = try fixture.open()
        let users = store.collection("users", policy: .never)
        try store.set(1, forKey: "set")
        try store.set(2, forKey: "lifetime", expiresAfter: 60)
        try store.set(3, forKey: "meta", metadata: "m")
        try store.set(4, forKey: "tagged", tags: ["t"])
        try store.write { batch in
            try batch.set(5, forKey: "batch")
            try batch.set(6, forKey: "batchMeta", expiresAfter: 60, metadata: ["a": 1])
            try batch.set(7, forKey: "batchTagged", tags: ["t"])
            try batch.set(8, forKey: "batchIn", in: users)
        }
        try await store.importObjects([9, 10], key: { "import\($0)" })
        try await users.importObjects([11], key: { "import\($0)" })
        _ = try await store.object(Int.self, forKey: "readThrough") { 12 }
        try users.set(13, forKey: "user")
        try store.set(14, forKey: "refreshed")
        #expect(try store.refresh(forKey: "refreshed", expiresAfter: 30))
        try store.set(15, forKey: "replaced")
        #expect(try store.replaceMetadata("new", forKey: "replaced"))
        for key in [
            "set", "lifetime", "meta", "tagged", "batch", "batchMeta", "batchTagged", "import9", "import10",
            "readThrough", "refreshed", "replaced",
        ] {
            #expect(try Self.isSealedVersionThree(try rawRecord(store, key), key: key), "\(key)")
        }
        for key in ["batchIn", "import11", "user"] {
            #expect(try Self.isSealedVersionThree(try rawRecord(store, key, in: "users"), key: key, in: "users"))
        }
        // A compressed model: the flag is set before the record is sealed.
        let compressedFixture = Fixture()
        let compressed = try RecordCompressionTests.compressed(compressedFixture)
        try RecordCompressionTests.train(compressed)
        try compressed.set(RecordCompressionTests.Profile.make(7), forKey: "z")
        let record = try rawRecord(compressed, "z")
        #expect(RecordCompressionTests.isCompressed(record))
        #expect(try Self.isSealedVersionThree(record, key: "z"))
    }

    @Test("A version-3 record whose version byte lost a bit reads as corrupted, not as an unknown format")
    func damagedVersionByteIsCorruption() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.set(User.sample(), forKey: "user")
        let intact = try #require(try rawRecord(store, "user"))
        for bit in 0..<8 {
            var record = intact
            record[0] ^= 1 << bit
            try putRawRecord(store, "user", record)
            #expect(Self.outcome { try store.object(User.self, forKey: "user") }.contains("fails its checksum"))
        }
        // A newer format (sealed over its own version byte) is an unknown format, not damage.
        var future = intact
        future[0] = 0x44
        Array("user".utf8).withUnsafeBytes { RecordHeader.seal(&future, key: $0) }
        try putRawRecord(store, "user", future)
        #expect(errorCase { _ = try store.object(User.self, forKey: "user") } == "decodingFailed")
    }
}
