import ArgumentParser
@_spi(Inspection) import ModelStore

/// `modelstore sweep NAME --policy P`: removes the records expired under a policy.
struct SweepCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sweep",
        abstract: "Remove the records that have expired under a policy.",
        discussion: "Records stored with a lifetime of their own expire by it, whatever the policy.")

    @Argument(help: "The database's name.")
    var name: String

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Remove records expired under this policy: \(PolicyArgument.help).", valueName: "policy"),
        transform: PolicyArgument.parse)
    var policy: PolicyArgument

    @OptionGroup var root: RootOptions

    func run() throws {
        let store = try root.inspector.writable(name, policy: policy.policy)
        defer { try? store.close() }
        // A sealed record's deadline is authenticated by its seal: without the key no sealed
        // record can be checked, so none would be removed. Said, rather than "Removed 0".
        if !root.inspector.encryption.isEnabled, let encryption = try store.encryptionDescription() {
            throw CommandFailure(
                status: .failure,
                message: "\(name) is encrypted (\(encryption)): sweeping it needs its key, since a record's deadline "
                    + "is checked through its seal. Pass --key-file PATH.")
        }
        let started = ContinuousClock.now
        let removed = try Progress.spinning("Sweeping \(name)") { try store.removeExpiredObjects() }
        let elapsed = ContinuousClock.now - started
        let remaining = try store.countEveryCollection()
        print(
            "Removed \(Format.count(removed, "expired record")) from \(name) in \(Format.seconds(elapsed)); "
                + "\(Format.count(remaining, "record")) remain (policy \(policy.policy)).")
    }
}
