import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// The record envelope parser and the read path meet seeded random and truncated bytes:
/// they never crash, and only ever answer with a value, nil, or a typed error.
@Suite("Record decoding fuzz")
struct RecordFuzzTests {
    /// Bytes that look like a record header more often than uniform noise would, so the
    /// parser's deeper branches are reached.
    static func headerLikeBytes(_ random: inout SeededGenerator) -> [UInt8] {
        var bytes = random.bytes(Int.random(in: 0...40, using: &random))
        if !bytes.isEmpty, Int.random(in: 0..<10, using: &random) < 8 { bytes[0] = RecordHeader.versionOne }
        if bytes.count > 1, Bool.random(using: &random) { bytes[1] = UInt8.random(in: 0...1, using: &random) }
        if bytes.count >= 11, Int.random(in: 0..<4, using: &random) == 0 {
            // Special doubles: NaN, infinities, -0, subnormals.
            let special: [Double] = [
                .nan, .infinity, -.infinity, -0.0, .leastNonzeroMagnitude, .greatestFiniteMagnitude,
            ]
            var bits = special.randomElement(using: &random)!.bitPattern.littleEndian
            withUnsafeBytes(of: &bits) { bytes.replaceSubrange(3..<11, with: $0) }
        }
        return bytes
    }

    @Test("200,000 random byte strings: the header parser never crashes and what it accepts re-encodes to the same bytes", .long)
    func headerParser() {
        var random = SeededGenerator(seed: 0xF022)
        var parsed = 0
        for _ in 0..<200_000 {
            let bytes = Self.headerLikeBytes(&random)
            guard let header = bytes.withUnsafeBytes({ RecordHeader(parsing: $0) }) else { continue }
            parsed += 1
            #expect(header.length <= bytes.count)
            #expect(header.storedAt.isFinite)
            #expect(header.expiresAt.map { !$0.isNaN } ?? true)
            guard header.version == RecordHeader.versionOne else { continue }
            var encoded: [UInt8] = []
            header.writeVersionOne(to: &encoded)
            #expect(encoded[...] == bytes[..<header.length])
        }
        #expect(parsed > 30_000)  // the parser's accepting paths were reached often
    }

    @Test("Every truncation of a valid header is refused")
    func truncatedHeaders() {
        for expiresAt: Double? in [nil, 1234.5] {
            var bytes: [UInt8] = []
            RecordHeader(storedAt: 99.25, expiresAt: expiresAt, codec: .json).writeVersionOne(to: &bytes)
            for length in 0..<bytes.count {
                #expect(bytes[..<length].withUnsafeBytes { RecordHeader(parsing: $0) } == nil, "length \(length)")
            }
            #expect(bytes.withUnsafeBytes { RecordHeader(parsing: $0) } != nil)
        }
    }

    /// Random stored records: pure noise, valid headers over noise (any codec identifier),
    /// and real JSON, property-list and binary-codec records cut short or with a byte flipped.
    static func randomRecord(_ random: inout SeededGenerator, now: Double) throws -> [UInt8] {
        switch Int.random(in: 0..<4, using: &random) {
        case 0:
            return headerLikeBytes(&random)
        case 1:
            var bytes: [UInt8] = []
            let offset = Double.random(in: -100...100, using: &random)
            let expiresAt: Double? = Bool.random(using: &random) ? now + offset : nil
            let codec = ModelCodecIdentifier(rawValue: UInt8.random(in: 0...255, using: &random))
            RecordHeader(storedAt: now, expiresAt: expiresAt, codec: codec).writeVersionOne(to: &bytes)
            return bytes + random.bytes(Int.random(in: 0...64, using: &random))
        default:
            // A real record from one of the built-in codecs, then cut short or flipped below.
            let codecs: [any ModelCodec] = [JSONModelCodec(), PropertyListModelCodec(), BinaryModelCodec()]
            let codec = codecs.randomElement(using: &random)!
            var bytes: [UInt8] = []
            RecordHeader(storedAt: now, expiresAt: nil, codec: codec.identifier).writeVersionOne(to: &bytes)
            try codec.encode(User.sample("fuzz\(random.next() % 1000)"), appendingTo: &bytes)
            if Bool.random(using: &random) {
                bytes.removeLast(Int.random(in: 1...bytes.count - 11, using: &random))
            } else {
                let index = Int.random(in: 11..<bytes.count, using: &random)
                bytes[index] ^= UInt8.random(in: 1...255, using: &random)
            }
            return bytes
        }
    }

    @Test("5,000 damaged records read through object, entry and contains: no crash, only a value, nil or a typed error", .long)
    func readPath() throws {
        let fixture = Fixture()
        let store = try fixture.openQuietly(policy: .high)
        let now = fixture.clock.now.timeIntervalSinceReferenceDate
        var random = SeededGenerator(seed: 0xBAD)
        var outcomes: [String: Int] = [:]
        func note(_ body: () throws -> Any?) {
            do {
                outcomes[try body() == nil ? "nil" : "value", default: 0] += 1
            } catch ModelStoreError.decodingFailed {
                outcomes["decodingFailed", default: 0] += 1
            } catch let ModelStoreError.corrupted(_, message) {
                // Noise that starts like a version-2 or version-3 record fails its checksum; a
                // version-1 record has none, so only a deadline before its storedAt (what the
                // random headers below often carry) is told apart as damage.
                #expect(message.contains("damaged envelope") || message.contains("fails its checksum"))
                outcomes["corrupted", default: 0] += 1
            } catch {
                Issue.record("unexpected error: \(error)")
            }
        }
        for index in 0..<5000 {
            let record = try Self.randomRecord(&random, now: now)
            let key = "f\(index)"
            try store.database.write { engine in
                try Array(key.utf8).withUnsafeBytes { keyBytes in
                    try record.withUnsafeBytes { try engine.put(key: keyBytes, value: $0, sync: false) }
                }
            }
            note { try store.object(User.self, forKey: key) }
            note { try store.object(Int.self, forKey: key) }
            note { try store.entry(String.self, forKey: key) }
            note { try store.entry(Data.self, forKey: key)?.byteCount }
            note { try store.contains(key) ? true : nil }
        }
        #expect(outcomes["decodingFailed", default: 0] > 1000)
        print("read-path fuzz outcomes: \(outcomes)")
    }

    /// A version-2 (or version-3) envelope with random flags (unknown bits included), then
    /// sections whose LEB128 lengths are right, truncated, overlong or huge, sealed for `key`
    /// half the time so the parser (not only the checksum) meets it.
    static func hostileVersionTwo(
        _ random: inout SeededGenerator, key: String, now: Double, versionThree: Bool = false
    ) -> [UInt8] {
        var bytes: [UInt8] = []
        let flags = Int.random(in: 0..<4, using: &random) == 0 ? UInt8.random(in: 0...255, using: &random)
            : UInt8.random(in: 0...(versionThree ? 0x17 : 7), using: &random)
        let header = RecordHeader(
            storedAt: now, expiresAt: flags & 1 != 0 ? now + 60 : nil,
            codec: Bool.random(using: &random) ? .json : .binary)
        if versionThree {
            header.writeVersionThree(to: &bytes, hasMetadata: false, hasTags: false)
        } else {
            header.writeVersionTwo(to: &bytes, hasMetadata: false, hasTags: false)
        }
        bytes[1] = flags
        func randomLength() -> [UInt8] {
            switch Int.random(in: 0..<5, using: &random) {
            case 0: return [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]  // 2⁶⁴ - 1
            case 1: return [0x80, 0x80, 0x80, 0x80, 0x80, 0x80]  // never ends
            case 2: return [0xFF]  // cut short
            default:
                var length: [UInt8] = []
                LEB128.append(Int.random(in: 0...12, using: &random), to: &length)
                return length
            }
        }
        for _ in 0..<Int.random(in: 0...3, using: &random) {
            bytes += randomLength()
            bytes += random.bytes(Int.random(in: 0...8, using: &random))
        }
        bytes += Array("{\"n\":1}".utf8)
        if bytes.count > 15, Bool.random(using: &random) {
            bytes.removeLast(Int.random(in: 0...(bytes.count - 15), using: &random))
        }
        if bytes.count >= 15, Bool.random(using: &random) {
            Array(key.utf8).withUnsafeBytes { RecordHeader.seal(&bytes, key: $0) }
        }
        return bytes
    }

    @Test(
        "Hostile version-2 and version-3 envelopes (unknown flags, cut sections, huge lengths): only typed errors",
        arguments: [false, true])
    func hostileVersionTwoEnvelopes(versionThree: Bool) throws {
        let fixture = Fixture()
        let store = try fixture.openQuietly(policy: .high)
        let now = fixture.clock.now.timeIntervalSinceReferenceDate
        var random = SeededGenerator(seed: 0x2E2)
        var outcomes: [String: Int] = [:]
        func note(_ body: () throws -> Any?) {
            do {
                outcomes[try body() == nil ? "nil" : "value", default: 0] += 1
            } catch ModelStoreError.decodingFailed {
                outcomes["decodingFailed", default: 0] += 1
            } catch ModelStoreError.corrupted {
                outcomes["corrupted", default: 0] += 1
            } catch {
                Issue.record("unexpected error: \(error)")
            }
        }
        for index in 0..<3000 {
            let key = "h\(index)"
            let record = Self.hostileVersionTwo(&random, key: key, now: now, versionThree: versionThree)
            if let header = record.withUnsafeBytes({ RecordHeader(parsing: $0) }) {
                #expect(header.length <= record.count)
                #expect(header.metadataRange.upperBound <= header.length)
                #expect(header.tagsRange.upperBound <= header.length)
            }
            try putRawRecord(store, key, record)
            note { try store.object([String: Int].self, forKey: key) }
            note { try store.metadata(String.self, forKey: key) }
            note { try store.entry([String: Int].self, forKey: key)?.metadata(Int.self) }
            note { try store.contains(key) ? true : nil }
            note { try store.refresh(forKey: key) ? true : nil }
        }
        #expect(outcomes["decodingFailed", default: 0] > 500)
        #expect(outcomes["corrupted", default: 0] > 500)
        #expect(try store.count() > 0)  // the store still works, and writes were never disabled
        try store.set(1, forKey: "after")
    }
}
