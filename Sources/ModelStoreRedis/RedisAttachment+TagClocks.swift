import ModelStore

// MARK: - The read path's tag check (TagClocks.swift)

extension RedisAttachment {
    /// What a read answers for the record `bytes` Redis holds, if a tag removal covers it: a
    /// removal one step past the record's version (so a doubted local copy of that record, or an
    /// older one, goes too, and a newer local write stays); nil if none does, so the record is
    /// served. With ``loadTagClocks()`` before the `GET`, the one step of the read path that tag
    /// removals add: one dictionary lookup per tag of a tagged record, nothing for an untagged
    /// one (its envelope's flags say it has none).
    func tagRemovalAnswer(for bytes: [UInt8]) -> SharedTierAnswer? {
        guard !tagClocks.isEmpty else { return nil }
        let record = SharedTierRecord(bytes: bytes, remainingLifetime: nil)
        let tags = record.tags
        guard !tags.isEmpty, let version = record.version, tagClocks.removal(of: tags, storedAt: version.time) != nil else {
            return nil
        }
        return .removed(SharedTierVersion(time: version.time.nextUp))
    }

    /// Loads the database's tag clocks and floors from Redis unless they are loaded (at the first
    /// read, and again after a doubt), and applies to the local store each removal it learns of
    /// (its copies may predate removals this node never heard of: it was not running, or the
    /// stream was trimmed past it). False if Redis cannot say.
    func loadTagClocks() -> Bool {
        if tagClocks.isLoaded { return true }
        let clocksKey = tier.keys.tagClocks(database: database.name)
        let floorsKey = tier.keys.tagFloors(database: database.name)
        let result = tier.pool.run { connection in
            try connection.pipeline([
                [Array("ZRANGE".utf8), clocksKey, Array("0".utf8), Array("-1".utf8), Array("WITHSCORES".utf8)],
                [Array("GET".utf8), floorsKey],
            ])
        }
        guard case .success(let replies) = result, replies.count == 2 else { return false }
        // Another client's value of another type is no clock (the next tag removal replaces it).
        var clocks: [(tag: String, version: Double)] = []
        if case .array(let parts) = replies[0] {
            for index in stride(from: 0, to: parts.count - 1, by: 2) {
                guard let tag = parts[index].bytes, let score = parts[index + 1].text.flatMap(Double.init) else { continue }
                clocks.append((String(decoding: tag, as: UTF8.self), score))
            }
        }
        let learned = tagClocks.merge(clocks: clocks, floors: replies[1].bytes ?? [])
        for (tag, version) in learned {
            database.apply(.tag(tag, version: SharedTierVersion(time: version)))
        }
        return true
    }

    /// Restores the clocks and floors this node holds in Redis (raising, never lowering), before
    /// its outbox is published again after Redis lost its data; false if Redis failed.
    func restoreTagClocks() -> Bool {
        let (clocks, floors) = tagClocks.snapshot()
        guard !clocks.isEmpty || !floors.isEmpty else { return true }
        var arguments: [[UInt8]] = [
            Array("EVAL".utf8), Array(RedisScripts.restoreTagClocks.utf8), Array("2".utf8),
            tier.keys.tagClocks(database: database.name), tier.keys.tagFloors(database: database.name),
            Array(RedisPublisher.decimal(tagClocks.lifetime).utf8), floors,
        ]
        for (tag, version) in clocks {
            arguments.append(Array(tag.utf8))
            arguments.append(Array(RedisPublisher.decimal(version).utf8))
        }
        let command = arguments
        guard case .success(let reply) = tier.pool.run({ connection in try connection.command(command) }), !reply.isError
        else { return false }
        return true
    }

    /// A record's tags as the publishing script reads them: each as `<length>:<bytes>`.
    static func encodedTags(_ tags: [String]) -> [UInt8] {
        tags.reduce(into: []) { $0 += RedisKeys.lengthPrefixed(Array($1.utf8)) }
    }
}
