package import Foundation

/// One spare object per thread, so that back-to-back calls on a thread reuse the previous call's state and its
/// memory instead of allocating them again.
///
/// Codecs and the store's write path are used by many threads at once, so the spare lives in thread-specific
/// storage: each thread only ever sees its own, and no lock or atomic operation is needed. A call ``take()``s the
/// spare, leaving the slot empty, so a nested call on the same thread (a codec call inside a model's `encode(to:)`
/// or `init(from:)`, say) makes its own object; ``putBack(_:)`` offers it back afterwards.
///
/// The caller must only put back an object that nothing else refers to: a model may keep its `Encoder` or
/// `Decoder` past the call, and a codec state that is still reachable that way must never serve another call.
package struct ThreadSpare<Object: AnyObject>: Sendable {
    /// Nil if the system ran out of thread-specific keys; every call then allocates, as it would without spares.
    @usableFromInline let key: pthread_key_t?

    package init() {
        var key = pthread_key_t()
        // The destructor runs when a thread exits with a spare in its slot and drops the slot's reference.
        let created = pthread_key_create(&key) { releaseThreadSpare($0) }
        self.key = created == 0 ? key : nil
    }

    /// The calling thread's spare, which the caller now owns; nil if the thread has none.
    // Inlinable so that the store's write path, in another module, still gets a specialized, inlined call.
    @inlinable
    package func take() -> Object? {
        guard let key, let spare = pthread_getspecific(key) else { return nil }
        pthread_setspecific(key, nil)
        return Unmanaged<Object>.fromOpaque(spare).takeRetainedValue()
    }

    /// Keeps `object` as the calling thread's spare, unless the thread already has one (a nested call put its own
    /// back first), in which case `object` is simply released.
    @inlinable
    package func putBack(_ object: Object) {
        guard let key, pthread_getspecific(key) == nil else { return }
        pthread_setspecific(key, Unmanaged.passRetained(object).toOpaque())
    }
}

/// Releases the reference a thread's slot held; a free function because the destructor is a C function pointer.
/// (The pointer is optional in Glibc's signature and not in Darwin's; taking an optional accepts both.)
private func releaseThreadSpare(_ spare: UnsafeMutableRawPointer?) {
    guard let spare else { return }
    Unmanaged<AnyObject>.fromOpaque(spare).release()
}
