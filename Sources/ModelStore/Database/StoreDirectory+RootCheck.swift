#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension StoreDirectory {
    /// Throws ``ModelStoreError/notADirectory(path:)`` when `path`, or the nearest part of it
    /// that exists, is not a directory (a regular file, a socket, a symbolic link to a file).
    ///
    /// Without it a file as the root surfaced as an `io` error from creating or listing the
    /// directory, whose advice (disk space, permissions) sent users the wrong way. Any other
    /// failure (a missing permission, for one) is left for the caller to report as before.
    static func requireDirectory(atOrAbove path: String) throws(ModelStoreError) {
        var candidate = path
        while true {
            var info = stat()
            if stat(candidate, &info) == 0 {
                guard info.st_mode & S_IFMT == S_IFDIR else { throw .notADirectory(path: candidate) }
                return
            }
            // ENOTDIR: something above is not a directory; ENOENT: look at what does exist.
            guard errno == ENOTDIR || errno == ENOENT, let slash = candidate.lastIndex(of: "/"),
                candidate != "/"
            else { return }
            candidate = slash == candidate.startIndex ? "/" : String(candidate[..<slash])
        }
    }
}
