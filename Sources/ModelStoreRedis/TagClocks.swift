import Foundation

// MARK: - Tag removals as clocks
//
// A removal by tag cannot find the records it names in Redis (Redis has no index of the tags
// inside records), and it need not: it leaves a *clock*, the tag and the removal's version, in
// a sorted set per database (`t`, RedisKeys.swift), written by the same script that announces
// it. A record read from Redis carries its tags and its version (its storedAt): it is removed
// when any of its tags has a clock at or past its version, and is then a miss. Every node keeps
// the clocks in memory: loaded from Redis before its first read of the database's records,
// then kept fresh through the stream (each tag removal's entry names the tag and its version).
// The publishing script checks the same clocks, so a record written before a removal that
// reaches Redis after it (a stalled connection, an outbox published late) is refused, and a
// tombstone of its own version is left in its place. Records written with the tag after the
// removal are newer than its clock, and are read as any other.
//
// Bounded: a clock lives `tombstoneLifetime`. Then it is *folded*, in Redis and in each node's
// memory alike: its tag falls in one of ``TagClocks/bucketCount`` buckets (a hash of its bytes),
// and the bucket's floor becomes the newest version folded into it (`f`, one string of Float64s).
// A record with a tag whose bucket's floor is at or past its version is removed too. Folding
// loses no removal (a floor covers every clock folded into it); what it costs is a miss for a
// record with another tag of that bucket stored before the floor, which the node then reads
// from its own store or its source. So Redis holds at most the clocks of the last
// `tombstoneLifetime` and 32 KiB of floors per database; a node the same in memory.

/// One database's tag removal clocks, as a node holds them in memory (see above).
final class TagClocks: Sendable {
    /// How many buckets the floors have (a power of two; the Lua scripts use the same number).
    static let bucketCount = 4096

    /// How long a clock lives before it is folded into its bucket's floor, in seconds.
    let lifetime: Double
    private let state = Guarded(State())
    /// ``State/isLoaded``, and whether any clock or floor is held, stored with the state at each
    /// change (``mirror(_:)``): every Redis read asks both, and reads only these. (Once held, a
    /// clock or floor stays: a folded clock's version goes to its floor.)
    private let loaded = FlagWord(false)
    private let holdsAny = FlagWord(false)

    private struct State {
        /// Per tag, the newest removal's version.
        var clocks: [String: Double] = [:]
        /// Per bucket, the newest version folded into it; empty while none was.
        var floors: [Double] = []
        /// Whether the clocks were loaded from Redis since the attachment began (or last doubted).
        var isLoaded = false
        /// When the clocks were last folded (seconds since the reference date).
        var foldedAt: Double = 0
    }

    init(lifetime: Duration) {
        self.lifetime = Double(lifetime.components.seconds) + Double(lifetime.components.attoseconds) / 1e18
    }

    /// The bucket of `tag`: a hash of its UTF-8 bytes that the scripts compute alike
    /// (`h = (h * 31 + byte) % bucketCount`).
    static func bucket(of tag: String) -> Int {
        var hash = 0
        for byte in tag.utf8 { hash = (hash * 31 + Int(byte)) % bucketCount }
        return hash
    }

    /// Whether the clocks were loaded from Redis (and not doubted since).
    var isLoaded: Bool { loaded.value }

    /// The node cannot know which removals it missed (the stream was trimmed past it, Redis's
    /// data changed): the next read loads the clocks again. Those held stay.
    func markStale() {
        state.withLock { state in
            state.isLoaded = false
            mirror(state)
        }
    }

    /// The version of the newest removal that covers a record with `tags` stored at `version`,
    /// or nil if none does (the record is current as far as tag removals go).
    func removal(of tags: [String], storedAt version: Double) -> Double? {
        state.withLock { state in
            var newest: Double? = nil
            for tag in tags {
                if let clock = state.clocks[tag], clock >= version { newest = max(newest ?? clock, clock) }
                if !state.floors.isEmpty {
                    let floor = state.floors[Self.bucket(of: tag)]
                    if floor >= version { newest = max(newest ?? floor, floor) }
                }
            }
            return newest
        }
    }

    /// Whether any clock or floor is held: if not, no record needs its tags read.
    var isEmpty: Bool { !holdsAny.value }

    /// Stores what ``isLoaded`` and ``isEmpty`` read, after a change of `state` (under its lock).
    private func mirror(_ state: State) {
        loaded.set(state.isLoaded)
        holdsAny.set(!(state.clocks.isEmpty && state.floors.isEmpty))
    }

    /// Takes in the removal of `tag` at `version` (a stream entry, this node's own publication);
    /// returns whether it is newer than the clock held.
    @discardableResult
    func note(_ tag: String, version: Double) -> Bool {
        guard version.isFinite else { return false }
        return state.withLock { state in
            defer {
                fold(&state)
                mirror(state)
            }
            if let clock = state.clocks[tag], clock >= version { return false }
            state.clocks[tag] = version
            return true
        }
    }

    /// Takes in the clocks and floors read from Redis (`floors`: the `f` key's bytes) and marks
    /// the clocks loaded; returns the clocks newer than those held, which the node then applies
    /// to its own store (its copies may predate removals it never heard of).
    func merge(clocks: [(tag: String, version: Double)], floors: [UInt8]) -> [(tag: String, version: Double)] {
        state.withLock { state in
            var learned: [(tag: String, version: Double)] = []
            for (tag, version) in clocks where version.isFinite {
                if let clock = state.clocks[tag], clock >= version { continue }
                state.clocks[tag] = version
                learned.append((tag, version))
            }
            let read = Self.floors(from: floors)
            if !read.isEmpty {
                if state.floors.isEmpty { state.floors = Array(repeating: 0, count: Self.bucketCount) }
                for (bucket, floor) in read.enumerated() where floor > state.floors[bucket] { state.floors[bucket] = floor }
            }
            state.isLoaded = true
            fold(&state)
            mirror(state)
            return learned
        }
    }

    /// What the node holds, to restore in a Redis that lost it: the clocks, and the floors as
    /// the `f` key's bytes (empty when there are none).
    func snapshot() -> (clocks: [(tag: String, version: Double)], floors: [UInt8]) {
        state.withLock { state in
            var bytes: [UInt8] = []
            bytes.reserveCapacity(state.floors.count * 8)
            for floor in state.floors {
                withUnsafeBytes(of: floor.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
            }
            return (state.clocks.map { ($0.key, $0.value) }, bytes)
        }
    }

    /// The floors in the `f` key's bytes: one Float64 (little-endian) per bucket; a NaN, or
    /// bytes past the last bucket, are not a floor.
    static func floors(from bytes: [UInt8]) -> [Double] {
        guard !bytes.isEmpty else { return [] }
        var floors = Array(repeating: 0.0, count: bucketCount)
        for bucket in 0..<min(bucketCount, bytes.count / 8) {
            var bits: UInt64 = 0
            for index in 0..<8 { bits |= UInt64(bytes[bucket * 8 + index]) << (8 * index) }
            let floor = Double(bitPattern: bits)
            if floor.isFinite { floors[bucket] = floor }
        }
        return floors
    }

    /// Folds the clocks older than ``lifetime`` into their buckets' floors, at most once a second.
    private func fold(_ state: inout State) {
        let now = Date().timeIntervalSinceReferenceDate
        guard now - state.foldedAt >= 1 else { return }
        state.foldedAt = now
        let cutoff = now - lifetime
        let expired = state.clocks.filter { $0.value < cutoff }
        guard !expired.isEmpty else { return }
        if state.floors.isEmpty { state.floors = Array(repeating: 0, count: Self.bucketCount) }
        for (tag, version) in expired {
            let bucket = Self.bucket(of: tag)
            state.floors[bucket] = max(state.floors[bucket], version)
            state.clocks[tag] = nil
        }
    }
}
