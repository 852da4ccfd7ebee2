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

    /// Built in one buffer: a read on a local miss makes one.
    func record(database: String, generation: RedisGeneration, key: SharedTierKey) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(
            prefix.count + 64 + database.utf8.count + generation.epoch.count + key.key.utf8.count
                + (key.collection?.utf8.count ?? 0))
        bytes += prefix
        bytes.append(UInt8(ascii: "r"))
        Self.appendLengthPrefixed(database.utf8, to: &bytes)
        Self.appendLengthPrefixed(generation.epoch, to: &bytes)
        Self.appendLengthPrefixed(String(generation.number).utf8, to: &bytes)
        if let collection = key.collection {
            bytes.append(UInt8(ascii: "c"))
            Self.appendLengthPrefixed(collection.utf8, to: &bytes)
        } else {
            bytes.append(UInt8(ascii: "d"))
        }
        bytes += key.key.utf8
        return bytes
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
