import ArgumentParser
import Foundation
@_spi(Inspection) import ModelStore

/// `modelstore delete NAME`: deletes one database, after asking.
struct DeleteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete a database and its files (asks first; --yes to confirm in advance).",
        discussion: """
            Every record of the database goes. To remove one record, use `modelstore remove NAME KEY`. \
            On a terminal the command asks for confirmation; elsewhere (a script, a pipe) it refuses \
            unless --yes is given. Only folders carrying ModelStore's marker are deleted; anything \
            else is left untouched.
            """)

    @Argument(help: "The database's name.")
    var name: String

    @Flag(help: "Confirm that the whole database should be deleted, without being asked.")
    var yes = false

    @OptionGroup var root: RootOptions

    func run() throws {
        let storeRoot = root.storeRoot
        try root.inspector.requireDatabase(name)
        let bytes = storeRoot.diskUsage(of: name).bytes
        if !yes { try confirm(bytes: bytes, root: storeRoot) }
        try Inspector.retryingWhileLocked { try ModelStore.deleteDatabase(named: name, in: storeRoot.url) }
        print("Deleted database \(name) (\(Format.bytes(bytes))) from \(storeRoot.path).")
    }

    /// Asks on the terminal; without one, refuses and says how to confirm.
    private func confirm(bytes: UInt64, root storeRoot: StoreRoot) throws {
        let what = "database \(name.debugDescription) (\(Format.bytes(bytes)) on disk) under \(storeRoot.path)"
        guard Terminal.stdinIsTerminal else {
            let command = ToolCommand("delete", [name], options: [.init("yes", nil), .init("root", storeRoot.path)])
            throw CommandFailure(
                status: .usage,
                message: "delete deletes every record of \(what). Nothing was deleted: there is no terminal to "
                    + "ask on. Pass --yes to confirm: `\(command)` (to remove one record instead: modelstore "
                    + "remove NAME KEY).")
        }
        Terminal.writeError("Delete \(what), with every record in it? [y/N] ")
        let answer = (readLine(strippingNewline: true) ?? "").trimmingCharacters(in: .whitespaces).lowercased()
        guard answer == "y" || answer == "yes" else {
            throw CommandFailure(status: .failure, message: "not confirmed; nothing was deleted.")
        }
    }
}
