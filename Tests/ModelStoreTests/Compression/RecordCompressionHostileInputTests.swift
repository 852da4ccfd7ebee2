import CLevelDB
import CZstd
import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// Record compression given hostile input: dictionaries deleted behind the store's back, frames
/// that lie, and limits that compression must not slip past.
@Suite("Record compression: hostile frames, dictionaries and limits")
struct RecordCompressionHostileInputTests {
    typealias Profile = RecordCompressionTests.Profile

    /// A model unlike ``Profile``: a dictionary trained on it differs from one trained on profiles.
    struct Invoice: Codable, Equatable, Sendable {
        var number: Int
        var customer: String
        var lines: [String]
        var total: Double

        static func make(_ number: Int) -> Invoice {
            Invoice(
                number: number, customer: "customer-\(number % 37)-\(String(repeating: "q", count: number % 11))",
                lines: (0..<4).map { "line item \($0) sku \(number &* 7919 % 10_007) quantity \($0 + number % 5)" },
                total: Double(number) * 1.25)
        }
    }

    // MARK: - A deleted dictionary

    @Test("A dictionary deleted by another client is never replaced under its id: its records throw corrupted")
    func deletedDictionaryIDNotReused() throws {
        let fixture = Fixture()
        let path: String
        do {
            let store = try RecordCompressionTests.compressed(fixture)
            try RecordCompressionTests.train(store)
            try store.set(Profile.make(1), forKey: "k")
            #expect(RecordCompressionTests.isCompressed(try rawRecord(store, "k")))
            // The samples the dictionary came from go: a new one cannot be trained on the same.
            _ = try store.removeObjects(withPrefix: "train-")
            path = store.database.path
            try store.close()
        }
        try deleteWithForeignClient(path: path, keys: [RecordDictionaries.key(id: 1)])

        let reopened = try RecordCompressionTests.compressed(fixture)
        RecordCompressionTests.expectDamaged(key: "k", "dictionary 1") {
            _ = try reopened.object(Profile.self, forKey: "k")
        }
        // Other records train a new dictionary; the old records must not be read with it.
        for number in 0..<RecordCompressionTests.sampleCount {
            try reopened.set(Invoice.make(number), forKey: "invoice-\(number)")
        }
        reopened.database.waitForMaintenance()
        let current = try #require(reopened.database.dictionaries.current)
        #expect(current.id != 1)
        reopened.database.invalidate("k")
        RecordCompressionTests.expectDamaged(key: "k", "dictionary 1") {
            _ = try reopened.object(Profile.self, forKey: "k")
        }
        try reopened.set(Invoice.make(9_999), forKey: "after")
        #expect(RecordCompressionTests.isCompressed(try rawRecord(reopened, "after")))
        #expect(try reopened.object(Invoice.self, forKey: "after") == Invoice.make(9_999))
        try reopened.close()

        // Reopened again: the new dictionary loads under its own id, the old records still throw.
        let third = try RecordCompressionTests.compressed(fixture)
        #expect(try third.object(Invoice.self, forKey: "after") == Invoice.make(9_999))
        RecordCompressionTests.expectDamaged(key: "k", "dictionary 1") {
            _ = try third.object(Profile.self, forKey: "k")
        }
    }

    @Test("A foreign key under the dictionaries' prefix but of another length does not hide the dictionaries after it")
    func malformedDictionaryKeyDoesNotHideOthers() throws {
        let fixture = Fixture()
        let path: String
        do {
            let store = try Self.trainedStore(fixture)
            path = store.database.path
            try store.close()
        }
        // Sorts before [0xFF, 0x02, 0, 0, 0, 1].
        try writeWithForeignClient(path: path, records: [(key: [0xFF, 0x02, 0x00], value: [1, 2, 3])])
        let reopened = try RecordCompressionTests.compressed(fixture)
        #expect(reopened.database.dictionaries.dictionary(id: 1) != nil)
        #expect(try reopened.object(Profile.self, forKey: "k") == Profile.make(1))
    }

    @Test("Each frame carries its dictionary's Zstandard id, so Zstandard refuses it with any other dictionary")
    func framesNameTheirZstandardDictionary() throws {
        let store = try Self.trainedStore(Fixture())
        let dictionary = try #require(store.database.dictionaries.current)
        let zstdID = dictionary.bytes.withUnsafeBytes { ZSTD_getDictID_fromDict($0.baseAddress, $0.count) }
        #expect(zstdID != 0)
        let record = try #require(try rawRecord(store, "k"))
        let header = try #require(record.withUnsafeBytes { RecordHeader(parsing: $0) })
        let frameID = record.withUnsafeBytes { bytes in
            var offset = header.length
            _ = LEB128.readIdentifier(UnsafeRawBufferPointer(rebasing: bytes[..<bytes.count]), at: &offset)
            return ZSTD_getDictID_fromFrame(bytes.baseAddress! + offset, bytes.count - offset)
        }
        #expect(frameID == zstdID)
    }

    // MARK: - The record length limit

    @Test("A model longer than the record limit is refused even when it would compress below it")
    func lengthLimitAppliesBeforeCompression() throws {
        let fixture = Fixture()
        var configuration = fixture.configuration
        configuration.recordCompression = .zstd(dictionarySampleCount: RecordCompressionTests.sampleCount)
        configuration.recordLengthLimit = 2_000
        let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
        try RecordCompressionTests.train(store)
        var large = Profile.make(1)
        large.bio = String(repeating: "systems that keep data safe ", count: 200)  // about 5,600 bytes, compresses well
        #expect(errorCase { try store.set(large, forKey: "large") } == "valueTooLarge")
        // Had it been stored, no store with this limit could read it back.
        #expect(try store.object(Profile.self, forKey: "large") == nil)
    }

    // MARK: - Option misuse

    @Test("A sample count above 100,000 is refused; samples of large records start the training at 8 MiB", .long)
    func sampleMemoryIsBounded() throws {
        var configuration = Fixture().configuration
        configuration.recordCompression = .zstd(dictionarySampleCount: 100_001)
        #expect(errorCase { _ = try ModelStore(name: "db", policy: .never, configuration: configuration) }
            == "invalidPolicy")
        configuration.recordCompression = .zstd(dictionarySampleCount: Int.max)
        #expect(errorCase { _ = try ModelStore(name: "db", policy: .never, configuration: configuration) }
            == "invalidPolicy")

        // 100,000 samples of 4 KiB would be 400 MiB held until the training: it starts at 8 MiB.
        configuration.recordCompression = .zstd(dictionarySampleCount: 100_000)
        let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
        var large = Profile.make(1)
        let records = RecordDictionaries.maximumSampleBytes / RecordDictionaries.maximumSampleLength + 1
        for id in 0..<records {
            large.id = id
            large.bio = (0..<160).map { "\($0 * id % 1_009) systems keep data safe" }.joined(separator: ", ")
            try store.set(large, forKey: "large-\(id)")
        }
        store.database.waitForMaintenance()
        #expect(store.database.dictionaries.isCollecting == false)
        #expect(store.database.dictionaries.current != nil)
    }

    @Test("Reopening with another level reads every record and compresses new ones at the new level")
    func reopenWithAnotherLevel() throws {
        let fixture = Fixture()
        var configuration = fixture.configuration
        configuration.recordCompression = .zstd(level: 1, dictionarySampleCount: RecordCompressionTests.sampleCount)
        do {
            let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
            try RecordCompressionTests.train(store)
            try store.set(Profile.make(1), forKey: "level-1")
            try store.close()
        }
        configuration.recordCompression = .zstd(level: 19, dictionarySampleCount: RecordCompressionTests.sampleCount)
        let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
        try store.set(Profile.make(2), forKey: "level-19")
        #expect(RecordCompressionTests.isCompressed(try rawRecord(store, "level-1")))
        #expect(RecordCompressionTests.isCompressed(try rawRecord(store, "level-19")))
        #expect(try store.object(Profile.self, forKey: "level-1") == Profile.make(1))
        #expect(try store.object(Profile.self, forKey: "level-19") == Profile.make(2))
        #expect(store.database.dictionaries.current?.id == 1)
    }

    @Test("A database with fewer records than the sample count stays uncompressed and reads back")
    func fewerRecordsThanSamples() throws {
        let fixture = Fixture()
        let store = try RecordCompressionTests.compressed(fixture)
        for id in 0..<50 { try store.set(Profile.make(id), forKey: "p\(id)") }
        try store.close()
        let reopened = try RecordCompressionTests.compressed(fixture)
        reopened.database.waitForMaintenance()
        #expect(reopened.database.dictionaries.current == nil)
        #expect(reopened.database.dictionaries.isCollecting)
        for id in 0..<50 {
            #expect(!RecordCompressionTests.isCompressed(try rawRecord(reopened, "p\(id)")))
            #expect(try reopened.object(Profile.self, forKey: "p\(id)") == Profile.make(id))
        }
    }

    @Test("Version-1 records of an older release, opened with compression, read unchanged and train the dictionary")
    func versionOneRecordsWithCompressionOn() throws {
        let fixture = Fixture()
        let path: String
        do {
            let store = try fixture.open()
            path = store.database.path
            try store.close()
        }
        let records = try (0..<RecordCompressionTests.sampleCount).map { id in
            (key: Array("old-\(id)".utf8),
             value: try RecordFormatTwoTests.versionOneRecord(Profile.make(id), storedAt: fixture.clock.now))
        }
        try writeWithForeignClient(path: path, records: records)
        let store = try RecordCompressionTests.compressed(fixture)
        store.database.waitForMaintenance()
        #expect(store.database.dictionaries.current != nil)
        for id in 0..<RecordCompressionTests.sampleCount {
            #expect(try store.object(Profile.self, forKey: "old-\(id)") == Profile.make(id))
        }
        try store.set(Profile.make(1_000), forKey: "new")
        #expect(RecordCompressionTests.isCompressed(try rawRecord(store, "new")))
        #expect(try store.object(Profile.self, forKey: "new") == Profile.make(1_000))
        // Rewriting a version-1 record's metadata with compression on keeps it readable.
        try store.replaceMetadata(RecordCompressionTests.Tag(etag: "e"), forKey: "old-3")
        #expect(try store.object(Profile.self, forKey: "old-3") == Profile.make(3))
    }

    // MARK: - Hostile frames

    /// A trained store holding `Profile.make(1)` compressed under "k".
    static func trainedStore(_ fixture: Fixture) throws -> ModelStore {
        let store = try RecordCompressionTests.compressed(fixture)
        try RecordCompressionTests.train(store)
        try store.set(Profile.make(1), forKey: "k")
        #expect(RecordCompressionTests.isCompressed(try rawRecord(store, "k")))
        return store
    }

    /// The payload section of "k" (dictionary id, then frame) replaced by `section`.
    static func replaceSection(_ store: ModelStore, _ section: [UInt8]) throws {
        try RecordCompressionTests.rewriteSealed(store, "k") { record, header in
            record.removeLast(record.count - header.length)
            record += section
        }
    }

    /// The JSON of `Profile.make(1)` as one frame without a dictionary.
    static func plainFrame(_ model: [UInt8], checksum: Bool = false, dictID: UInt32? = nil) -> [UInt8] {
        let context = ZSTD_createCCtx()!
        defer { ZSTD_freeCCtx(context) }
        ZSTD_CCtx_setParameter(context, ZSTD_c_checksumFlag, checksum ? 1 : 0)
        var frame = [UInt8](repeating: 0, count: ZSTD_compressBound(model.count))
        let length = frame.withUnsafeMutableBytes { output in
            model.withUnsafeBytes {
                ZSTD_compress2(context, output.baseAddress, output.count, $0.baseAddress, $0.count)
            }
        }
        return Array(frame[..<length])
    }

    static var model: [UInt8] { Array(try! JSONEncoder().encode(Profile.make(1))) }

    /// Reading "k" either throws corrupted naming it, or decodingFailed: never a value, never a crash.
    static func expectRefused(_ store: ModelStore, sourceLocation: SourceLocation = #_sourceLocation) {
        store.database.invalidate("k")
        do {
            let value = try store.object(Profile.self, forKey: "k")
            Issue.record("expected an error, read \(String(describing: value))", sourceLocation: sourceLocation)
        } catch ModelStoreError.corrupted(_, let message) {
            #expect(message.contains("\"k\""), "\(message)", sourceLocation: sourceLocation)
        } catch ModelStoreError.decodingFailed(let key, _, _) {
            #expect(key == "k", sourceLocation: sourceLocation)
        } catch {
            Issue.record("expected corrupted, got \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test("An empty section, an id without a frame and an id of 10 or more bytes throw corrupted naming the key")
    func malformedSections() throws {
        let store = try Self.trainedStore(Fixture())
        let sections: [[UInt8]] = [
            [], [0], [1], [0x80], Array(repeating: 0x80, count: 10) + [1], Array(repeating: 0xFF, count: 12),
        ]
        for section in sections {
            try Self.replaceSection(store, section)
            RecordCompressionTests.expectDamaged(key: "k", "compressed model") {
                _ = try store.object(Profile.self, forKey: "k")
            }
        }
    }

    @Test("A skippable frame, or one followed by a real frame, never reads as a value")
    func skippableFrames() throws {
        let store = try Self.trainedStore(Fixture())
        let skippable: [UInt8] = [0x50, 0x2A, 0x4D, 0x18, 4, 0, 0, 0, 1, 2, 3, 4]
        try Self.replaceSection(store, [0] + skippable)
        Self.expectRefused(store)
        try Self.replaceSection(store, [0] + skippable + Self.plainFrame(Self.model))
        Self.expectRefused(store)
    }

    @Test("Concatenated frames never read as more, or other, than the first frame declares")
    func concatenatedFrames() throws {
        let store = try Self.trainedStore(Fixture())
        let frame = Self.plainFrame(Self.model)
        try Self.replaceSection(store, [0] + frame + frame)
        Self.expectRefused(store)
        let other = Self.plainFrame(Array(try JSONEncoder().encode(Profile.make(2))))
        try Self.replaceSection(store, [0] + frame + other)
        Self.expectRefused(store)
    }

    @Test("A frame whose content differs from its declared size, or without one, throws corrupted")
    func lyingContentSize() throws {
        let store = try Self.trainedStore(Fixture())
        let model = Self.model
        // A raw-block frame built by hand: magic, descriptor (single segment, 2-byte size field), size, one raw block.
        func rawFrame(declared: Int, content: [UInt8]) -> [UInt8] {
            var frame: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD, 0x60]
            withUnsafeBytes(of: UInt16(declared - 256).littleEndian) { frame += $0 }
            let blockHeader = UInt32(content.count) << 3 | 1  // last block, raw
            frame += [UInt8(blockHeader & 0xFF), UInt8(blockHeader >> 8 & 0xFF), UInt8(blockHeader >> 16 & 0xFF)]
            return frame + content
        }
        try Self.replaceSection(store, [0] + rawFrame(declared: model.count, content: model))
        #expect(try store.object(Profile.self, forKey: "k") == Profile.make(1))  // the hand-made frame is valid
        func read() throws { _ = try store.object(Profile.self, forKey: "k") }
        try Self.replaceSection(store, [0] + rawFrame(declared: model.count + 10, content: model))
        RecordCompressionTests.expectDamaged(key: "k", "does not decompress", read)
        try Self.replaceSection(store, [0] + rawFrame(declared: model.count - 10, content: model))
        RecordCompressionTests.expectDamaged(key: "k", "does not decompress", read)
        // No content size: a streaming frame.
        var streamed: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD, 0x00, 0x00]  // window descriptor only
        let blockHeader = UInt32(model.count) << 3 | 1
        streamed += [UInt8(blockHeader & 0xFF), UInt8(blockHeader >> 8 & 0xFF), UInt8(blockHeader >> 16 & 0xFF)] + model
        try Self.replaceSection(store, [0] + streamed)
        RecordCompressionTests.expectDamaged(key: "k", "does not declare its size", read)
    }

    @Test("A frame naming another Zstandard dictionary id than the one the envelope names throws corrupted")
    func frameDictionaryIDMismatch() throws {
        let store = try Self.trainedStore(Fixture())
        let dictionary = try #require(store.database.dictionaries.current)
        // A frame compressed with the store's dictionary but carrying a foreign dictionary id.
        let context = ZSTD_createCCtx()!
        defer { ZSTD_freeCCtx(context) }
        ZSTD_CCtx_setParameter(context, ZSTD_c_dictIDFlag, 1)
        var bytes = dictionary.bytes
        // Zstandard's dictionary header: magic (4 bytes), then the dictionary id (4 bytes, little-endian).
        bytes[4] ^= 0x55
        let model = Self.model
        var frame = [UInt8](repeating: 0, count: ZSTD_compressBound(model.count))
        let length = frame.withUnsafeMutableBytes { output in
            model.withUnsafeBytes { input in
                bytes.withUnsafeBytes {
                    ZSTD_compress_usingDict(
                        context, output.baseAddress, output.count, input.baseAddress, input.count, $0.baseAddress,
                        $0.count, 3)
                }
            }
        }
        #expect(ZSTD_isError(length) == 0)
        try Self.replaceSection(store, [UInt8(dictionary.id)] + frame[..<length])
        Self.expectRefused(store)
    }

    @Test("A dictionary record with a valid checksum but bytes Zstandard refuses loads as damaged: its records throw")
    func garbageDictionaryBytes() throws {
        let fixture = Fixture()
        let store = try Self.trainedStore(fixture)
        let key = RecordDictionaries.key(id: 1)
        // Zstandard takes any bytes without its magic as raw content; with its magic and a
        // broken header it refuses them.
        let garbage = ZstdDictionary(id: 1, bytes: [0x37, 0xA4, 0x30, 0xEC] + [UInt8](repeating: 0xEE, count: 64))
        let forged: [UInt8]
        if let garbage {
            forged = RecordDictionaries.value(of: garbage)
        } else {
            var value: [UInt8] = [RecordDictionaries.formatVersion, 0, 0, 0, 0]
            value += [0x37, 0xA4, 0x30, 0xEC] + [UInt8](repeating: 0xEE, count: 64)
            let crc = key.withUnsafeBytes { key in
                value.withUnsafeBytes {
                    CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[5...]), continuing: CRC32C.checksum(key))
                }
            }
            value.withUnsafeMutableBytes { $0.storeBytes(of: crc.littleEndian, toByteOffset: 1, as: UInt32.self) }
            forged = value
        }
        try store.database.write { engine in
            try key.withUnsafeBytes { key in
                try forged.withUnsafeBytes { try engine.put(key: key, value: $0, sync: true) }
            }
        }
        try store.close()
        let reopened = try RecordCompressionTests.compressed(fixture)
        Self.expectRefused(reopened)
        // Uncompressed records keep reading.
        #expect(try reopened.object(Profile.self, forKey: "train-0") == Profile.make(0))
    }
}
