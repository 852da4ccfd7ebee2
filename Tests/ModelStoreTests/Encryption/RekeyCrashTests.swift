#if Encryption
import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// A helper process re-keys a database and dies with SIGKILL in the middle. After any kill every
/// record is sealed with the old key or the new one and opens with it, stores refuse the
/// database until the job is finished, and a second run finishes it (or, with the keys
/// swapped, goes back), every value exact.
@Suite("Crash safety: SIGKILL during a re-keying", .serialized)
struct RekeyCrashTests {
    static let chunk = 40

    /// Every record of the database `name` (below the system records), as LevelDB holds it,
    /// read with the store closed.
    static func rawRecords(_ fixture: Fixture, name: String = "db") throws -> [(key: [UInt8], value: [UInt8])] {
        let engine = try LevelDB(
            path: fixture.directory.url.appendingPathComponent(name).path, options: ModelStore.Configuration().engineOptions,
            createIfMissing: false)
        defer { engine.close() }
        var records: [(key: [UInt8], value: [UInt8])] = []
        let iterator = try engine.makeIterator(snapshot: nil)
        try iterator.seekToFirst()
        _ = try iterator.scanForward(limit: .max) { key, value in
            guard key.first != KeySpace.systemMarker else { return false }
            records.append((Array(key), Array(value)))
            return true
        }
        return records
    }

    /// Checks that each record is sealed with `old` or `new` and opens with that key; returns
    /// how many are under `new`.
    static func expectEachOpens(_ fixture: Fixture, old: RecordCipher, new: RecordCipher) throws -> Int {
        var underNew = 0
        for (key, value) in try rawRecords(fixture) {
            let id = Sealing.keyID(of: value)
            #expect(id == old.keyID || id == new.keyID, "record \(key) names key \(String(describing: id))")
            let cipher = id == new.keyID ? new : old
            if id == new.keyID { underNew += 1 }
            key.withUnsafeBytes { keyBytes in
                value.withUnsafeBytes { record in
                    guard let header = RecordHeader(parsing: record) else {
                        Issue.record("record \(key) does not parse")
                        return
                    }
                    #expect(header.checksumMatches(value: record, key: keyBytes))
                    var plain: [UInt8] = []
                    #expect(cipher.open(record, header: header, key: keyBytes, into: &plain) == nil)
                }
            }
        }
        return underNew
    }

    static func rekeyInHelper(_ fixture: Fixture, crashAt step: String?) throws -> [String] {
        let environment = step.map { ["MODELSTORE_TEST_CRASH_AT": $0] } ?? [:]
        let child = try ChildProcess.testHelper(
            ["rekey", fixture.directory.path, "db", "1", "2", "\(chunk)"], environment: environment)
        return child.finish()
    }

    static let steps = ["rekey-marked"] + (1...7).map { "rekey-chunk:\($0)" } + ["rekey-rewritten"]

    @Test("Killed at each step: every record opens with one of the two keys, and a second run finishes",
        arguments: steps)
    func killedAtAStep(step: String) throws {
        let fixture = Fixture()
        try RekeyTests.fill(fixture, key: Sealing.first)
        let lines = try Self.rekeyInHelper(fixture, crashAt: step)
        #expect(lines == ["ready"], "the helper was not killed at \(step): \(lines)")
        let old = RecordCipher(key: Sealing.first)
        let new = RecordCipher(key: Sealing.second)
        let underNew = try Self.expectEachOpens(fixture, old: old, new: new)
        let expected: Int =
            switch step {
            case "rekey-marked": 0
            case "rekey-rewritten": RekeyTests.count
            default: min(RekeyTests.count, Int(step.split(separator: ":")[1])! * Self.chunk)
            }
        #expect(underNew == expected)
        for key in [Sealing.first, Sealing.second] {
            #expect(EncryptionMismatchTests.mismatch(fixture, key: .aes256GCM(key: key)) == .rekeyingUnfinished)
        }
        let report = try ModelStore.rekey(named: "db", in: fixture.directory.url, from: Sealing.first, to: Sealing.second)
        #expect(report.recordsAlreadyDone == expected)
        #expect(report.recordsResealed == RekeyTests.count - expected)
        try RekeyTests.expectAll(fixture, key: Sealing.second)
    }

    @Test("Killed part way, the re-keying can be undone by running it with the keys swapped")
    func undoneAfterAKill() throws {
        let fixture = Fixture()
        try RekeyTests.fill(fixture, key: Sealing.first)
        _ = try Self.rekeyInHelper(fixture, crashAt: "rekey-chunk:3")
        try ModelStore.rekey(named: "db", in: fixture.directory.url, from: Sealing.second, to: Sealing.first)
        try RekeyTests.expectAll(fixture, key: Sealing.first)
    }

    @Test("Killed at random moments, many times over: never a record under neither key, and it finishes", .long)
    func killedAtRandomMoments() throws {
        let fixture = Fixture()
        let count = 3_000
        try RekeyTests.fill(fixture, key: Sealing.first, count: count)
        var generator = SeededGenerator(seed: 27)
        let old = RecordCipher(key: Sealing.first)
        let new = RecordCipher(key: Sealing.second)
        for round in 0..<8 {
            // Alternating directions, so each run starts from a mix of the two keys.
            let (from, to) = round % 2 == 0 ? ("1", "2") : ("2", "1")
            let child = try ChildProcess.testHelper(["rekey", fixture.directory.path, "db", from, to, "16"])
            #expect(child.readLine() == "ready")
            usleep(UInt32.random(in: 0..<40_000, using: &generator))
            child.kill()
            _ = child.finish()
            _ = try Self.expectEachOpens(fixture, old: old, new: new)
        }
        try ModelStore.rekey(named: "db", in: fixture.directory.url, from: Sealing.first, to: Sealing.second)
        try RekeyTests.expectAll(fixture, key: Sealing.second, count: count)
    }
}
#endif
