import ModelStore

/// The Redis keys of one tier, all under its `keyPrefix`.
///
/// Injective: after the prefix, one letter says what a key is (`r` a record, `l` a fetch lock,
/// `g` a database's generation, `t` a database's tag removal clocks, `f` their folded floors,
/// `s` the invalidation stream, `n` its sequence counter, `e` the epoch); every name is written with its length in front (`3:abc`), a record key carries the
/// epoch and the database's generation (both length-prefixed) and ends with `c` and the
/// collection's name (also with its length) or `d` for the store's own keys, then the key's
/// bytes. So no two (database, epoch, generation, collection, key) share a Redis key,
/// whatever bytes the names hold (`:`, `/`, NUL, either Unicode normalisation, any length):
/// database `a` with collection `b:c` is `r1:a…c3:b:c`, database `a:b` with collection `c` is
/// `r3:a:b…c1:c`.
struct RedisKeys: Sendable {
    let prefix: [UInt8]

    var stream: [UInt8] { prefix + [UInt8(ascii: "s")] }
    var sequence: [UInt8] { prefix + [UInt8(ascii: "n")] }
    var epoch: [UInt8] { prefix + [UInt8(ascii: "e")] }

    /// The counter that bulk removals (a prefix, a tag, a collection, the database) raise: record
    /// keys carry it, so one increment makes every record of the database unreachable.
    func generation(database: String) -> [UInt8] {
        prefix + [UInt8(ascii: "g")] + Self.lengthPrefixed(Array(database.utf8))
    }

    /// A sorted set: per tag removed, the removal's version (the score). A record with the tag
    /// whose version is not above it is removed (TagClocks.swift).
    func tagClocks(database: String) -> [UInt8] {
        prefix + [UInt8(ascii: "t")] + Self.lengthPrefixed(Array(database.utf8))
    }

    /// A string of ``TagClocks/bucketCount`` Float64s (little-endian): the newest version of the
    /// expired tag clocks of each bucket of tags (TagClocks.swift).
    func tagFloors(database: String) -> [UInt8] {
        prefix + [UInt8(ascii: "f")] + Self.lengthPrefixed(Array(database.utf8))
    }

    /// ``recordHead(database:generation:)`` then the key's tail (``writeRecordTail(_:to:)``).
    func record(database: String, generation: RedisGeneration, key: SharedTierKey) -> [UInt8] {
        Self.record(head: recordHead(database: database, generation: generation), key: key)
    }

    /// What every record key of one database in one generation starts with (the prefix, `r`,
    /// the database, the epoch and the generation): a read on a local miss keeps it from one
    /// read to the next (`RedisAttachment.recordKeyHead`) and writes only the tail.
    func recordHead(database: String, generation: RedisGeneration) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(prefix.count + 64 + database.utf8.count + generation.epoch.count)
        bytes += prefix
        bytes.append(UInt8(ascii: "r"))
        Self.appendLengthPrefixed(database.utf8, to: &bytes)
        Self.appendLengthPrefixed(generation.epoch, to: &bytes)
        Self.appendLengthPrefixed(String(generation.number).utf8, to: &bytes)
        return bytes
    }

    /// How many bytes ``writeRecordTail(_:to:)`` writes for `key`.
    static func recordTailCount(_ key: SharedTierKey) -> Int {
        guard let collection = key.collection else { return 1 + key.key.utf8.count }
        let count = collection.utf8.count
        return 1 + decimalCount(count) + 1 + count + key.key.utf8.count
    }

    /// The record key of `key` that starts with `head` (``recordHead(database:generation:)``).
    static func record(head: [UInt8], key: SharedTierKey) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: head.count + recordTailCount(key)) { buffer, written in
            var writer = ByteWriter(buffer.baseAddress!)
            writer.write(head)
            writeRecordTail(key, to: &writer)
            written = writer.count
        }
    }

    /// Writes a record key's tail (``recordTailCount(_:)`` bytes): `c` and the collection's name
    /// (length-prefixed), or `d` for the store's own keys; then the key's bytes.
    static func writeRecordTail(_ key: SharedTierKey, to writer: inout ByteWriter) {
        if let collection = key.collection {
            writer.write(UInt8(ascii: "c"))
            writer.writeDecimal(collection.utf8.count)
            writer.write(UInt8(ascii: ":"))
            writer.write(utf8: collection)
        } else {
            writer.write(UInt8(ascii: "d"))
        }
        writer.write(utf8: key.key)
    }

    /// How many decimal digits `value` (not negative) has.
    static func decimalCount(_ value: Int) -> Int {
        var count = 1
        var rest = value
        while rest >= 10 {
            rest /= 10
            count += 1
        }
        return count
    }

    /// Appends `bytes` with their count in decimal and a colon in front (``lengthPrefixed(_:)``).
    private static func appendLengthPrefixed(_ bytes: some Collection<UInt8>, to buffer: inout [UInt8]) {
        buffer += String(bytes.count).utf8
        buffer.append(UInt8(ascii: ":"))
        buffer += bytes
    }

    func lock(database: String, key: SharedTierKey) -> [UInt8] {
        prefix + [UInt8(ascii: "l")] + Self.lengthPrefixed(Array(database.utf8)) + Self.keyPart(key)
    }

    /// `c`, the collection's name with its length, or `d`; then the key's bytes.
    static func keyPart(_ key: SharedTierKey) -> [UInt8] {
        let space = key.collection.map { [UInt8(ascii: "c")] + lengthPrefixed(Array($0.utf8)) } ?? [UInt8(ascii: "d")]
        return space + Array(key.key.utf8)
    }

    /// `bytes` with their count in decimal and a colon in front.
    static func lengthPrefixed(_ bytes: [UInt8]) -> [UInt8] {
        Array(String(bytes.count).utf8) + [UInt8(ascii: ":")] + bytes
    }
}

/// What a record key carries besides its names: the epoch of Redis's data (replaced when Redis
/// goes back in time, so no record from before is reachable) and the database's generation
/// (raised by a bulk removal, so none of the database's records from before is reachable).
struct RedisGeneration: Sendable, Equatable {
    var epoch: [UInt8]
    var number: Int64
}
