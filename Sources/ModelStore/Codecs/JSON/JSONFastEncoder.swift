/// ModelStore's own JSON encoder: the write path of ``JSONModelCodec``.
///
/// It writes exactly the bytes Foundation's `JSONEncoder` with default settings writes, except that an object's
/// keys come in the order the model encoded them (Foundation's order comes from a `Dictionary` and changes from one
/// process to the next, so no order can match it; any order decodes to the same values). Where it cannot reproduce
/// Foundation's output exactly it gives up and returns `false`: the codec then encodes with `JSONEncoder`, so
/// callers only ever see Foundation's errors. It gives up on a model that throws (even an error the model catches),
/// a non-finite float, a key encoded twice in one object, `superEncoder()`, a value that encodes nothing, a
/// container used after a later one was opened beside it, and nesting deeper than ``maximumDepth``.
///
/// It is fast because it streams straight into the caller's buffer: there is no tree of boxed values, no
/// `Dictionary` per object and no second pass to serialize it.
enum JSONFastEncoder {
    /// The deepest nesting of arrays and objects it writes. Foundation throws from 512; deeper models are left to
    /// it, and the margin also bounds the encoder's own recursion.
    static let maximumDepth = 256

    /// Appends `value`'s JSON to `buffer` and returns `true`, or returns `false` and leaves `buffer` as it was.
    static func encode<Value: Encodable>(_ value: Value, appendingTo buffer: inout [UInt8]) -> Bool {
        let state = JSONEncodingState()
        let start = buffer.count
        // Move the buffer into the state rather than copy it, and move it back whatever happens.
        swap(&state.bytes, &buffer)
        defer { swap(&state.bytes, &buffer) }
        do {
            try state.encodeTopLevel(value)
            return true
        } catch {
            state.bytes.removeSubrange(start...)
            return false
        }
    }
}

/// Why ``JSONFastEncoder`` stopped: the model did something whose output only Foundation decides.
enum JSONFastEncoderError: Error {
    /// The encode touched something the fast encoder does not reproduce; its output was discarded.
    case needsFoundation
}
