import Dispatch

/// Runs blocking file-system work on a Dispatch queue, so async callers never block a
/// thread of Swift's cooperative pool (or assume a main thread, which servers lack).
func offload<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global(qos: .utility).async {
            continuation.resume(with: Result { try work() })
        }
    }
}
