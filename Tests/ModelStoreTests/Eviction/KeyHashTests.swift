import Testing
@testable import ModelStore

@Suite("Eviction: the key hash")
struct KeyHashTests {
    static let keys = (1...40).map { length in String((0..<length).map { Character(UnicodeScalar(UInt8(97 + $0 % 26))) }) }
        + ["é", "日本語のキー", "user:0000123"]

    @Test("A read's hash of a key and its space equals the walk's hash of the LevelDB key, for every length and in a collection")
    func readAndWalkAgree() throws {
        for space in [KeySpace.default, try KeySpace(collection: "posts")] {
            for key in Self.keys {
                let physical = try space.withPhysicalKey(key) { KeyHash.physical($0) }
                #expect(KeyHash.key(key, in: space) == physical, "\(key.utf8.count) bytes")
            }
        }
    }

    @Test("The hash is what it was: a change of it would move every key's counters (pinned values)")
    func pinned() throws {
        let values = ["", "k", "user:0000123", "a key longer than sixteen bytes"].map { KeyHash.key($0, in: .default) }
        #expect(values == [3_134_985_433_409_197_170, 8_206_632_574_587_035_211, 2_640_372_364_600_192_201, 4_036_504_157_061_798_571])
    }
}
