import Foundation

extension ModelStore {
    /// How far an import has come, reported after each chunk.
    public struct ImportProgress: Sendable, Hashable {
        /// Models written so far.
        public let completed: Int
        /// How many models the import will write, when the sequence knows its count.
        public let total: Int?

        /// The fraction done, from 0 to 1, when the total is known.
        public var fractionCompleted: Double? {
            guard let total else { return nil }
            return total == 0 ? 1 : Double(completed) / Double(total)
        }
    }

    /// What an import did.
    public struct ImportReport: Sendable, Hashable {
        /// Models written. After a cancellation, exactly the models of the chunks that were
        /// committed.
        public let written: Int
        /// Atomic chunks committed.
        public let chunks: Int
        /// Whether the import stopped early because its task was cancelled.
        public let wasCancelled: Bool
        /// Wall-clock time the import took.
        public let duration: Duration
    }
}
