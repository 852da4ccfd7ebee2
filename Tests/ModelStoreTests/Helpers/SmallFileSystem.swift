import Foundation
#if canImport(Glibc)
import Glibc
import ModelStoreTestSupport
#endif

/// A tiny tmpfs mounted for one test, so "disk full" is real rather than simulated.
///
/// Mounting needs root with CAP_SYS_ADMIN (true in this project's containers and CI);
/// ``mount(megabytes:)`` returns nil with a reason where it is not allowed.
final class SmallFileSystem {
    let directory: TemporaryDirectory
    var path: String { directory.path }

    private init(directory: TemporaryDirectory) {
        self.directory = directory
    }

    /// Mounts a tmpfs of `megabytes` MiB, or explains why it cannot.
    static func mount(megabytes: Int) -> Result<SmallFileSystem, SkipReason> {
        #if os(Linux)
        let directory = TemporaryDirectory()
        let result = Glibc.mount("tmpfs", directory.path, "tmpfs", 0, "size=\(megabytes)m,mode=0755")
        guard result == 0 else {
            let reason = String(cString: strerror(errno))
            return .failure(SkipReason("cannot mount a tmpfs (\(reason)); needs root with CAP_SYS_ADMIN"))
        }
        return .success(SmallFileSystem(directory: directory))
        #else
        return .failure(SkipReason("tmpfs mounts are only tried on Linux"))
        #endif
    }

    /// Why tmpfs cannot be mounted here, or nil if it can (probed once, and printed).
    static let unavailableReason: String? = {
        switch mount(megabytes: 1) {
        case .success:
            return nil
        case .failure(let reason):
            print("Disk-full tests on tmpfs are skipped: \(reason)")
            return reason.description
        }
    }()

    deinit {
        #if os(Linux)
        _ = umount2(path, Int32(MNT_DETACH))
        #endif
    }

    /// Fills the file system until a write fails, in a file `fill` that can be removed later
    /// to free the space again.
    func fill() {
        let fd = open(path + "/fill", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { return }
        defer { close(fd) }
        let chunk = [UInt8](repeating: 0xA5, count: 64 << 10)
        while chunk.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) > 0 {}
    }

    /// Frees the space taken by ``fill()``.
    func free() {
        unlink(path + "/fill")
    }
}

/// Why a test could not run its real scenario here.
struct SkipReason: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
