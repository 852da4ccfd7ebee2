import Foundation
import ModelStoreCodecs
import Testing

extension BinaryCodecTests {
    /// Whole records pinned byte for byte, so that work on the encoder's speed can prove it writes exactly what
    /// earlier versions wrote (records on disk must stay readable) and the decoder reads them back.
    ///
    /// The expected bytes were recorded from the encoder as it was before any optimization; do not update them
    /// to make a test pass. A mismatch means the format changed, which needs a new format version.
    @Suite("BinaryModelCodec pinned records")
    struct PinnedBytes {
        private func hex(_ value: some Encodable) throws -> String {
            try codec.encode(value).map { String(format: "%02x", $0) }.joined()
        }

        private func bytes(hex: String) -> [UInt8] {
            var result: [UInt8] = []
            var index = hex.startIndex
            while index < hex.endIndex {
                let next = hex.index(index, offsetBy: 2)
                result.append(UInt8(hex[index..<next], radix: 16)!)
                index = next
            }
            return result
        }

        /// Checks that `value` encodes to the bytes `wrappedHex` spells (hex, wrapped over lines; whitespace is
        /// ignored) through both entry points, and that those bytes decode back to `value`.
        private func pin<Value: Codable & Equatable>(_ value: Value, _ wrappedHex: String) throws {
            let expected = wrappedHex.filter { !$0.isWhitespace }
            let actual = try hex(value)
            #expect(actual == expected)
            var buffer: [UInt8] = [0xEE]
            try codec.encode(value, appendingTo: &buffer)
            #expect(buffer == [0xEE] + bytes(hex: expected))
            let decoded = try bytes(hex: expected).withUnsafeBytes { try codec.decode(Value.self, fromBytes: $0) }
            #expect(decoded == value)
        }

        @Test func profile() throws {
            try pin(Profile.sample, """
                0109bc01000008000000026964048eda9601046e616d65070c416461204c6f76656c61636505656d61696c0718616461
                2e6c6f76656c616365406578616d706c652e636f6d066a6f696e65640600002027c43ac54104746167730a2100000004
                00000007046d6174680707656e67696e65730706706f657472790708616e616c797369730573636f7265060000000000
                a8584004626f6f6b095600000004000000057469746c65071f536b65746368206f662074686520416e616c7974696361
                6c20456e67696e6506617574686f72070e4c2e20462e204d656e6162726561057072696365063d0ad7a370fd38400570
                6167657304f0040362696f07c80157726f746520746865206669727374207075626c697368656420616c676f72697468
                6d20666f722061206d616368696e653b206e6f7465732072616e206c6f6e676572207468616e20746865207061706572
                2e2057726f746520746865206669727374207075626c697368656420616c676f726974686d20666f722061206d616368
                696e653b206e6f7465732072616e206c6f6e676572207468616e207468652070617065722e2057726f74652074686520
                6669727374207075626c697368656420616c676f7269
                """)
        }

        @Test func everyScalar() throws {
            try pin(Scalars(), """
                01097d0100001300000004626f6f6c0206737472696e67071868c3a96c6c6f2c20e4b896e7958c20f09f8c8d00746169
                6c06646f75626c650668dce56c4b2e20bf05666c6f6174050000504003696e7404ffffffffffffffffff0104696e7438
                04ff0105696e74313604feff0305696e74333204ffffffff0f05696e74363404feffffffffffffffff010475696e7403
                ffffffffffffffffff010575696e743803ff010675696e74313603ffff030675696e74333203ffffffff0f0675696e74
                363403ffffffffffffffffff01046461746506c976be9f0c24fec004646174610805000102ff000375726c0722687474
                70733a2f2f6578616d706c652e636f6d2f61253230623f713d31236672616704757569640810e621e1f8c36c495a93fc
                0c247a3e6e5f07646563696d616c095000000005000000086578706f6e656e740407066c656e67746803020a69734e65
                67617469766502096973436f6d7061637402086d616e74697373610a130000000800000003959a0303db0e0300030003
                00030003000300
                """)
        }

        @Test func enumsAndRecursion() throws {
            let shapes: [Shape] = [
                .circle(radius: 2.5), .rectangle(width: 3, height: -4), .label("hi\u{0}", bold: true), .empty,
            ]
            try pin(shapes, """
                010a940000000400000009200000000100000006636972636c6509100000000100000006726164697573060000000000
                0004400924000000010000000972656374616e676c650911000000020000000577696474680406066865696768740407
                091d00000001000000056c6162656c090e00000002000000025f30070368690004626f6c6402090f0000000100000005
                656d707479090000000000000000
                """)
            try pin(Node.chain(depth: 3), """
                01098200000001000000066272616e6368097200000001000000025f300a6600000001000000095d0000000100000006
                6272616e6368094d00000001000000025f300a4100000001000000093800000001000000066272616e63680928000000
                01000000025f300a1c00000001000000091300000001000000046c656166090500000001000000025f300400
                """)
        }

        @Test func optionalsAndCollections() throws {
            struct Mixed: Codable, Equatable {
                var present: Int? = 5
                var absent: String?
                var nested: [[Int?]] = [[1, nil], [], [-300]]
                var books: [Book] = [Book(title: "T", author: "A", price: 1, pages: 2)]
                var single: [String: Int] = ["one": 1]
                var intKeys: [Int: String] = [7: "seven"]
                var flags: [Bool] = [true, false]
                var floats: [Float] = [1.5, -0]
                var unsigned: [UInt8] = [0, 255]
                var doubles: [Double] = [0.1, -.infinity]
                var longString = String(repeating: "long string ", count: 12)
            }
            try pin(Mixed(), """
                0109b00100000a0000000770726573656e74040a066e65737465640a21000000030000000a0300000002000000040200
                0a00000000000000000a030000000100000004d70405626f6f6b730a3300000001000000092a00000004000000057469
                746c6507015406617574686f7207014105707269636506000000000000f03f05706167657304040673696e676c650906
                00000001000000036f6e65040207696e744b65797309090000000100000001370705736576656e05666c6167730a0200
                000002000000020106666c6f6174730a0a00000002000000050000c03f050000000008756e7369676e65640a05000000
                02000000030003ff0107646f75626c65730a1200000002000000069a9999999999b93f06000000000000f0ff0a6c6f6e
                67537472696e670790016c6f6e6720737472696e67206c6f6e6720737472696e67206c6f6e6720737472696e67206c6f
                6e6720737472696e67206c6f6e6720737472696e67206c6f6e6720737472696e67206c6f6e6720737472696e67206c6f
                6e6720737472696e67206c6f6e6720737472696e67206c6f6e6720737472696e67206c6f6e6720737472696e67206c6f
                6e6720737472696e6720
                """)
        }

        @Test func superEncoders() throws {
            try pin(Dog(name: "Rex", goodBoy: true), """
                0109220000000200000007676f6f64426f7902057375706572090a00000001000000046e616d650703526578
                """)
            try pin(Cat(name: "Tom", lives: 9), """
                01091200000002000000046e616d650703546f6d056c697665730412
                """)
        }
    }
}
