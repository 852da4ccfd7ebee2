import Foundation

// MARK: - The fleet's read-through
//
// With a shared tier, concurrent misses for one key on several processes cause one fetch from
// the source: before a process's fetch starts, it takes a short lock in the tier; the others
// wait for the record to land in the tier (polling it) and read it from there, and fetch
// themselves only if the lock holder dies (its lock expires) or the caller's hard timeout passes.

/// What a read-through miss does next in a fleet.
enum FleetTurn {
    /// The record landed in the tier: read again (the lookup finds it there).
    case landed
    /// Fetch, holding this lock in the tier if there is one (give it up after the store).
    case fetch(SharedTierFetchLock?)
}

extension Scope {
    /// How often a waiting process looks for the record in the tier: first after
    /// ``fleetFirstPollInterval`` (a fetch is often that quick: a polling node that slept the
    /// longest interval first waited for nothing), then twice as long each time, up to this.
    static let fleetPollInterval: Duration = .milliseconds(10)
    static let fleetFirstPollInterval: Duration = .milliseconds(1)

    /// Takes this process's turn for `key`: the lock, or the record another process stored
    /// while this one waited. Waits at most `timeout` (nil: the lock's lifetime, `lockLifetime`),
    /// then fetches without the lock. Tier calls run on Dispatch, never on the cooperative pool.
    /// `first` is the tier's answer to a first attempt made already (``fleetLockAttempt(forKey:tier:timeout:lockLifetime:)``,
    /// in the same hand-off as the lookup that missed).
    func fleetTurn(
        forKey key: String, tier: SharedTierDatabase, timeout: Duration?, lockLifetime: Duration = .seconds(5),
        first: SharedTierFetchLock? = nil
    ) async throws -> FleetTurn {
        guard tier.attachment != nil else { return .fetch(nil) }
        let clock = ContinuousClock()
        let deadline = clock.now + TimeBounds.wait(timeout ?? lockLifetime)
        var interval = Self.fleetFirstPollInterval
        var given = first
        while true {
            // One call for the lock and the record: the lock may be free because its holder just
            // stored the record and let go (and a waiter's poll takes the lock if it went).
            let lock: SharedTierFetchLock
            if let answer = given {
                lock = answer
                given = nil
            } else {
                lock = try await offload(waitingOnTier: true) { [self] in
                    fleetLockAttempt(forKey: key, tier: tier, timeout: timeout, lockLifetime: lockLifetime)
                }
            }
            switch lock {
            case .stored:
                return .landed
            case .acquired:
                return .fetch(lock)
            case .unavailable:
                return .fetch(nil)
            case .heldElsewhere:
                guard clock.now < deadline else { return .fetch(nil) }
                try await Task.sleep(for: interval)
                interval = min(interval * 2, Self.fleetPollInterval)
            }
        }
    }

    /// One attempt at this process's turn for `key` (the lock, or the record that landed), on the
    /// caller's thread: it blocks for a round trip, so never on the cooperative pool.
    func fleetLockAttempt(
        forKey key: String, tier: SharedTierDatabase, timeout: Duration?, lockLifetime: Duration = .seconds(5)
    ) -> SharedTierFetchLock {
        guard let attachment = tier.attachment else { return .unavailable }
        let sharedKey = SharedTierKey(collection: space.collection, key: key)
        return attachment.lockFetchUnlessStored(of: sharedKey, for: TimeBounds.wait(timeout ?? lockLifetime))
    }

    /// Gives up a lock ``fleetTurn(forKey:tier:timeout:lockLifetime:)`` returned, in the
    /// background; nothing to do (no task, no hand-off) when the tier gave it up already.
    func releaseFleetTurn(_ lock: SharedTierFetchLock, tier: SharedTierDatabase) {
        guard tier.attachment?.needsUnlock(lock) ?? false else { return }
        Task { await endFleetTurn(lock, tier: tier) }
    }

    /// Gives up a lock ``fleetTurn(forKey:tier:timeout:lockLifetime:)`` returned.
    func endFleetTurn(_ lock: SharedTierFetchLock?, tier: SharedTierDatabase) async {
        guard let lock, case .acquired = lock, let attachment = tier.attachment else { return }
        _ = try? await offload(waitingOnTier: true) { attachment.unlockFetch(lock) }
    }
}
