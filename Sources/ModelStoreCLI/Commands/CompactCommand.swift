import ArgumentParser
import ModelStore

/// `modelstore compact NAME`: gives the space of removed and overwritten records back.
struct CompactCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compact",
        abstract: "Compact a database so removed and overwritten records free their disk space.")

    @Argument(help: "The database's name.")
    var name: String

    @OptionGroup var root: RootOptions

    func run() throws {
        let storeRoot = root.storeRoot
        let store = try root.inspector.writable(name, freezesClock: true)
        defer { try? store.close() }
        let before = storeRoot.diskUsage(of: name).bytes
        let started = ContinuousClock.now
        try Progress.spinning("Compacting \(name)") { try store.compact() }
        let elapsed = ContinuousClock.now - started
        let after = storeRoot.diskUsage(of: name).bytes
        print(
            "Compacted \(name) in \(Format.seconds(elapsed)): "
                + "\(Format.bytes(before)) -> \(Format.bytes(after)) on disk.")
    }
}
