/// Appends single values in the binary layout to the caller's byte array.
///
/// It knows bytes, not Codable: the encoder decides what to write and in which order. Containers are written with a
/// placeholder header that ``patchContainerHeader(at:count:)`` fills in once the container's size is known, so
/// nothing is ever moved after it has been written.
///
/// Small writes (tags, varints, numbers, short strings) are staged in a 64-byte buffer inside the writer and reach
/// the array in one append per 64 bytes: each `Array.append` pays for a uniqueness and a capacity check that cost
/// more than writing a tag, and a typical record is a few dozen such writes. Large strings and data go straight to
/// the array. Positions (``count``, headers, slots) always include the staged bytes.
struct BinaryWriter {
    /// The bytes written so far, except the staged ones. It may start with bytes that belong to the caller (a record
    /// header); they are never touched.
    private var bytes: [UInt8]
    private var staged: Staging = (0, 0, 0, 0, 0, 0, 0, 0)
    private var stagedCount = 0

    private typealias Staging = (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)
    private static let stagingCapacity = MemoryLayout<Staging>.size

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Every byte written, including the caller's prefix.
    var count: Int {
        bytes.count &+ stagedCount
    }

    /// Swaps the writer's bytes with `other`, after moving every staged byte into the array; used to move the
    /// caller's array in and out without copying it.
    mutating func exchangeBytes(with other: inout [UInt8]) {
        flush()
        swap(&bytes, &other)
    }

    /// The byte at `position`, which must be less than ``count``.
    mutating func byte(at position: Int) -> UInt8 {
        flush()
        return bytes[position]
    }

    /// Drops everything written at or after `position`.
    mutating func truncate(to position: Int) {
        flush()
        bytes.removeSubrange(position...)
    }

    // MARK: - Staging

    private mutating func flush() {
        guard stagedCount > 0 else { return }
        let count = stagedCount
        stagedCount = 0
        withUnsafeBytes(of: &staged) { staging in
            bytes.append(contentsOf: UnsafeRawBufferPointer(start: staging.baseAddress, count: count))
        }
    }

    /// Makes room for `length` staged bytes; `length` is at most the staging capacity.
    @inline(__always)
    private mutating func stage(_ length: Int) {
        if stagedCount &+ length > BinaryWriter.stagingCapacity {
            flush()
        }
    }

    @inline(__always)
    private mutating func put(_ byte: UInt8) {
        stage(1)
        let offset = stagedCount
        withUnsafeMutableBytes(of: &staged) { $0[offset] = byte }
        stagedCount &+= 1
    }

    @inline(__always)
    private mutating func put<Value: FixedWidthInteger>(tag: UInt8, littleEndian value: Value) {
        let size = MemoryLayout<Value>.size
        stage(1 + size)
        let offset = stagedCount
        withUnsafeMutableBytes(of: &staged) { raw in
            raw[offset] = tag
            raw.storeBytes(of: value.littleEndian, toByteOffset: offset &+ 1, as: Value.self)
        }
        stagedCount &+= 1 &+ size
    }

    // MARK: - Values

    mutating func writeTag(_ tag: UInt8) {
        put(tag)
    }

    /// LEB128: seven bits per byte, least significant group first, high bit set on every byte but the last.
    mutating func writeVarint(_ value: UInt64) {
        stage(10)
        var value = value
        var offset = stagedCount
        withUnsafeMutableBytes(of: &staged) { raw in
            while value >= 0x80 {
                raw[offset] = UInt8(truncatingIfNeeded: value) | 0x80
                value &>>= 7
                offset &+= 1
            }
            raw[offset] = UInt8(truncatingIfNeeded: value)
        }
        stagedCount = offset &+ 1
    }

    mutating func writeUnsigned(_ value: UInt64) {
        put(BinaryFormat.Tag.unsigned)
        writeVarint(value)
    }

    /// Zigzag maps small negative numbers to small varints: 0, -1, 1, -2, ... become 0, 1, 2, 3, ...
    mutating func writeSigned(_ value: Int64) {
        put(BinaryFormat.Tag.signed)
        writeVarint(UInt64(bitPattern: (value &<< 1) ^ (value &>> 63)))
    }

    mutating func writeBool(_ value: Bool) {
        put(value ? BinaryFormat.Tag.trueValue : BinaryFormat.Tag.falseValue)
    }

    /// Stores the bit pattern, so NaN payloads, signed zeros and infinities come back unchanged.
    mutating func writeFloat(_ value: Float) {
        put(tag: BinaryFormat.Tag.float32, littleEndian: value.bitPattern)
    }

    /// Stores the bit pattern, so NaN payloads, signed zeros and infinities come back unchanged.
    mutating func writeDouble(_ value: Double) {
        put(tag: BinaryFormat.Tag.float64, littleEndian: value.bitPattern)
    }

    mutating func writeString(_ value: String) {
        put(BinaryFormat.Tag.string)
        writeKey(value)
    }

    /// A key is a string without a tag: its position in an entry already says what it is.
    mutating func writeKey(_ key: String) {
        var key = key
        // withUTF8 hands out the string's own storage for native strings, so nothing is transcoded or copied.
        key.withUTF8 { writeLengthPrefixed(UnsafeRawBufferPointer($0)) }
    }

    mutating func writeBytes(_ raw: UnsafeRawBufferPointer) {
        put(BinaryFormat.Tag.bytes)
        writeLengthPrefixed(raw)
    }

    private mutating func writeLengthPrefixed(_ raw: UnsafeRawBufferPointer) {
        writeVarint(UInt64(raw.count))
        let length = raw.count
        guard length <= BinaryWriter.stagingCapacity else {
            flush()
            bytes.append(contentsOf: raw)
            return
        }
        guard let source = raw.baseAddress else { return }
        stage(length)
        let offset = stagedCount
        withUnsafeMutableBytes(of: &staged) { staging in
            (staging.baseAddress.unsafelyUnwrapped + offset).copyMemory(from: source, byteCount: length)
        }
        stagedCount &+= length
    }

    /// Writes a container's tag and a zeroed length and count, and returns where the header starts.
    mutating func writeContainerHeader(_ tag: UInt8) -> Int {
        let header = count
        put(tag: tag, littleEndian: UInt64(0))
        return header
    }

    /// Fills in the length and count of the container whose header starts at `header`; its body is everything
    /// written since. Returns false when the body is too long for the format's 32-bit lengths.
    mutating func patchContainerHeader(at header: Int, count elementCount: Int) -> Bool {
        flush()
        let length = bytes.count - header - BinaryFormat.containerHeaderSize
        guard length <= BinaryFormat.maximumLength, elementCount <= BinaryFormat.maximumLength else { return false }
        let length32 = UInt32(truncatingIfNeeded: length).littleEndian
        let count32 = UInt32(truncatingIfNeeded: elementCount).littleEndian
        bytes.withUnsafeMutableBytes { raw in
            raw.storeBytes(of: length32, toByteOffset: header + 1, as: UInt32.self)
            raw.storeBytes(of: count32, toByteOffset: header + 5, as: UInt32.self)
        }
        return true
    }
}
