import Dispatch
import ServiceContextModule

/// Runs blocking file-system work (and the shared tier's blocking calls) on a Dispatch queue,
/// so async callers never block a thread of Swift's cooperative pool (or assume a main thread,
/// which servers lack).
///
/// The caller's `ServiceContext` goes with the work: task-local values do not cross into
/// Dispatch, and without it a span the work starts (a Redis round trip's) would begin a trace
/// of its own instead of joining the request's.
///
/// - Parameter waitingOnTier: The work waits on the shared tier's network round trips (a Redis
///   read, a write's publication): it runs on ``tierThreads``, not on a global queue. Dispatch
///   runs a global queue's work on about as many threads as there are cores, and cannot tell a
///   thread blocked in a socket read from a busy one: a few waits there held back every other
///   offload (issue 37: the fleet benchmark's reads took milliseconds in that queue).
func offload<Value: Sendable>(
    waitingOnTier: Bool = false, _ work: @escaping @Sendable () throws -> Value
) async throws -> Value {
    let context = ServiceContext.current
    return try await withCheckedThrowingContinuation { continuation in
        let job: @Sendable () -> Void = {
            continuation.resume(with: Result { try ServiceContext.withValue(context) { try work() } })
        }
        if waitingOnTier {
            tierThreads.run(job)
        } else {
            DispatchQueue.global(qos: .utility).async(execute: job)
        }
    }
}

