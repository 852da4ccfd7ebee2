/// ModelStore's own JSON decoder: the read path of ``JSONModelCodec``.
///
/// It decodes exactly as Foundation's `JSONDecoder` with default settings does, or throws. Throwing is its way of
/// saying "ask Foundation": the codec then decodes the same bytes with `JSONDecoder`, so callers only ever see
/// Foundation's results and errors. It throws when the document is not strict RFC 8259 JSON (``JSONScanner``), and
/// whenever a decode call touched anything it does not answer exactly as Foundation would (see
/// ``JSONDecodingState``), even if the model caught the error and finished.
///
/// It is fast because it reads the document once into a compact ``JSONTape`` without creating Strings for keys,
/// matches keys by their bytes with a hint for the next key, creates each String once from the input, and reads
/// common types (``JSONFastPath``) without containers. Its fixed cost per call is small: the decoding state and its
/// tape are the thread's spare from the previous call, not new allocations.
enum JSONFastDecoder {
    /// Decodes `type` from `bytes`, which need only stay valid for the call.
    ///
    /// - Throws: ``JSONSyntaxError`` for a document the scanner rejects, ``JSONFastDecoderError`` when Foundation
    ///   must decide, or the `DecodingError` (or model error) the decode threw.
    static func decode<Value: Decodable>(_ type: Value.Type, from bytes: UnsafeRawBufferPointer) throws -> Value {
        // Offsets and tape indices are 32-bit.
        guard bytes.count < Int(UInt32.max) else { throw JSONFastDecoderError.needsFoundation }
        // A constant handed on to `end` rather than a variable that `end` mutates in a `defer`: calls on a
        // variable retained and released the state around each of them.
        let state = JSONDecodingState.start()
        let value: Value
        do {
            try state.read(bytes)
            value = try state.decode(type, at: 0, depth: 0)
        } catch {
            JSONDecodingState.end(consume state)
            throw error
        }
        let needsFoundation = state.needsFoundation
        JSONDecodingState.end(consume state)
        guard !needsFoundation else { throw JSONFastDecoderError.needsFoundation }
        return value
    }
}

/// Why ``JSONFastDecoder`` gave up on a document that the scanner accepted.
enum JSONFastDecoderError: Error {
    /// The decode touched something only Foundation answers exactly; its result was discarded.
    case needsFoundation
}
