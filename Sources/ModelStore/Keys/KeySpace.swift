/// Where a key lives in LevelDB: the default collection (the store itself) or a named
/// collection. Every query, write and removal takes one, and maps the user's keys and
/// ``KeyRange``s into physical LevelDB keys with it.
///
/// The key layout (the first byte of a LevelDB key says what it is):
///
/// | first byte | what | rest of the key |
/// |---|---|---|
/// | 0x00–0xF4 | the default collection, unchanged since format version 1 | the key's UTF-8 |
/// | 0xFE | a named collection | name length N (1 byte, 1–255), the name's N UTF-8 bytes, the key's UTF-8 |
/// | 0xFF | ModelStore's system records, never returned to users | kind byte, kind-specific bytes |
///
/// The kinds of system record (the byte after 0xFF), each documented where it is written:
///
/// | kind | what | rest of the key | written by |
/// |---|---|---|---|
/// | 0x01 | the tag index | LEB128 tag length, the tag, the record's LevelDB key | ``TagIndex`` |
/// | 0x02 | a compression dictionary | its id, 4 bytes big-endian | ``RecordDictionaries`` |
/// | 0x03 | a recorded policy | this type's ``prefix`` of the key space: nothing for the database's own policy, 0xFE, the length and the name for a collection's | ``StoredPolicies`` |
/// | 0x0E | the encryption marker | nothing | ``EncryptionMarker`` |
/// | 0x10 | an index's definition | 0x00 (the default collection) or the collection's ``prefix``, then the index's name | ``IndexDefinition`` |
/// | 0x11 | an index entry | the index's id (4 bytes), the value's encoding, the record's user key | ``IndexWork`` |
/// | 0x12 | a record's index values (reverse entry, format-1 definitions) | the index's id (4 bytes), the record's user key | ``IndexWork`` |
/// | 0x13 | a record's values entry | 0x00 or the collection's ``prefix``, the record's user key | ``IndexWork`` |
/// | 0x14 | the floor of index ids | nothing | ``IndexIDFloor`` |
///
/// A Swift `String` is valid UTF-8, whose first byte is never 0xF5–0xFF, so default keys
/// never reach the bytes above 0xF4; and the length byte makes collection prefixes
/// prefix-free: no key of one collection starts with another collection's prefix, whatever
/// bytes the names or the keys hold.
struct KeySpace: Sendable, Hashable {
    /// The first byte of every named collection's keys.
    static let collectionMarker: UInt8 = 0xFE
    /// The first byte of ModelStore's own (system) records.
    static let systemMarker: UInt8 = 0xFF
    /// The default collection's keys are below this byte: `.all` of the default collection is
    /// `[0x00, 0xF5)`, so no default scan ever sees a collection's or a system record.
    static let defaultUpperBound: [UInt8] = [0xF5]
    /// How the reason of an ``ModelStoreError/invalidName(name:reason:)`` for a collection
    /// name starts: the error's description then speaks of a collection, not a database.
    static let nameReasonPrefix = "the collection name "
    /// The longest collection name, in UTF-8 bytes (the length byte's range).
    static let maximumNameLength = 255

    /// The collection's name; nil for the default collection.
    let collection: String?
    /// The bytes in front of every key of the collection; empty for the default collection.
    let prefix: [UInt8]

    /// The store itself.
    static let `default` = KeySpace(collection: nil, prefix: [])

    private init(collection: String?, prefix: [UInt8]) {
        self.collection = collection
        self.prefix = prefix
    }

    /// The key space of the collection `name`.
    ///
    /// - Throws: ``ModelStoreError/invalidName(name:reason:)`` unless the name is 1 to 255
    ///   UTF-8 bytes without NUL.
    init(collection name: String) throws(ModelStoreError) {
        let bytes = Array(name.utf8)
        func reject(_ reason: String) -> ModelStoreError {
            .invalidName(name: name, reason: Self.nameReasonPrefix + reason)
        }
        if bytes.isEmpty { throw reject("is empty") }
        if bytes.count > Self.maximumNameLength { throw reject("is \(bytes.count) UTF-8 bytes") }
        if bytes.contains(0) { throw reject("contains a NUL byte") }
        self.init(collection: name, prefix: [Self.collectionMarker, UInt8(bytes.count)] + bytes)
    }

    var isDefault: Bool { prefix.isEmpty }

    /// The prefix alone names the space (it holds the collection's name), and hashing its
    /// bytes in one call is what every indexed write's registry lookups pay.
    func hash(into hasher: inout Hasher) {
        prefix.withUnsafeBytes { hasher.combine(bytes: $0) }
    }

    static func == (lhs: KeySpace, rhs: KeySpace) -> Bool { lhs.prefix == rhs.prefix }

    /// Every physical key of the space.
    var all: KeyRange { physical(.all) }

    /// The physical range of LevelDB keys holding the user range `range` of this space.
    func physical(_ range: KeyRange) -> KeyRange {
        guard !isDefault else {
            // User keys are UTF-8, so a user upper bound is never above 0xF5.
            return KeyRange(lowerBound: range.lowerBound, upperBound: range.upperBound ?? Self.defaultUpperBound)
        }
        return KeyRange(
            lowerBound: prefix + range.lowerBound,
            upperBound: range.upperBound.map { prefix + $0 } ?? KeyRange.successor(ofPrefix: prefix))
    }

    /// Validates `key` and calls `body` with its physical bytes.
    ///
    /// - Throws: ``ModelStoreError/invalidKey(key:reason:)``, or what `body` throws.
    @inline(__always)
    func withPhysicalKey<Result>(
        _ key: String, _ body: (UnsafeRawBufferPointer) throws -> Result
    ) throws -> Result {
        try ModelStore.validate(key: key)
        return try withPhysicalKey(ofValidated: key, body)
    }

    /// Calls `body` with the physical bytes of `key`, a key validated before (a queued fill's,
    /// read through ``withPhysicalKey(_:_:)``): only what `body` throws is thrown.
    @inline(__always)
    func withPhysicalKey<Result>(
        ofValidated key: String, _ body: (UnsafeRawBufferPointer) throws -> Result
    ) rethrows -> Result {
        var key = key
        return try key.withUTF8 { keyBytes in
            guard !isDefault else { return try body(UnsafeRawBufferPointer(keyBytes)) }
            // On the stack: no allocation per call (keys are at most 64 KiB, names 255 bytes).
            let total = prefix.count + keyBytes.count
            return try withUnsafeTemporaryAllocation(byteCount: total, alignment: 1) { buffer in
                prefix.withUnsafeBytes { buffer.copyMemory(from: $0) }
                if !keyBytes.isEmpty {
                    UnsafeMutableRawBufferPointer(rebasing: buffer[prefix.count...])
                        .copyMemory(from: UnsafeRawBufferPointer(keyBytes))
                }
                return try body(UnsafeRawBufferPointer(buffer))
            }
        }
    }

    /// The user key of a physical key of this space.
    @inline(__always)
    func key(fromPhysical physical: UnsafeRawBufferPointer) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: physical[prefix.count...]), as: UTF8.self)
    }

    /// The space and the user key of any physical key; nil for a system record (or a key no
    /// version of ModelStore writes).
    static func split(_ physical: UnsafeRawBufferPointer) -> (space: KeySpace, key: String)? {
        guard let first = physical.first else { return nil }
        if first < defaultUpperBound[0] {
            return (.default, String(decoding: physical, as: UTF8.self))
        }
        guard first == collectionMarker, physical.count >= 2 else { return nil }
        let length = Int(physical[1])
        guard length > 0, physical.count >= 2 + length else { return nil }
        let name = String(decoding: UnsafeRawBufferPointer(rebasing: physical[2..<(2 + length)]), as: UTF8.self)
        let space = KeySpace(collection: name, prefix: Array(physical[0..<(2 + length)]))
        return (space, space.key(fromPhysical: physical))
    }

    /// The physical range every user record lies in (the default collection and every named
    /// one, but no system record): what database-wide sweeps walk.
    static let userRecords = KeyRange(lowerBound: [], upperBound: [systemMarker])
}
