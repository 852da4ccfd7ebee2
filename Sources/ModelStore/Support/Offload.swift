import Dispatch
import ServiceContextModule

/// Runs blocking file-system work (and the shared tier's blocking calls) on a Dispatch queue,
/// so async callers never block a thread of Swift's cooperative pool (or assume a main thread,
/// which servers lack).
///
/// The caller's `ServiceContext` goes with the work: task-local values do not cross into
/// Dispatch, and without it a span the work starts (a Redis round trip's) would begin a trace
/// of its own instead of joining the request's.
func offload<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
    let context = ServiceContext.current
    return try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global(qos: .utility).async {
            continuation.resume(with: Result { try ServiceContext.withValue(context) { try work() } })
        }
    }
}
