public import Foundation

// Without this conformance Foundation describes the error by its type and case number
// ("The operation could not be completed. (ModelStore.ModelStoreError error 1.)"), and that
// is what `error.localizedDescription`, most loggers and UI alerts show.
extension ModelStoreError: LocalizedError {
    /// The same sentence as ``description``: what went wrong and what to do about it.
    public var errorDescription: String? {
        description
    }
}
