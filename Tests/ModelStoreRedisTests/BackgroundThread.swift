import Foundation
@testable import ModelStoreRedis

/// Runs `body` on a thread of its own (a blocking Redis call whose reply a test holds back, a
/// writer racing another), and returns a way to wait for its result: nil if it did not finish
/// within 30 s.
func onThread<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) -> @Sendable () -> Result<Value, any Error>? {
    let done = DispatchSemaphore(value: 0)
    let result = Guarded<Result<Value, any Error>?>(nil)
    Thread {
        result.withLock { $0 = Result { try body() } }
        done.signal()
    }.start()
    return {
        _ = done.wait(timeout: .now() + 30)
        return result.withLock { $0 }
    }
}
