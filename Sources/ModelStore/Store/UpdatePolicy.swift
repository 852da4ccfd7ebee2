public import Foundation

/// How long records in a database stay fresh.
///
/// A record is expired once `now >= storedAt + timeToLive`. The policy is the one the store
/// is opened with, not one saved with each record, so reopening a database with another
/// policy re-times the records already in it. A per-record lifetime given to
/// ``ModelStore/set(_:forKey:expiresAfter:metadata:tags:)-2n6sg`` wins over the policy.
///
/// | Policy | Lifetime |
/// |---|---|
/// | ``lowest`` | 7 days |
/// | ``low`` | 24 hours |
/// | ``middle`` | 1 hour |
/// | ``high`` | 1 minute |
/// | ``highest`` | 10 seconds |
/// | ``custom(_:)`` | any positive, finite number of seconds |
/// | ``never`` | records never expire |
public enum UpdatePolicy: Sendable, Hashable {
    /// Records expire after 7 days.
    case lowest
    /// Records expire after 24 hours.
    case low
    /// Records expire after 1 hour.
    case middle
    /// Records expire after 1 minute.
    case high
    /// Records expire after 10 seconds.
    case highest
    /// Records expire after the given number of seconds, which must be positive and finite.
    case custom(TimeInterval)
    /// Records never expire.
    case never

    /// The lifetime of a record in seconds, or nil for ``never``.
    public var timeToLive: TimeInterval? {
        switch self {
        case .lowest: return 7 * 24 * 60 * 60
        case .low: return 24 * 60 * 60
        case .middle: return 60 * 60
        case .high: return 60
        case .highest: return 10
        case .custom(let seconds): return seconds
        case .never: return nil
        }
    }

    /// Throws ``ModelStoreError/invalidPolicy(reason:)`` for a custom interval that is not a
    /// positive, finite number.
    func validate() throws(ModelStoreError) {
        if case .custom(let seconds) = self {
            try Self.validate(
                lifetime: seconds, what: "custom interval", otherwise: "for records that never expire, use .never")
        }
    }

    /// Throws unless `seconds` is positive and finite (``TimeBounds/validateLifetime(_:what:otherwise:)``,
    /// the rule's one home); `otherwise` names the valid alternative in this context (it
    /// differs: `.never` for a policy, no lifetime for a record).
    static func validate(
        lifetime seconds: TimeInterval, what: String,
        otherwise: String = "to keep the store's policy, leave the lifetime out"
    ) throws(ModelStoreError) {
        try TimeBounds.validateLifetime(seconds, what: what, otherwise: otherwise)
    }
}

extension UpdatePolicy: CustomStringConvertible {
    /// The policy and its lifetime, for logs and messages.
    public var description: String {
        switch self {
        case .lowest: return "lowest (7 days)"
        case .low: return "low (24 hours)"
        case .middle: return "middle (1 hour)"
        case .high: return "high (1 minute)"
        case .highest: return "highest (10 seconds)"
        case .custom(let seconds): return "custom (\(seconds) s)"
        case .never: return "never"
        }
    }
}
