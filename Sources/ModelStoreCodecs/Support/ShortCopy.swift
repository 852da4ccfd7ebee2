/// Copying the short byte runs coders write most (keys, small strings): two overlapping word copies beat a call
/// to `memcpy` up to 16 bytes. Longer runs go to `memcpy`.
enum ShortCopy {
    /// Copies `length` bytes from `source` to `destination`; the ranges must not overlap.
    @inline(__always)
    static func copy(from source: UnsafeRawPointer, to destination: UnsafeMutableRawPointer, count length: Int) {
        switch length {
        case 8...16:
            copyEnds(from: source, to: destination, length, as: UInt64.self)
        case 4..<8:
            copyEnds(from: source, to: destination, length, as: UInt32.self)
        case 1..<4:
            copyEnds(from: source, to: destination, length, as: UInt8.self)
            let middle = source.load(fromByteOffset: length >> 1, as: UInt8.self)
            destination.storeBytes(of: middle, toByteOffset: length >> 1, as: UInt8.self)
        case ...0:
            return
        default:
            destination.copyMemory(from: source, byteCount: length)
        }
    }

    /// Copies the first and the last `Word` of a `length`-byte range (`length` at least the word's size); up to
    /// twice the word's size that covers every byte, and for three bytes the caller copies the middle one.
    @inline(__always)
    private static func copyEnds<Word: FixedWidthInteger>(
        from source: UnsafeRawPointer,
        to destination: UnsafeMutableRawPointer,
        _ length: Int,
        as _: Word.Type
    ) {
        let tail = length &- MemoryLayout<Word>.size
        let first = source.loadUnaligned(as: Word.self)
        let last = source.loadUnaligned(fromByteOffset: tail, as: Word.self)
        destination.storeBytes(of: first, as: Word.self)
        destination.storeBytes(of: last, toByteOffset: tail, as: Word.self)
    }
}
