import Foundation
@_spi(Inspection) import ModelStore

/// What `get` and `dump` add to a record from its envelope: the format version, the checksum's
/// verdict, the metadata and the tags.
///
/// JSON members (added after the record's other members): `"formatVersion": 3`,
/// `"checksum": "valid"` (or `"absent"` for a format-1 record), `"metadata"` (JSON, or null),
/// `"metadataShownAs"` (`json`, `jsonConvertedFromPropertyList` or `base64`, absent without
/// metadata), `"metadataBase64"` (only for metadata of a codec the tool cannot show as JSON),
/// `"metadataCodec"`, `"tags"`, and `"compressed"` (whether the model is stored compressed).
struct EnvelopeReport {
    let formatVersion: Int
    let checksum: String
    /// Whether the model is stored compressed: the record's stored size is then the compressed one.
    let compressed: Bool
    /// The codec that encoded the model (`RecordReport` prints it as `codec`).
    let payloadCodec: ModelCodecIdentifier
    let metadataCodec: String?
    let metadata: JSONValue?
    let metadataShownAs: RecordReport.Representation?
    let metadataBase64: String?
    let tags: [String]

    init(_ inspection: RecordInspection) {
        formatVersion = inspection.formatVersion
        checksum = inspection.checksum.rawValue
        compressed = inspection.isPayloadCompressed
        payloadCodec = inspection.codec
        metadataCodec = inspection.metadataCodec?.description
        tags = inspection.tags
        guard let codec = inspection.metadataCodec, let bytes = inspection.metadata else {
            metadata = nil
            metadataShownAs = nil
            metadataBase64 = nil
            return
        }
        // Decoded by ModelStore's own codecs, so their bounds on hostile input apply here too.
        let decoded: (JSONValue, RecordReport.Representation)? =
            switch codec {
            case .json: (try? JSONModelCodec().decode(JSONValue.self, from: bytes)).map { ($0, .json) }
            case .propertyList:
                (try? PropertyListModelCodec().decode(JSONValue.self, from: bytes)).map {
                    ($0, .jsonConvertedFromPropertyList)
                }
            default: nil
            }
        if let (json, representation) = decoded {
            metadata = json
            metadataShownAs = representation
            metadataBase64 = nil
        } else {
            metadata = nil
            metadataShownAs = .base64
            metadataBase64 = bytes.base64EncodedString()
        }
    }

    /// The checksum's verdict in words, for `get`'s text output.
    var formatDescription: String {
        checksum == RecordInspection.Checksum.absent.rawValue
            ? "\(formatVersion) (no checksum)" : "\(formatVersion) (checksum \(checksum))"
    }
}

extension RecordScope {
    /// The envelope of the record for `key`, or nil if it is gone or does not parse (the
    /// record's own read reports that).
    func envelopeReport(forKey key: String) -> EnvelopeReport? {
        (try? inspectRecord(forKey: key)).flatMap { $0 }.map(EnvelopeReport.init)
    }

    /// Fails when the record for `key` does not match its checksum: its bytes cannot be trusted,
    /// so the tool shows none of them. The error is the one the library's reads throw, with its
    /// advice (the `modelstore remove` command for this record).
    func requireIntactRecord(forKey key: String, in store: ModelStore, collection: String?) throws {
        guard (try? inspectRecord(forKey: key))??.checksum == .mismatch else { return }
        throw ModelStoreError.checksumMismatch(path: store.url.path, key: key, collection: collection)
    }
}
