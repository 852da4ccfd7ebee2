/// A type the containers read and write directly, without going through its `Codable` conformance.
///
/// These are exactly the types Codable containers have dedicated overloads for. Funnelling all of them through one
/// generic path keeps each container's seventeen overloads to one line apiece, and the compiler specializes the
/// generic path for every type because caller and callee live in this module.
protocol BinaryPrimitive {
    static func read(from reader: BinaryReader, at position: inout Int, limit: Int) throws(BinaryReadError) -> Self
    func write(to writer: inout BinaryWriter)
}

extension Bool: BinaryPrimitive {
    static func read(from reader: BinaryReader, at position: inout Int, limit: Int) throws(BinaryReadError) -> Bool {
        try reader.bool(at: &position, limit: limit)
    }

    func write(to writer: inout BinaryWriter) {
        writer.writeBool(self)
    }
}

extension String: BinaryPrimitive {
    static func read(from reader: BinaryReader, at position: inout Int, limit: Int) throws(BinaryReadError) -> String {
        try reader.string(at: &position, limit: limit)
    }

    func write(to writer: inout BinaryWriter) {
        writer.writeString(self)
    }
}

extension Double: BinaryPrimitive {
    static func read(from reader: BinaryReader, at position: inout Int, limit: Int) throws(BinaryReadError) -> Double {
        try reader.double(at: &position, limit: limit)
    }

    func write(to writer: inout BinaryWriter) {
        writer.writeDouble(self)
    }
}

extension Float: BinaryPrimitive {
    static func read(from reader: BinaryReader, at position: inout Int, limit: Int) throws(BinaryReadError) -> Float {
        try reader.float(at: &position, limit: limit)
    }

    func write(to writer: inout BinaryWriter) {
        writer.writeFloat(self)
    }
}

/// Signed integers are stored zigzagged so small negative numbers stay short.
protocol BinarySignedPrimitive: BinaryPrimitive, FixedWidthInteger, SignedInteger {}

extension BinarySignedPrimitive {
    static func read(from reader: BinaryReader, at position: inout Int, limit: Int) throws(BinaryReadError) -> Self {
        try reader.integer(Self.self, at: &position, limit: limit)
    }

    func write(to writer: inout BinaryWriter) {
        writer.writeSigned(Int64(self))
    }
}

/// Unsigned integers are stored as plain varints, so the full UInt64 range fits.
protocol BinaryUnsignedPrimitive: BinaryPrimitive, FixedWidthInteger, UnsignedInteger {}

extension BinaryUnsignedPrimitive {
    static func read(from reader: BinaryReader, at position: inout Int, limit: Int) throws(BinaryReadError) -> Self {
        try reader.integer(Self.self, at: &position, limit: limit)
    }

    func write(to writer: inout BinaryWriter) {
        writer.writeUnsigned(UInt64(self))
    }
}

extension Int: BinarySignedPrimitive {}
extension Int8: BinarySignedPrimitive {}
extension Int16: BinarySignedPrimitive {}
extension Int32: BinarySignedPrimitive {}
extension Int64: BinarySignedPrimitive {}
extension UInt: BinaryUnsignedPrimitive {}
extension UInt8: BinaryUnsignedPrimitive {}
extension UInt16: BinaryUnsignedPrimitive {}
extension UInt32: BinaryUnsignedPrimitive {}
extension UInt64: BinaryUnsignedPrimitive {}

// 128-bit integers are stored like the 64-bit ones and must fit in 64 bits; see
// BinaryEncodingState.checkFits64Bits(_:codingPath:), which every container calls before `write`. An Int128 between
// Int64.max + 1 and UInt64.max fits only the unsigned form, so it is written with the unsigned tag: a signed
// varint would wrap it to a negative number. Reading accepts any stored integer that fits, whatever its tag.

@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
extension Int128: BinaryPrimitive {
    static func read(from reader: BinaryReader, at position: inout Int, limit: Int) throws(BinaryReadError) -> Int128 {
        try reader.integer(Int128.self, at: &position, limit: limit)
    }

    func write(to writer: inout BinaryWriter) {
        if let signed = Int64(exactly: self) {
            writer.writeSigned(signed)
        } else {
            // Checked to fit UInt64 before the call.
            writer.writeUnsigned(UInt64(truncatingIfNeeded: self))
        }
    }
}

@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
extension UInt128: BinaryPrimitive {
    static func read(from reader: BinaryReader, at position: inout Int, limit: Int) throws(BinaryReadError) -> UInt128 {
        try reader.integer(UInt128.self, at: &position, limit: limit)
    }

    func write(to writer: inout BinaryWriter) {
        writer.writeUnsigned(UInt64(truncatingIfNeeded: self))
    }
}
