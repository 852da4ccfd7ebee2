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

    /// KEYS: the sequence counter, the stream, then the record keys. ARGV: the stream's
    /// approximate length, the node, the database, the payload, then per record key its value
    /// (empty: delete it) and its lifetime in milliseconds (0: none). Returns the entry's
    /// sequence number.
    static let publishKeys = prologue + """
        counter(KEYS[1])
        stream(KEYS[2])
        for i = 3, #KEYS do
          local value = ARGV[2 * i - 1]
          local px = tonumber(ARGV[2 * i])
          if value == '' then
            redis.call('DEL', KEYS[i])
          elseif px > 0 then
            redis.call('SET', KEYS[i], value, 'PX', px)
          else
            redis.call('SET', KEYS[i], value)
          end
        end
        redis.call('INCR', KEYS[1])
        local n = redis.call('GET', KEYS[1])
        redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[1], '*', 'n', n, 'o', ARGV[2], 'd', ARGV[3], 'g', '', 'x', ARGV[4])
        return n
        """

    /// KEYS: the sequence counter, the stream, the database's generation. ARGV: as above,
    /// without records. Raises the generation (every record of the database becomes
    /// unreachable) and announces the removal with the new generation; returns it and the
    /// entry's sequence number.
    static let publishBulk = prologue + """
        counter(KEYS[1])
        stream(KEYS[2])
        generation(KEYS[3])
        redis.call('INCR', KEYS[3])
        redis.call('INCR', KEYS[1])
        local g = redis.call('GET', KEYS[3])
        local n = redis.call('GET', KEYS[1])
        redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[1], '*', 'n', n, 'o', ARGV[2], 'd', ARGV[3], 'g', g, 'x', ARGV[4])
        return {g, n}
        """

    /// KEYS: the epoch, the database's generation, the sequence counter, the stream. ARGV: a
    /// fresh epoch, the stream's approximate length, the database, the payload of a removal of
    /// the whole database, the asking attachment's origin. Returns the epoch (created if missing,
    /// replaced if it is not a short string) and the generation. A missing or damaged generation
    /// is set to Redis's clock in microseconds (past any number it had: a missing key may have
    /// been deleted after bulk removals raised it, and reading it as 0 would reach records from
    /// before them) and announced as a removal of the whole database, so that every other node
    /// drops its local copies and reads the generation again.
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
          redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[2], '*', 'n', n, 'o', ARGV[5], 'd', ARGV[3], 'g', redis.call('GET', KEYS[2]), 'x', ARGV[4])
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
    static let lock = """
        local kind = redis.call('TYPE', KEYS[1])['ok']
        if kind ~= 'none' then
          local left = redis.call('PTTL', KEYS[1])
          if kind ~= 'string' or left < 0 or left > tonumber(ARGV[3]) then redis.call('DEL', KEYS[1]) end
        end
        return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])
        """

    /// KEYS: a fetch lock. ARGV: the holder's token. Deletes the lock only if this holder still has it.
    static let unlock = """
        if redis.call('GET', KEYS[1]) == ARGV[1] then
          return redis.call('DEL', KEYS[1])
        end
        return 0
        """
}
