import Foundation
@_spi(Inspection) import ModelStore

/// What `get` and `dump` show of a record sealed with a key the tool was not given (no
/// `--key-file`): that it is encrypted and by which key, its envelope and tags, and never its
/// ciphertext.
///
/// JSON: `{"key": ..., "encrypted": true, "sealedBy": "<key id>", "formatVersion": 3,
/// "checksum": "valid", "tags": [...], "note": ...}`.
struct SealedRecordReport: Encodable {
    let key: String
    let encrypted = true
    /// The identifier of the key that sealed it (8 hex digits; never the key).
    let sealedBy: String
    let formatVersion: Int
    let checksum: String
    let tags: [String]
    let note = "the model and metadata are encrypted; pass --key-file with the database's key to read them"

    private enum CodingKeys: String, CodingKey {
        case key, encrypted, sealedBy, formatVersion, checksum, tags, note
    }
}

extension RecordScope {
    /// The report of the record for `key` if it is sealed and the store cannot open it; nil for
    /// a plain record, one the store opens, or none.
    func sealedRecordReport(forKey key: String) -> SealedRecordReport? {
        guard let inspection = (try? inspectRecord(forKey: key)) ?? nil, let sealedBy = inspection.sealedBy,
            !inspection.isReadable
        else { return nil }
        return SealedRecordReport(
            key: key, sealedBy: sealedBy, formatVersion: inspection.formatVersion,
            checksum: inspection.checksum.rawValue, tags: inspection.tags)
    }
}

extension CommandFailure {
    /// The failure `get` and `dump` end with after showing `count` encrypted records.
    static func encrypted(_ count: Int) -> CommandFailure {
        CommandFailure(
            status: .failure,
            message: "\(Format.count(count, "record")) \(count == 1 ? "is" : "are") encrypted and shown without "
                + "\(count == 1 ? "its" : "their") model and metadata; pass --key-file with the database's key "
                + "to read them.")
    }
}
