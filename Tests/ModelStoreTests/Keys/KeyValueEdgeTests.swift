import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// Keys are Swift strings stored as their exact UTF-8 bytes; values are size-checked before
/// they reach LevelDB, whose lengths are 32-bit.
@Suite("Keys and values at the edges")
struct KeyValueEdgeTests {
    /// A random string of any Unicode scalars: NUL and other controls, combining marks,
    /// emoji, private use, noncharacters, and the largest code points.
    static func randomKey(_ random: inout SeededGenerator) -> String {
        var scalars = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 1...24, using: &random) {
            let value: UInt32
            switch Int.random(in: 0..<6, using: &random) {
            case 0: value = UInt32.random(in: 0...0x1F, using: &random)              // NUL and controls
            case 1: value = UInt32.random(in: 0x20...0x7F, using: &random)
            case 2: value = UInt32.random(in: 0x300...0x36F, using: &random)         // combining marks
            case 3: value = UInt32.random(in: 0x1F300...0x1FAFF, using: &random)     // emoji
            case 4: value = [0xFFFE, 0xFFFF, 0x10FFFF, 0xE000, 0xFEFF].randomElement(using: &random)!
            default: value = UInt32.random(in: 0x80...0xD7FF, using: &random)
            }
            scalars.append(Unicode.Scalar(value)!)
        }
        return String(scalars)
    }

    @Test("3,000 random keys (NUL, controls, combining marks, emoji) round-trip and are stored as their exact UTF-8 bytes")
    func randomKeysRoundTrip() throws {
        let store = try Fixture().openQuietly()
        var random = SeededGenerator(seed: 77)
        var byBytes: [[UInt8]: Int] = [:]
        var keys: [String] = []
        for index in 0..<3000 {
            let key = Self.randomKey(&random)
            byBytes[Array(key.utf8)] = index
            keys.append(key)
            try store.set(index, forKey: key)
        }
        for key in keys {
            #expect(try store.object(Int.self, forKey: key) == byBytes[Array(key.utf8)], "\(key.debugDescription)")
        }
        // LevelDB holds exactly one record per distinct byte sequence, under those bytes (beside
        // ModelStore's own system records under 0xFF, such as the recorded policy, which no
        // UTF-8 key can start with).
        var stored: [[UInt8]] = []
        try store.database.run { engine in
            let iterator = try engine.makeIterator(snapshot: nil)
            try iterator.seekToFirst()
            while try iterator.withCurrent({ key, _ -> Void in
                if key.first != KeySpace.systemMarker { stored.append(Array(key)) }
            }) != nil { try iterator.next() }
        }
        #expect(Set(stored) == Set(byBytes.keys))
        #expect(stored.count == byBytes.count)
    }

    @Test("Canonically equivalent keys are different keys: ModelStore compares UTF-8 bytes, not Swift's String equality")
    func canonicalEquivalence() throws {
        let store = try Fixture().openQuietly()
        let composed = "caf\u{E9}"
        let decomposed = "cafe\u{301}"
        #expect(composed == decomposed)  // Swift says equal
        try store.set(1, forKey: composed)
        try store.set(2, forKey: decomposed)
        #expect(try store.object(Int.self, forKey: composed) == 1)
        #expect(try store.object(Int.self, forKey: decomposed) == 2)
    }

    @Test("The key limit counts UTF-8 bytes: 64 KiB of two-byte characters is accepted, one more byte is refused before LevelDB")
    func keyLimitInBytes() throws {
        let store = try Fixture().openQuietly()
        let longest = String(repeating: "é", count: ModelStore.maximumKeyLength / 2)
        #expect(longest.utf8.count == ModelStore.maximumKeyLength)
        try store.set(1, forKey: longest)
        #expect(try store.object(Int.self, forKey: longest) == 1)
        let tooLong = longest + "a"
        #expect(errorCase { try store.set(1, forKey: tooLong) } == "invalidKey")
        #expect(errorCase { _ = try store.object(Int.self, forKey: tooLong) } == "invalidKey")
        #expect(errorCase { try store.removeObjects(forKeys: ["a", tooLong]) } == "invalidKey")
    }

    @Test("LevelDB's 32-bit lengths hold the largest key and record ModelStore accepts")
    func limitsFitLevelDB() {
        #expect(ModelStore.maximumRecordLength < Int(UInt32.max))
        #expect(ModelStore.maximumKeyLength < Int(UInt32.max))
        #expect(ModelStore.Configuration().recordLengthLimit == ModelStore.maximumRecordLength)
    }

    @Test("A record one byte over the limit throws valueTooLarge through set, writes nothing, and the limit itself is accepted")
    func recordLengthLimit() throws {
        let fixture = Fixture()
        let payload = Data(repeating: 0xAB, count: 3000)
        // Measure the record that payload makes.
        let measuring = try fixture.openQuietly("measure")
        try measuring.set(payload, forKey: "k")
        let recordLength = try #require(try measuring.entry(Data.self, forKey: "k")).byteCount
        try measuring.close()

        var configuration = fixture.quietConfiguration
        configuration.recordLengthLimit = recordLength - 1
        let tight = try ModelStore(name: "db", policy: .never, configuration: configuration)
        try tight.set(Data([1]), forKey: "k")
        do {
            try tight.set(payload, forKey: "k")
            Issue.record("expected valueTooLarge")
        } catch let ModelStoreError.valueTooLarge(key, byteCount) {
            #expect(key == "k")
            #expect(byteCount == recordLength)
        }
        #expect(errorCase { try tight.set(payload, forKey: "k", expiresAfter: 60) } == "valueTooLarge")
        #expect(try tight.object(Data.self, forKey: "k") == Data([1]))  // the old value is untouched
        try tight.close()

        configuration.recordLengthLimit = recordLength
        let exact = try ModelStore(name: "db", policy: .never, configuration: configuration)
        try exact.set(payload, forKey: "k")
        #expect(try exact.object(Data.self, forKey: "k") == payload)
    }

    @Test("In a write batch, a record over the limit or a batch over it in total throws valueTooLarge and writes nothing")
    func batchLimits() throws {
        let fixture = Fixture()
        var configuration = fixture.quietConfiguration
        configuration.recordLengthLimit = 1000
        let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
        try store.set("old", forKey: "a")
        #expect(errorCase {
            try store.write { batch in
                try batch.set("new", forKey: "a")
                try batch.set(String(repeating: "x", count: 2000), forKey: "big")
            }
        } == "valueTooLarge")
        #expect(errorCase {
            try store.write { batch in
                for index in 0..<20 { try batch.set(String(repeating: "x", count: 100), forKey: "small\(index)") }
            }
        } == "valueTooLarge")
        #expect(try store.object(String.self, forKey: "a") == "old")
        #expect(try store.contains("big") == false)
        #expect(try store.count() == 1)
    }

    @Test("A bulk import that meets a model over the limit throws valueTooLarge; earlier chunks stay, the failing chunk is not written")
    func importLimit() async throws {
        let fixture = Fixture()
        var configuration = fixture.quietConfiguration
        configuration.recordLengthLimit = 1000
        let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
        struct Model: Encodable {
            var id: String
            var text: String
        }
        let models = (0..<10).map { Model(id: "m\($0)", text: $0 == 7 ? String(repeating: "x", count: 2000) : "model") }
        do {
            try await store.importObjects(models, key: \.id, batchSize: 5)
            Issue.record("expected valueTooLarge")
        } catch ModelStoreError.valueTooLarge(let key, _) {
            #expect(key == "m7")
        }
        #expect(try store.keys().collect() == ["m0", "m1", "m2", "m3", "m4"])
    }
}
