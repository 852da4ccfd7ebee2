import Foundation

/// The one core of every key-level operation: what such an operation needs, and the one home of
/// its body.
///
/// A scope is a database, a key space in it (the store's own keys or a collection's), the rules
/// that judge and write records there (the store's policy, codec and clock; a collection's own
/// lifetime) and, for a snapshot, the fixed view reads go through. `ModelStore` holds the default
/// scope, a `Collection` a named one, a `Snapshot` a read-only one (narrowed to a collection by
/// ``Snapshot/collection(_:)``). Each public operation of those faces forwards to its scope in
/// one line, and the scope's bodies reach LevelDB only through the one record lookup
/// (`Scope+Reading.swift`), the write funnel (`WriteFunnel.swift`) and the chunked removal loop
/// (`ChunkedRemoval.swift`): the places where later features attach.
///
/// A final class, so a face's call passes one reference and every field is read in place: no
/// struct of a dozen references copied (and retained) per call. Public only in name, as the
/// requirement of ``ModelReader``: it has no public member.
public final class _Scope: Sendable {
    /// The open database.
    let database: OpenDatabase
    /// How records are judged and decoded: the policy's lifetime, the codec, the clock.
    let reader: RecordReader
    /// The store's configuration: the codec, sync writes, compression and limits writes follow.
    let configuration: ModelStore.Configuration
    /// Makes the bytes of the records this scope writes.
    let encoder: RecordEncoder
    /// Where the keys live.
    let space: KeySpace
    /// The lifetime stamped on a record written without one of its own: a collection's policy
    /// (``RecordHeader/neverLifetime`` for `.never`); nil when the store's policy applies.
    let lifetime: TimeInterval?
    /// The fixed view reads go through, for a snapshot; nil: the live database.
    let view: SnapshotView?
    /// Read-through counters for this key space, looked up once so a hit takes no lock.
    let metrics: ReadThroughMetrics
    /// Why the scope cannot be used (an invalid collection name or policy), thrown by every call.
    private let failure: ModelStoreError?
    /// Set once the store that made the scope is closed (never set for a snapshot's).
    private let closed: AtomicWord

    /// The store's own scope: its keys, in the live database.
    init(database: OpenDatabase, reader: RecordReader, configuration: ModelStore.Configuration, closed: AtomicWord) {
        self.database = database
        self.reader = reader
        self.configuration = configuration
        self.closed = closed
        encoder = RecordEncoder(
            codec: configuration.codec, recordLengthLimit: configuration.recordLengthLimit,
            compressor: PayloadCompressor(
                configuration.recordCompression, database: database,
                withoutDictionary: configuration.encryption.isEnabled),
            cipher: configuration.encryption.cipher)
        space = .default
        lifetime = nil
        view = nil
        failure = nil
        metrics = database.readThroughMetrics.storeMetrics
    }

    private init(
        _ base: Scope, space: KeySpace, lifetime: TimeInterval?, view: SnapshotView?, failure: ModelStoreError?,
        closed: AtomicWord
    ) {
        database = base.database
        reader = base.reader
        configuration = base.configuration
        encoder = base.encoder
        self.space = space
        self.lifetime = lifetime
        self.view = view
        self.failure = failure
        self.closed = closed
        // An invalid collection counts nowhere of its own: every call throws before counting.
        metrics = base.database.readThroughMetrics.metrics(for: space)
    }

    /// The scope of the collection `name` of this scope's database, whose records live by
    /// `policy` (nil: the store's). An invalid name or policy is kept, and thrown by every call.
    func collection(_ name: String, policy: UpdatePolicy?) -> Scope {
        var space = KeySpace.default
        var failure: ModelStoreError? = nil
        do throws(ModelStoreError) {
            try policy?.validate()
            space = try KeySpace(collection: name)
        } catch {
            failure = error
        }
        // A `.never` policy is a record flag, so another instance, whatever its own policy,
        // never expires or sweeps the collection's records.
        let lifetime = policy.map { $0.timeToLive ?? RecordHeader.neverLifetime }
        return Scope(self, space: space, lifetime: lifetime, view: view, failure: failure, closed: closed)
    }

    /// This scope read through `view`: what a snapshot's scope is.
    func reading(through view: SnapshotView) -> Scope {
        Scope(self, space: space, lifetime: lifetime, view: view, failure: failure, closed: AtomicWord())
    }

    /// The database, once the scope is usable: throws the collection's failure, or
    /// ``ModelStoreError/closed(path:)`` after the store was closed.
    @inline(__always)
    func open() throws(ModelStoreError) -> OpenDatabase {
        try checkUsable()
        return database
    }

    /// Throws what ``open()`` throws, returning nothing: for a hot path that reads ``database``
    /// in place rather than retaining it.
    @inline(__always)
    func checkUsable() throws(ModelStoreError) {
        if let failure { throw failure }
        if closed.load() != 0 { throw .closed(path: database.path) }
    }

    /// The key space, once the scope is usable (as ``open()``).
    @inline(__always)
    var checkedSpace: KeySpace {
        get throws(ModelStoreError) {
            _ = try open()
            return space
        }
    }

    /// The snapshot reads go through (nil: the live database); throws
    /// ``ModelStoreError/closed(path:)`` once the snapshot was closed.
    @inline(__always)
    var snapshot: LevelDBSnapshot? {
        get throws(ModelStoreError) { try view?.current() }
    }

    /// The lifetime of a record written with `own` (nil: none of its own): `own` once validated,
    /// else the scope's.
    @inline(__always)
    func recordLifetime(_ own: TimeInterval?) throws(ModelStoreError) -> TimeInterval? {
        guard let own else { return lifetime }
        try UpdatePolicy.validate(lifetime: own, what: "record lifetime")
        return own
    }
}

/// The one core's name inside ModelStore.
@usableFromInline
typealias Scope = _Scope

/// A LevelDB snapshot shared by a ``ModelStore/Snapshot`` and the snapshots narrowed from it to
/// a collection: one view, released when the last of them goes or when any of them is closed.
final class SnapshotView: Sendable {
    let database: OpenDatabase
    private let state: Locked<LevelDBSnapshot?>

    /// Takes a snapshot of the database as it is now, holding the database open until the view
    /// is closed or released.
    init(database: OpenDatabase) throws(ModelStoreError) {
        try DatabaseRegistry.shared.retain(database)
        do {
            let snapshot = try database.run { engine in try engine.makeSnapshot() }
            state = Locked(snapshot)
        } catch {
            DatabaseRegistry.shared.release(database)
            throw error
        }
        self.database = database
    }

    deinit {
        close()
    }

    /// The snapshot, or ``ModelStoreError/closed(path:)`` once closed.
    @inline(__always)
    func current() throws(ModelStoreError) -> LevelDBSnapshot {
        guard let snapshot = state.withLock({ $0 }) else { throw .closed(path: database.path) }
        return snapshot
    }

    /// Releases LevelDB's snapshot and the hold on the database. Closing twice does nothing.
    func close() {
        let wasOpen = state.withLock { snapshot -> Bool in
            defer { snapshot = nil }
            return snapshot != nil
        }
        if wasOpen { DatabaseRegistry.shared.release(database) }
    }
}
