import Foundation

// MARK: - The encryption marker (system record 0xFF 0x0E)
//
// A database whose records are sealed says so in one system record, so that a store opened
// with the wrong key, without one, or with one on an unencrypted database is refused before it
// reads or writes anything, and so that an interrupted re-keying is finished before use.
//
//   offset  size  field
//   ------  ----  -----------------------------------------------------------------------
//        0     1  format: 1
//        1     1  state: 0 steady (records sealed with the current key), 1 re-keying (records
//                 sealed with the current key or the target key; absent keys mean plain records)
//        2     1  flags: bit 0 a current key, bit 1 a target key (re-keying only)
//        3     4  current key identifier, little-endian (0 without bit 0)
//        7     4  target key identifier, little-endian (0 without bit 1)
//       11     4  CRC-32C of the LevelDB key, then bytes 0..<11
//
// No marker: the database is not encrypted. A steady marker without a current key is never
// written (the marker is removed instead).

/// What a database's encryption marker says.
struct EncryptionMarker: Equatable, Sendable {
    /// The system record kind (after 0xFF).
    static let kind: UInt8 = 0x0E
    static let key: [UInt8] = [KeySpace.systemMarker, kind]
    static let formatVersion: UInt8 = 1
    static let checkedLength = 11
    static let valueLength = 15
    /// Serialises the checks of opening stores (rare, short).
    static let checks = Lock()

    /// The key the records are sealed with (nil: plain records).
    var current: UInt32?
    /// While re-keying: the key records are being moved to (nil: to plain records). Nil when steady.
    var target: UInt32??

    /// Whether a re-keying is under way.
    var isRekeying: Bool { target != nil }

    /// The marker of a database whose records are sealed with `keyID`.
    static func steady(_ keyID: UInt32) -> EncryptionMarker {
        EncryptionMarker(current: keyID, target: nil)
    }

    /// The stored value.
    var value: [UInt8] {
        var value = [UInt8](repeating: 0, count: Self.valueLength)
        value[0] = Self.formatVersion
        value[1] = isRekeying ? 1 : 0
        var flags: UInt8 = 0
        if let current {
            flags |= 1
            Self.store(current, in: &value, at: 3)
        }
        if case .some(.some(let target)) = target {
            flags |= 2
            Self.store(target, in: &value, at: 7)
        }
        value[2] = flags
        let crc = Self.checksum(value)
        Self.store(crc, in: &value, at: Self.checkedLength)
        return value
    }

    private static func store(_ word: UInt32, in value: inout [UInt8], at offset: Int) {
        for index in 0..<4 { value[offset + index] = UInt8(truncatingIfNeeded: word >> (8 * UInt32(index))) }
    }

    private static func checksum(_ value: some Collection<UInt8>) -> UInt32 {
        let bytes = Array(value.prefix(checkedLength))
        return key.withUnsafeBytes { key in
            bytes.withUnsafeBytes { CRC32C.checksum($0, continuing: CRC32C.checksum(key)) }
        }
    }

    /// Parses a stored value; nil if it is damaged or from a newer format.
    init?(parsing value: UnsafeRawBufferPointer) {
        guard value.count == Self.valueLength, value[0] == Self.formatVersion, value[1] <= 1, value[2] & ~3 == 0,
            UInt32(littleEndian: value.loadUnaligned(fromByteOffset: Self.checkedLength, as: UInt32.self))
                == Self.checksum(value)
        else { return nil }
        let flags = value[2]
        let word = { (offset: Int) in UInt32(littleEndian: value.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) }
        current = flags & 1 != 0 ? word(3) : nil
        if value[1] == 1 {
            target = .some(flags & 2 != 0 ? word(7) : nil)
        } else {
            guard flags & 2 == 0, current != nil else { return nil }
            target = nil
        }
    }

    init(current: UInt32?, target: UInt32??) {
        self.current = current
        self.target = target
    }

    /// The marker stored in `engine`, nil if there is none.
    ///
    /// - Throws: ``ModelStoreError/corrupted(path:message:)`` for a damaged marker (or one a
    ///   newer release wrote): nothing is assumed about the records then.
    static func read(from engine: LevelDB, path: String) throws -> EncryptionMarker? {
        let found = try key.withUnsafeBytes { keyBytes in
            try engine.withValue(forKey: keyBytes) { value -> EncryptionMarker?? in
                guard let value else { return .some(nil) }
                return EncryptionMarker(parsing: value).map { .some($0) } ?? nil
            }
        }
        guard let found else {
            throw ModelStoreError.corrupted(
                path: path,
                message: "its encryption marker (system record 0xFF 0x0E) is damaged or from a newer release, "
                    + "so whether and how its records are encrypted is unknown")
        }
        return found
    }

    /// Whether the database holds anything a key would have to cover: a record of any collection,
    /// a tag index entry or a compression dictionary.
    static func holdsRecords(_ engine: LevelDB) throws -> Bool {
        let iterator = try engine.makeIterator(snapshot: nil, fillCache: false)
        try iterator.seekToFirst()
        var found = false
        // Keys sort by bytes: a record of any collection sorts before every system record, and the
        // tag index (0xFF 0x01) and the dictionaries (0xFF 0x02) before the other system records.
        _ = try iterator.scanForward(limit: 1) { key, _ in
            found = key.first != KeySpace.systemMarker || key.count < 2
                || key[1] == TagIndex.kind || key[1] == RecordDictionaries.kind
            return false
        }
        return found
    }
}

extension OpenDatabase {
    /// Checks the database's encryption against a store's `encryption` before the store uses it,
    /// and marks a database that holds nothing yet as encrypted by the store's key.
    ///
    /// - Throws: ``ModelStoreError/encryptionMismatch(path:mismatch:)`` saying which mismatch
    ///   (nothing read or written); a damaged marker's ``ModelStoreError/corrupted(path:message:)``.
    func checkEncryption(_ encryption: RecordEncryption) throws(ModelStoreError) {
        // One check at a time: two stores opening an empty database with different keys must
        // not both find it unmarked.
        try EncryptionMarker.checks.withLock { () throws(ModelStoreError) in
            let marker = try run { engine in try EncryptionMarker.read(from: engine, path: path) }
            if let marker, marker.isRekeying { throw .encryptionMismatch(path: path, mismatch: .rekeyingUnfinished) }
            switch (marker?.current, encryption.cipher) {
            case (nil, nil):
                return
            case (.some, nil):
                throw .encryptionMismatch(path: path, mismatch: .keyRequired)
            case (.some(let current), .some(let cipher)):
                guard current == cipher.keyID else { throw .encryptionMismatch(path: path, mismatch: .wrongKey) }
            case (nil, .some(let cipher)):
                // Not while another store (or a snapshot or enumeration of one) has it open in this
                // process: that store has no key, and would go on writing plain records into a
                // database marked encrypted. (Another process cannot: the database's lock.)
                guard DatabaseRegistry.shared.isSoleLease(self),
                    try !run({ engine in try EncryptionMarker.holdsRecords(engine) })
                else {
                    throw .encryptionMismatch(path: path, mismatch: .notEncrypted)
                }
                try commitSystemRecord(key: EncryptionMarker.key, value: EncryptionMarker.steady(cipher.keyID).value, sync: true)
            }
        }
    }
}
