#if Hummingbird
import Foundation

/// A fixed set of locks that serialises read-modify-write calls on the same key within this
/// process, such as `create` (check, then write) and `set` with KEEPTTL (read the remaining
/// lifetime, then write).
///
/// A key picks its lock by a hash of its UTF-8 bytes, because ModelStore compares keys by
/// bytes: two keys with the same bytes always share a lock. Different keys may share one too,
/// which only costs a little waiting. The table is shared by every driver in the process, so
/// two drivers over the same database also exclude each other (another process cannot open it).
final class KeyLocks: Sendable {
    /// Every driver in the process uses this table.
    static let shared = KeyLocks(count: 64)

    private let locks: [NSLock]

    init(count: Int) {
        locks = (0..<count).map { _ in NSLock() }
    }

    /// Runs `body` holding the lock for `key`. Call it off Swift's cooperative pool: `body`
    /// blocks on LevelDB, and a waiter blocks on the lock.
    func withLock<Result>(for key: String, _ body: () throws -> Result) rethrows -> Result {
        let lock = locks[index(for: key)]
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// FNV-1a over the key's UTF-8 bytes: deterministic, and equal bytes give an equal index.
    func index(for key: String) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return Int(hash % UInt64(locks.count))
    }
}
#endif
