import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// The engine admits calls through a `CallGate` instead of a read-write lock: a close must
/// still wait for every call inside LevelDB and turn every later one back. Run under
/// ThreadSanitizer by `scripts/sanitize thread`.
@Suite("Closing while calls are in flight")
struct EngineCloseConcurrencyTests {
    @Test("Closing while 4 threads read, write and snapshot: each call answers or throws closed, and LevelDB sees no call after")
    func closeDuringCalls() throws {
        for round in 0..<20 {
            let fixture = Fixture()
            let store = try fixture.open()
            for number in 0..<100 { try store.set(number, forKey: "k\(number)") }
            let engine = store.database.engine
            let stop = Locked(false)
            let unexpected = Locked<[String]>([])
            let finished = DispatchSemaphore(value: 0)
            for worker in 0..<4 {
                Thread {
                    defer { finished.signal() }
                    var step = 0
                    while !stop.withLock({ $0 }) {
                        do {
                            switch (worker + step) % 3 {
                            case 0: _ = try store.object(Int.self, forKey: "k\(step % 100)")
                            case 1: try store.set(step, forKey: "k\(step % 100)")
                            default: _ = try store.snapshot().object(Int.self, forKey: "k\(step % 100)")
                            }
                        } catch ModelStoreError.closed {
                            // The call came after the close: the answer a closed store gives.
                        } catch {
                            unexpected.withLock { $0.append("round \(round): \(error)") }
                        }
                        step += 1
                    }
                }.start()
            }
            usleep(UInt32(500 + round * 100))
            try store.close()
            stop.withLock { $0 = true }
            for _ in 0..<4 { finished.wait() }
            // Closed once the last snapshot the threads held was released; every snapshot and
            // iterator freed, none created after.
            #expect(!engine.isOpen)
            #expect(engine.liveChildCount == 0)
            let errors = unexpected.withLock { $0 }
            #expect(errors.isEmpty, "\(errors.count) unexpected errors, first: \(errors.first ?? "")")
        }
    }
}
