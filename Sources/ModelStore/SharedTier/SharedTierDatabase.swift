import Foundation
import Logging

/// One open database as a ``SharedTier`` sees it: its name, its current local records, and the
/// way to drop what other processes changed. ModelStore makes one per database opened with a
/// tier and hands it to ``SharedTier/attach(_:)``.
///
/// It is also the core's side of the link: the write funnel hands it each commit's changes
/// (its internal `didCommit(_:)`), the record lookup asks it on a local miss (`Scope+SharedTier.swift`).
public final class SharedTierDatabase: Sendable {
    /// The database's name: what identifies it across the fleet (not its path).
    public let name: String
    /// The tier the database was opened with.
    let tier: any SharedTier
    /// Counts invalidations applied from other processes, so a record read from the tier before
    /// one of them is not stored locally after it (see `Scope.sharedRecord`).
    let remoteChanges = AtomicWord()
    private let state = Locked(State())

    private struct State {
        /// A scope of the database's own (never closed by a store's `close()`), for applying
        /// invalidations and reading current records; nil before ``start(scope:)`` and after ``stop()``.
        var scope: Scope?
        var attachment: (any SharedTierAttachment)?
    }

    init(name: String, tier: any SharedTier) {
        self.name = name
        self.tier = tier
    }

    /// True while this thread applies what the tier asked (an invalidation from another
    /// process, a record read from the tier): those local writes are not published back.
    @TaskLocal static var isApplying = false

    /// Attaches the database to the tier, once: the first store opened with it supplies the
    /// policy that judges records without a lifetime of their own.
    func start(scope: Scope) {
        let own = Scope(
            database: scope.database, reader: scope.reader, configuration: scope.configuration, closed: AtomicWord())
        let isFirst = state.withLock { state -> Bool in
            guard state.scope == nil, state.attachment == nil else { return false }
            state.scope = own
            return true
        }
        guard isFirst else { return }
        let attachment = tier.attach(self)
        state.withLock { $0.attachment = attachment }
    }

    /// Detaches the database as it closes; breaks the reference from the database to its scope.
    func stop() {
        let attachment = state.withLock { state -> (any SharedTierAttachment)? in
            defer {
                state.attachment = nil
                state.scope = nil
            }
            return state.attachment
        }
        attachment?.detach()
    }

    var attachment: (any SharedTierAttachment)? { state.withLock { $0.attachment } }

    private var scope: Scope? { state.withLock { $0.scope } }

    // MARK: - From the write funnel

    /// Publishes the keys a local commit set or removed. Expiry and eviction are local
    /// decisions and are not published: the tier keeps a record no longer than its lifetime.
    func didCommit(_ changes: ChangeList) {
        guard !changes.isEmpty, !Self.isApplying, let attachment else { return }
        var keys: [SharedTierKey] = []
        keys.reserveCapacity(changes.count)
        changes.forEach { change in
            guard change.kind == .set || change.kind == .removed || change.dependsOnStoredRecord else { return }
            keys.append(SharedTierKey(collection: change.space.collection, key: change.key))
        }
        if !keys.isEmpty { attachment.publish(.keys(keys)) }
        for (space, prefix) in changes.prefixes {
            attachment.publish(.prefix(prefix, collection: space.collection))
        }
    }

    /// Publishes a removal by prefix (or of a whole collection: the empty prefix).
    func didRemove(prefix: String, in space: KeySpace) {
        guard !Self.isApplying, let attachment else { return }
        attachment.publish(.prefix(prefix, collection: space.collection))
    }

    /// Publishes a removal by tag.
    func didRemove(tag: String) {
        guard !Self.isApplying, let attachment else { return }
        attachment.publish(.tag(tag))
    }

    /// Publishes the deletion of the whole database (`deleteFromDisk()`, `deleteDatabase(named:in:)`
    /// while it is open here), before it closes.
    func didDeleteDatabase() {
        guard !Self.isApplying, let attachment else { return }
        attachment.publish(.database)
    }

    // MARK: - For the tier

    /// The record stored locally for `key` (verified in full, live), with its remaining
    /// lifetime; nil when there is none, it has expired, or it is of a format older than
    /// version 3 (whose checksum does not cover every byte, so it is never shared).
    public func currentRecord(for key: SharedTierKey) -> SharedTierRecord? {
        guard let scope, let space = Self.space(key.collection) else { return nil }
        let reader = scope.reader
        return try? space.withPhysicalKey(key.key) { keyBytes in
            try scope.database.run { engine in
                try engine.withValue(forKey: keyBytes) { record -> SharedTierRecord? in
                    guard let record, let header = RecordHeader(parsing: record), header.isFullyChecked,
                        header.checksumMatches(value: record, key: keyBytes)
                    else { return nil }
                    var remaining: Duration? = nil
                    if let deadline = header.deadline(timeToLive: reader.timeToLive) {
                        let left = deadline - reader.now()
                        guard left > 0 else { return nil }
                        remaining = .milliseconds(Int64(min(left * 1000, Double(Int64.max / 2)).rounded(.down)))
                    }
                    return SharedTierRecord(bytes: Array(record), remainingLifetime: remaining)
                }
            }
        }
    }

    /// Drops, from the local tiers (object cache, LevelDB, remembered answers), what another
    /// process's write named; nothing applied here is published back. Failures are logged.
    public func apply(_ invalidation: SharedTierInvalidation) {
        guard let scope else { return }
        _ = remoteChanges.add(1)
        Self.$isApplying.withValue(true) {
            do {
                switch invalidation {
                case .keys(let keys):
                    var byCollection: [String?: [String]] = [:]
                    for key in keys { byCollection[key.collection, default: []].append(key.key) }
                    for (collection, keys) in byCollection {
                        try Self.scope(scope, collection).removeObjects(forKeys: keys)
                    }
                case .prefix(let prefix, let collection):
                    try Self.scope(scope, collection).removeObjects(withPrefix: prefix)
                case .tag(let tag):
                    _ = try scope.removeObjects(taggedWith: tag)
                case .database:
                    try clearAll(scope)
                }
            } catch {
                scope.database.logger.warning(
                    "Could not apply a shared tier's invalidation locally",
                    metadata: ["database": "\(scope.database.path)", "invalidation": "\(invalidation)", "error": "\(error)"])
            }
        }
    }

    /// Drops every record of the database from its local tiers: what a process does when it
    /// cannot know what it missed (the tier restarted empty, its invalidations were trimmed).
    public func clearLocalTiers() {
        apply(.database)
    }

    /// Removes every user record through the chunked removal loop, then forgets everything in memory.
    private func clearAll(_ scope: Scope) throws {
        let database = scope.database
        try database.removeInChunks(KeySpace.userRecords, sync: false) { key, _, chunk in
            chunk.remove(key, reporting: KeySpace.split(key).map { KeyChange($0.key, in: $0.space, .removed) })
        }
        database.cache?.removeAll()
    }

    private static func space(_ collection: String?) -> KeySpace? {
        guard let collection else { return .default }
        return try? KeySpace(collection: collection)
    }

    private static func scope(_ scope: Scope, _ collection: String?) -> Scope {
        collection.map { scope.collection($0, policy: nil) } ?? scope
    }
}
