#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - Why this exists
//
// LevelDB's repair (`RepairDB`, repair.cc) replays `*.log` files with checksums turned OFF,
// so a record whose bytes were damaged comes back with a silently wrong value (observed:
// one flipped byte in a log, one wrong value after repair). A normal open reads the same
// log with checksums on and drops the damaged record instead.
//
// Before ModelStore lets LevelDB repair a database, it checks every log record's checksum
// itself and neutralises each damaged one (in a copy of the log, renamed over it) by
// rewriting three bytes of its header to a
// "zero-length, zero-type" record. LevelDB's reader treats such a header as padding and
// skips the rest of its 32 KiB block, which is exactly what the checksumming reader does
// after a checksum mismatch. The repair then loses the damaged records (as LevelDB's own
// recovery would) instead of resurrecting garbage.
//
// LevelDB log format (doc/log_format.md): the file is a sequence of 32 KiB blocks; each
// block holds physical records
//
//   offset  size  field
//        0     4  masked CRC-32C of (type byte + payload), little-endian
//        4     2  payload length, little-endian
//        6     1  type: 1 full, 2 first, 3 middle, 4 last (0 = padding)
//        7     n  payload
//
// and a block's last 0-6 bytes are zero padding when no header fits.

/// Finds and neutralises damaged records in LevelDB write-ahead logs before a repair.
enum LevelDBLogScrubber {
    static let blockSize = 32 * 1024
    static let headerSize = 7

    /// Offsets of the physical records in a log's `bytes` whose checksum does not match,
    /// and which LevelDB's repair (reading without checksums) would therefore replay.
    ///
    /// A record cut short by the end of the file is a torn write from a crash, which
    /// LevelDB already ignores; it is not reported.
    static func damagedRecordOffsets(in bytes: UnsafeRawBufferPointer) -> [Int] {
        var damaged: [Int] = []
        var blockStart = 0
        while blockStart < bytes.count {
            let blockEnd = min(blockStart + blockSize, bytes.count)
            var position = blockStart
            while blockEnd - position >= headerSize {
                let length = Int(bytes[position + 4]) | Int(bytes[position + 5]) << 8
                let type = bytes[position + 6]
                // LevelDB's reader drops the rest of the block itself for a record that
                // overruns it, and skips the rest of the block at a padding header.
                if position + headerSize + length > blockEnd { break }
                if type == 0 && length == 0 { break }
                let stored = CRC32C.unmask(bytes.loadUnaligned(fromByteOffset: position, as: UInt32.self).littleEndian)
                let actual = CRC32C.checksum(UnsafeRawBufferPointer(
                    rebasing: bytes[(position + 6)..<(position + headerSize + length)]))
                if stored != actual {
                    damaged.append(position)
                    break  // as the checksumming reader does: nothing after it in the block is trusted
                }
                position += headerSize + length
            }
            blockStart += blockSize
        }
        return damaged
    }

    /// The prefix of the scrubbed copy written next to a log before it replaces the log.
    static let copyPrefix = ".modelstore-scrubbed-"

    /// Checks the log at `path` and neutralises its damaged records; returns how many it
    /// neutralised.
    ///
    /// The log is never patched in place: the patched bytes go to a new file that is flushed
    /// and then renamed over the log. A repair keeps hard links to the original logs as its
    /// backup (``RepairJournal``), and an in-place write would change the backup too.
    static func scrub(logAt path: String) throws(FileFailure) -> Int {
        // Plain POSIX I/O: no Foundation buffer is involved (Data(contentsOf:) leaked a 4 KiB
        // buffer per empty log under LeakSanitizer).
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            throw FileFailure(path: path, message: "cannot open the log to check it: \(systemErrorMessage())")
        }
        var contents: [UInt8]
        do {
            defer { _ = closeDescriptor(fd) }
            contents = try readAll(fd, path: path)
        }
        let damaged = contents.withUnsafeBytes { damagedRecordOffsets(in: $0) }
        guard !damaged.isEmpty else { return 0 }

        for offset in damaged {
            // Length 0, type 0: LevelDB's reader skips the rest of the block.
            contents[offset + 4] = 0
            contents[offset + 5] = 0
            contents[offset + 6] = 0
        }
        // `path` is always `<database directory>/<n>.log`.
        let slash = path.lastIndex(of: "/") ?? path.startIndex
        let directory = slash == path.startIndex ? "." : String(path[..<slash])
        let copy = directory + "/" + copyPrefix + path[path.index(after: slash)...]
        try DatabaseFiles.writeSynced(contents, to: copy)
        guard rename(copy, path) == 0 else {
            let reason = systemErrorMessage()
            _ = unlink(copy)
            throw FileFailure(path: path, message: "cannot replace the log with its checked copy: \(reason)")
        }
        try DatabaseFiles.syncDirectory(directory)
        return damaged.count
    }

    private static func readAll(_ fd: Int32, path: String) throws(FileFailure) -> [UInt8] {
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw FileFailure(path: path, message: "cannot read the log to check it: \(systemErrorMessage())")
        }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes { buffer in
                pread(fd, buffer.baseAddress! + filled, buffer.count - filled, off_t(filled))
            }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else {
                throw FileFailure(path: path, message: "cannot read the log to check it: \(systemErrorMessage())")
            }
            if count == 0 { break }  // the file shrank; check what there is
            filled += count
        }
        bytes.removeSubrange(filled...)
        return bytes
    }
}
