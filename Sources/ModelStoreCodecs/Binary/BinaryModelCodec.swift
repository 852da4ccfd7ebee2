public import Foundation

/// A ``ModelCodec`` that stores models in a compact, versioned binary format.
///
/// It keeps what makes ``JSONModelCodec`` convenient: any `Codable` model works unchanged, keyed containers
/// store field names, so fields can be added, removed or reordered between versions of a model and older records
/// still decode. It encodes and decodes about ten times faster than Foundation's JSON coders, because numbers are
/// stored as varints or raw bit patterns, strings as length-prefixed UTF-8 that needs no escaping, keys are matched
/// as bytes, and every container carries its length so unknown fields are skipped without being parsed. Records
/// are about the size of compact JSON, since field names are stored as they are in JSON.
///
/// For example:
///
/// ```swift
/// let codec = BinaryModelCodec()
/// let bytes = try codec.encode(profile)
/// let copy = try codec.decode(Profile.self, from: bytes)
/// ```
///
/// Decoding never trusts the input: every read is bounds-checked, every length is checked against the bytes that
/// remain before anything is allocated, and nesting is limited to 512 levels, so truncated or corrupted records
/// throw `DecodingError.dataCorrupted` instead of crashing. (A corruption that still leaves a well-formed record,
/// such as a flipped bit inside a number, decodes to a different value; LevelDB's block checksums guard the disk.)
///
/// Containers must be filled in the order they are opened, as synthesized `Codable` conformances and nearly all
/// hand-written ones do. Writing to a container after its parent or a later sibling was written to throws
/// `EncodingError.invalidValue`.
///
/// The codec is a stateless value, safe to use from many threads at once. Each thread keeps the working memory of its
/// last encode and decode call for its next one, so back-to-back calls allocate little.
///
/// ## Byte format, version 1
///
/// A payload is one format-version byte followed by exactly one value. Bytes after that value make the payload
/// invalid, and so does any version other than 1: a change to anything below gets a new version number, and readers
/// reject versions they do not know rather than guess.
///
///     payload := version:u8 (= 0x01)  value
///
/// Every value starts with a one-byte tag that says what follows:
///
///     tag   value                     followed by
///     0x00  nil                       nothing
///     0x01  false                     nothing
///     0x02  true                      nothing
///     0x03  unsigned integer          varint
///     0x04  signed integer            zigzag varint
///     0x05  Float                     4 bytes: the IEEE 754 bit pattern, little-endian
///     0x06  Double                    8 bytes: the IEEE 754 bit pattern, little-endian
///     0x07  String                    varint byte count, then that many bytes of UTF-8 (NUL is an ordinary byte)
///     0x08  bytes                     varint byte count, then the raw bytes
///     0x09  keyed container           u32 body length, u32 entry count, then the entries
///     0x0A  unkeyed container         u32 body length, u32 element count, then the elements
///
/// Integers. A varint is LEB128: seven bits per byte, least significant group first, the high bit set on every
/// byte but the last; at most ten bytes, and the tenth may only be 0 or 1. Int, Int8 ... Int64 use tag 0x04 and
/// zigzag, which maps 0, -1, 1, -2, ... to 0, 1, 2, 3, ... so small negative numbers stay short; UInt ... UInt64
/// use tag 0x03 and a plain varint. A reader accepts any numeric tag for any numeric type as long as the stored
/// number is exactly representable in it (300 read as UInt8, or 1.5 read as Int, throws), so a model may change a
/// field between numeric types while its stored values still fit. Int128 and UInt128 use the same tags and store
/// exactly any value from Int64.min to UInt64.max (an Int128 above Int64.max takes the unsigned tag); encoding a
/// value outside that range throws `EncodingError.invalidValue`, in every kind of container.
///
/// Floating point. The bit pattern is stored, so NaN payloads, -0 and the infinities round-trip exactly.
///
/// Containers. u32 is four bytes, little-endian. The body length counts the bytes after the 9-byte header, so a
/// reader can step over any container in O(1). Every element takes at least one byte, so a count larger than the
/// body length is corrupt. Containers nest at most 512 deep.
///
///     keyed entry   := varint key byte count, the key's UTF-8 bytes (its CodingKey.stringValue), value
///     unkeyed body  := value value value ...
///
/// Keyed entries appear in the order the model encoded them. Readers find keys by comparing bytes, whatever the
/// order; when a key occurs twice, which copy is read is unspecified.
///
/// Nil. An Optional property that is nil is left out of its keyed container (Codable's encodeIfPresent), so it
/// costs nothing, and a reader treats an absent key and a stored nil (0x00) alike in decodeIfPresent. Nil inside
/// unkeyed containers and single values is stored as 0x00. As with JSON, `.some(nil)` of a nested Optional is
/// stored as nil.
///
/// Super decoders. As with Foundation's `JSONDecoder`, `superDecoder()` and `superDecoder(forKey:)` give a decoder
/// for nil when the record has no such entry, so a model may gain a superclass and still read older records; and
/// `decodeIfPresent` at the end of an unkeyed container returns nil and advances `currentIndex`.
///
/// Schema evolution. A reader looks up only the keys its model asks for, and every value can be stepped over
/// without being understood (tags give the size of scalars, containers carry their length), so fields that the
/// model no longer has are skipped for free. A field the stored record lacks reads as nil via decodeIfPresent.
///
/// Fast paths. Date is stored as its timeIntervalSinceReferenceDate (tag 0x06), Data as bytes (0x08), UUID as its
/// 16 bytes (0x08) and URL as its absoluteString (0x07). Their own Codable forms are accepted when reading too, so
/// values written either way decode. `[String]`, `[Int]` and `[Double]` are written and read in one loop, in the
/// ordinary unkeyed layout. Every other type (Decimal, enums with associated values, ...) goes through its Codable
/// conformance. A value whose encode(to:) writes nothing is stored as an empty keyed container.
public struct BinaryModelCodec: ModelCodec {
    /// Creates a binary codec.
    public init() {}

    /// ``ModelCodecIdentifier/binary``.
    public var identifier: ModelCodecIdentifier {
        .binary
    }

    /// Encodes a model into a new `Data`.
    ///
    /// - Throws: `EncodingError.invalidValue` if the model nests deeper than 512 levels, writes a container larger
    ///   than 4 GiB, or uses its containers out of order; any error the model's `encode(to:)` throws.
    public func encode<Value: Encodable>(_ value: Value) throws -> Data {
        var state = BinaryEncodingState.start()
        defer { BinaryEncodingState.end(&state) }
        try state.encodePayload(value)
        // The Data takes over the encoder's memory, so the payload is never copied.
        return state.takeData()
    }

    /// Decodes a model from `data`.
    ///
    /// - Throws: `DecodingError` if `data` is not a payload of a supported format version, is truncated or
    ///   corrupted, or does not match `type`; any error the model's `init(from:)` throws.
    public func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        try data.withUnsafeBytes { try decode(type, fromBytes: $0) }
    }

    /// Encodes a model by appending its bytes to `buffer`, after whatever `buffer` already holds.
    ///
    /// The encoder writes straight into `buffer`; the existing bytes (a record header, say) are never read or
    /// moved. If encoding throws, `buffer` is left as it was.
    ///
    /// - Throws: The same errors as ``encode(_:)``.
    public func encode<Value: Encodable>(_ value: Value, appendingTo buffer: inout [UInt8]) throws {
        // Encoding into the encoder's own memory and copying once at the end beats appending to `buffer` piece by
        // piece, and leaves `buffer` untouched when encoding throws.
        var state = BinaryEncodingState.start()
        defer { BinaryEncodingState.end(&state) }
        try state.encodePayload(value)
        state.appendPayload(to: &buffer)
    }

    /// Decodes a model from bytes that are only valid during the call.
    ///
    /// The decoder reads straight from `bytes` without copying them and keeps no reference to them after it
    /// returns; decoded strings and `Data` own copies of their bytes.
    ///
    /// - Throws: The same errors as ``decode(_:from:)``.
    public func decode<Value: Decodable>(
        _ type: Value.Type,
        fromBytes bytes: UnsafeRawBufferPointer
    ) throws -> Value {
        guard bytes.count <= BinaryFormat.maximumLength else {
            throw DecodingError.dataCorrupted(.init(
                codingPath: [],
                debugDescription: "Binary payload of \(bytes.count) bytes is larger than the format's 4 GiB limit."
            ))
        }
        let reader = BinaryReader(bytes)
        let version: UInt8
        do {
            version = try reader.tag(at: 0, limit: reader.count)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "Binary payload is empty."))
        }
        guard version == BinaryFormat.version else {
            throw DecodingError.dataCorrupted(.init(
                codingPath: [],
                debugDescription: "Binary payload has format version \(version); this codec reads version 1."
            ))
        }
        var state = BinaryDecodingState.start(reading: reader)
        defer { BinaryDecodingState.end(&state) }
        do throws(BinaryReadError) {
            // The root value must fill the payload exactly: this catches truncation and trailing garbage up front.
            let end = try reader.skip(at: 1, limit: reader.count)
            guard end == reader.count else {
                throw .malformed("\(reader.count - end) unexpected bytes after the value", at: end)
            }
        } catch {
            throw error.decodingError(type, codingPath: [])
        }
        return try state.decode(type, at: 1, limit: reader.count, depth: 0)
    }
}
