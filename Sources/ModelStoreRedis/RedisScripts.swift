/// The Lua scripts a tier runs in Redis: each publication is one atomic script, so the records
/// it stores and the stream entry that announces them land together and in one order, and each
/// entry carries the next number of one counter (`n`), so a reader that sees a number skipped
/// knows it missed something.
///
/// Every script first checks the tier's own keys it uses, since another client may have written
/// anything there: a counter (`n`, a generation) that is not a string of at most 16 decimal
/// digits, or a stream key of another type, would make `INCR` or `XADD` fail half-way through a
/// script (Redis does not undo the writes before the failure), so every later publication would
/// fail too. A damaged counter is replaced (`n` starts again, which readers notice as a counter
/// that went back; a generation, damaged or missing, starts at Redis's clock in microseconds,
/// past any it had), a stream key of another type is deleted.
enum RedisScripts {
    /// The checks every script starts with.
    static let prologue = """
        local function damaged(key)
          local kind = redis.call('TYPE', key)['ok']
          if kind == 'none' then return false end
          if kind == 'string' then
            local value = redis.call('GET', key)
            if string.len(value) <= 16 and string.match(value, '^%d+$') then return false end
          end
          redis.call('DEL', key)
          return true
        end
        local function counter(key)
          damaged(key)
        end
        local function stream(key)
          local kind = redis.call('TYPE', key)['ok']
          if kind ~= 'none' and kind ~= 'stream' then redis.call('DEL', key) end
        end
        local function generation(key)
          if damaged(key) or redis.call('EXISTS', key) == 0 then
            local t = redis.call('TIME')
            redis.call('SET', key, string.format('%.0f', tonumber(t[1]) * 1000000 + tonumber(t[2])))
            return true
          end
          return false
        end

        """

    /// The version of a value held under a record key: a version-3 record's storedAt (bytes
    /// 7..<15, Float64 little-endian), or a tombstone's time (`T` and 8 bytes); nil for anything
    /// else (another program's value, an older record format), which any publication replaces.
    static let versionOf = """
        local function version_of(value)
          if not value then return nil end
          local first = string.byte(value, 1)
          if first == 0x33 and string.len(value) >= 15 then return struct.unpack('<d', value, 8) end
          if first == 0x54 and string.len(value) == 9 then return struct.unpack('<d', value, 2) end
          return nil
        end

        """

    /// KEYS: the epoch, the sequence counter, the stream, the database's tag clocks and floors,
    /// then the record keys. ARGV: the epoch the record keys carry, the stream's approximate
    /// length, the node, the database, the payload's kind, a tombstone's lifetime in
    /// milliseconds, then per record key: its value (a record, or a tombstone), its lifetime in
    /// milliseconds (0: none), its version (a decimal Float64 that round-trips), its part of the
    /// stream entry's payload, and its tags (each as `<length>:<bytes>`; empty for none). Then,
    /// after the record keys, the fetch locks this publication gives up (KEYS), and after the
    /// record keys' arguments their holders' tokens (ARGV), one each: with R record keys and L
    /// locks, KEYS has 5 + R + L entries and ARGV 6 + 5R + L, so R is (#ARGV - #KEYS - 1) / 4.
    /// A lock is deleted only if it still holds its token (see ``unlock``), whatever was set:
    /// its holder stored what it fetched, and Redis holds that or a newer version.
    ///
    /// Fenced: a key is set only if what Redis holds there is older (or nothing, or not ours), or
    /// is this very value (a retry). The entry announces only the keys set, with the epoch. So
    /// a publication that arrives late (a connection that stalled) never replaces or removes a
    /// newer write, and announces nothing. A record whose tag was removed at or after its version
    /// (TagClocks.swift) is not stored: a tombstone of its version takes its place (announced as
    /// a removal), so no older record of the key comes back either. Returns `epoch` if the epoch
    /// is not the one the keys carry (Redis lost its data: read it again), else the entry's
    /// sequence number (0: none) and per key `0` (set) or the newer version Redis holds, or the
    /// refused record's own (as text).
    static let publishKeys = prologue + versionOf + tagClockFunctions + """
        if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 'epoch' end
        counter(KEYS[2])
        stream(KEYS[3])
        sorted_set(KEYS[4])
        plain_string(KEYS[5])
        local payload = ARGV[5]
        local results = {}
        local records = (#ARGV - #KEYS - 1) / 4
        for i = 6, 5 + records do
          local base = 7 + (i - 6) * 5
          local value = ARGV[base]
          local px = tonumber(ARGV[base + 1])
          local version = tonumber(ARGV[base + 2])
          local existing = false
          if redis.call('TYPE', KEYS[i])['ok'] == 'string' then existing = redis.call('GET', KEYS[i]) end
          local current = version_of(existing)
          if current == nil or version > current or existing == value then
            if ARGV[base + 4] ~= '' and tag_removal(KEYS[4], KEYS[5], ARGV[base + 4], version) then
              redis.call('SET', KEYS[i], 'T' .. struct.pack('<d', version), 'PX', ARGV[6])
              payload = payload .. ARGV[base + 3]
              results[#results + 1] = string.format('%.17g', version)
            else
              if px > 0 then
                redis.call('SET', KEYS[i], value, 'PX', px)
              else
                redis.call('SET', KEYS[i], value)
              end
              payload = payload .. ARGV[base + 3]
              results[#results + 1] = '0'
            end
          else
            results[#results + 1] = string.format('%.17g', current)
          end
        end
        local n = 0
        if payload ~= ARGV[5] then
          redis.call('INCR', KEYS[2])
          n = redis.call('GET', KEYS[2])
          redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[2], '*', 'n', n, 'o', ARGV[3], 'd', ARGV[4], 'g', '', 'e', ARGV[1], 'x', payload)
        end
        for j = 6 + records, #KEYS do
          local token = ARGV[6 + 5 * records + (j - 5 - records)]
          if redis.call('TYPE', KEYS[j])['ok'] == 'string' and redis.call('GET', KEYS[j]) == token then
            redis.call('DEL', KEYS[j])
          end
        end
        return {n, results}
        """

    /// KEYS: the epoch, the sequence counter, the stream, the database's generation. ARGV: the
    /// epoch the caller knows, the stream's approximate length, the node, the database, the
    /// payload. Raises the generation (every record of the database becomes unreachable) and
    /// announces the removal with the new generation and the epoch; returns it and the entry's
    /// sequence number, or `epoch` if the epoch is not the caller's (read it again first).
    static let publishBulk = prologue + """
        if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 'epoch' end
        counter(KEYS[2])
        stream(KEYS[3])
        generation(KEYS[4])
        redis.call('INCR', KEYS[4])
        redis.call('INCR', KEYS[2])
        local g = redis.call('GET', KEYS[4])
        local n = redis.call('GET', KEYS[2])
        redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[2], '*', 'n', n, 'o', ARGV[3], 'd', ARGV[4], 'g', g, 'e', ARGV[1], 'x', ARGV[5])
        return {g, n}
        """

    /// KEYS: the epoch, the database's generation, the sequence counter, the stream. ARGV: a
    /// fresh epoch, the stream's approximate length, the database, the payload of a generation
    /// made anew (`z`), the asking attachment's origin. Returns
    /// the epoch (created if missing, replaced if it is not a short string) and the generation. A
    /// missing or damaged generation is set to Redis's clock in microseconds (past any number it
    /// had: a missing key may have been deleted after bulk removals raised it, and reading it as
    /// 0 would reach records from before them) and announced with the epoch, so that every other
    /// node reads the generation again (a loss of Redis's data is told by the epoch, and doubted).
    static let readGeneration = prologue + """
        local kind = redis.call('TYPE', KEYS[1])['ok']
        if kind ~= 'string' or redis.call('STRLEN', KEYS[1]) == 0 or redis.call('STRLEN', KEYS[1]) > 64 then
          redis.call('SET', KEYS[1], ARGV[1])
        end
        if generation(KEYS[2]) then
          counter(KEYS[3])
          stream(KEYS[4])
          redis.call('INCR', KEYS[3])
          local n = redis.call('GET', KEYS[3])
          redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[2], '*', 'n', n, 'o', ARGV[5], 'd', ARGV[3], 'g', redis.call('GET', KEYS[2]), 'e', redis.call('GET', KEYS[1]), 'x', ARGV[4])
        end
        return {redis.call('GET', KEYS[1]), redis.call('GET', KEYS[2])}
        """

    /// KEYS: the epoch. ARGV: a fresh epoch, whether to replace the epoch even if it is valid
    /// ('1': Redis's data went back in time), and the epoch the caller found went back: replaced
    /// only if it is still that one (two nodes that notice one going back make one new epoch, not
    /// one each, the second wiping what the fleet stored under the first). Returns the epoch,
    /// created if missing and replaced if it is not a string of 1 to 64 bytes.
    static let epoch = """
        local kind = redis.call('TYPE', KEYS[1])['ok']
        if kind ~= 'string' or redis.call('STRLEN', KEYS[1]) == 0 or redis.call('STRLEN', KEYS[1]) > 64
          or (ARGV[2] == '1' and redis.call('GET', KEYS[1]) == ARGV[3]) then
          redis.call('SET', KEYS[1], ARGV[1])
        end
        return redis.call('GET', KEYS[1])
        """

    /// KEYS: a record key. Deletes what is there unless it is a tombstone: a `DEL` that arrives
    /// late (a stalled connection) must never remove a removal's tombstone, which would let an
    /// older record published later come back. It may remove a newer record: a miss, never stale.
    static let discard = """
        if redis.call('TYPE', KEYS[1])['ok'] == 'string' then
          local value = redis.call('GET', KEYS[1])
          if string.len(value) == 9 and string.byte(value, 1) == 0x54 then return 0 end
        end
        return redis.call('DEL', KEYS[1])
        """

    /// KEYS: the stream. Deletes it if it holds another Redis type; returns 1 if it did.
    static let repairStream = """
        local kind = redis.call('TYPE', KEYS[1])['ok']
        if kind ~= 'none' and kind ~= 'stream' then
          redis.call('DEL', KEYS[1])
          return 1
        end
        return 0
        """

    /// KEYS: a fetch lock. ARGV: the new holder's token, the lock's lifetime in milliseconds, the
    /// longest lifetime a lock of the tier has. Takes the lock if it is free; first deletes what
    /// is there if it cannot be a lock of the tier (another type, no lifetime, or a longer one),
    /// since such a value would never expire and every fetch of the key would wait for it in vain.
    static let lock = lockBody

    private static let lockBody = """
        local kind = redis.call('TYPE', KEYS[1])['ok']
        if kind ~= 'none' then
          local left = redis.call('PTTL', KEYS[1])
          if kind ~= 'string' or left < 0 or left > tonumber(ARGV[3]) then redis.call('DEL', KEYS[1]) end
        end
        return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])
        """

    /// KEYS: a fetch lock, then the key's record key. ARGV: as ``lock``. Returns the value under
    /// the record key (a bulk string) if it holds one that is not a tombstone, taking no lock:
    /// another process's fetch landed. Else ``lock``'s answer (a status, or nil if the lock is
    /// held). One round trip where a lock and a `GET` after it took two; the caller still checks
    /// the value as a read does (a record a tag removal covers is no record).
    static let lockUnlessStored = """
        if redis.call('TYPE', KEYS[2])['ok'] == 'string' then
          local value = redis.call('GET', KEYS[2])
          if string.len(value) > 0 and not (string.len(value) == 9 and string.byte(value, 1) == 0x54) then
            return value
          end
        end

        """ + lockBody

    /// KEYS: a fetch lock. ARGV: the holder's token. Deletes the lock only if this holder still has it.
    static let unlock = """
        if redis.call('GET', KEYS[1]) == ARGV[1] then
          return redis.call('DEL', KEYS[1])
        end
        return 0
        """
}
