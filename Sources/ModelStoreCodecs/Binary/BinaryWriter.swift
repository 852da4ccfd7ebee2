import Foundation

/// Appends single values in the binary layout to a growable block of memory that it owns.
///
/// It knows bytes, not Codable: the encoder decides what to write and in which order. Containers are written with a
/// placeholder header that is filled in once the container's size is known, so nothing is ever moved after it has
/// been written.
///
/// The writer owns a plain `malloc` block rather than an `[UInt8]`: every `Array.append` pays for a uniqueness and a
/// capacity check and cannot be told to skip them, while a write here is one capacity compare and a store. A
/// finished payload is handed on without another copy (``takeData()``) or copied once into the caller's array.
///
/// It is a struct for speed but owns its memory, so exactly one copy may be used, and that copy must call
/// ``deallocate()`` or ``takeData()`` once; ``BinaryEncodingState`` is that single owner.
struct BinaryWriter {
    /// The written bytes; position 0 is the payload's first byte (its format version).
    private var block = ByteBlock()
    /// How many bytes have been written.
    private(set) var count = 0

    /// Where the written bytes start.
    private var base: UnsafeMutableRawPointer { block.base }

    /// Empties the writer for the next payload, keeping its block unless the block was handed on by
    /// ``takeData()`` (`blockWasTaken`) or grew past ``ByteBlock/maximumKeptCapacity``.
    mutating func startOver(blockWasTaken: Bool) {
        count = 0
        block.prepareForReuse(wasTaken: blockWasTaken)
    }

    /// Frees the memory; the writer must not be used afterwards.
    func deallocate() {
        block.deallocate()
    }

    /// Copies the written bytes to the end of `buffer`, in one append.
    func append(to buffer: inout [UInt8]) {
        buffer.append(contentsOf: UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: count))
    }

    /// The written bytes as a `Data` that takes over the memory, so nothing is copied; the writer must not be used
    /// (nor deallocated) afterwards.
    func takeData() -> Data {
        // Shrinking in place is cheap and keeps a long-lived Data from holding on to the unused part of the block.
        let taken = count < block.capacity / 2 ? (realloc(base, Swift.max(count, 1)) ?? base) : base
        return Data(bytesNoCopy: taken, count: count, deallocator: .free)
    }

    /// The byte at `position`, which must be less than ``count``.
    func byte(at position: Int) -> UInt8 {
        precondition(position >= 0 && position < count)
        return base.load(fromByteOffset: position, as: UInt8.self)
    }

    /// Drops everything written at or after `position`.
    mutating func truncate(to position: Int) {
        precondition(position >= 0 && position <= count)
        count = position
    }

    // MARK: - Room

    /// Makes sure `length` more bytes fit.
    @inline(__always)
    private mutating func reserve(_ length: Int) {
        block.reserve(length, after: count)
    }

    // Stores below go to `base + count`, after `reserve` made room; raw stores need no alignment.

    @inline(__always)
    private mutating func put(_ byte: UInt8) {
        base.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
        count &+= 1
    }

    /// LEB128: seven bits per byte, least significant group first, high bit set on every byte but the last.
    /// Needs up to 10 bytes of room.
    @inline(__always)
    private mutating func putVarint(_ value: UInt64) {
        var value = value
        var offset = count
        while value >= 0x80 {
            base.storeBytes(of: UInt8(truncatingIfNeeded: value) | 0x80, toByteOffset: offset, as: UInt8.self)
            value &>>= 7
            offset &+= 1
        }
        base.storeBytes(of: UInt8(truncatingIfNeeded: value), toByteOffset: offset, as: UInt8.self)
        count = offset &+ 1
    }

    @inline(__always)
    private mutating func put(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress else { return }
        ShortCopy.copy(from: source, to: base + count, count: bytes.count)
        count &+= bytes.count
    }

    @inline(__always)
    private mutating func put<Value: FixedWidthInteger>(tag: UInt8, littleEndian value: Value) {
        reserve(1 &+ MemoryLayout<Value>.size)
        base.storeBytes(of: tag, toByteOffset: count, as: UInt8.self)
        base.storeBytes(of: value.littleEndian, toByteOffset: count &+ 1, as: Value.self)
        count &+= 1 &+ MemoryLayout<Value>.size
    }

    // MARK: - Values

    mutating func writeTag(_ tag: UInt8) {
        reserve(1)
        put(tag)
    }

    mutating func writeUnsigned(_ value: UInt64) {
        reserve(11)
        put(BinaryFormat.Tag.unsigned)
        putVarint(value)
    }

    /// Zigzag maps small negative numbers to small varints: 0, -1, 1, -2, ... become 0, 1, 2, 3, ...
    mutating func writeSigned(_ value: Int64) {
        reserve(11)
        put(BinaryFormat.Tag.signed)
        putVarint(UInt64(bitPattern: (value &<< 1) ^ (value &>> 63)))
    }

    mutating func writeBool(_ value: Bool) {
        writeTag(value ? BinaryFormat.Tag.trueValue : BinaryFormat.Tag.falseValue)
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
        writeUTF8(of: value, tag: BinaryFormat.Tag.string)
    }

    /// A key is a string without a tag: its position in an entry already says what it is.
    mutating func writeKey(_ key: String) {
        writeUTF8(of: key, tag: nil)
    }

    @inline(__always)
    private mutating func writeUTF8(of string: String, tag: UInt8?) {
        // The UTF-8 view hands out native and small strings' bytes in place, without copying the String (as
        // `withUTF8` would, being mutating); only bridged strings take the slow path.
        let done: Void? = string.utf8.withContiguousStorageIfAvailable { utf8 in
            writeLengthPrefixed(UnsafeRawBufferPointer(utf8), tag: tag)
        }
        if done == nil {
            var copy = string
            copy.withUTF8 { writeLengthPrefixed(UnsafeRawBufferPointer($0), tag: tag) }
        }
    }

    @inline(__always)
    private mutating func writeLengthPrefixed(_ raw: UnsafeRawBufferPointer, tag: UInt8?) {
        reserve(11 &+ raw.count)
        if let tag {
            put(tag)
        }
        putVarint(UInt64(raw.count))
        put(raw)
    }

    mutating func writeBytes(_ raw: UnsafeRawBufferPointer) {
        writeLengthPrefixed(raw, tag: BinaryFormat.Tag.bytes)
    }

    // MARK: - Container headers

    /// Writes a container's tag followed by two 32-bit words, and returns where the header starts. The words are
    /// placeholders for the body length and the element count; until the container is finished the encoder may
    /// keep its own bookkeeping in them (see ``BinaryEncodingState``).
    mutating func writeContainerHeader(_ tag: UInt8, first: UInt32 = 0, second: UInt32 = 0) -> Int {
        let header = count
        reserve(BinaryFormat.containerHeaderSize)
        put(tag)
        base.storeBytes(of: first.littleEndian, toByteOffset: count, as: UInt32.self)
        base.storeBytes(of: second.littleEndian, toByteOffset: count &+ 4, as: UInt32.self)
        count &+= 8
        return header
    }

    /// Reads one of the two header words of the container at `header`: word 0 is the length, word 1 the count.
    func headerWord(_ word: Int, at header: Int) -> UInt32 {
        let offset = header &+ 1 &+ 4 &* word
        precondition(header >= 0 && offset &+ 4 <= count)
        return UInt32(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    /// Overwrites one of the two header words of the container at `header`.
    mutating func setHeaderWord(_ word: Int, at header: Int, to value: UInt32) {
        let offset = header &+ 1 &+ 4 &* word
        precondition(header >= 0 && offset &+ 4 <= count)
        base.storeBytes(of: value.littleEndian, toByteOffset: offset, as: UInt32.self)
    }

    /// Fills in the length and count of the container whose header starts at `header`; its body is everything
    /// written since. Returns false when the body is too long for the format's 32-bit lengths.
    mutating func patchContainerHeader(at header: Int, count elementCount: Int) -> Bool {
        let length = count - header - BinaryFormat.containerHeaderSize
        guard length <= BinaryFormat.maximumLength, elementCount <= BinaryFormat.maximumLength else { return false }
        setHeaderWord(0, at: header, to: UInt32(truncatingIfNeeded: length))
        setHeaderWord(1, at: header, to: UInt32(truncatingIfNeeded: elementCount))
        return true
    }
}
