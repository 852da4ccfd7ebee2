import ArgumentParser
import ModelStore

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
        let started = ContinuousClock.now
        let removed = try Progress.spinning("Sweeping \(name)") { try store.removeExpiredObjects() }
        let elapsed = ContinuousClock.now - started
        let remaining = try store.countEveryCollection()
        print(
            "Removed \(Format.count(removed, "expired record")) from \(name) in \(Format.seconds(elapsed)); "
                + "\(Format.count(remaining, "record")) remain (policy \(policy.policy)).")
    }
}
