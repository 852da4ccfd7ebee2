#if Encryption
#if canImport(CryptoKit)
internal import CryptoKit
#else
internal import Crypto
#endif
#endif
import Foundation

/// Seals and opens the model and metadata of one record with AES-256-GCM: the encoder's last
/// step before the checksum, and the reader's first after it (the sealed layout is at the top of
/// RecordEnvelope.swift). Nothing else in ModelStore touches a key or a ciphertext.
///
/// Without the package trait `Encryption` the type exists (a store without a key must still
/// recognise sealed records and encrypted databases) but has no initializer: no cipher is ever made.
struct RecordCipher: Sendable, CustomStringConvertible {
    /// The key's identifier, stored in every record it seals and in the database's marker: the
    /// first 4 bytes (little-endian) of HMAC-SHA256 of a fixed label under the key. It tells
    /// keys apart without revealing them.
    let keyID: UInt32

    #if Encryption
    /// The key.
    let key: SymmetricKey

    init(key: SymmetricKey) {
        self.key = key
        let code = HMAC<SHA256>.authenticationCode(for: Array(Self.keyIDLabel.utf8), using: key)
        keyID = code.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self)) }
    }

    /// What the key identifier authenticates.
    static let keyIDLabel = "ModelStore record key identifier, version 1"
    #endif

    var description: String {
        "AES-256-GCM (key \(Self.describe(keyID)))"
    }

    /// A key identifier as the tools and messages show it: 8 hex digits.
    static func describe(_ keyID: UInt32) -> String {
        let hex = String(keyID, radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex
    }

    /// Why a sealed record did not open.
    enum OpenFailure: Error {
        /// It names another key than this cipher's.
        case otherKey(UInt32)
        /// The tag does not verify: the key is wrong for it, or its bytes, envelope or LevelDB
        /// key were changed (a value moved to another key or collection).
        case authenticationFailed
        /// It opened, but what it holds is not the sections its flags announce.
        case malformed
    }

    /// Throws for a key that is not 256 bits.
    func validate() throws(ModelStoreError) {
        #if Encryption
        guard key.bitCount == 256 else {
            throw .invalidPolicy(
                reason: "the encryption key is \(key.bitCount) bits; AES-256-GCM needs a 256-bit key "
                    + "(SymmetricKey(size: .bits256))")
        }
        #endif
    }

    /// The associated data of a sealed value: the LevelDB key (so the collection), the version,
    /// flags and codec bytes, and everything from storedAt to the ciphertext (deadline, tags,
    /// key identifier, nonce). Only the checksum, computed afterwards, is left out.
    static func associatedData(
        key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, ciphertextAt: Int
    ) -> [UInt8] {
        var data: [UInt8] = []
        data.reserveCapacity(key.count + ciphertextAt)
        data.append(contentsOf: key)
        data.append(contentsOf: UnsafeRawBufferPointer(rebasing: value[..<RecordHeader.checksumOffset]))
        data.append(contentsOf: UnsafeRawBufferPointer(rebasing: value[RecordHeader.checksummedFrom..<ciphertextAt]))
        return data
    }

    /// Turns the plain version-3 record in `buffer` (checksum not yet sealed) into its sealed
    /// form: the tags section moves before the key identifier and nonce, and the metadata section
    /// and the payload (compressed, if it is) become the ciphertext, followed by the tag.
    ///
    /// - Throws: ``ModelStoreError/encodingFailed(key:type:message:)`` if the crypto library fails.
    func seal(_ buffer: inout [UInt8], key keyBytes: UnsafeRawBufferPointer, recordKey: String) throws(ModelStoreError) {
        #if Encryption
        guard let header = buffer.withUnsafeBytes({ RecordHeader(parsing: $0) }), !header.isSealed else {
            throw .encodingFailed(key: recordKey, type: "a record", message: "the record to seal does not parse")
        }
        let fixedEnd = header.fixedLength
        let tags = header.tagsRange
        if !tags.isEmpty, tags.lowerBound > fixedEnd {
            // Metadata, then tags: the tags go first, so the metadata and the payload are one run.
            let section = Array(buffer[tags])
            buffer.removeSubrange(tags)
            buffer.insert(contentsOf: section, at: fixedEnd)
        }
        let keyIDAt = fixedEnd + tags.count
        let nonce = AES.GCM.Nonce()
        var prefix: [UInt8] = []
        prefix.reserveCapacity(RecordHeader.sealedPrefixLength)
        withUnsafeBytes(of: keyID.littleEndian) { prefix.append(contentsOf: $0) }
        nonce.withUnsafeBytes { prefix.append(contentsOf: $0) }
        buffer.insert(contentsOf: prefix, at: keyIDAt)
        buffer[1] |= RecordHeader.sealedFlag
        let ciphertextAt = keyIDAt + RecordHeader.sealedPrefixLength
        do {
            let box = try buffer.withUnsafeBytes { value in
                try AES.GCM.seal(
                    UnsafeRawBufferPointer(rebasing: value[ciphertextAt...]), using: key, nonce: nonce,
                    authenticating: Self.associatedData(key: keyBytes, value: value, ciphertextAt: ciphertextAt))
            }
            buffer.replaceSubrange(ciphertextAt..., with: box.ciphertext)
            buffer.append(contentsOf: box.tag)
        } catch {
            throw .encodingFailed(
                key: recordKey, type: "a record", message: "AES-256-GCM could not seal it: \(error)")
        }
        #endif
    }

    /// Opens the sealed record `record` (whose parsed envelope is `header`) found under the
    /// LevelDB key `keyBytes`, and writes the plain version-3 record it holds into `output`
    /// (replacing its contents; the checksum field is zero: the sealed bytes were verified).
    func open(
        _ record: UnsafeRawBufferPointer, header: RecordHeader, key keyBytes: UnsafeRawBufferPointer,
        into output: inout [UInt8]
    ) -> OpenFailure? {
        #if Encryption
        let keyIDAt = header.sealedAt
        let sealedID = UInt32(littleEndian: record.loadUnaligned(fromByteOffset: keyIDAt, as: UInt32.self))
        guard sealedID == keyID else { return .otherKey(sealedID) }
        let ciphertextAt = keyIDAt + RecordHeader.sealedPrefixLength
        let tagAt = record.count - RecordHeader.sealTagLength
        let plain: Data
        do {
            let box = try AES.GCM.SealedBox(
                nonce: AES.GCM.Nonce(data: UnsafeRawBufferPointer(rebasing: record[(keyIDAt + 4)..<ciphertextAt])),
                ciphertext: UnsafeRawBufferPointer(rebasing: record[ciphertextAt..<tagAt]),
                tag: UnsafeRawBufferPointer(rebasing: record[tagAt...]))
            plain = try AES.GCM.open(
                box, using: key,
                authenticating: Self.associatedData(key: keyBytes, value: record, ciphertextAt: ciphertextAt))
        } catch {
            return .authenticationFailed
        }
        return plain.withUnsafeBytes { plain -> OpenFailure? in
            var metadataEnd = 0
            if record[1] & RecordHeader.hasMetadataFlag != 0 {
                guard let length = LEB128.read(plain, at: &metadataEnd), length >= 1 else { return .malformed }
                metadataEnd += length
            }
            let fixedEnd = header.fixedLength
            output.removeAll(keepingCapacity: true)
            output.append(contentsOf: UnsafeRawBufferPointer(rebasing: record[..<fixedEnd]))
            output[1] &= ~RecordHeader.sealedFlag
            for index in RecordHeader.checksumOffset..<RecordHeader.checksummedFrom { output[index] = 0 }
            output.append(contentsOf: UnsafeRawBufferPointer(rebasing: plain[..<metadataEnd]))
            output.append(contentsOf: UnsafeRawBufferPointer(rebasing: record[header.tagsRange]))
            output.append(contentsOf: UnsafeRawBufferPointer(rebasing: plain[metadataEnd...]))
            return nil
        }
        #else
        return .otherKey(UInt32(littleEndian: record.loadUnaligned(fromByteOffset: header.sealedAt, as: UInt32.self)))
        #endif
    }
}
