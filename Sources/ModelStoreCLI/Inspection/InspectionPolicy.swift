import ModelStore

/// The policy a command judges expiry by, and where it came from: `--policy` when given,
/// else the policy recorded in the database (the one its program last opened it with), else
/// `never`, assumed, for a database that records none (one written only by a release from
/// before policy records), which the command then says.
///
/// It is the database's policy: records without a lifetime of their own expire by it, in
/// every collection, as they do for the program (a collection's own policy is stamped on each
/// record it writes, so those records expire by their own deadline whatever this says).
struct InspectionPolicy {
    /// Where the policy came from; `policySource` in JSON.
    enum Source: String, Encodable {
        /// Given with `--policy`.
        case option
        /// Recorded in the database.
        case recorded
        /// Neither: `never`, because the database records no (readable) policy.
        case assumed
    }

    let policy: UpdatePolicy
    let source: Source
    /// Why the policy was assumed; nil unless ``source`` is ``Source/assumed``.
    let reason: String?
    /// Whether it was assumed because the record could not be read (rather than missing).
    private(set) var recordIsUnreadable = false

    /// `option`'s policy if given, else the one `store`'s database records, else `never`.
    init(option: PolicyArgument?, recordedIn store: ModelStore) {
        if let option {
            (policy, source, reason) = (option.policy, .option, nil)
            return
        }
        do {
            if let recorded = try store.recordedPolicy() {
                (policy, source, reason) = (recorded, .recorded, nil)
            } else {
                (policy, source, reason) = (
                    .never, .assumed,
                    "the database records no policy (no program has opened it since ModelStore began recording "
                        + "one); pass --policy"
                )
            }
        } catch {
            (policy, source, reason) = (.never, .assumed, PrivateCopies.unmask("\(error)") + " Pass --policy")
            recordIsUnreadable = true
        }
    }

    /// The policy and its source in words, as `get` and `stats` print it: `low (24 hours),
    /// recorded in the database`.
    var explanation: String {
        switch source {
        case .option: return "\(policy), given with --policy"
        case .recorded: return "\(policy), recorded in the database"
        case .assumed: return "\(policy), assumed: \(reason ?? "no policy is recorded")"
        }
    }

    /// The policy in a table's column (`list`): `low (24 hours)`, or why there is none.
    var column: String {
        guard source == .assumed else { return policy.description }
        return recordIsUnreadable ? "unreadable (\(policy) assumed)" : "not recorded (\(policy) assumed)"
    }

    /// A line for standard error when the policy was assumed, for commands whose standard
    /// output is data (`keys`, `dump`); nil otherwise.
    func note(for name: String) -> String? {
        guard source == .assumed else { return nil }
        return "note: \(name.debugDescription): expiry judged under policy \(policy), assumed: \(reason ?? "")."
    }

    /// The policy a collection was last given by its program (recorded with it), in words, for
    /// display; nil if it has none (its records expire by the database's policy unless they
    /// carry a lifetime of their own).
    static func collectionPolicy(_ name: String, in store: ModelStore) -> String? {
        do {
            return try store.collection(name).recordedPolicy()?.description
        } catch {
            return "unreadable (" + PrivateCopies.unmask("\(error)") + ")"
        }
    }
}
