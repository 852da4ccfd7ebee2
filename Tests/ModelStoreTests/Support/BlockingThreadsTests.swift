import Foundation
import Testing
@testable import ModelStore

/// The threads the shared tier's waits run on: a job never waits behind another that blocks
/// (while under the limit), and beyond the limit jobs queue rather than start more threads.
@Suite("Blocking threads")
struct BlockingThreadsTests {
    /// Eight jobs that each block until all eight run: they can only all start within the wait
    /// if each gets a thread of its own at once. (With a concurrent Dispatch queue in its place,
    /// FleetReadPathTests saw a task wait 1.6 s for a thread of the cooperative pool.)
    @Test func jobsThatBlockEachGetAThread() {
        let threads = BlockingThreads(name: "test.blocking", limit: 16)
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        for _ in 0..<8 {
            threads.run {
                started.signal()
                release.wait()
                finished.signal()
            }
        }
        var running = 0
        for _ in 0..<8 where started.wait(timeout: .now() + .milliseconds(500)) == .success { running += 1 }
        #expect(running == 8)
        for _ in 0..<8 { release.signal() }
        var done = 0
        for _ in 0..<8 where finished.wait(timeout: .now() + .seconds(5)) == .success { done += 1 }
        #expect(done == 8)
    }

    /// With a limit of two, a third blocking job waits for one of the two to end, then runs.
    @Test func jobsBeyondTheLimitWaitForAThread() {
        let threads = BlockingThreads(name: "test.blocking", limit: 2)
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        for _ in 0..<3 {
            threads.run {
                started.signal()
                release.wait()
            }
        }
        #expect(started.wait(timeout: .now() + .seconds(5)) == .success)
        #expect(started.wait(timeout: .now() + .seconds(5)) == .success)
        #expect(started.wait(timeout: .now() + .milliseconds(200)) == .timedOut)
        release.signal()
        #expect(started.wait(timeout: .now() + .seconds(5)) == .success)
        release.signal()
        release.signal()
    }
}
