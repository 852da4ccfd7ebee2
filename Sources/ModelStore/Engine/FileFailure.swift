#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A file-system call on a database's files failed: the engine's own error for its file work
/// (listing, flushing, replacing files), converted into the store's error where the store calls it.
struct FileFailure: Error {
    /// The file or folder involved.
    let path: String
    /// What failed, with the system's reason.
    let message: String
}

/// The system's description of the last error (`errno`).
func systemErrorMessage() -> String {
    String(cString: strerror(errno))
}
