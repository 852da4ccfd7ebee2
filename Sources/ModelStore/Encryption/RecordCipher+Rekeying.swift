// MARK: - Moving one record from one key to another

extension RecordCipher {
    /// What re-keying one record came to.
    enum ResealOutcome: Equatable {
        /// The record is already as the target key wants it (sealed by it; plain for no key).
        case done
        /// The record, moved to the target key, is in the output buffer (checksum sealed).
        case resealed
        /// The record cannot be moved (damaged, or sealed by a key that is neither): it is left
        /// as it is, and the re-keying reports it.
        case unreadable(String)
    }

    /// Moves the record `record`, stored under the LevelDB key `keyBytes`, from `source` (nil:
    /// plain records) to `target` (nil: plain records), writing the new value into `output`.
    /// A plain record of an earlier format (version 1 or 2) becomes version 3 on the way, with
    /// the same timestamps, deadline, metadata, tags and payload.
    static func reseal(
        _ record: UnsafeRawBufferPointer, key keyBytes: UnsafeRawBufferPointer, from source: RecordCipher?,
        to target: RecordCipher?, into output: inout [UInt8]
    ) -> ResealOutcome {
        guard let header = RecordHeader(parsing: record), header.checksumMatches(value: record, key: keyBytes) else {
            return .unreadable("it is damaged (its envelope does not parse or its checksum fails)")
        }
        let recordKey = String(decoding: keyBytes, as: UTF8.self)
        if header.isSealed {
            let sealedID = UInt32(littleEndian: record.loadUnaligned(fromByteOffset: header.sealedAt, as: UInt32.self))
            if let target, sealedID == target.keyID { return .done }
            guard let source, sealedID == source.keyID else {
                return .unreadable("it is sealed with key \(describe(sealedID)), neither of the two given")
            }
            if let failure = source.open(record, header: header, key: keyBytes, into: &output) {
                return .unreadable("it does not open with the old key (\(failure))")
            }
        } else {
            guard target != nil else { return .done }
            if header.isFullyChecked {
                output.removeAll(keepingCapacity: true)
                output.append(contentsOf: record)
            } else {
                // Only plausible older envelopes are rewritten: their flags are not checked.
                guard header.hasPlausibleDeadline else {
                    return .unreadable("its envelope (an earlier format's) has an implausible deadline")
                }
                let version3 = RecordHeader(
                    storedAt: header.storedAt, expiresAt: header.expiresAt, codec: header.codec,
                    neverExpires: header.neverExpires)
                RecordHeader.assemble(into: &output, header: version3, old: header, record: record, newSection: nil)
            }
        }
        if let target {
            do {
                try target.seal(&output, key: keyBytes, recordKey: recordKey)
            } catch {
                return .unreadable("it could not be sealed: \(error)")
            }
        }
        RecordHeader.seal(&output, key: keyBytes)
        return .resealed
    }
}
