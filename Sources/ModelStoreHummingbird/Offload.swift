#if Hummingbird
import Dispatch

/// Runs blocking LevelDB work on a Dispatch queue, so that no thread of Swift's cooperative
/// pool ever waits on the disk or on a key lock (ModelStore's own calls are synchronous).
func offload<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(with: Result { try work() })
        }
    }
}
#endif
