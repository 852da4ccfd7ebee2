import Foundation
import ModelStore

/// The undecoded payload bytes of a record, for records whose codec the tool cannot decode
/// without the model type (the binary codec and custom codecs).
///
/// Only ``RawPayloadCodec`` produces it: ModelStore hands a codec the payload bytes, and this
/// codec returns them as they are instead of decoding a model.
struct RawPayload: Decodable, Sendable {
    let bytes: Data

    init(bytes: Data) {
        self.bytes = bytes
    }

    init(from decoder: any Decoder) throws {
        throw DecodingError.dataCorrupted(
            .init(codingPath: [], debugDescription: "a raw payload is only read through RawPayloadCodec"))
    }

    /// The payload of a property-list record converted to JSON, or nil if it does not decode.
    ///
    /// Decoded by ModelStore's own ``PropertyListModelCodec``, the decoder a store would use,
    /// so whatever bounds it sets on damaged or hostile input apply here too.
    func propertyListAsJSON() -> JSONValue? {
        try? PropertyListModelCodec().decode(JSONValue.self, from: bytes)
    }

    /// The payload of a JSON record, or nil if it does not decode; through ModelStore's own
    /// ``JSONModelCodec`` for the same reason.
    func json() -> JSONValue? {
        try? JSONModelCodec().decode(JSONValue.self, from: bytes)
    }
}

/// A codec that claims one codec identifier and returns each record's payload as a
/// ``RawPayload``. Inspection stores never write, so it cannot encode.
struct RawPayloadCodec: ModelCodec {
    let identifier: ModelCodecIdentifier

    func encode<Value: Encodable>(_ value: Value) throws -> Data {
        throw EncodingError.invalidValue(
            value, .init(codingPath: [], debugDescription: "modelstore never writes through a raw payload codec"))
    }

    func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        guard let payload = RawPayload(bytes: data) as? Value else {
            throw DecodingError.typeMismatch(
                type, .init(codingPath: [], debugDescription: "RawPayloadCodec only reads RawPayload"))
        }
        return payload
    }
}

/// Reads records the JSON inspection store could not decode, as raw payloads.
///
/// ModelStore picks the decoder by the codec byte in the record's header, and its public API
/// does not say which codec a record used. So this reader asks stores configured with a
/// ``RawPayloadCodec`` for each identifier other than JSON (property list, binary, the custom
/// range, then the identifiers no codec uses yet) until one accepts the record, and tries the
/// identifiers it has already met first, so a database written by one codec costs one extra
/// read per record.
final class RawRecordReader {
    private let inspector: Inspector
    private let name: String
    private let policy: UpdatePolicy
    /// The collection the keys are in; nil for the database's own keys.
    private let collection: String?
    private var stores: [UInt8: ModelStore] = [:]
    private var seen: [UInt8] = []

    /// The identifiers a record the JSON store cannot decode may carry. JSON comes last: the
    /// inspection store reads JSON records itself and only sends here those it could not decode
    /// (damaged ones, or all of them should its decoder ever lose the marker ``InspectedValue``
    /// relies on).
    private static let candidates: [UInt8] =
        [ModelCodecIdentifier.propertyList.rawValue, ModelCodecIdentifier.binary.rawValue] + Array(128...255)
        + [0] + Array(4...127) + [ModelCodecIdentifier.json.rawValue]

    init(inspector: Inspector, name: String, policy: UpdatePolicy, collection: String? = nil) {
        self.inspector = inspector
        self.collection = collection
        self.name = name
        self.policy = policy
    }

    deinit {
        for store in stores.values { try? store.close() }
    }

    /// The record for `key` with its payload undecoded and the codec that wrote it, or nil if
    /// no identifier fits (the header is damaged, or the record is gone).
    func entry(forKey key: String) throws -> (entry: ModelStore.Entry<RawPayload>, codec: ModelCodecIdentifier)? {
        for identifier in seen + Self.candidates.filter({ !seen.contains($0) }) {
            let store = try self.store(for: identifier)
            do {
                let scope: any RecordScope = collection.map { store.collection($0) } ?? store
                guard let entry = try scope.entry(RawPayload.self, forKey: key) else { return nil }
                if !seen.contains(identifier) { seen.append(identifier) }
                return (entry, ModelCodecIdentifier(rawValue: identifier))
            } catch ModelStoreError.decodingFailed {
                continue  // written by another codec
            }
        }
        return nil
    }

    /// The size of the model stored for `key` by the codec `codec`, once decompressed (the
    /// payload as its codec encoded it); nil if the record is gone or does not read.
    func modelByteCount(forKey key: String, codec: ModelCodecIdentifier) -> Int? {
        guard let store = try? store(for: codec.rawValue) else { return nil }
        let scope: any RecordScope = collection.map { store.collection($0) } ?? store
        return (try? scope.entry(RawPayload.self, forKey: key))??.value.bytes.count
    }

    private func store(for identifier: UInt8) throws -> ModelStore {
        if let store = stores[identifier] { return store }
        let store = try inspector.unchanged(
            name, policy: policy, codec: RawPayloadCodec(identifier: ModelCodecIdentifier(rawValue: identifier)))
        stores[identifier] = store
        return store
    }
}
