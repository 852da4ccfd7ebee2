import Foundation
import Logging

/// Runs ``ModelStore/removeExpiredObjects()`` on a timer, on its own background queue.
///
/// It holds its store weakly, so it never keeps a store open; the store cancels it when it is
/// closed or released.
final class AutomaticSweeper: @unchecked Sendable {
    // @unchecked: the timer is immutable after init, and Dispatch sources are thread-safe.
    private let timer: any DispatchSourceTimer

    init(store: ModelStore, interval: TimeInterval) {
        let queue = DispatchQueue(label: "ModelStore.sweep.\(store.name)", qos: .utility)
        timer = DispatchSource.makeTimerSource(queue: queue)
        // At least 1 ms, at most a year: a longer interval would overflow Dispatch's time.
        let nanoseconds = TimeBounds.nanoseconds(ofWait: TimeBounds.sweepWait(seconds: interval))
        timer.schedule(
            deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds),
            leeway: .nanoseconds(nanoseconds / 10))
        timer.setEventHandler { [weak store] in
            guard let store, !store.isClosed else { return }
            do {
                try store.removeExpiredObjects()
            } catch ModelStoreError.closed {
                return
            } catch {
                store.database.logger.warning(
                    "Automatic sweep failed", metadata: ["database": "\(store.url.path)", "error": "\(error)"])
            }
        }
        timer.resume()
    }

    /// Stops the timer. A sweep already running finishes first.
    func cancel() {
        timer.cancel()
    }

    deinit {
        timer.cancel()
    }
}
