/// Constants of the binary format. The layout itself is documented once, on ``BinaryModelCodec``.
enum BinaryFormat {
    /// The first byte of every payload. Bump it whenever the layout changes in a way an older reader would misread.
    static let version: UInt8 = 1

    /// How deeply values may nest. Recursive models make the depth data-driven, so a hostile payload could
    /// otherwise exhaust the stack; the encoder enforces the same limit so it never writes what we refuse to read.
    static let maximumDepth = 512

    /// Tag byte, body length (UInt32) and element count (UInt32) in front of every container.
    static let containerHeaderSize = 9

    /// Payloads and containers are addressed with 32-bit lengths; LevelDB cannot store larger values anyway.
    static let maximumLength = Int(UInt32.max)

    /// The byte in front of every value that says what follows.
    enum Tag {
        static let null: UInt8 = 0x00
        static let falseValue: UInt8 = 0x01
        static let trueValue: UInt8 = 0x02
        static let unsigned: UInt8 = 0x03
        static let signed: UInt8 = 0x04
        static let float32: UInt8 = 0x05
        static let float64: UInt8 = 0x06
        static let string: UInt8 = 0x07
        static let bytes: UInt8 = 0x08
        static let keyed: UInt8 = 0x09
        static let unkeyed: UInt8 = 0x0A

        /// A word for error messages, so a type mismatch says what was actually stored.
        static func name(_ tag: UInt8) -> String {
            switch tag {
            case null: return "nil"
            case falseValue, trueValue: return "a Bool"
            case unsigned, signed: return "an integer"
            case float32, float64: return "a floating-point number"
            case string: return "a string"
            case bytes: return "bytes"
            case keyed: return "a keyed container"
            case unkeyed: return "an unkeyed container"
            default: return "unknown tag \(tag)"
            }
        }
    }
}
