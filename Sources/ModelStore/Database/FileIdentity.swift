#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A file's identity in the file system: its device and inode numbers.
///
/// The registry keys open databases by their marker file's identity rather than by a path
/// string. Paths are compared byte for byte by the file system but by canonical equivalence
/// by `String` ("café" in NFC and NFD are equal Strings, yet two folders on Linux); and one
/// folder can have several spellings (APFS maps both normalisations to one folder). The
/// identity is what the file system itself says is one file. An open descriptor keeps its
/// inode alive, so while a database is open its marker's number cannot be reused by another
/// file.
struct FileIdentity: Hashable, Sendable {
    let device: UInt64
    let inode: UInt64

    init(_ info: stat) {
        device = UInt64(truncatingIfNeeded: info.st_dev)
        inode = UInt64(truncatingIfNeeded: info.st_ino)
    }
}
