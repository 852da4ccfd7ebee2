import Foundation
import ModelStore

/// One record as `get` and `dump` print it: its key, metadata and model.
///
/// JSON form (dates in ISO 8601 UTC, `expiresAt` null when the record never expires):
///
/// ```json
/// {"byteCount":71,"codec":"json","expired":false,"expiresAt":null,"key":"user:1",
///  "storedAt":"2026-11-21T16:09:00Z","value":{"name":"Ada"}}
/// ```
///
/// `shownAs` says what `value` holds: `json` (the record as stored), `jsonConvertedFromPropertyList`,
/// or `base64`. A record of a codec the tool cannot decode without the model type (binary,
/// custom) has `"value": null` and instead `"payloadBase64"` (the encoded model) and a `"note"`
/// that says why. The envelope's members follow (see ``EnvelopeReport``): `formatVersion`,
/// `checksum`, `metadata`, `metadataShownAs`, `metadataBase64`, `metadataCodec`, `tags`,
/// `compressed`; and for a record stored compressed, `uncompressedModelByteCount` (the model's
/// size once decompressed; `byteCount` is the stored, compressed record's).
struct RecordReport: Encodable {
    /// How a record's model is shown.
    enum Representation: String, Encodable {
        /// JSON exactly as the JSON codec stored it.
        case json
        /// A property-list record converted to JSON.
        case jsonConvertedFromPropertyList
        /// The encoded bytes in base64, for codecs that need the model type to decode.
        case base64

        /// The representation in words, for `get`'s text output.
        var explanation: String {
            switch self {
            case .json: return "JSON, as stored"
            case .jsonConvertedFromPropertyList: return "JSON, converted from the property list"
            case .base64: return "base64 of the encoded bytes (decoding them needs the model type)"
            }
        }
    }

    let key: String
    let codec: String
    let shownAs: Representation
    let storedAt: Date
    let expiresAt: Date?
    let expired: Bool
    let byteCount: Int
    let value: JSONValue?
    let payloadBase64: String?
    let note: String?
    /// The record's envelope: format version, checksum, metadata, tags, compression.
    var envelope: EnvelopeReport?
    /// For a record whose model is stored compressed, the model's size once decompressed
    /// (`byteCount` is the record as stored, compressed).
    var uncompressedModelByteCount: Int?

    /// Describes `entry`, judging expiry against `now` (the real time, not the inspection
    /// store's frozen clock).
    init(_ entry: ModelStore.Entry<InspectedValue>, now: Date) {
        key = entry.key
        codec = ModelCodecIdentifier.json.description
        shownAs = .json
        storedAt = entry.storedAt
        expiresAt = entry.expiresAt
        expired = entry.expiresAt.map { now >= $0 } ?? false  // ModelStore's rule: expired at the deadline
        byteCount = entry.byteCount
        value = entry.value.json
        payloadBase64 = nil
        note = nil
    }

    /// Describes a record from its raw bytes: a property list converted to JSON, a JSON record
    /// as stored, anything else as base64. Nil when a property-list or JSON payload does not
    /// decode: that record is damaged, and the caller reports it as unreadable.
    init?(_ entry: ModelStore.Entry<RawPayload>, codec: ModelCodecIdentifier, now: Date) {
        key = entry.key
        self.codec = codec.description
        storedAt = entry.storedAt
        expiresAt = entry.expiresAt
        expired = entry.expiresAt.map { now >= $0 } ?? false
        byteCount = entry.byteCount
        let decoded: (JSONValue, Representation)? =
            switch codec {
            case .propertyList: entry.value.propertyListAsJSON().map { ($0, .jsonConvertedFromPropertyList) }
            case .json: entry.value.json().map { ($0, .json) }
            default: nil
            }
        if let (json, representation) = decoded {
            shownAs = representation
            value = json
            payloadBase64 = nil
            note = nil
            return
        }
        if codec == .propertyList || codec == .json { return nil }
        shownAs = .base64
        value = nil
        payloadBase64 = entry.value.bytes.base64EncodedString()
        note = "written by the \(codec) codec, which modelstore cannot decode without the model type; "
            + "payloadBase64 holds the encoded model"
    }

    /// Written by hand so `expiresAt` and `value` print as null rather than being left out.
    private enum CodingKeys: String, CodingKey {
        case key, codec, shownAs, storedAt, expiresAt, expired, byteCount, value, payloadBase64, note
        case formatVersion, checksum, metadata, metadataShownAs, metadataBase64, metadataCodec, tags
        case compressed, uncompressedModelByteCount
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(key, forKey: .key)
        try container.encode(codec, forKey: .codec)
        try container.encode(shownAs, forKey: .shownAs)
        try container.encode(Format.date(storedAt), forKey: .storedAt)
        try container.encode(expiresAt.map(Format.date), forKey: .expiresAt)  // null, not omitted
        try container.encode(expired, forKey: .expired)
        try container.encode(byteCount, forKey: .byteCount)
        try container.encode(value, forKey: .value)
        try container.encodeIfPresent(payloadBase64, forKey: .payloadBase64)
        try container.encodeIfPresent(note, forKey: .note)
        guard let envelope else { return }
        try container.encode(envelope.formatVersion, forKey: .formatVersion)
        try container.encode(envelope.checksum, forKey: .checksum)
        try container.encode(envelope.metadata, forKey: .metadata)  // null, not omitted
        try container.encodeIfPresent(envelope.metadataShownAs, forKey: .metadataShownAs)
        try container.encodeIfPresent(envelope.metadataBase64, forKey: .metadataBase64)
        try container.encodeIfPresent(envelope.metadataCodec, forKey: .metadataCodec)
        try container.encode(envelope.tags, forKey: .tags)
        try container.encode(envelope.compressed, forKey: .compressed)
        try container.encodeIfPresent(uncompressedModelByteCount, forKey: .uncompressedModelByteCount)
    }
}

/// A `dump` line for a record the tool could not decode.
struct UndecodableRecordReport: Encodable {
    let key: String
    let error: String
}

extension RecordReport {
    /// Adds the envelope of the record for `key` in `scope`, and for a model stored compressed,
    /// its size once decompressed (read through `raw`, which hands over the decompressed bytes).
    mutating func addEnvelope(forKey key: String, in scope: any RecordScope, raw: RawRecordReader) {
        envelope = scope.envelopeReport(forKey: key)
        guard let envelope, envelope.compressed else { return }
        uncompressedModelByteCount = raw.modelByteCount(forKey: key, codec: envelope.payloadCodec)
    }
}
