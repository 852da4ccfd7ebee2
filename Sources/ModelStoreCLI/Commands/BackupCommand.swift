import ArgumentParser
import Foundation
@_spi(Inspection) import ModelStore

/// `modelstore backup NAME DEST`: writes a consistent copy of a database to a new folder.
struct BackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Write a consistent copy of a database to a new folder, which opens as a database by itself.",
        discussion: """
            DEST must not exist; its last component becomes the backup's database name. The copy \
            holds the database as it was at one moment, expired records and ModelStore's own \
            entries included. Works while another process has the database open (it copies a \
            private, consistent copy of its files) and never changes the database. Install a backup \
            with `modelstore restore DEST NAME`.
            """)

    @Argument(help: "The database's name.")
    var name: String

    @Argument(help: "The backup's folder (must not exist).")
    var destination: String

    @OptionGroup var root: RootOptions

    func run() throws {
        // The private copy the read-only commands read: the database's files are never written.
        let store = try root.inspector.unchanged(name)
        defer { try? store.close() }
        let target = URL(fileURLWithPath: destination, isDirectory: true)
        let progress = TransferProgress("Backing up \(name)")
        let report: BackupReport
        do {
            report = try store.backup(to: target) { progress.update($0) }
        } catch ModelStoreError.alreadyExists(let path) {
            throw CommandFailure(
                status: .failure,
                message: "\(path) already exists, so nothing was written over it: a backup goes to a new folder. "
                    + "Give a DEST that does not exist.")
        }
        progress.finish()
        print("Backed up \(name): \(report)")
    }
}

/// `modelstore restore SRC NAME`: installs a backup under a name.
struct RestoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Install a backup (or any ModelStore database folder) as a database under the root.",
        discussion: """
            Refuses to replace an existing database unless --replace is given (and never replaces \
            a folder ModelStore did not create). The backup is copied, opened and every record's \
            checksum verified before anything under NAME changes; then it is moved into place in \
            one step, so an interrupted restore leaves NAME as it was or fully restored. The \
            backup itself is only read.
            """)

    @Argument(help: "The backup's folder.")
    var source: String

    @Argument(help: "The name to restore it as.")
    var name: String

    @Flag(help: "Replace a database already called NAME (it must not be open in another process).")
    var replace = false

    @OptionGroup var root: RootOptions

    func run() throws {
        try requireBackup()
        let progress = TransferProgress("Restoring \(name)")
        let report: BackupReport
        do {
            report = try ModelStore.restore(
                from: URL(fileURLWithPath: source, isDirectory: true), named: name, in: root.storeRoot.url,
                replacingExisting: replace
            ) { progress.update($0) }
        } catch ModelStoreError.alreadyExists {
            let command = ToolCommand(
                "restore", [source, name], options: [.init("replace", nil), .init("root", root.storeRoot.path)])
            throw CommandFailure(
                status: .failure,
                message: "a database named \(name.debugDescription) already exists under \(root.storeRoot.path), so "
                    + "nothing was changed. To replace it with the backup, pass --replace: `\(command)`.")
        }
        progress.finish()
        print("Restored \(name): \(report)")
    }

    /// Fails, with ``ExitStatus/notFound``, unless SRC is a ModelStore database folder: the
    /// library's refusal of anything else speaks of a folder it leaves untouched, which fits a
    /// name to restore onto, not a backup that is missing.
    private func requireBackup() throws {
        let url = URL(fileURLWithPath: source, isDirectory: true)
        let folder = StoreRoot(url: url.deletingLastPathComponent())
        switch folder.lookUp(url.lastPathComponent) {
        case .database, .invalidName:
            return  // the library says what is wrong with a name no backup can have
        case .missing:
            throw CommandFailure(
                status: .notFound, message: "no folder at \(url.path), so there is nothing to restore. Give the folder "
                    + "a backup was written to.")
        case .notADatabase(let what):
            throw CommandFailure(
                status: .notFound, message: "\(url.path) is not a ModelStore database (it is \(what)), so there is "
                    + "nothing to restore from it. Give the folder a backup was written to.")
        }
    }
}

/// A progress bar in KiB for a backup or restore (on a terminal only, as every progress line).
final class TransferProgress {
    private let title: String
    private var bar: Progress?

    init(_ title: String) {
        self.title = title
    }

    func update(_ progress: BackupProgress) {
        if bar == nil {
            let total = progress.estimatedTotalBytes.map { Int(clamping: $0 / 1024) }
            bar = Progress(title, total: total.flatMap { $0 > 0 ? $0 : nil }, unit: "KiB")
        }
        bar?.update(completed: Int(clamping: progress.bytes / 1024))
    }

    func finish() {
        bar?.finish()
    }
}
