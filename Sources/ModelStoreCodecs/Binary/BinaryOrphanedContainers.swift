import Foundation

/// Keeps the cells of decoding containers that a model still holds after their state went away, and lets them go
/// once the model drops the container.
///
/// A kept container reads its cell without retaining it (see ``BinaryKeyedDecodingContainer``), so when a
/// ``BinaryDecodingState`` goes away while a model still holds one of its containers, something else must keep
/// that cell alive for as long as the container lives. The state hands the container's box and its cell over here.
/// This holds both; the box's reference count then tells whether anyone else still holds the container, and once
/// nobody does, both are released. That check runs whenever the number held has doubled since the last one, so
/// memory stays within twice what models really hold and each handover costs amortised O(1).
///
/// This only happens when a model keeps a `KeyedDecodingContainer` past its `init(from:)`, which is rare; the
/// lock is taken only then.
package final class BinaryOrphanedContainers: @unchecked Sendable {
    /// The one place for every state's orphans (states are per thread and short-lived; orphans outlive them).
    package static let shared = BinaryOrphanedContainers()

    private struct Orphan {
        /// The container's box; the only reference left when the model has dropped the container.
        var box: AnyObject
        /// The cell the container reads, retained here because the container does not retain it.
        let cell: AnyObject
    }

    private let lock = NSLock()
    // Guarded by `lock`.
    private var orphans: [Orphan] = []
    // Guarded by `lock`: the count at which the next adoption checks which orphans are still held.
    private var nextCheck = 16

    /// Keeps `cell` alive for as long as someone other than this object holds `box`.
    func adopt(box: AnyObject, cell: AnyObject) {
        lock.lock()
        defer { lock.unlock() }
        orphans.append(Orphan(box: box, cell: cell))
        if orphans.count >= nextCheck {
            releaseDropped()
            nextCheck = max(16, orphans.count * 2)
        }
    }

    /// How many cells are held, after releasing those whose container nobody holds any more.
    package func countHeld() -> Int {
        lock.lock()
        defer { lock.unlock() }
        releaseDropped()
        return orphans.count
    }

    // Called with `lock` held.
    private func releaseDropped() {
        // Through a buffer pointer, so that reading a box does not copy it (a copy never looks uniquely referenced).
        let remaining = orphans.withUnsafeMutableBufferPointer { orphans in
            var kept = 0
            for index in orphans.indices where !isKnownUniquelyReferenced(&orphans[index].box) {
                orphans.swapAt(kept, index)
                kept += 1
            }
            return kept
        }
        orphans.removeLast(orphans.count - remaining)
    }
}
