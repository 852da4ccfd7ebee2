public import Foundation

/// Stores models as JSON, written and read by ModelStore's own encoder and decoder with the results of Foundation's
/// `JSONEncoder` and `JSONDecoder`, apart from the exceptions listed below. The default codec.
///
/// JSON is tolerant of model changes: unknown keys are ignored and missing optional
/// properties decode as nil. Pass your own coders to change date or key strategies:
///
/// ```swift
/// let encoder = JSONEncoder()
/// encoder.dateEncodingStrategy = .iso8601
/// let decoder = JSONDecoder()
/// decoder.dateDecodingStrategy = .iso8601
/// configuration.codec = JSONModelCodec(encoder: encoder, decoder: decoder)
/// ```
///
/// Changing strategies changes how new records are written; records already stored keep
/// the format they were written in, so keep the decoder able to read both.
///
/// ## Decoding
///
/// With a `JSONDecoder` on default settings, reads use a decoder built into ModelStore that is about five times
/// faster than Foundation's for typical models and gives the same results: the same values for every document
/// Foundation decodes, and an error wherever Foundation throws one, with these exceptions:
///
/// - A document that is not strict RFC 8259 JSON throws `DecodingError.dataCorrupted`, even where Foundation is
///   more lenient: trailing commas, a byte-order mark, UTF-16 or UTF-32 text, invalid UTF-8 or escapes in a value
///   the model never reads. Bytes ModelStore's scanner rejects are never handed to Foundation, whose parser crashes
///   on some damaged documents (nesting cut at its 512-level limit). `JSONEncoder` never writes such documents;
///   to read ones written by other tools, use ``DecodingEngine/foundation``.
/// - A number whose significand is zero and that has an exponent (`0e5`, `0.00e1`, `-0.0e1`) reads as zero when
///   decoded as a `Double`, `Float` or `Date`. RFC 8259 allows it; Foundation throws for many such spellings, a
///   misreading in its underflow check. Integer and `Decimal` reads agree with Foundation.
///
/// Whenever it meets anything else it does not handle exactly as Foundation does (a number Foundation would read
/// through `Decimal`; a model that catches a decoding error and carries on), it hands the bytes to the `JSONDecoder`
/// instead, so errors and edge cases are Foundation's own. Such a read costs a little more than the `JSONDecoder`
/// alone; for models that always catch errors (a generic JSON value tried type by type, say), use
/// ``DecodingEngine/foundation``.
///
/// ## Encoding
///
/// With a `JSONEncoder` on default settings, writes use an encoder built into ModelStore that streams straight into
/// the record's buffer, several times faster than Foundation's. It writes the bytes `JSONEncoder` writes, except
/// that an object's keys come in the order the model encodes them (Foundation's order comes from a `Dictionary` and
/// changes between runs; both decode to the same values). Whatever it does not reproduce exactly (a key encoded
/// twice, `superEncoder()`, a value that encodes nothing, a non-finite float, an error thrown by the model, a 512th
/// nested array or object, which `JSONEncoder` refuses) it hands to the `JSONEncoder`, so errors are Foundation's
/// own; ``EncodingEngine/foundation`` always uses the `JSONEncoder`. A model's `encode(to:)` then runs a second time
/// (a third, for the depth check below), so it too should have no side effects.
///
/// ## Nesting
///
/// Whatever the engine, a model that nests more than 512 values deep throws `EncodingError.invalidValue`, counting
/// every value that encodes itself (a struct, an enum, an array, a single-value wrapper) inside another, and not the
/// scalars it writes (strings, numbers, `Bool`, `Date`, `Data`, `URL`, `Decimal`). `JSONEncoder` recurses without a
/// limit and crashes the process on models deep enough, so ModelStore checks before it hands a model over; it is the
/// same limit as ``BinaryModelCodec``'s and ``PropertyListModelCodec``'s. Reading, a document that nests more than
/// 512 arrays and objects throws `DecodingError.dataCorrupted`.
///
/// A model's `init(from:)` runs a second time when the bytes go to the `JSONDecoder` after ModelStore's decoder
/// began, so it should have no side effects beyond building the value (as synthesized conformances have none).
public struct JSONModelCodec: ModelCodec {
    /// Which decoder reads records.
    public enum DecodingEngine: Sendable {
        /// ModelStore's decoder when the `JSONDecoder` has default settings (key, date, data and non-conforming
        /// float strategies, no `userInfo`, no JSON5, not a subclass), otherwise the `JSONDecoder`.
        ///
        /// Results are the same either way; only speed differs. On Apple platforms ModelStore's decoder is used
        /// from macOS 15, iOS 18, tvOS 18, watchOS 11 and visionOS 2, whose Foundation shares the JSON decoder it
        /// was checked against.
        case automatic
        /// Always the `JSONDecoder`: to measure or rule out ModelStore's decoder.
        case foundation
    }

    /// Which encoder writes records.
    public enum EncodingEngine: Sendable {
        /// ModelStore's encoder when the `JSONEncoder` has default settings (no output formatting; default key,
        /// date, data and non-conforming float strategies; no `userInfo`; not a subclass), otherwise the
        /// `JSONEncoder`.
        ///
        /// Both write the same JSON, except that ModelStore's encoder writes an object's keys in the order the
        /// model encodes them, where Foundation's order varies from run to run; either decodes to the same values.
        /// On Apple platforms ModelStore's encoder is used from macOS 15, iOS 18, tvOS 18, watchOS 11 and
        /// visionOS 2, whose Foundation shares the JSON encoder it was checked against.
        case automatic
        /// Always the `JSONEncoder`: to measure or rule out ModelStore's encoder.
        case foundation
    }

    private let encoder: JSONEncoder
    private let decoder: JSONDecoder
    /// Whether reads try ModelStore's decoder first.
    private let usesFastDecoder: Bool
    /// Whether writes try ModelStore's encoder first.
    private let usesFastEncoder: Bool

    /// Creates a JSON codec. The coders are reused for every record and must not be mutated
    /// afterwards.
    ///
    /// - Parameters:
    ///   - encoder: Writes every record.
    ///   - decoder: Reads records, or defines how they are read when ModelStore's decoder is used.
    ///   - decoding: Which decoder reads records; ``DecodingEngine/automatic`` by default.
    ///   - encoding: Which encoder writes records; ``EncodingEngine/automatic`` by default.
    public init(
        encoder: JSONEncoder = JSONEncoder(),
        decoder: JSONDecoder = JSONDecoder(),
        decoding: DecodingEngine = .automatic,
        encoding: EncodingEngine = .automatic
    ) {
        self.encoder = encoder
        self.decoder = decoder
        switch decoding {
        case .automatic: usesFastDecoder = Self.fastDecoderIsAvailable && Self.hasDefaultSettings(decoder)
        case .foundation: usesFastDecoder = false
        }
        switch encoding {
        case .automatic: usesFastEncoder = Self.fastDecoderIsAvailable && Self.hasDefaultSettings(encoder)
        case .foundation: usesFastEncoder = false
        }
    }

    /// Whether `encoder` encodes exactly as a fresh `JSONEncoder()` does, which is what ModelStore's encoder
    /// reproduces.
    private static func hasDefaultSettings(_ encoder: JSONEncoder) -> Bool {
        // A subclass may override encode(_:).
        guard type(of: encoder) == JSONEncoder.self, encoder.outputFormatting.isEmpty else { return false }
        guard case .useDefaultKeys = encoder.keyEncodingStrategy,
            case .deferredToDate = encoder.dateEncodingStrategy,
            case .base64 = encoder.dataEncodingStrategy,
            case .throw = encoder.nonConformingFloatEncodingStrategy
        else { return false }
        return encoder.userInfo.isEmpty
    }

    /// Whether `decoder` decodes exactly as a fresh `JSONDecoder()` does, which is what ModelStore's decoder
    /// reproduces.
    private static func hasDefaultSettings(_ decoder: JSONDecoder) -> Bool {
        // A subclass may override decode(_:from:).
        guard type(of: decoder) == JSONDecoder.self else { return false }
        guard case .useDefaultKeys = decoder.keyDecodingStrategy,
            case .deferredToDate = decoder.dateDecodingStrategy,
            case .base64 = decoder.dataDecodingStrategy,
            case .throw = decoder.nonConformingFloatDecodingStrategy
        else { return false }
        return decoder.userInfo.isEmpty && !decoder.allowsJSON5 && !decoder.assumesTopLevelDictionary
    }

    /// Whether this platform's Foundation has the JSON coders ModelStore's own were checked against.
    private static var fastDecoderIsAvailable: Bool {
        #if canImport(Darwin)
        if #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *) {
            return true
        }
        return false
        #else
        return true
        #endif
    }

    /// ``ModelCodecIdentifier/json``.
    public var identifier: ModelCodecIdentifier { .json }

    /// Encodes `value` as JSON.
    ///
    /// - Throws: `EncodingError.invalidValue` if `value` nests more than 512 levels deep (see the type's
    ///   documentation); otherwise what the `JSONEncoder` throws for `value`.
    public func encode<Value: Encodable>(_ value: Value) throws -> Data {
        if usesFastEncoder {
            if let data = try JSONFastEncoder.encodeData(value) { return data }
        }
        return try foundationEncode(value)
    }

    /// Encodes `value` as JSON at the end of `buffer`, which keeps its contents if encoding throws.
    ///
    /// - Throws: The same errors as ``encode(_:)``.
    public func encode<Value: Encodable>(_ value: Value, appendingTo buffer: inout [UInt8]) throws {
        if usesFastEncoder, try JSONFastEncoder.encode(value, appendingTo: &buffer) { return }
        buffer.append(contentsOf: try foundationEncode(value))
    }

    /// Encodes `first` and then `second` at the end of `buffer` in one run of ModelStore's encoder, and returns
    /// where `second`'s bytes start; where either needs Foundation, each is encoded on its own as
    /// ``encode(_:appendingTo:)`` does. `buffer` keeps its contents if encoding throws.
    ///
    /// - Throws: The same errors as ``encode(_:)``.
    public func encode<First: Encodable, Second: Encodable>(
        _ first: First, then second: Second, appendingTo buffer: inout [UInt8]
    ) throws -> Int {
        if usesFastEncoder, let middle = try JSONFastEncoder.encode(first, then: second, appendingTo: &buffer) {
            return middle
        }
        return try encodeOneAfterTheOther(first, then: second, appendingTo: &buffer)
    }

    /// The `JSONEncoder`'s bytes, once the model is known not to nest deep enough to overflow its recursion.
    private func foundationEncode<Value: Encodable>(_ value: Value) throws -> Data {
        try EncodingDepthProbe.check(value)
        return try encoder.encode(value)
    }

    /// Decodes a `type` from JSON.
    ///
    /// - Throws: `DecodingError.dataCorrupted` for a document that is not strict RFC 8259 JSON (when ModelStore's
    ///   decoder is used) or that nests more than 512 arrays and objects; otherwise what the `JSONDecoder` throws.
    public func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        if usesFastDecoder {
            do {
                return try data.withUnsafeBytes { try fastDecode(type, from: $0) }
            } catch is JSONFastDecoderError {
                // Foundation decides, below.
            }
        }
        try data.withUnsafeBytes { try JSONNestingGuard.check($0, allowsJSON5: decoder.allowsJSON5) }
        return try decoder.decode(type, from: data)
    }

    /// Decodes a `type` from JSON in borrowed memory, without copying it.
    ///
    /// - Throws: The same errors as ``decode(_:from:)``.
    public func decode<Value: Decodable>(
        _ type: Value.Type,
        fromBytes bytes: UnsafeRawBufferPointer
    ) throws -> Value {
        if usesFastDecoder {
            do {
                return try fastDecode(type, from: bytes)
            } catch is JSONFastDecoderError {
                // Foundation decides, below.
            }
        }
        try JSONNestingGuard.check(bytes, allowsJSON5: decoder.allowsJSON5)
        // JSONDecoder does not keep its input, so LevelDB's buffer is wrapped without a copy.
        guard let base = bytes.baseAddress, bytes.count > 0 else { return try decoder.decode(type, from: Data()) }
        let data = Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: bytes.count, deallocator: .none)
        return try decoder.decode(type, from: data)
    }

    /// ModelStore's decoder: the value, or ``JSONFastDecoderError/needsFoundation`` when the `JSONDecoder` must
    /// decide. (An error rather than an optional result: in this generic function, unspecialized when the store calls
    /// it, `Value?` would cost a metadata lookup per call.)
    ///
    /// - Throws: `DecodingError.dataCorrupted` for a document the scanner rejected. Such bytes never reach
    ///   Foundation, whose parser crashes on some of them.
    private func fastDecode<Value: Decodable>(_ type: Value.Type, from bytes: UnsafeRawBufferPointer) throws -> Value {
        do {
            return try JSONFastDecoder.decode(type, from: bytes)
        } catch let error as JSONSyntaxError {
            throw error.decodingError
        } catch {
            // Anything else (a model's error, a value only Foundation reads exactly): Foundation's answer is the one
            // callers see.
            throw JSONFastDecoderError.needsFoundation
        }
    }
}
