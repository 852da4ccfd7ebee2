import Foundation
import ModelStoreCodecs
import Testing

extension BinaryCodecTests {
    /// ModelStore's write path puts a record header in the buffer first and lets the codec append after it.
    @Suite("BinaryModelCodec buffers")
    struct Buffers {
        @Test func encodingAppendsAfterAnExistingHeaderWithoutTouchingIt() throws {
            let header: [UInt8] = [0xDE, 0xAD, 0xBE, 0xEF, 0x03]
            var buffer = header
            try codec.encode(Profile.sample, appendingTo: &buffer)
            #expect(Array(buffer.prefix(header.count)) == header)
            let payload = Array(buffer.dropFirst(header.count))
            #expect(payload == Array(try codec.encode(Profile.sample)))
            let decoded = try buffer.withUnsafeBytes { raw in
                try codec.decode(Profile.self, fromBytes: UnsafeRawBufferPointer(rebasing: raw[header.count...]))
            }
            #expect(decoded == Profile.sample)
        }

        @Test func severalRecordsCanBeAppendedToOneBuffer() throws {
            var buffer: [UInt8] = []
            var ranges: [Range<Int>] = []
            for id in 0..<3 {
                let start = buffer.count
                var profile = Profile.sample
                profile.id = id
                try codec.encode(profile, appendingTo: &buffer)
                ranges.append(start..<buffer.count)
            }
            let ids = try buffer.withUnsafeBytes { raw in
                try ranges.map { range in
                    try codec.decode(Profile.self, fromBytes: UnsafeRawBufferPointer(rebasing: raw[range])).id
                }
            }
            #expect(ids == [0, 1, 2])
        }

        @Test func aFailedEncodeLeavesTheBufferAsItWas() {
            struct Boom: Error {}
            struct Failing: Encodable {
                func encode(to encoder: any Encoder) throws {
                    var container = encoder.unkeyedContainer()
                    try container.encode("written before the failure")
                    throw Boom()
                }
            }
            let header: [UInt8] = [1, 2, 3]
            var buffer = header
            #expect(throws: Boom.self) { try codec.encode(Failing(), appendingTo: &buffer) }
            #expect(buffer == header)
        }

        @Test func decodingFromASliceOfLargerMemoryReadsOnlyTheSlice() throws {
            // LevelDB hands out values inside larger blocks: bytes after the slice must not be read as part of it.
            let record = Array(try codec.encode(Profile.sample))
            let memory = [0xFF, 0xFF] + record + Array(repeating: 0xAB, count: 64)
            let decoded = try memory.withUnsafeBytes { raw in
                try codec.decode(Profile.self, fromBytes: UnsafeRawBufferPointer(rebasing: raw[2..<(2 + record.count)]))
            }
            #expect(decoded == Profile.sample)
        }

        @Test func decodedValuesOwnTheirBytes() throws {
            struct Blob: Codable, Equatable { var text: String; var data: Data }
            let original = Blob(text: String(repeating: "x", count: 100), data: Data(repeating: 7, count: 100))
            var memory = Array(try codec.encode(original))
            let decoded = try memory.withUnsafeBytes { try codec.decode(Blob.self, fromBytes: $0) }
            // Overwrite the input after decoding: the decoded value must not have kept pointers into it.
            for index in memory.indices { memory[index] = 0 }
            #expect(decoded == original)
        }
    }
}
