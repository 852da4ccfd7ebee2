// MARK: - The scripts of tag removal clocks (TagClocks.swift)

extension RedisScripts {
    /// The Lua helpers every script that reads or writes tag clocks starts with: the key checks
    /// (a clocks key of another type, or a floors key that is not a string, would make the
    /// commands below fail half-way through a script: it is deleted), a tag's bucket (the hash
    /// ``TagClocks/bucket(of:)`` computes), a bucket's floor, folding clocks older than a
    /// lifetime into their floors, and the newest removal that covers a record's tags.
    static let tagClockFunctions = """
        local function sorted_set(key)
          local kind = redis.call('TYPE', key)['ok']
          if kind ~= 'none' and kind ~= 'zset' then redis.call('DEL', key) end
        end
        local function plain_string(key)
          local kind = redis.call('TYPE', key)['ok']
          if kind ~= 'none' and kind ~= 'string' then redis.call('DEL', key) end
        end
        local function bucket(tag)
          local h = 0
          for i = 1, string.len(tag) do h = (h * 31 + string.byte(tag, i)) % \(TagClocks.bucketCount) end
          return h
        end
        local function floor_of(floors, b)
          local bytes = redis.call('GETRANGE', floors, b * 8, b * 8 + 7)
          if string.len(bytes) ~= 8 then return 0 end
          local floor = struct.unpack('<d', bytes)
          if floor ~= floor then return 0 end
          return floor
        end
        local function raise_floor(floors, b, version)
          if version > floor_of(floors, b) then redis.call('SETRANGE', floors, b * 8, struct.pack('<d', version)) end
        end
        local function fold(clocks, floors, lifetime)
          local t = redis.call('TIME')
          local now = tonumber(t[1]) + tonumber(t[2]) / 1000000 - 978307200
          local expired = redis.call('ZRANGEBYSCORE', clocks, '-inf', '(' .. string.format('%.17g', now - lifetime), 'WITHSCORES', 'LIMIT', 0, 1024)
          for i = 1, #expired, 2 do
            raise_floor(floors, bucket(expired[i]), tonumber(expired[i + 1]))
            redis.call('ZREM', clocks, expired[i])
          end
        end
        local function raise_clock(clocks, tag, version)
          local current = redis.call('ZSCORE', clocks, tag)
          if not current or tonumber(current) < tonumber(version) then redis.call('ZADD', clocks, version, tag) end
        end
        local function tag_removal(clocks, floors, encoded, version)
          local newest = false
          local pos = 1
          while pos <= string.len(encoded) do
            local colon = string.find(encoded, ':', pos, true)
            if not colon then break end
            local length = tonumber(string.sub(encoded, pos, colon - 1))
            if not length then break end
            local tag = string.sub(encoded, colon + 1, colon + length)
            pos = colon + length + 1
            local clock = redis.call('ZSCORE', clocks, tag)
            if clock and tonumber(clock) >= version and (not newest or tonumber(clock) > newest) then newest = tonumber(clock) end
            local floor = floor_of(floors, bucket(tag))
            if floor >= version and (not newest or floor > newest) then newest = floor end
          end
          return newest
        end

        """

    /// KEYS: the epoch, the sequence counter, the stream, the database's tag clocks and floors.
    /// ARGV: the epoch the caller knows, the stream's approximate length, the node, the database,
    /// the payload (`u`: the tag and the version), the tag, the removal's version (a decimal
    /// Float64 that round-trips), a clock's lifetime in seconds. Raises the tag's clock to the
    /// version (never lowers it), folds the clocks past their lifetime into their floors, and
    /// announces the removal with the epoch; returns the entry's sequence number, or `epoch` if
    /// the epoch is not the caller's (read it again first). No record key changes: records with
    /// the tag stored at or before the version are misses from now on, every other stays.
    static let publishTagRemoval = prologue + tagClockFunctions + """
        if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 'epoch' end
        counter(KEYS[2])
        stream(KEYS[3])
        sorted_set(KEYS[4])
        plain_string(KEYS[5])
        raise_clock(KEYS[4], ARGV[6], ARGV[7])
        fold(KEYS[4], KEYS[5], tonumber(ARGV[8]))
        redis.call('INCR', KEYS[2])
        local n = redis.call('GET', KEYS[2])
        redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[2], '*', 'n', n, 'o', ARGV[3], 'd', ARGV[4], 'g', '', 'e', ARGV[1], 'x', ARGV[5])
        return n
        """

    /// KEYS: the database's tag clocks and floors. ARGV: a clock's lifetime in seconds, the
    /// floors as a node holds them (the `f` key's bytes; empty for none), then per clock its tag
    /// and version. Raises each clock and floor Redis holds to the node's (never lowers one),
    /// then folds: what a node restores after Redis lost its data (restarted empty, flushed,
    /// rolled back), before its outbox is published again, so that no record a removal covered
    /// comes back. Announces nothing. Returns 1.
    static let restoreTagClocks = tagClockFunctions + """
        sorted_set(KEYS[1])
        plain_string(KEYS[2])
        for i = 3, #ARGV, 2 do raise_clock(KEYS[1], ARGV[i], ARGV[i + 1]) end
        local floors = ARGV[2]
        for b = 0, math.min(\(TagClocks.bucketCount), math.floor(string.len(floors) / 8)) - 1 do
          local floor = struct.unpack('<d', floors, b * 8 + 1)
          if floor == floor and floor > 0 then raise_floor(KEYS[2], b, floor) end
        end
        fold(KEYS[1], KEYS[2], tonumber(ARGV[1]))
        return 1
        """
}
