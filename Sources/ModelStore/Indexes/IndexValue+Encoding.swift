import Foundation

// MARK: - The order-preserving encoding
//
// An index entry's key holds its value's encoding, so LevelDB's byte order is the index order.
// Every encoding starts with its kind's byte, which orders the kinds, and is self-delimiting
// (no encoding is a prefix of another), so the record key can follow it in the entry's key:
//
//   bool    0x01, then 0x00 (false) or 0x01 (true)                            2 bytes
//   int     0x02, then the Int64 with its sign bit flipped, big-endian        9 bytes
//   double  0x03, then the Float64's bits, big-endian, with the sign bit      9 bytes
//           flipped for a positive number and every bit flipped for a negative one
//           (-0.0 is stored as 0.0, every NaN as the one quiet NaN 0x7FF8...)
//   date    0x04, then its seconds since 2001-01-01 as a double above         9 bytes
//   string  0x05, then its UTF-8 with each 0x00 written 0x00 0xFF, then 0x00 0x01
//
// The string's escape keeps byte order: the terminator 0x00 0x01 sorts below any byte that
// continues a longer string (an escaped NUL's 0x00 0xFF included), so "a" < "a\0" < "ab".

extension IndexValue {
    /// The kind bytes, in the order kinds sort.
    enum Kind: UInt8 {
        case bool = 0x01, int = 0x02, double = 0x03, date = 0x04, string = 0x05

        /// The kind as the `modelstore` tool names it (its `query --type`).
        var name: String {
            switch self {
            case .bool: "bool"
            case .int: "int"
            case .double: "double"
            case .date: "date"
            case .string: "string"
            }
        }
    }

    /// `value` as an index stores it: one zero and one NaN.
    static func canonical(_ value: Double) -> Double {
        if value.isNaN { return .nan }
        return value == 0 ? 0 : value
    }

    /// The value's bytes in an index entry's key.
    var encoded: [UInt8] {
        var bytes: [UInt8] = []
        append(to: &bytes)
        return bytes
    }

    /// Appends the value's encoding to `bytes`.
    func append(to bytes: inout [UInt8]) {
        switch self {
        case .bool(let value):
            bytes.append(Kind.bool.rawValue)
            bytes.append(value ? 1 : 0)
        case .int(let value):
            bytes.append(Kind.int.rawValue)
            Self.appendBigEndian(UInt64(bitPattern: value) ^ (1 << 63), to: &bytes)
        case .double(let value):
            bytes.append(Kind.double.rawValue)
            Self.appendBigEndian(Self.orderedBits(value), to: &bytes)
        case .date(let date):
            bytes.append(Kind.date.rawValue)
            Self.appendBigEndian(Self.orderedBits(date.timeIntervalSinceReferenceDate), to: &bytes)
        case .string(let string):
            bytes.append(Kind.string.rawValue)
            for byte in string.utf8 {
                bytes.append(byte)
                if byte == 0 { bytes.append(0xFF) }
            }
            bytes.append(0x00)
            bytes.append(0x01)
        }
    }

    /// A double's bits turned so that unsigned comparison orders them numerically.
    private static func orderedBits(_ value: Double) -> UInt64 {
        let bits = canonical(value).bitPattern
        return bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
    }

    private static func double(fromOrdered ordered: UInt64) -> Double {
        Double(bitPattern: ordered & (1 << 63) != 0 ? ordered & ~(1 << 63) : ~ordered)
    }

    @inline(__always)
    private static func appendBigEndian(_ value: UInt64, to bytes: inout [UInt8]) {
        // One append of eight bytes, not eight appends: this runs for every value of every write.
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    private static func loadBigEndian(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in 0..<8 { value = value << 8 | UInt64(bytes[offset + index]) }
        return value
    }

    /// The length of the encoding that starts at `offset` in `bytes`, or nil if none does
    /// (an unknown kind, or bytes cut short): what splits an entry's key into value and record key.
    static func encodedLength(in bytes: UnsafeRawBufferPointer, at offset: Int) -> Int? {
        guard offset < bytes.count, let kind = Kind(rawValue: bytes[offset]) else { return nil }
        let fixed: Int
        switch kind {
        case .bool: fixed = 2
        case .int, .double, .date: fixed = 9
        case .string:
            var index = offset + 1
            while index + 1 < bytes.count {
                if bytes[index] == 0 {
                    if bytes[index + 1] == 0x01 { return index + 2 - offset }
                    guard bytes[index + 1] == 0xFF else { return nil }
                    index += 2
                } else {
                    index += 1
                }
            }
            return nil
        }
        return offset + fixed <= bytes.count ? fixed : nil
    }

    /// Decodes the encoding that starts at `offset`, moving `offset` past it; nil for bytes that
    /// are no encoding.
    static func decode(_ bytes: UnsafeRawBufferPointer, at offset: inout Int) -> IndexValue? {
        guard let length = encodedLength(in: bytes, at: offset), let kind = Kind(rawValue: bytes[offset]) else {
            return nil
        }
        defer { offset += length }
        switch kind {
        case .bool:
            guard bytes[offset + 1] <= 1 else { return nil }
            return .bool(bytes[offset + 1] == 1)
        case .int: return .int(Int64(bitPattern: loadBigEndian(bytes, at: offset + 1) ^ (1 << 63)))
        case .double: return .double(double(fromOrdered: loadBigEndian(bytes, at: offset + 1)))
        case .date:
            return .date(Date(timeIntervalSinceReferenceDate: double(fromOrdered: loadBigEndian(bytes, at: offset + 1))))
        case .string:
            var utf8: [UInt8] = []
            utf8.reserveCapacity(length - 3)
            var index = offset + 1
            let end = offset + length - 2
            while index < end {
                utf8.append(bytes[index])
                index += bytes[index] == 0 ? 2 : 1
            }
            return .string(String(decoding: utf8, as: UTF8.self))
        }
    }

    /// The value encoded in `bytes`, which hold exactly one encoding; nil otherwise.
    static func decode(_ bytes: [UInt8]) -> IndexValue? {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            let value = decode(buffer, at: &offset)
            return offset == buffer.count ? value : nil
        }
    }
}
