import Foundation

// MARK: - Opening sealed records

extension RecordReader {
    /// Calls `body` with the record as its reader must see it: `record` itself, or, for a sealed
    /// record (``RecordHeader/isSealed``), the plain version-3 record it holds, opened with the
    /// store's key (valid only inside `body`). The one place a read opens a record: every read
    /// that hands out a model or metadata, or rewrites a record, comes through here after its
    /// checksum was verified (``header(_:key:keyBytes:typeName:)``).
    ///
    /// - Throws: ``ModelStoreError/corrupted(path:message:)`` naming the key when the store has no
    ///   key for a sealed record, when an encrypting store finds a plain one, or when the record
    ///   names another key or does not open (its bytes, envelope or LevelDB key were changed);
    ///   what `body` throws.
    @inline(__always)
    func opened<Result>(
        _ record: UnsafeRawBufferPointer, header: RecordHeader, key: String, keyBytes: UnsafeRawBufferPointer,
        _ body: (_ record: UnsafeRawBufferPointer, _ header: RecordHeader) throws -> Result
    ) throws -> Result {
        // One test on a plain store's path: its reader has no cipher and its records are plain.
        guard header.isSealed || cipher != nil else { return try body(record, header) }
        return try openSealed(record, header: header, key: key, keyBytes: keyBytes, body)
    }

    private func openSealed<Result>(
        _ record: UnsafeRawBufferPointer, header: RecordHeader, key: String, keyBytes: UnsafeRawBufferPointer,
        _ body: (_ record: UnsafeRawBufferPointer, _ header: RecordHeader) throws -> Result
    ) throws -> Result {
        guard let cipher else {
            // The open checked the database's marker: a database marked encrypted never opens
            // without a key (only the `modelstore` tool skips that check, and it shows sealed
            // records from their envelopes instead of reading them).
            throw ModelStoreError.damagedRecord(
                path: path, key: key, physicalKey: keyBytes,
                reason: "is sealed (encrypted), and the database is not marked as encrypted: it was copied from "
                    + "an encrypted database, or its flags were damaged")
        }
        guard header.isSealed else {
            // Every record of an encrypted database is sealed (a database is marked encrypted
            // only while empty, and re-keying seals every record): a plain one was written
            // around the store, and its bytes vouch for nothing.
            throw Self.unsealed(path: path, key: key, physicalKey: keyBytes)
        }
        let buffer = RecordBuffer.take()
        defer { RecordBuffer.putBack(buffer) }
        if let failure = cipher.open(record, header: header, key: keyBytes, into: &buffer.bytes) {
            throw Self.unopenable(failure, path: path, key: key, physicalKey: keyBytes, cipher: cipher)
        }
        return try buffer.bytes.withUnsafeBytes { plain in
            guard let plainHeader = RecordHeader(parsing: plain) else {
                throw Self.unopenable(.malformed, path: path, key: key, physicalKey: keyBytes, cipher: cipher)
            }
            return try body(plain, plainHeader)
        }
    }

    /// Throws, as a read would, unless the record's seal holds under the store's key: what an
    /// encrypting store checks before its envelope's deadline or storedAt may delete the record
    /// (a sweep, a limit, a read's purge) or hide it from a scan. Both are bound to the seal, but
    /// a checksum is no secret: another LevelDB client can make a genuine record, or one moved
    /// from another key, look expired or oldest. Costs one opening per expired or evicted record;
    /// a store without a key checks nothing (its database holds no sealed records).
    func checkSeal(
        _ record: UnsafeRawBufferPointer, header: RecordHeader, key: String, keyBytes: UnsafeRawBufferPointer
    ) throws(ModelStoreError) {
        guard let cipher else { return }
        guard header.isSealed else { throw Self.unsealed(path: path, key: key, physicalKey: keyBytes) }
        let buffer = RecordBuffer.take()
        defer { RecordBuffer.putBack(buffer) }
        if let failure = cipher.open(record, header: header, key: keyBytes, into: &buffer.bytes) {
            throw Self.unopenable(failure, path: path, key: key, physicalKey: keyBytes, cipher: cipher)
        }
    }

    /// ``checkSeal(_:header:key:keyBytes:)`` as a judgement, for sweeps: whether the record's
    /// envelope may decide its deletion. A reader without a key cannot check a sealed record's
    /// seal, so its envelope vouches for nothing there (the `modelstore` tool's `sweep` without
    /// `--key-file` deletes no sealed record); a plain record vouches through its checksum alone.
    func sealVouches(_ record: UnsafeRawBufferPointer, keyBytes: UnsafeRawBufferPointer) -> Bool {
        guard let header = RecordHeader(parsing: record) else { return false }
        return sealVouches(record, header: header, keyBytes: keyBytes)
    }

    /// ``sealVouches(_:keyBytes:)`` for a record whose envelope the caller parsed (a sweep's:
    /// parsing it again cost as much as the rest of the judgement of a plain store's record).
    @inline(__always)
    func sealVouches(_ record: UnsafeRawBufferPointer, header: RecordHeader, keyBytes: UnsafeRawBufferPointer) -> Bool {
        guard cipher != nil else { return !header.isSealed }
        do {
            try checkSeal(record, header: header, key: "", keyBytes: keyBytes)
            return true
        } catch {
            return false
        }
    }

    /// Whether the record is missing, expired or live, judged from its envelope
    /// (``RecordState``), for passes that do not open records (`contains`, `count`, `keys`,
    /// index counts): an encrypting store's record whose envelope says expired but whose seal
    /// does not hold is damaged, and a damaged record counts as present.
    @inline(__always)
    func state(_ record: UnsafeRawBufferPointer?, key keyBytes: UnsafeRawBufferPointer, now: Double) -> RecordState {
        let state = RecordState(record, key: keyBytes, now: now, timeToLive: timeToLive)
        guard cipher != nil, state == .expired, let record, !sealVouches(record, keyBytes: keyBytes) else { return state }
        return .live
    }

    /// The error for a plain record in an encrypted database.
    static func unsealed(path: String, key: String, physicalKey: UnsafeRawBufferPointer) -> ModelStoreError {
        .damagedRecord(
            path: path, key: key, physicalKey: physicalKey,
            reason: "is not sealed, in an encrypted database: it was not written by a store with its key")
    }

    /// The error for a sealed record that does not open.
    static func unopenable(
        _ failure: RecordCipher.OpenFailure, path: String, key: String, physicalKey: UnsafeRawBufferPointer,
        cipher: RecordCipher
    ) -> ModelStoreError {
        let reason: String
        switch failure {
        case .otherKey(let id):
            reason = "is sealed with another key (key id \(RecordCipher.describe(id)), the store's is "
                + "\(RecordCipher.describe(cipher.keyID))): it was copied from another database, or a re-keying "
                + "was interrupted (run ModelStore.rekey again to finish it)"
        case .authenticationFailed:
            reason = "does not open with the store's key: its sealed bytes or envelope were changed, or it was "
                + "moved from another key or collection"
        case .malformed:
            reason = "opened, but does not hold the sections its envelope announces"
        }
        return .damagedRecord(path: path, key: key, physicalKey: physicalKey, reason: reason)
    }
}
