/// The Lua scripts a tier runs in Redis: each publication is one atomic script, so the records
/// it stores and the stream entry that announces them land together and in one order, and each
/// entry carries the next number of one counter (`n`), so a reader that sees a number skipped
/// knows it missed something.
enum RedisScripts {
    /// KEYS: the sequence counter, the stream, then the record keys. ARGV: the stream's
    /// approximate length, the node, the database, the payload, then per record key its value
    /// (empty: delete it) and its lifetime in milliseconds (0: none).
    static let publishKeys = """
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
        local n = redis.call('INCR', KEYS[1])
        redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[1], '*', 'n', n, 'o', ARGV[2], 'd', ARGV[3], 'g', '', 'x', ARGV[4])
        return n
        """

    /// KEYS: the sequence counter, the stream, the database's generation. ARGV: as above,
    /// without records. Raises the generation (every record of the database becomes
    /// unreachable) and announces the removal with the new generation; returns it.
    static let publishBulk = """
        local g = redis.call('INCR', KEYS[3])
        local n = redis.call('INCR', KEYS[1])
        redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[1], '*', 'n', n, 'o', ARGV[2], 'd', ARGV[3], 'g', g, 'x', ARGV[4])
        return g
        """

    /// KEYS: a fetch lock. ARGV: the holder's token. Deletes the lock only if this holder still has it.
    static let unlock = """
        if redis.call('GET', KEYS[1]) == ARGV[1] then
          return redis.call('DEL', KEYS[1])
        end
        return 0
        """
}
