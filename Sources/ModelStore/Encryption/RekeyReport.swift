extension ModelStore {
    /// How far a re-keying has come: passed to the `progress` closure of
    /// `ModelStore.rekey(named:in:from:to:progress:)` after each chunk of records.
    public struct RekeyProgress: Sendable, Equatable {
        /// Records looked at so far, in every collection.
        public let recordsVisited: Int
        /// Of those, the records rewritten under the new key (the others were already under it,
        /// from an interrupted run, or could not be moved).
        public let recordsResealed: Int
    }

    /// What a re-keying did.
    public struct RekeyReport: Sendable, Equatable, CustomStringConvertible {
        /// Records looked at, in every collection.
        public let recordsVisited: Int
        /// Records rewritten under the new key (or, to no key, as plain records).
        public let recordsResealed: Int
        /// Records already under the new key: an interrupted run had moved them.
        public let recordsAlreadyDone: Int
        /// Records that could not be moved and were left as they were: damaged ones, or ones
        /// sealed by a key that is neither of the two (copied from another database). Reads
        /// report them as damaged; the keys of the first few are logged.
        public let recordsLeft: Int
        /// Whether the database was already under the new key when the call began (a re-keying
        /// that had finished before): nothing was read or written.
        public let wasAlreadyDone: Bool

        /// One line for logs.
        public var description: String {
            if wasAlreadyDone { return "The database was already under the new key; nothing changed." }
            var line = "Re-keyed \(recordsResealed) of \(recordsVisited) records"
            if recordsAlreadyDone > 0 { line += " (\(recordsAlreadyDone) were already done by an earlier run)" }
            if recordsLeft > 0 { line += "; \(recordsLeft) damaged or foreign records were left as they were" }
            return line + "."
        }
    }
}
