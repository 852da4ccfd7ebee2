/// Writes bytes one after the other into memory its owner allocated with room enough: the
/// hot read's commands (`RedisConnection.getWithLifetime`), with no array to grow and no
/// exclusivity check per byte.
struct ByteWriter {
    private let start: UnsafeMutablePointer<UInt8>
    /// How many bytes were written.
    private(set) var count = 0

    init(_ start: UnsafeMutablePointer<UInt8>) {
        self.start = start
    }

    @inline(__always)
    mutating func write(_ byte: UInt8) {
        start[count] = byte
        count += 1
    }

    @inline(__always)
    mutating func write(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        (start + count).update(from: base.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        count += bytes.count
    }

    @inline(__always)
    mutating func write(_ text: StaticString) {
        write(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    @inline(__always)
    mutating func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { write($0) }
    }

    /// Writes a string's UTF-8 bytes (copied at once from a native string's storage).
    @inline(__always)
    mutating func write(utf8 text: String) {
        var text = text
        text.withUTF8 { write(UnsafeRawBufferPointer($0)) }
    }

    /// Writes `value` (not negative) in decimal.
    mutating func writeDecimal(_ value: Int) {
        let digits = RedisKeys.decimalCount(value)
        var rest = value
        for index in stride(from: count + digits - 1, through: count, by: -1) {
            start[index] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
        }
        count += digits
    }
}
