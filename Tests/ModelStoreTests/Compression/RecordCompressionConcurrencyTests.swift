import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// Record compression under threads: writers and readers while the dictionary is trained and
/// published, stores with and without the option on one database, and closing mid-training.
@Suite("Record compression under concurrency")
struct RecordCompressionConcurrencyTests {
    typealias Profile = RecordCompressionTests.Profile

    @Test("Four threads writing and reading while the dictionary is trained and published: every read is exact", .long)
    func writersAndReadersDuringTraining() throws {
        let store = try RecordCompressionTests.compressed(Fixture())
        let failures = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            do {
                for index in 0..<400 {
                    let id = thread * 10_000 + index
                    try store.set(Profile.make(id), forKey: "p\(id)")
                    let earlier = thread * 10_000 + index / 2
                    let read = try store.object(Profile.self, forKey: "p\(earlier)")
                    if read != Profile.make(earlier) {
                        failures.withLock { $0.append("p\(earlier): \(String(describing: read))") }
                    }
                }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        store.database.waitForMaintenance()
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 }.prefix(5))")
        #expect(store.database.dictionaries.current != nil)
        var compressed = 0
        for thread in 0..<4 {
            for index in 0..<400 {
                let id = thread * 10_000 + index
                store.database.invalidate("p\(id)")
                #expect(try store.object(Profile.self, forKey: "p\(id)") == Profile.make(id))
                if RecordCompressionTests.isCompressed(try rawRecord(store, "p\(id)")) { compressed += 1 }
            }
        }
        #expect(compressed > 0)
    }

    @Test("A store with compression and one without share a database: each reads the other's records")
    func mixedStoresOnOneDatabase() throws {
        let fixture = Fixture()
        let compressing = try RecordCompressionTests.compressed(fixture)
        let plain = try fixture.open()
        try RecordCompressionTests.train(compressing)
        try compressing.set(Profile.make(1), forKey: "from-compressing")
        try plain.set(Profile.make(2), forKey: "from-plain")
        #expect(RecordCompressionTests.isCompressed(try rawRecord(plain, "from-compressing")))
        #expect(!RecordCompressionTests.isCompressed(try rawRecord(plain, "from-plain")))
        #expect(try plain.object(Profile.self, forKey: "from-compressing") == Profile.make(1))
        #expect(try compressing.object(Profile.self, forKey: "from-plain") == Profile.make(2))
        let snapshot = try plain.snapshot()
        #expect(try snapshot.object(Profile.self, forKey: "from-compressing") == Profile.make(1))
        #expect(try plain.entries(Profile.self).collect().count == RecordCompressionTests.sampleCount + 2)
        let values = try plain.objects(Profile.self, forKeys: ["from-compressing", "train-3"])
        #expect(values == ["from-compressing": Profile.make(1), "train-3": Profile.make(3)])
    }

    @Test("Closing the store while its dictionary is trained: no crash, and the database reopens with every record", .long)
    func closeDuringTraining() throws {
        for round in 0..<20 {
            let fixture = Fixture()
            do {
                let store = try RecordCompressionTests.compressed(fixture)
                for id in 0..<RecordCompressionTests.sampleCount { try store.set(Profile.make(id), forKey: "p\(id)") }
                if round % 2 == 1 { usleep(UInt32(round * 300)) }
                try store.close()
            }
            let reopened = try RecordCompressionTests.compressed(fixture)
            for id in 0..<RecordCompressionTests.sampleCount {
                #expect(try reopened.object(Profile.self, forKey: "p\(id)") == Profile.make(id))
            }
            reopened.database.waitForMaintenance()
            try reopened.set(Profile.make(9_999), forKey: "after")
            #expect(try reopened.object(Profile.self, forKey: "after") == Profile.make(9_999))
            try reopened.close()
        }
    }

    @Test("Closing the store while it samples stored records and trains from them: no crash, every record reads")
    func closeDuringStoredRecordSampling() throws {
        let fixture = Fixture()
        do {
            let plain = try fixture.open()
            try plain.write { batch in
                for id in 0..<2_000 { try batch.set(Profile.make(id), forKey: "p\(id)") }
            }
            try plain.close()
        }
        var configuration = fixture.configuration
        configuration.recordCompression = .zstd(dictionarySampleCount: 1_500)
        for round in 0..<20 {
            let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
            if round % 2 == 1 { usleep(UInt32(round * 200)) }
            try store.close()
        }
        let reopened = try ModelStore(name: "db", policy: .never, configuration: configuration)
        reopened.database.waitForMaintenance()
        for id in stride(from: 0, to: 2_000, by: 37) {
            #expect(try reopened.object(Profile.self, forKey: "p\(id)") == Profile.make(id))
        }
        try reopened.set(Profile.make(5_000), forKey: "after")
        #expect(RecordCompressionTests.isCompressed(try rawRecord(reopened, "after")))
    }
}
