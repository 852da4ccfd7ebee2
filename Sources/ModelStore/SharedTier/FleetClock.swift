// MARK: - Record versions across a fleet
//
// A database with a shared tier orders the writes of one key across the fleet by a version
// every record already carries: its `storedAt` (envelope bytes 7..<15). What makes `storedAt` a
// version is how it is issued: by this clock, a hybrid logical clock. Each issue is the wall
// clock's reading, or a hair (one Float64 step) past the highest time this process issued or
// heard of from another node (the versions in the stream's entries and in records read from the
// tier), whichever is later. So:
// - one process never issues the same storedAt twice, even when its clock stands still or goes
//   back;
// - a write made after this node heard of another node's write of the key is newer than it,
//   whatever the two clocks say (a node whose clock is behind stamps slightly in the future:
//   its records then live that much longer under a policy lifetime);
// - two nodes that write one key without hearing of each other are ordered by their clocks
//   (the later wins). Should two of their versions be equal, Redis keeps the first to arrive and
//   refuses the other, whose writer then drops its own copy (RedisPublisher): Redis decides.
// A record read from the tier keeps its storedAt when it is restamped with the tier's lifetime,
// so a node's copy of a record has the version of the write that made it.
// A store without a shared tier never uses this clock: its storedAt is the clock's reading.

/// A record's place in the order of one key's writes across the fleet: its `storedAt`. A
/// removal's version is a tombstone's: the time its writer's clock issued for it.
public struct SharedTierVersion: Comparable, Hashable, Sendable {
    /// The record's `storedAt` (seconds since 2001-01-01 UTC), as its writer's clock issued it.
    public var time: Double

    /// The version `time`.
    public init(time: Double) {
        self.time = time
    }

    /// Older first.
    public static func < (lhs: Self, rhs: Self) -> Bool {
        lhs.time < rhs.time
    }

    /// The version of a record as a local store and the tier keep it (its storedAt); nil if
    /// the bytes are not a record.
    public init?(record bytes: [UInt8]) {
        guard let version = bytes.withUnsafeBytes({ Self(record: $0) }) else { return nil }
        self = version
    }

    /// The version of the record `bytes`, read from its storedAt's fixed place without parsing
    /// the rest of the envelope (the lookup's doubt check); nil if it is not a record.
    @inline(__always)
    init?(storedAtOf bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= RecordHeader.baseLengthV2 else { return nil }
        switch bytes[0] {
        case RecordHeader.versionThree, RecordHeader.versionTwo: self.init(time: RecordHeader.readDouble(bytes, at: 7))
        case RecordHeader.versionOne: self.init(time: RecordHeader.readDouble(bytes, at: 3))
        default: return nil
        }
    }

    /// The version of the record `bytes` (its storedAt); nil if it is not a record.
    init?(record bytes: UnsafeRawBufferPointer) {
        guard let header = RecordHeader(parsing: bytes) else { return nil }
        self.init(time: header.storedAt)
    }
}

/// The hybrid logical clock that issues a fleet database's `storedAt` times (see above).
///
/// The highest time is one atomic word (a Float64's bits) changed by compare-and-swap, not a
/// lock: every record read from the tier is observed, and one that is not newer than the
/// highest (nearly all) costs a load and a comparison (issue 37).
final class FleetClock: Sendable {
    /// The highest time issued or heard of, as a Float64's bits.
    private let highest = AtomicWord(Double(0).bitPattern)

    /// A time for a write now: `now` (the store's clock), or one step past the highest time
    /// issued or heard of, whichever is later.
    func issue(_ now: Double) -> Double {
        while true {
            let bits = highest.load()
            let current = Double(bitPattern: bits)
            let issued = now > current ? now : current.nextUp
            if highest.compareExchange(expected: bits, desired: issued.bitPattern) { return issued }
        }
    }

    /// A version for a rewrite that keeps the record's time (`replaceMetadata`): one step past
    /// `old`, so the rewritten record is newer than the one it replaces and than nothing else
    /// (a write another node made after `old` still wins over it).
    func step(after old: Double) -> Double {
        let stepped = old.nextUp
        observe(stepped)
        return stepped
    }

    /// Takes in a time heard of from another node: later issues are past it.
    func observe(_ time: Double) {
        guard time.isFinite else { return }
        while true {
            let bits = highest.load()
            guard time > Double(bitPattern: bits) else { return }
            if highest.compareExchange(expected: bits, desired: time.bitPattern) { return }
        }
    }
}
