import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - A consistent copy of a database's files, while another process may be writing
//
// LevelDB never rewrites a table file (`*.ldb`, `*.sst`): it writes new ones and deletes old
// ones. It appends to the live log (`*.log`) and to the MANIFEST that `CURRENT` names, and every
// change to the set of tables (a memtable flushed, a compaction) is one edit appended to that
// MANIFEST before any file it makes obsolete is deleted. So a round of copying
//
//   1. read CURRENT and the size of the MANIFEST it names;
//   2. copy exactly that many bytes of the MANIFEST;
//   3. copy the logs, oldest first (each to its end: a record cut short at the end is one
//      LevelDB's recovery treats as never written), and link (or copy) every table numbered
//      below the copied MANIFEST's next file number (see ManifestReader: the others are newer
//      than it, and a link to one could be truncated by the copy's own LevelDB);
//   4. read CURRENT and the MANIFEST's size again;
//
// is consistent when step 4 reads what step 1 did: no edit happened in between, so every table
// the copied MANIFEST names was still there to link, and every log it still needs was copied
// (LevelDB deletes a log only after the edit that makes it obsolete). Otherwise the round is
// thrown away and tried again. Opening the copy then recovers it like a database after a crash
// at the moment the round began. The copy's `CURRENT` is written last.
//
// `LOG`, `LOCK` and temporaries carry no data and are not copied; nothing is written to the
// source (it is only read, and the tables only linked).

/// Copies a database's LevelDB files consistently, retrying while the source changes.
enum DatabaseFileCopy {
    /// What a copy did.
    struct Outcome {
        /// How many rounds it took (1 when nothing changed the source meanwhile).
        var rounds = 0
        /// Bytes of table files hard-linked (no data copied).
        var linkedBytes: UInt64 = 0
        /// Bytes copied.
        var copiedBytes: UInt64 = 0
    }

    /// How many rounds a copy tries before it gives up (each round waits a little longer).
    static let maximumRounds = 200

    /// Copies the LevelDB files of the database folder `source` into the existing folder
    /// `destination`, which holds no LevelDB files.
    ///
    /// - Parameters:
    ///   - linkingTables: Hard-link table files where the file system allows (a private copy
    ///     that is removed afterwards); copy them otherwise, or when false (a restore, which
    ///     must not share files with its backup).
    ///   - progress: Called with the bytes copied so far in the round.
    static func copy(
        from source: String, to destination: String, linkingTables: Bool,
        progress: (UInt64) -> Void = { _ in }
    ) throws(ModelStoreError) -> Outcome {
        try refusePendingWork(in: source)
        var outcome = Outcome()
        while true {
            outcome.rounds += 1
            var round = Outcome(rounds: outcome.rounds)
            let consistent = try copyRound(
                from: source, to: destination, linkingTables: linkingTables, into: &round, progress: progress)
            if consistent {
                return round
            }
            try removeCopiedFiles(in: destination)
            guard outcome.rounds < maximumRounds else {
                throw .io(
                    path: source,
                    message: "the database changed during each of \(maximumRounds) attempts to copy it; try again "
                        + "when it is less busy")
            }
            usleep(useconds_t(min(outcome.rounds, 50) * 1_000))
        }
    }

    /// One round; true when it is consistent (see above).
    /// Throws when `source` holds the journal of an interrupted repair or reset: its LevelDB files
    /// are then half changed (a repair killed after LevelDB archived a log leaves a MANIFEST
    /// without that log's records), and only finishing the work, which writes, shows what the
    /// database holds. A copy of those files would show, or install, a wrong state as if it
    /// were right.
    static func refusePendingWork(in source: String) throws(ModelStoreError) {
        for (journal, work) in [(RepairJournal.journalName, "repair"), (DatabaseResetter.journalName, "reset")] {
            var info = stat()
            guard lstat(source + "/" + journal, &info) == 0 else { continue }
            // The command, not the API call, as the private copy's refusal says it: the tool
            // quotes this message as it is, and the description adds the API's advice.
            let (root, name) = ToolCommand.split(source)
            let repair = ToolCommand("repair", [name], options: [.init("root", root)])
            throw .corrupted(
                path: source,
                message: "an interrupted \(work) is pending (\(journal)), so its files alone do not show what the "
                    + "database holds; finish it with `\(repair)` or by opening the database in its program, then "
                    + "copy it")
        }
    }

    private static func copyRound(
        from source: String, to destination: String, linkingTables: Bool, into outcome: inout Outcome,
        progress: (UInt64) -> Void
    ) throws(ModelStoreError) -> Bool {
        guard let current = try readCurrent(in: source) else {
            // No CURRENT: an empty database (nothing to copy), or a damaged one.
            let names = try fileOperation { try DatabaseFiles.listing(of: source) }
            if names.contains(where: { [.writeAheadLog, .table].contains(DatabaseFiles.kind(ofName: $0)) }) {
                throw .corrupted(
                    path: source, message: "CURRENT file is missing but the database has data files; repair it first")
            }
            return true
        }
        let manifest = try manifestName(current, in: source)
        guard let manifestSize = size(of: source + "/" + manifest) else {
            // Gone because a new MANIFEST replaced it meanwhile (CURRENT changed): try again.
            // Missing while CURRENT still names it: damage no retry cures.
            guard try readCurrent(in: source) == current else { return false }
            throw .corrupted(path: source, message: "CURRENT names \(manifest), which is missing; repair the database")
        }
        try copyFile(source + "/" + manifest, to: destination + "/" + manifest, limit: manifestSize, outcome: &outcome)
        let names = try fileOperation { try DatabaseFiles.listing(of: source) }
        let logs = names.filter { DatabaseFiles.kind(ofName: $0) == .writeAheadLog }.sorted { number($0) < number($1) }
        for log in logs {
            try copyFile(source + "/" + log, to: destination + "/" + log, limit: nil, outcome: &outcome)
            progress(outcome.copiedBytes + outcome.linkedBytes)
        }
        // Tables numbered from the MANIFEST's next file number on are newer than it (being
        // written, or named only by a later edit, which fails the final check): not needed, and
        // never linked, since the copy's LevelDB numbers its own new files from there and
        // creates them with O_TRUNC, which through a link would truncate the source's table.
        // When the MANIFEST cannot be read, nothing is linked.
        let linkedBelow = linkingTables ? try nextFileNumber(in: destination + "/" + manifest) : nil
        for table in names where DatabaseFiles.kind(ofName: table) == .table {
            if let linkedBelow, number(table) >= linkedBelow { continue }
            if linkedBelow != nil,
                try linkTable(source + "/" + table, to: destination + "/" + table, outcome: &outcome)
            {
                continue
            }
            try copyFile(source + "/" + table, to: destination + "/" + table, limit: nil, outcome: &outcome)
            progress(outcome.copiedBytes + outcome.linkedBytes)
        }
        guard try readCurrent(in: source) == current, size(of: source + "/" + manifest) == manifestSize else {
            return false
        }
        try fileOperation { try DatabaseFiles.writeSynced(current, to: destination + "/CURRENT") }
        return true
    }

    /// The next file number the copied MANIFEST at `path` records (see ``ManifestReader``).
    private static func nextFileNumber(in path: String) throws(ModelStoreError) -> UInt64? {
        guard let bytes = FileManager.default.contents(atPath: path) else {
            throw .io(path: path, message: "cannot read the copied MANIFEST")
        }
        return ManifestReader.nextFileNumber(in: Array(bytes))
    }

    /// Removes the LevelDB files a round that turned out inconsistent copied.
    private static func removeCopiedFiles(in destination: String) throws(ModelStoreError) {
        for name in try fileOperation({ try DatabaseFiles.listing(of: destination) }) {
            switch DatabaseFiles.kind(ofName: name) {
            case .current, .manifest, .writeAheadLog, .table:
                guard unlink(destination + "/" + name) == 0 || errno == ENOENT else {
                    let reason = StoreDirectory.lastErrorMessage()
                    throw .io(path: destination + "/" + name, message: "cannot remove: \(reason)")
                }
            default:
                continue
            }
        }
    }

    /// The bytes of `CURRENT`, or nil when there is none.
    private static func readCurrent(in directory: String) throws(ModelStoreError) -> [UInt8]? {
        let path = directory + "/CURRENT"
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw .io(path: path, message: "cannot read: \(StoreDirectory.lastErrorMessage())")
        }
        defer { _ = closeDescriptor(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256)
        while bytes.count < 4096 {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else {
                throw .io(path: path, message: "cannot read: \(StoreDirectory.lastErrorMessage())")
            }
            if count == 0 { break }
            bytes += buffer[..<count]
        }
        return bytes
    }

    /// The MANIFEST that `CURRENT`'s bytes name.
    private static func manifestName(_ current: [UInt8], in source: String) throws(ModelStoreError) -> String {
        let name = String(decoding: current, as: UTF8.self).trimmingCharacters(in: .newlines)
        guard DatabaseFiles.kind(ofName: name) == .manifest else {
            throw .corrupted(path: source, message: "CURRENT does not name a MANIFEST file")
        }
        return name
    }

    private static func number(_ name: String) -> UInt64 {
        UInt64(name.prefix { $0.isNumber }) ?? 0
    }

    private static func size(of path: String) -> UInt64? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return UInt64(info.st_size)
    }

    /// Hard-links `source` to `destination`; false when the file system cannot (another
    /// device, no links) or the file is gone (an obsolete table deleted meanwhile: if the
    /// copied MANIFEST still needed it, the round's final check fails).
    private static func linkTable(
        _ source: String, to destination: String, outcome: inout Outcome
    ) throws(ModelStoreError) -> Bool {
        if link(source, destination) == 0 {
            outcome.linkedBytes += size(of: destination) ?? 0
            return true
        }
        switch errno {
        case EXDEV, EPERM, EMLINK, ENOTSUP: return false
        case ENOENT: return true  // gone: nothing to copy either
        default: throw .io(path: source, message: "cannot link: \(StoreDirectory.lastErrorMessage())")
        }
    }

    /// Copies `source` (up to `limit` bytes) to a new file `destination`. A source that is gone
    /// is skipped (see ``linkTable(_:to:outcome:)``).
    private static func copyFile(
        _ source: String, to destination: String, limit: UInt64?, outcome: inout Outcome
    ) throws(ModelStoreError) {
        let input = open(source, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard input >= 0 else {
            if errno == ENOENT { return }
            throw .io(path: source, message: "cannot read: \(StoreDirectory.lastErrorMessage())")
        }
        defer { _ = closeDescriptor(input) }
        let output = open(destination, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard output >= 0 else {
            throw .io(path: destination, message: "cannot create: \(StoreDirectory.lastErrorMessage())")
        }
        defer { _ = closeDescriptor(output) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var copied: UInt64 = 0
        while limit.map({ copied < $0 }) ?? true {
            let wanted = limit.map { Int(min(UInt64(buffer.count), $0 - copied)) } ?? buffer.count
            let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, wanted) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else {
                throw .io(path: source, message: "cannot read: \(StoreDirectory.lastErrorMessage())")
            }
            if count == 0 { break }
            var written = 0
            while written < count {
                let result = buffer.withUnsafeBytes { write(output, $0.baseAddress! + written, count - written) }
                if result < 0 && errno == EINTR { continue }
                guard result > 0 else {
                    throw .io(path: destination, message: "cannot write: \(StoreDirectory.lastErrorMessage())")
                }
                written += result
            }
            copied += UInt64(count)
        }
        outcome.copiedBytes += copied
    }
}
