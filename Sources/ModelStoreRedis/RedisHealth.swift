import Logging

/// Whether a tier reaches Redis, as its pool and invalidation reader find out, and what the log
/// says of it: one warning when the tier loses Redis, one when Redis is back (with how long it
/// was gone), every failure in between at debug level. An outage of a minute with four pooled
/// connections and a reader retrying under backoff would otherwise log dozens of lines.
final class RedisHealth: Sendable {
    private let logger: Logger
    private let endpoint: String
    private let state = Guarded(State())
    /// Whether ``State/lostAt`` is set, stored with it: a call that succeeds while Redis was not
    /// lost (nearly every call) reads only this. One that races with the first failure of an
    /// outage may miss it; the next success ends the outage in the log.
    private let isLost = FlagWord(false)

    private struct State {
        /// When the current outage began; nil while Redis answers.
        var lostAt: ContinuousClock.Instant?
        /// When "every connection is busy" was last logged at warning level.
        var busyWarnedAt: ContinuousClock.Instant?
    }

    /// How often, at most, a saturated pool is logged at warning level.
    static let busyWarningInterval: Duration = .seconds(10)

    init(logger: Logger, endpoint: String) {
        self.logger = logger
        self.endpoint = endpoint
    }

    /// A call to Redis failed (`what` says which); the first failure of an outage is a warning.
    func failed(_ what: String, _ failure: RedisFailure) {
        let first = state.withLock { state -> Bool in
            guard state.lostAt == nil else { return false }
            state.lostAt = .now
            isLost.set(true)
            return true
        }
        let metadata: Logger.Metadata = ["endpoint": "\(endpoint)", "what": "\(what)", "error": "\(failure)"]
        if first {
            logger.warning("Lost Redis; local tiers keep serving, and writes are published once it is back", metadata: metadata)
        } else {
            logger.debug("Redis still unreachable", metadata: metadata)
        }
    }

    /// A call to Redis succeeded: ends an outage, if there was one, with a warning saying how long.
    @inline(__always)
    func succeeded() {
        guard isLost.value,
            let lostAt = state.withLock({ state -> ContinuousClock.Instant? in
                defer {
                    state.lostAt = nil
                    isLost.set(false)
                }
                return state.lostAt
            })
        else { return }
        logger.warning("Redis is back", metadata: ["endpoint": "\(endpoint)", "goneFor": "\(ContinuousClock.now - lostAt)"])
    }

    /// Every pooled connection was busy for a whole command timeout: the caller missed (or its
    /// publication waits for a retry). Logged at warning level at most every ``busyWarningInterval``.
    func busy() {
        let warn = state.withLock { state -> Bool in
            let now = ContinuousClock.now
            if let last = state.busyWarnedAt, now - last < Self.busyWarningInterval { return false }
            state.busyWarnedAt = now
            return true
        }
        let message: Logger.Message = "Every connection to Redis was busy for the whole command timeout; the call missed"
        if warn { logger.warning(message, metadata: ["endpoint": "\(endpoint)"]) } else { logger.debug(message) }
    }
}
