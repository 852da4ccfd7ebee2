import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// Record format 2 and the checksum it brought: every read that trusts a value checks it, and
/// version-1 and version-2 records stay readable beside version 3 (see RecordFormatThreeTests).
@Suite("Record format 2")
struct RecordFormatTwoTests {
    /// A version-1 record exactly as the previous release wrote it.
    static func versionOneRecord(_ value: some Encodable, storedAt: Date, expiresAt: Date? = nil) throws -> [UInt8] {
        var bytes: [UInt8] = []
        RecordHeader(
            storedAt: storedAt.timeIntervalSinceReferenceDate, expiresAt: expiresAt?.timeIntervalSinceReferenceDate,
            codec: .json
        ).writeVersionOne(to: &bytes)
        return bytes + Array(try JSONEncoder().encode(value))
    }

    /// Whether `record` is a value of the current version (3) whose checksum matches `key`.
    static func isSealedCurrentVersion(_ record: [UInt8]?, key: String) -> Bool {
        guard let record, record.first == RecordHeader.versionThree else { return false }
        return record.withUnsafeBytes { value in
            guard let header = RecordHeader(parsing: value) else { return false }
            return Array(key.utf8).withUnsafeBytes { header.checksumMatches(value: value, key: $0) }
        }
    }

    /// Expects `body` to throw `corrupted` with a message naming `key` and the checksum.
    static func expectChecksumFailure(
        key: String, _ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            try body()
            Issue.record("expected corrupted for \(key)", sourceLocation: sourceLocation)
        } catch let ModelStoreError.corrupted(_, message) {
            #expect(message.contains("fails its checksum"), sourceLocation: sourceLocation)
            #expect(message.contains("\"\(key)\""), sourceLocation: sourceLocation)
        } catch {
            Issue.record("expected corrupted, got \(error)", sourceLocation: sourceLocation)
        }
    }

    // MARK: - Version 1 stays readable

    @Test("Version-1 records written by a foreign LevelDB client read as before: object, entry, count, keys, sweep")
    func versionOneFromForeignClient() throws {
        let fixture = Fixture()
        let path = try fixture.open().url.path
        let storedAt = fixture.clock.now
        try writeWithForeignClient(path: path, records: [
            (Array("plain".utf8), try Self.versionOneRecord(User.sample("plain"), storedAt: storedAt)),
            (Array("timed".utf8), try Self.versionOneRecord(
                User.sample("timed"), storedAt: storedAt, expiresAt: storedAt.addingTimeInterval(30))),
        ])
        let store = try fixture.open()
        #expect(try store.object(User.self, forKey: "plain") == User.sample("plain"))
        let entry = try #require(try store.entry(User.self, forKey: "timed"))
        #expect(entry.value == User.sample("timed"))
        #expect(entry.storedAt == storedAt)
        #expect(entry.expiresAt == storedAt.addingTimeInterval(30))
        #expect(try entry.metadata(String.self) == nil)
        #expect(try store.metadata(String.self, forKey: "plain") == nil)
        #expect(try store.count() == 2)
        #expect(try store.keys().collect() == ["plain", "timed"])
        fixture.clock.advance(by: 31)
        #expect(try store.removeExpiredObjects() == 1)
        #expect(try store.keys().collect() == ["plain"])
    }

    @Test("Version-1, version-2 and version-3 records live side by side; rewriting an older record makes it version 3")
    func versionsCoexist() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try putRawRecord(store, "old", try Self.versionOneRecord(User.sample("old"), storedAt: fixture.clock.now))
        try putRawRecord(store, "two", try RecordFormatThreeTests.versionTwoRecord(
            User.sample("two"), key: "two", storedAt: fixture.clock.now.timeIntervalSinceReferenceDate))
        try store.set(User.sample("new"), forKey: "new")
        let all = try store.entries(User.self).collect().map(\.value.userName)
        #expect(all == ["new", "old", "two"])
        #expect(try rawRecord(store, "old")?.first == RecordHeader.versionOne)
        #expect(try rawRecord(store, "two")?.first == RecordHeader.versionTwo)
        #expect(try store.refresh(forKey: "old", metadata: "etag-1"))
        #expect(try store.replaceMetadata("etag-2", forKey: "two"))
        #expect(Self.isSealedCurrentVersion(try rawRecord(store, "old"), key: "old"))
        #expect(Self.isSealedCurrentVersion(try rawRecord(store, "two"), key: "two"))
        #expect(try store.object(User.self, forKey: "two") == User.sample("two"))
        #expect(try store.object(User.self, forKey: "old") == User.sample("old"))
        #expect(try store.metadata(String.self, forKey: "old") == "etag-1")
    }

    // MARK: - Every write path writes the current version

    @Test("set, set with a lifetime, batches, import and read-through all write sealed version-3 records")
    func everyWritePathWritesVersionTwo() async throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.set(1, forKey: "set")
        try store.set(2, forKey: "lifetime", expiresAfter: 60)
        try store.set(3, forKey: "meta", metadata: "m")
        try store.write { batch in
            try batch.set(4, forKey: "batch")
            try batch.set(5, forKey: "batchMeta", expiresAfter: 60, metadata: ["a": 1])
        }
        try await store.importObjects([6, 7], key: { "import\($0)" })
        _ = try await store.object(Int.self, forKey: "readThrough") { 8 }
        for key in ["set", "lifetime", "meta", "batch", "batchMeta", "import6", "import7", "readThrough"] {
            #expect(Self.isSealedCurrentVersion(try rawRecord(store, key), key: key), "\(key)")
        }
    }

    // MARK: - The checksum

    @Test("A byte flipped anywhere in a version-2 value, rewritten through LevelDB's C API, is reported as corrupted", .long)
    func flippedValueByteIsCaught() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.set(User.sample(), forKey: "user", expiresAfter: 600, metadata: "etag")
        let record = try #require(try rawRecord(store, "user"))
        let path = store.url.path
        try store.close()
        // Every byte after the version: flags, codec, checksum, times, metadata, payload.
        for index in 1..<record.count {
            var damaged = record
            damaged[index] ^= 0x04
            try writeWithForeignClient(path: path, records: [(Array("user".utf8), damaged)])
            let reopened = try fixture.open()
            defer { try? reopened.close() }
            do {
                let value = try reopened.object(User.self, forKey: "user")
                Issue.record("byte \(index): read \(String(describing: value)) instead of an error")
            } catch let error as ModelStoreError {
                // Flags, lengths or times that no longer parse are refused as undecodable;
                // everything else fails the checksum. Never a value.
                switch error {
                case .corrupted(_, let message): #expect(message.contains("\"user\""))
                case .decodingFailed(let key, _, _): #expect(key == "user")
                default: Issue.record("byte \(index): unexpected \(error)")
                }
            }
        }
    }

    @Test("Every read that hands out a value checks the checksum: object, entry, entries, objects, metadata, snapshot")
    func everyTrustedReadChecks() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.set(User.sample(), forKey: "user", metadata: "etag")
        var record = try #require(try rawRecord(store, "user"))
        record[record.count - 3] ^= 0x01  // inside the payload's JSON text
        try putRawRecord(store, "user", record)
        Self.expectChecksumFailure(key: "user") { _ = try store.object(User.self, forKey: "user") }
        Self.expectChecksumFailure(key: "user") { _ = try store.entry(User.self, forKey: "user") }
        Self.expectChecksumFailure(key: "user") {
            _ = try store.entry(User.self, forKey: "user", includingExpired: true)
        }
        Self.expectChecksumFailure(key: "user") { _ = try store.entries(User.self).collect() }
        Self.expectChecksumFailure(key: "user") { _ = try store.objects(User.self, forKeys: ["user"]) }
        Self.expectChecksumFailure(key: "user") { _ = try store.metadata(String.self, forKey: "user") }
        Self.expectChecksumFailure(key: "user") { _ = try store.replaceMetadata("new", forKey: "user") }
        Self.expectChecksumFailure(key: "user") { _ = try store.refresh(forKey: "user") }
        let snapshot = try store.snapshot()
        Self.expectChecksumFailure(key: "user") { _ = try snapshot.object(User.self, forKey: "user") }
        #expect(try rawRecord(store, "user") == record)  // nothing rewrote the damaged record
    }

    @Test("A record copied raw under another key, or found under a key with one byte flipped, fails its checksum")
    func recordUnderAnotherKeyIsCaught() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.set(User.sample(), forKey: "user")
        let record = try #require(try rawRecord(store, "user"))
        let path = store.url.path
        try store.close()
        try writeWithForeignClient(path: path, records: [
            (Array("copy".utf8), record),
            (Array("usfr".utf8), record),  // "user" with one bit of its third byte flipped
        ])
        let reopened = try fixture.open()
        Self.expectChecksumFailure(key: "copy") { _ = try reopened.object(User.self, forKey: "copy") }
        Self.expectChecksumFailure(key: "usfr") { _ = try reopened.entry(User.self, forKey: "usfr") }
        #expect(try reopened.object(User.self, forKey: "user") == User.sample())
    }

    @Test("Header-only passes keep a damaged record: contains and count still see it, and a sweep keeps it")
    func headerOnlyPassesKeepDamagedRecords() throws {
        let fixture = Fixture()
        let store = try fixture.open(policy: .high)
        try store.set(User.sample(), forKey: "user")
        var record = try #require(try rawRecord(store, "user"))
        record[record.count - 1] ^= 0x01
        try putRawRecord(store, "user", record)
        #expect(try store.contains("user"))
        #expect(try store.count() == 1)
        #expect(try store.removeExpiredObjects() == 0)
        #expect(try rawRecord(store, "user") == record)
    }

    // MARK: - Reserved parts of the envelope

    @Test("A record with a tags section (reserved for tags) reads today: the section is skipped")
    func tagsSectionIsSkipped() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        var bytes: [UInt8] = []
        RecordHeader(storedAt: fixture.clock.now.timeIntervalSinceReferenceDate, expiresAt: nil, codec: .json)
            .writeVersionTwo(to: &bytes, hasMetadata: true, hasTags: true)
        try RecordHeader.appendMetadataSection(encoding: "etag", with: JSONModelCodec(), to: &bytes)
        bytes += [2, 3] + Array("new".utf8) + [4] + Array("sale".utf8)  // two tags
        bytes += Array(try JSONEncoder().encode(User.sample()))
        Array("tagged".utf8).withUnsafeBytes { RecordHeader.seal(&bytes, key: $0) }
        try putRawRecord(store, "tagged", bytes)
        #expect(try store.object(User.self, forKey: "tagged") == User.sample())
        #expect(try store.metadata(String.self, forKey: "tagged") == "etag")
        // A rewrite keeps the tags section byte for byte.
        #expect(try store.replaceMetadata("etag2", forKey: "tagged"))
        let rewritten = try #require(try rawRecord(store, "tagged"))
        #expect(rewritten[1] & RecordHeader.hasTagsFlag != 0)
        #expect(rewritten[0] == RecordHeader.versionThree)  // rewritten in the current version
        #expect(rewritten[1...2] == bytes[1...2])
        let tagsAndPayload = Array(bytes[(15 + 8)...])  // after the header and the old 8-byte metadata section
        #expect(Array(rewritten.suffix(tagsAndPayload.count)) == tagsAndPayload)
    }

    @Test("A version-2 or version-3 record with an unknown flag is refused as undecodable, and a sweep keeps it")
    func unknownFlagIsRefused() throws {
        let fixture = Fixture()
        let store = try fixture.open(policy: .high)
        let now = fixture.clock.now.timeIntervalSinceReferenceDate
        // Version 2: bit 4, the first one it reserved (bit 3 marks a compressed model since then;
        // version 3 gives bit 4 and bit 5 (sealed) a meaning, so its first reserved one is bit 6).
        var two = try RecordFormatThreeTests.versionTwoRecord(User.sample(), key: "two", storedAt: now)
        two[1] |= 0b0001_0000
        Array("two".utf8).withUnsafeBytes { RecordHeader.seal(&two, key: $0) }
        try putRawRecord(store, "two", two)
        try store.set(User.sample(), forKey: "three")
        var three = try #require(try rawRecord(store, "three"))
        three[1] |= 0b0100_0000
        Array("three".utf8).withUnsafeBytes { RecordHeader.seal(&three, key: $0) }
        try putRawRecord(store, "three", three)
        for key in ["two", "three"] {
            #expect(errorCase { _ = try store.object(User.self, forKey: key) } == "decodingFailed")
            #expect(errorCase { _ = try store.metadata(String.self, forKey: key) } == "decodingFailed")
            #expect(errorCase { _ = try store.refresh(forKey: key) } == "decodingFailed")
        }
        fixture.clock.advance(by: 10 * 86_400)
        #expect(try store.removeExpiredObjects() == 0)
        #expect(try rawRecord(store, "two") == two)
        #expect(try rawRecord(store, "three") == three)
    }
}
