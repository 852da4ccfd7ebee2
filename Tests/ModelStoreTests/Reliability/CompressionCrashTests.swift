import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// SIGKILL while a helper writes with record compression on: before the dictionary is trained,
/// while it is trained and stored, and after, through sets and batches. After each kill every
/// acknowledged record (sets, batches, import chunks) reads back exactly, with the option on or
/// off, and no record names a dictionary the database lacks.
@Suite("Crash safety: SIGKILL around record compression", .serialized)
struct CompressionCrashTests {
    static let samples = 100

    @Test("Acknowledged records survive SIGKILL before, during and after the training (16 rounds)", .long)
    func killAroundTraining() throws {
        var random = SeededGenerator(seed: 0x25D)
        var roundsWithDictionary = 0
        var compressedRecords = 0
        // Kill points, in acknowledged records, spread around the moment the 100th record
        // completes the samples and the dictionary is trained and stored in the background.
        let targets = [20, 95, 99, 100, 101, 102, 104, 108, 112, 120, 140, 170, 220, 300, 400, 600]
        for (round, target) in targets.enumerated() {
            let fixture = Fixture()
            let helper = try ChildProcess.testHelper(["write-compressed", fixture.directory.path, "db", "\(Self.samples)"])
            var acknowledged = -1
            while acknowledged < target, let line = helper.readLine() {
                guard line.hasPrefix("ack "), let number = Int(line.dropFirst(4)) else {
                    Issue.record("helper said: \(line)")
                    break
                }
                acknowledged = number
            }
            if round % 2 == 1 { usleep(UInt32.random(in: 0..<3_000, using: &random)) }
            helper.kill()
            for line in helper.finish() where line.hasPrefix("ack ") {
                acknowledged = max(acknowledged, Int(line.dropFirst(4)) ?? acknowledged)
            }

            // Reopened with the option off on odd rounds, on on even ones.
            var configuration = fixture.configuration
            if round % 2 == 0 { configuration.recordCompression = .zstd(dictionarySampleCount: Self.samples) }
            let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
            defer { try? store.close() }
            for number in 0...max(acknowledged, 0) where acknowledged >= 0 {
                let read = try store.object(CompressibleRecord.self, forKey: "r\(number)")
                #expect(
                    read == CompressibleRecord(number: number),
                    "round \(round): record \(number) of \(acknowledged) acknowledged")
            }
            // Every compressed record names a dictionary the database holds.
            let keys = try store.keys().collect()
            for key in keys {
                let record = try #require(try rawRecord(store, key))
                let header = try #require(record.withUnsafeBytes { RecordHeader(parsing: $0) })
                guard header.isPayloadCompressed else { continue }
                compressedRecords += 1
                var offset = 0
                let id = try #require(record.withUnsafeBytes {
                    LEB128.readIdentifier(UnsafeRawBufferPointer(rebasing: $0[header.length...]), at: &offset)
                })
                #expect(store.database.dictionaries.dictionary(id: UInt32(id)) != nil, "round \(round): \(key)")
            }
            if store.database.dictionaries.current != nil { roundsWithDictionary += 1 }
        }
        print("compression crash rounds: \(targets.count), \(roundsWithDictionary) with a dictionary, "
            + "\(compressedRecords) compressed records verified")
        #expect(compressedRecords > 0)
    }
}
