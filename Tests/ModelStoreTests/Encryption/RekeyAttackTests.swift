#if Encryption
#if canImport(CryptoKit)
import CryptoKit
#else
import Crypto
#endif
import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// Re-keying under hostile conditions: a database another process holds, wrong keys while a
/// re-keying is under way, records compressed with a trained dictionary.
@Suite("Encryption: re-keying under attack")
struct RekeyAttackTests {
    typealias Profile = RecordCompressionTests.Profile

    /// Every key and value of database "db", system records included, read with it closed.
    static func contents(_ fixture: Fixture) throws -> [[UInt8]] {
        let engine = try LevelDB(
            path: fixture.directory.url.appendingPathComponent("db").path, options: ModelStore.Configuration().engineOptions,
            createIfMissing: false)
        defer { engine.close() }
        var contents: [[UInt8]] = []
        let iterator = try engine.makeIterator(snapshot: nil)
        try iterator.seekToFirst()
        _ = try iterator.scanForward(limit: .max) { key, value in
            contents.append(Array(key))
            contents.append(Array(value))
            return true
        }
        return contents
    }

    @Test("A database another process holds is refused with locked, and nothing is changed")
    func heldByAnotherProcess() throws {
        let fixture = Fixture()
        let store = try Sealing.open(fixture, key: nil)
        try store.set(1, forKey: "one")
        try store.close()
        let holder = try ChildProcess.testHelper(["hold", fixture.directory.path, "db"])
        #expect(holder.readLine() == "ready")
        #expect(errorCase { try ModelStore.rekey(named: "db", in: fixture.directory.url, from: nil, to: Sealing.first) } == "locked")
        holder.finish()
        let reopened = try Sealing.open(fixture, key: nil)
        defer { try? reopened.close() }
        #expect(try reopened.object(Int.self, forKey: "one") == 1)
        #expect(try reopened.database.run { try EncryptionMarker.read(from: $0, path: "") } == nil)
    }

    @Test("A database a store of this process has open is refused with locked, saying so, not naming another process")
    func openInThisProcess() throws {
        let fixture = Fixture()
        let store = try Sealing.open(fixture, key: nil)
        defer { try? store.close() }
        try store.set(1, forKey: "one")
        do {
            try ModelStore.rekey(named: "db", in: fixture.directory.url, from: nil, to: Sealing.first)
            Issue.record("re-keyed a database open in this process")
        } catch let error as ModelStoreError {
            guard case .locked = error else { throw error }
            #expect(error.description.contains("is open in this process"), "\(error)")
            #expect(!error.description.contains("another process"), "\(error)")
        }
        #expect(try store.object(Int.self, forKey: "one") == 1)
    }

    @Test("While a re-keying is under way, any other pair of keys is refused and changes nothing")
    func otherKeysWhileUnderWay() throws {
        let fixture = Fixture()
        let store = try Sealing.open(fixture, key: Sealing.first)
        for index in 0..<50 { try store.set(index, forKey: "k\(index)") }
        // The marker of a re-keying from first to second, as a kill after its first step leaves it.
        let underWay = EncryptionMarker(
            current: RecordCipher(key: Sealing.first).keyID, target: .some(RecordCipher(key: Sealing.second).keyID))
        try store.database.commitSystemRecord(key: EncryptionMarker.key, value: underWay.value, sync: true)
        try store.close()
        let third = Sealing.key(3)
        let url = fixture.directory.url
        for (from, to) in [(Sealing.first, third), (Sealing.second, third), (third, Sealing.second), (nil, Sealing.second)]
            as [(SymmetricKey?, SymmetricKey?)]
        {
            // LevelDB's own files change at every open; the records and the marker must not.
            let before = try Self.contents(fixture)
            #expect(errorCase { try ModelStore.rekey(named: "db", in: url, from: from, to: to) } == "encryptionMismatch")
            #expect(try Self.contents(fixture) == before)
        }
        try ModelStore.rekey(named: "db", in: url, from: Sealing.first, to: Sealing.second)
        let rekeyed = try Sealing.open(fixture, key: Sealing.second)
        defer { try? rekeyed.close() }
        for index in 0..<50 { #expect(try rekeyed.object(Int.self, forKey: "k\(index)") == index) }
    }

    @Test("Records compressed with a trained dictionary are encrypted and decrypted by rekey, and read back exactly")
    func dictionaryCompressedRecords() throws {
        let fixture = Fixture()
        let plain = try RecordCompressionTests.compressed(fixture)
        try RecordCompressionTests.train(plain)
        for id in 0..<300 { try plain.set(Profile.make(id), forKey: "p\(id)") }
        #expect(RecordCompressionTests.isCompressed(try rawRecord(plain, "p0")))
        try plain.close()
        let url = fixture.directory.url
        let report = try ModelStore.rekey(named: "db", in: url, from: nil, to: Sealing.first)
        #expect(report.recordsLeft == 0)
        let sealed = try Sealing.open(fixture, key: Sealing.first, compression: .zstd(dictionarySampleCount: 200))
        for id in 0..<300 { #expect(try sealed.object(Profile.self, forKey: "p\(id)") == Profile.make(id)) }
        try sealed.close()
        try ModelStore.rekey(named: "db", in: url, from: Sealing.first, to: nil)
        let back = try RecordCompressionTests.compressed(fixture)
        defer { try? back.close() }
        for id in 0..<300 { #expect(try back.object(Profile.self, forKey: "p\(id)") == Profile.make(id)) }
    }

    @Test("Stores opened on other threads while a re-keying runs: each open is refused with a typed error or reads every value exactly")
    func opensRacingARekeying() throws {
        let fixture = Fixture()
        let store = try Sealing.open(fixture, key: Sealing.first)
        try store.write { batch in for index in 0..<3_000 { try batch.set(index, forKey: "k\(index)") } }
        try store.close()
        let url = fixture.directory.url
        let configurations = [Sealing.first, Sealing.second, nil].map { Sealing.configuration(fixture, key: $0) }
        let stop = AtomicFlag()
        let problems = Locked<[String]>([])
        let opened = Locked(0)
        let openers = (0..<2).map { thread in
            Thread {
                var round = thread
                while !stop.isSet {
                    let configuration = configurations[round % configurations.count]
                    round += 1
                    do {
                        let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
                        for index in stride(from: 0, to: 3_000, by: 397) {
                            if try store.object(Int.self, forKey: "k\(index)") != index {
                                problems.withLock { $0.append("k\(index) read wrong") }
                            }
                        }
                        try store.close()
                        opened.withLock { $0 += 1 }
                    } catch let error as ModelStoreError {
                        switch error {
                        case .locked, .encryptionMismatch: break
                        default: problems.withLock { $0.append("\(error)") }
                        }
                    } catch {
                        problems.withLock { $0.append("\(error)") }
                    }
                }
            }
        }
        openers.forEach { $0.start() }
        // An open has succeeded before the re-keying starts (bounded: 20 s of 1 ms polls), so
        // the test sees both outcomes on a slow machine too.
        for _ in 0..<20_000 where opened.withLock({ $0 }) == 0 { usleep(1_000) }
        var finished = false
        // Bounded by time, not by attempts: a slow machine's openers hold the lock longer.
        let deadline = ContinuousClock.now + .seconds(60)
        while !finished && ContinuousClock.now < deadline {
            do {
                _ = try ModelStore.rekey(named: "db", in: url, from: Sealing.first, to: Sealing.second, chunkSize: 100)
                finished = true
            } catch ModelStoreError.locked(_, _) {
                usleep(1_000)  // a store of it was open at that moment: try again
            }
        }
        stop.set()
        while openers.contains(where: { $0.isExecuting }) { usleep(1_000) }
        #expect(finished)
        #expect(problems.withLock { $0 }.isEmpty, "\(problems.withLock { $0 }.prefix(5))")
        #expect(opened.withLock { $0 } > 0)
        let rekeyed = try Sealing.open(fixture, key: Sealing.second)
        defer { try? rekeyed.close() }
        for index in 0..<3_000 { #expect(try rekeyed.object(Int.self, forKey: "k\(index)") == index) }
    }
}
#endif
