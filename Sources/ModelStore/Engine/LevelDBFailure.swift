internal import CLevelDB

/// An error reported by LevelDB through its C API's `errptr`, classified by the status
/// prefix LevelDB puts in front of every message.
struct LevelDBFailure: Error, Sendable {
    enum Kind: Sendable {
        case notFound, corruption, notSupported, invalidArgument, ioError, other
    }

    let kind: Kind
    let message: String

    init(message: String) {
        self.message = message
        if message.hasPrefix("NotFound:") {
            kind = .notFound
        } else if message.hasPrefix("Corruption:") {
            kind = .corruption
        } else if message.hasPrefix("Not implemented:") {
            kind = .notSupported
        } else if message.hasPrefix("Invalid argument:") {
            kind = .invalidArgument
        } else if message.hasPrefix("IO error:") {
            kind = Self.isReadPastEndOfTable(message) ? .corruption : .ioError
        } else {
            kind = .other
        }
    }

    /// LevelDB reports a held `LOCK` file as an I/O error; callers want to know it apart.
    var isLockConflict: Bool {
        kind == .ioError && message.contains("/LOCK")
            && (message.contains("already held") || message.contains("temporarily unavailable")
                || message.contains("Resource busy"))
    }

    /// A read past the end of a table file: LevelDB reads tables through memory maps and
    /// reports a block handle that points beyond the mapping as `EINVAL` on the table file,
    /// where a plain read would have said "truncated block read". Only a damaged table (a
    /// flipped byte in its footer or index) holds such a handle, so it is damage, not I/O:
    /// classified as ``Kind/corruption`` (so a corruption policy applies to it too).
    static func isReadPastEndOfTable(_ message: String) -> Bool {
        message.hasSuffix(": Invalid argument") && (message.contains(".ldb:") || message.contains(".sst:"))
    }
}

/// The single funnel for LevelDB calls that report errors through `errptr`.
///
/// LevelDB hands back a `malloc`'d message that the caller owns; this frees it with
/// `leveldb_free` in every case, so no call site can forget to.
@inline(__always)
func withLevelDBErrorPointer<Result>(
    _ body: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Result
) throws(LevelDBFailure) -> Result {
    var message: UnsafeMutablePointer<CChar>? = nil
    let result = body(&message)
    if let message {
        let text = String(cString: message)
        leveldb_free(message)
        throw LevelDBFailure(message: text)
    }
    return result
}
