import Foundation

/// ModelStore's own JSON encoder: the write path of ``JSONModelCodec``.
///
/// It writes exactly the bytes Foundation's `JSONEncoder` with default settings writes, except that an object's
/// keys come in the order the model encoded them (Foundation's order comes from a `Dictionary` and changes from one
/// process to the next, so no order can match it; any order decodes to the same values). Where it cannot reproduce
/// Foundation's output exactly it gives up and returns `false`: the codec then encodes with `JSONEncoder`, so
/// callers only ever see Foundation's errors. It gives up on a model that throws (even an error the model catches),
/// a non-finite float, a key encoded twice in one object, `superEncoder()`, a value that encodes nothing, and a
/// container used after a later one was opened beside it. Nesting deeper than ``maximumDepth`` is not left to
/// Foundation, whose encoder recurses until the stack overflows: it throws `EncodingError.invalidValue`.
///
/// It is fast because it streams straight into one buffer, copied once to the caller's: there is no tree of boxed
/// values, no `Dictionary` per object and no second pass to serialize it. Its fixed cost per call is small too: the
/// encoding state, its arrays and its buffer are the thread's spare from the previous call, not new allocations.
enum JSONFastEncoder {
    /// The deepest nesting of values that encode themselves, one inside the other: containers and single-value
    /// wrappers alike, as in ``BinaryModelCodec``, whose limit this is. Scalars written directly (String, numbers,
    /// Bool, Date, Data, URL, Decimal) do not count. A deeper model throws `EncodingError.invalidValue`.
    static let maximumDepth = 512

    /// The deepest nesting of arrays and objects it writes itself. `JSONEncoder` refuses a 512th nested container
    /// with an error of its own, so a model that deep is left to it (after ``EncodingDepthProbe`` has checked that
    /// its recursion stays bounded), and the error callers see is Foundation's.
    static let maximumContainerDepth = 511

    /// Appends `value`'s JSON to `buffer` and returns `true`, or returns `false` and leaves `buffer` as it was.
    ///
    /// - Throws: `EncodingError.invalidValue` if `value` nests deeper than ``maximumDepth``; `buffer` is then left
    ///   as it was.
    static func encode<Value: Encodable>(_ value: Value, appendingTo buffer: inout [UInt8]) throws -> Bool {
        try encode(value) { $0.append(to: &buffer) }
    }

    /// `value`'s JSON as a new `Data`, or nil where Foundation must decide.
    ///
    /// - Throws: As ``encode(_:appendingTo:)``.
    static func encodeData<Value: Encodable>(_ value: Value) throws -> Data? {
        var data: Data?
        return try encode(value) { data = $0.data() } ? data : nil
    }

    /// Appends `first`'s JSON and then `second`'s to `buffer` in one run, and returns where `second`'s start; or
    /// returns nil and leaves `buffer` as it was where Foundation must decide either of them. One run rather than
    /// two saves the fixed cost of a call (the thread's state, its bookkeeping, the copy to `buffer`), which is
    /// most of the cost of a small value such as a record's metadata.
    ///
    /// - Throws: As ``encode(_:appendingTo:)``.
    static func encode<First: Encodable, Second: Encodable>(
        _ first: First, then second: Second, appendingTo buffer: inout [UInt8]
    ) throws -> Int? {
        var state = JSONEncodingState.start()
        defer { JSONEncodingState.end(&state) }
        let middle: Int
        do {
            // A finished top-level value leaves no frame, key or path behind, so the second starts as the first did.
            try state.encodeTopLevel(first)
            middle = state.output.count
            try state.encodeTopLevel(second)
        } catch {
            try rethrowIfTooDeep(state)
            return nil
        }
        let start = buffer.count
        state.output.append(to: &buffer)
        return start + middle
    }

    /// Encodes `value`, hands the finished output to `take` and returns `true`, or returns `false` without calling
    /// it.
    @inline(__always)
    private static func encode<Value: Encodable>(_ value: Value, take: (JSONByteWriter) -> Void) throws -> Bool {
        var state = JSONEncodingState.start()
        defer { JSONEncodingState.end(&state) }
        do {
            try state.encodeTopLevel(value)
        } catch {
            try rethrowIfTooDeep(state)
            return false
        }
        take(state.output)
        return true
    }

    /// Throws the error that ended a run whose model nested too deep, if that is what ended it. Apart from
    /// ``encode(_:take:)`` so that its successful path needs no `EncodingError?` and none of its type metadata.
    @inline(never)
    private static func rethrowIfTooDeep(_ state: JSONEncodingState) throws {
        if let tooDeep = state.tooDeep { throw tooDeep }
    }
}

/// Why ``JSONFastEncoder`` stopped: the model did something whose output only Foundation decides.
enum JSONFastEncoderError: Error {
    /// The encode touched something the fast encoder does not reproduce; its output was discarded.
    case needsFoundation
}
