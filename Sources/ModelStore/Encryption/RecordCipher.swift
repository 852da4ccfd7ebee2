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

    /// The crypto library gave no combined form for a sealed box (it gives one for every
    /// 12-byte nonce).
    struct CombinedFormMissing: Error {}

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

    /// Calls `body` with the associated data of a sealed value: the LevelDB key (so the
    /// collection), the version, flags and codec bytes, and everything from storedAt to the
    /// ciphertext (deadline, tags, key identifier, nonce). Only the checksum, computed afterwards,
    /// is left out. Assembled in temporary memory (on the stack when it is small).
    static func withAssociatedData<Result>(
        key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, ciphertextAt: Int,
        _ body: (UnsafeRawBufferPointer) throws -> Result
    ) rethrows -> Result {
        let head = RecordHeader.checksumOffset
        let tail = ciphertextAt - RecordHeader.checksummedFrom
        let count = key.count + head + tail
        return try withUnsafeTemporaryAllocation(byteCount: count, alignment: 1) { data in
            data.baseAddress!.copyMemory(from: key.baseAddress!, byteCount: key.count)
            (data.baseAddress! + key.count).copyMemory(from: value.baseAddress!, byteCount: head)
            (data.baseAddress! + key.count + head).copyMemory(
                from: value.baseAddress! + RecordHeader.checksummedFrom, byteCount: tail)
            return try body(UnsafeRawBufferPointer(data))
        }
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
        // The fixed part and the index values section stay where they are, in the clear.
        let fixedEnd = header.clearPrefixLength
        let tags = header.tagsRange
        if !tags.isEmpty, tags.lowerBound > fixedEnd {
            // Metadata, then tags: the tags go first, so the metadata and the payload are one run.
            let section = Array(buffer[tags])
            buffer.removeSubrange(tags)
            buffer.insert(contentsOf: section, at: fixedEnd)
        }
        let keyIDAt = fixedEnd + tags.count
        let nonceAt = keyIDAt + 4
        let ciphertextAt = keyIDAt + RecordHeader.sealedPrefixLength
        let nonce = NonceSource.next()
        buffer.insert(contentsOf: repeatElement(0, count: RecordHeader.sealedPrefixLength), at: keyIDAt)
        buffer.withUnsafeMutableBytes { value in
            value.storeBytes(of: keyID.littleEndian, toByteOffset: keyIDAt, as: UInt32.self)
            nonce.withUnsafeBytes { value.baseAddress!.advanced(by: nonceAt).copyMemory(from: $0.baseAddress!, byteCount: 12) }
            value[1] |= RecordHeader.sealedFlag
        }
        do {
            let box = try buffer.withUnsafeBytes { value in
                try Self.withAssociatedData(key: keyBytes, value: value, ciphertextAt: ciphertextAt) { associated in
                    try AES.GCM.seal(
                        UnsafeRawBufferPointer(rebasing: value[ciphertextAt...]), using: key, nonce: nonce,
                        authenticating: associated)
                }
            }
            // The box's combined form is the nonce, the ciphertext and the tag: the layout from
            // `nonceAt` on (it exists for every 12-byte nonce, which these all are).
            guard let combined = box.combined else { throw CombinedFormMissing() }
            buffer.replaceSubrange(nonceAt..., with: combined)
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
        let plain: Data
        do {
            // Nonce, ciphertext and tag: the combined form, as the record stores them.
            let box = try AES.GCM.SealedBox(combined: UnsafeRawBufferPointer(rebasing: record[(keyIDAt + 4)...]))
            plain = try Self.withAssociatedData(key: keyBytes, value: record, ciphertextAt: ciphertextAt) {
                try AES.GCM.open(box, using: key, authenticating: $0)
            }
        } catch {
            return .authenticationFailed
        }
        return plain.withUnsafeBytes { plain -> OpenFailure? in
            var metadataEnd = 0
            if record[1] & RecordHeader.hasMetadataFlag != 0 {
                guard let length = LEB128.read(plain, at: &metadataEnd), length >= 1 else { return .malformed }
                metadataEnd += length
            }
            let fixedEnd = header.clearPrefixLength
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
