internal import CZstd

/// One trained Zstandard dictionary and the digested forms Zstandard compresses and
/// decompresses with. It is the single owner of its `ZSTD_DDict` and `ZSTD_CDict`s and frees
/// them when it goes.
///
/// Zstandard documents digested dictionaries as read-only once created, safe to share between
/// threads; only the contexts that use them (``ZstdContexts``) are per thread.
final class ZstdDictionary: @unchecked Sendable {
    // @unchecked: `ddict` is immutable after init and read-only to Zstandard; `cdicts` is only
    // touched under `cdictLock`, and each CDict, once made, is read-only too.

    /// The dictionary's id, as stored in the system key and in each record that uses it.
    let id: UInt32
    /// The dictionary as trained (Zstandard's own format).
    let bytes: [UInt8]
    private let ddict: OpaquePointer
    private let cdictLock = Lock()
    private var cdicts: [Int: OpaquePointer] = [:]

    /// Digests `bytes` for decompression; nil if Zstandard refuses them (a damaged dictionary).
    init?(id: UInt32, bytes: [UInt8]) {
        guard id != 0, !bytes.isEmpty,
            let ddict = bytes.withUnsafeBytes({ ZSTD_createDDict($0.baseAddress, $0.count) })
        else { return nil }
        self.id = id
        self.bytes = bytes
        self.ddict = ddict
    }

    deinit {
        ZSTD_freeDDict(ddict)
        for cdict in cdicts.values { ZSTD_freeCDict(cdict) }
    }

    /// Calls `body` with the decompression form.
    @inline(__always)
    func withDDict<Result>(_ body: (OpaquePointer) throws -> Result) rethrows -> Result {
        try body(ddict)
    }

    /// The compression form for `level`, digested on first use (about a millisecond) and kept.
    func cdict(level: Int) -> OpaquePointer? {
        cdictLock.withLock {
            if let cdict = cdicts[level] { return cdict }
            guard let cdict = bytes.withUnsafeBytes({ ZSTD_createCDict($0.baseAddress, $0.count, Int32(level)) })
            else { return nil }
            cdicts[level] = cdict
            return cdict
        }
    }

    /// Trains a dictionary of at most `capacity` bytes on `samples` (the concatenated samples,
    /// whose lengths are `sizes`); nil if Zstandard cannot (too few or too uniform samples).
    static func train(samples: [UInt8], sizes: [Int], capacity: Int) -> [UInt8]? {
        var dictionary = [UInt8](repeating: 0, count: capacity)
        // FastCover with fixed parameters instead of ZDICT_trainFromBuffer's search over
        // several: a tenth of the time and memory for the same ratio (PERFORMANCE.md, "Record
        // compression, measured"). Segments of 200 bytes, 8-byte d-mers, a 2^14-entry
        // frequency table.
        var parameters = ZDICT_fastCover_params_t()
        parameters.k = 200
        parameters.d = 8
        parameters.f = 14
        parameters.accel = 1
        parameters.zParams.compressionLevel = 3
        var length = dictionary.withUnsafeMutableBytes { output in
            samples.withUnsafeBytes { input in
                ZDICT_trainFromBuffer_fastCover(
                    output.baseAddress, output.count, input.baseAddress, sizes, UInt32(sizes.count), parameters)
            }
        }
        if ZDICT_isError(length) != 0 {
            // Zstandard's default search, which copes with samples fastCover's fixed sizes do not fit.
            length = dictionary.withUnsafeMutableBytes { output in
                samples.withUnsafeBytes { input in
                    ZDICT_trainFromBuffer(
                        output.baseAddress, output.count, input.baseAddress, sizes, UInt32(sizes.count))
                }
            }
        }
        guard ZDICT_isError(length) == 0, length > 0 else { return nil }
        dictionary.removeLast(dictionary.count - length)
        return dictionary
    }
}
