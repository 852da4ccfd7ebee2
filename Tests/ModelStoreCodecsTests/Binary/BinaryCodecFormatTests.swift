import Foundation
import ModelStoreCodecs
import Testing

extension BinaryCodecTests {
    /// Stored records must stay readable across releases, so the byte layout is pinned here byte for byte; a failure
    /// means the format changed and needs a new version number.
    @Suite("BinaryModelCodec byte format")
    struct ByteFormat {
        private func bytes(_ value: some Encodable) throws -> [UInt8] {
            Array(try codec.encode(value))
        }

        @Test func scalarsHaveTheirDocumentedLayout() throws {
            #expect(try bytes(Int?.none) == [1, 0x00])
            #expect(try bytes(false) == [1, 0x01])
            #expect(try bytes(true) == [1, 0x02])
            #expect(try bytes(UInt(300)) == [1, 0x03, 0xAC, 0x02])
            #expect(try bytes(0) == [1, 0x04, 0x00])
            #expect(try bytes(-1) == [1, 0x04, 0x01])
            #expect(try bytes(1) == [1, 0x04, 0x02])
            #expect(try bytes(Int64.min) == [1, 0x04] + Array(repeating: 0xFF, count: 9) + [0x01])
            #expect(try bytes(Float(1)) == [1, 0x05, 0x00, 0x00, 0x80, 0x3F])
            #expect(try bytes(Double(1)) == [1, 0x06, 0, 0, 0, 0, 0, 0, 0xF0, 0x3F])
            #expect(try bytes("hé") == [1, 0x07, 0x03, 0x68, 0xC3, 0xA9])
            #expect(try bytes(Data([9, 8])) == [1, 0x08, 0x02, 9, 8])
            #expect(try bytes(Date(timeIntervalSinceReferenceDate: 1)) == [1, 0x06, 0, 0, 0, 0, 0, 0, 0xF0, 0x3F])
        }

        @Test func containersHaveTheirDocumentedLayout() throws {
            struct Point: Encodable { var x: Int; var y: Int? }
            #expect(try bytes(Point(x: 1, y: nil)) == [1, 0x09, 4, 0, 0, 0, 1, 0, 0, 0, 0x01, 0x78, 0x04, 0x02])
            #expect(try bytes([true, false]) == [1, 0x0A, 2, 0, 0, 0, 2, 0, 0, 0, 0x02, 0x01])
            #expect(try bytes([String]()) == [1, 0x0A, 0, 0, 0, 0, 0, 0, 0, 0])
        }

        @Test func theFastAndGenericPathsWriteTheSameBytes() throws {
            // [String] has a fast path, [Substring]-like element types do not; the stored layout must not differ.
            struct Wrapped: Encodable {
                var value: String
                func encode(to encoder: any Encoder) throws {
                    var container = encoder.singleValueContainer()
                    try container.encode(value)
                }
            }
            #expect(try bytes(["a", "bc"]) == bytes([Wrapped(value: "a"), Wrapped(value: "bc")]))
            #expect(try bytes([1, -2]) == bytes([Int64(1), Int64(-2)]))
        }
    }
}
