internal import CZstd
import ModelStoreCodecs

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A Zstandard compression context and the buffer its output goes to, one per thread.
///
/// Contexts are not thread-safe, and making one costs far more than a record's compression,
/// so each thread keeps one between calls (``ThreadSpare``): a call takes it, leaving the
/// slot empty, so a nested call on the same thread makes its own. The context is the single
/// owner of its `ZSTD_CCtx`.
final class ZstdCompressionContext {
    private static let spare = ThreadSpare<ZstdCompressionContext>()
    private let context: OpaquePointer
    /// The compressed payload section: the dictionary id (LEB128), then the frame.
    @exclusivity(unchecked) var output: [UInt8] = []

    private init?() {
        guard let context = ZSTD_createCCtx() else { return nil }
        self.context = context
        // No parameters to set: `ZSTD_compress_usingCDict` ignores the context's and writes
        // frames with the content size (a reader checks it against its limit before
        // allocating), without a checksum (the record's CRC covers the stored bytes), and with
        // the dictionary's own Zstandard id, which Zstandard checks when it decompresses: a
        // frame read with another dictionary is refused ("Dictionary mismatch"), never decoded
        // into other bytes. The id costs up to 4 bytes a record; the safety is worth them.
    }

    deinit {
        ZSTD_freeCCtx(context)
    }

    /// Runs `body` with the thread's context (or a new one); nil when Zstandard cannot make one.
    @inline(__always)
    static func with<Result>(_ body: (ZstdCompressionContext) -> Result) -> Result? {
        guard let context = spare.take() ?? ZstdCompressionContext() else { return nil }
        defer {
            // A buffer grown past this by one large record is not kept for the thread's life.
            if context.output.capacity <= 64 << 10 { spare.putBack(context) }
        }
        return body(context)
    }

    /// Compresses `payload` with `cdict` into ``output`` after the dictionary id `id`;
    /// false when Zstandard fails or the result would not be smaller than `payload`.
    func compress(_ payload: UnsafeRawBufferPointer, cdict: OpaquePointer, id: UInt32) -> Bool {
        compress(payload, id: id) { destination, capacity in
            ZSTD_compress_usingCDict(context, destination, capacity, payload.baseAddress, payload.count, cdict)
        }
    }

    /// Compresses `payload` without a dictionary (id 0) at `level`: an encrypting store's records,
    /// since a dictionary trained on its records would keep their plaintext. Frames carry their
    /// content size (Zstandard's default) and no checksum, as with a dictionary.
    func compress(_ payload: UnsafeRawBufferPointer, level: Int) -> Bool {
        compress(payload, id: 0) { destination, capacity in
            ZSTD_compressCCtx(context, destination, capacity, payload.baseAddress, payload.count, Int32(level))
        }
    }

    private func compress(
        _ payload: UnsafeRawBufferPointer, id: UInt32,
        _ frame: (_ destination: UnsafeMutableRawPointer, _ capacity: Int) -> Int
    ) -> Bool {
        output.removeAll(keepingCapacity: true)
        LEB128.append(Int(id), to: &output)
        let prefix = output.count
        let bound = ZSTD_compressBound(payload.count)
        // Nothing is gained unless the frame is shorter than the payload less the id.
        let budget = payload.count - prefix - 1
        guard budget > 0 else { return false }
        output.append(contentsOf: repeatElement(0, count: min(bound, budget)))
        let written = output.withUnsafeMutableBytes { buffer in
            frame(buffer.baseAddress! + prefix, buffer.count - prefix)
        }
        // An error here is most often "destination too small": the payload does not shrink.
        guard ZSTD_isError(written) == 0 else { return false }
        output.removeLast(output.count - prefix - written)
        return true
    }
}

/// A Zstandard decompression context and a buffer for one record's model, one per thread
/// (as ``ZstdCompressionContext``). The single owner of its `ZSTD_DCtx` and of its buffer.
final class ZstdDecompressionContext {
    private static let spare = ThreadSpare<ZstdDecompressionContext>()
    /// A buffer larger than this after a call is freed instead of kept for the thread.
    private static let maximumKeptCapacity = 64 << 10
    private let context: OpaquePointer
    private var buffer: UnsafeMutableRawBufferPointer

    private init?() {
        guard let context = ZSTD_createDCtx() else { return nil }
        self.context = context
        buffer = .allocate(byteCount: 4 << 10, alignment: 16)
    }

    deinit {
        ZSTD_freeDCtx(context)
        buffer.deallocate()
    }

    /// Why a frame was refused, for the error that names the record.
    enum Failure: Error {
        case unknownSize
        case tooLarge(UInt64)
        case damaged(String)
        case noContext
    }

    /// Decompresses the single frame `frame` (with `dictionary`, or none) and calls `body` with
    /// the bytes, valid only inside `body`.
    ///
    /// The frame's declared size is checked against `limit` before anything is allocated, and
    /// Zstandard never writes past that size: a crafted frame cannot make the process allocate
    /// more than `limit` bytes, and a frame whose content is not its declared size is refused.
    static func decompress<Result>(
        _ frame: UnsafeRawBufferPointer, dictionary: ZstdDictionary?, limit: Int,
        _ body: (UnsafeRawBufferPointer) throws -> Result
    ) throws -> Result {
        let declared = ZSTD_getFrameContentSize(frame.baseAddress, frame.count)
        // ZSTD_CONTENTSIZE_UNKNOWN and _ERROR are the two largest values.
        guard declared < UInt64.max - 1 else { throw Failure.unknownSize }
        guard declared <= UInt64(limit) else { throw Failure.tooLarge(declared) }
        guard let context = spare.take() ?? ZstdDecompressionContext() else { throw Failure.noContext }
        defer { context.release() }
        let size = Int(declared)
        if context.buffer.count < size {
            context.buffer.deallocate()
            context.buffer = .allocate(byteCount: max(size, 64), alignment: 16)
        }
        let output = context.buffer.baseAddress!
        let written: Int
        if let dictionary {
            written = dictionary.withDDict {
                ZSTD_decompress_usingDDict(context.context, output, size, frame.baseAddress, frame.count, $0)
            }
        } else {
            written = ZSTD_decompressDCtx(context.context, output, size, frame.baseAddress, frame.count)
        }
        guard ZSTD_isError(written) == 0 else {
            throw Failure.damaged(String(cString: ZSTD_getErrorName(written)))
        }
        guard written == size else { throw Failure.damaged("the frame holds \(written) bytes, not \(size)") }
        return try body(UnsafeRawBufferPointer(start: output, count: size))
    }

    /// Offers the context back to the thread, without a buffer one large record grew.
    private func release() {
        if buffer.count > Self.maximumKeptCapacity {
            buffer.deallocate()
            buffer = .allocate(byteCount: 4 << 10, alignment: 16)
        }
        Self.spare.putBack(self)
    }
}
