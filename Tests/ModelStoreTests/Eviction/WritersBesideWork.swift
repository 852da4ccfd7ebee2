import Dispatch
import ModelStoreTestSupport

/// Writers beside other work (a sweep, say), for the limits' tests: each of `writers` threads
/// calls `write(writer, index)` for index 0, 1, … until `work` has returned on each of its
/// `workers` threads and it made at least `minimum` writes; `work` starts once the first writer
/// made `startAfter` writes (0: at once), so that it runs while writes arrive.
func write(
    on writers: Int = 1, atLeast minimum: Int, startingWorkAfter startAfter: Int = 0, workers: Int = 1,
    _ write: @escaping @Sendable (_ writer: Int, _ index: Int) throws -> Void,
    beside work: @escaping @Sendable () throws -> Void
) async throws {
    let started = DispatchSemaphore(value: 0)
    let finished = Counter()
    try await withThrowingTaskGroup(of: Void.self) { group in
        for writer in 0..<writers {
            group.addTask {
                try await offloadForTest {
                    // Also if the writer throws first: the work must not wait for ever.
                    func start() { for _ in 0..<workers { started.signal() } }
                    defer { if writer == 0 { start() } }
                    if writer == 0 && startAfter == 0 { start() }
                    var index = 0
                    while finished.value < workers || index < minimum {
                        try write(writer, index)
                        index += 1
                        if writer == 0 && index == startAfter { start() }
                    }
                }
            }
        }
        for _ in 0..<workers {
            group.addTask {
                try await offloadForTest {
                    started.wait()
                    defer { finished.add() }
                    try work()
                }
            }
        }
        try await group.waitForAll()
    }
}
