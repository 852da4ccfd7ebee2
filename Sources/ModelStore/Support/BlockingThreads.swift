import Foundation

/// Threads for work that blocks on the network: the shared tier's round trips (a Redis read, a
/// write waiting for its publication), handed off by callers in tasks.
///
/// Not Dispatch's: on Linux a queue created with `.concurrent` targets the same thread pool as
/// Swift's cooperative pool (the global queue of its priority, about one thread per core), so
/// work blocked there holds the threads every task needs, until Dispatch's monitor adds one
/// about a second later (issue 37 measured such stalls). Here a job runs at once on an idle
/// thread, or on a new one while fewer than `limit` exist; a thread idle for ``idleLifetime`` ends.
package final class BlockingThreads: @unchecked Sendable {
    // @unchecked: `jobs`, `idle` and `count` are only touched with `condition` locked.
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var next = 0
    private var idle = 0
    private var count = 0
    private let name: String
    private let limit: Int

    /// How long a thread waits for a job before it ends.
    static let idleLifetime: TimeInterval = 10

    /// Threads named `name`, at most `limit` of them.
    package init(name: String, limit: Int) {
        self.name = name
        self.limit = limit
    }

    /// Runs `work` on one of the threads, as soon as one is free (or can be started).
    package func run(_ work: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(work)
        // More jobs waiting than idle threads to take them: one more thread, within the limit.
        let start = jobs.count - next > idle && count < limit
        if start { count += 1 }
        condition.signal()
        condition.unlock()
        guard start else { return }
        let thread = Thread { [self] in serve() }
        thread.name = name
        thread.start()
    }

    private func serve() {
        condition.lock()
        while true {
            if next < jobs.count {
                let job = jobs[next]
                next += 1
                // The taken prefix is dropped once it is half the array, so taking a job is O(1).
                if next * 2 >= jobs.count {
                    jobs.removeFirst(next)
                    next = 0
                }
                condition.unlock()
                job()
                condition.lock()
                continue
            }
            idle += 1
            let signaled = condition.wait(until: Date(timeIntervalSinceNow: Self.idleLifetime))
            idle -= 1
            // Idle that long with nothing queued: the thread ends (a tier shut down leaves none).
            if !signaled, next >= jobs.count {
                count -= 1
                condition.unlock()
                return
            }
        }
    }
}

/// The threads ``offload(waitingOnTier:_:)`` runs the shared tier's waits on (64 at most: more
/// callers than that waiting on Redis at once queue for a thread).
let tierThreads = BlockingThreads(name: "ModelStore.sharedTier", limit: 64)
