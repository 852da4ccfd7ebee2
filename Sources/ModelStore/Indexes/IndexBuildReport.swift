extension ModelStore {
    /// How far an index build has come, reported after each chunk of records.
    public struct IndexBuildProgress: Sendable, Hashable {
        /// Records indexed so far by this build.
        public let indexed: Int
        /// Records skipped so far because they do not decode as the index's model type.
        public let skipped: Int
    }

    /// What ``ModelWriter/defineIndex(_:of:version:progress:_:)`` did.
    public struct IndexBuildReport: Sendable, Hashable {
        /// Records this call indexed (0 when the index was already built).
        public let indexed: Int
        /// Records this call skipped because they do not decode as the index's model type (or
        /// are damaged): they have no entries, and queries never return them.
        public let skipped: Int
        /// Whether the database already held the index, built, at this version: nothing was read.
        public let wasAlreadyBuilt: Bool
        /// Whether the build stopped early, because the task was cancelled (or the index was
        /// dropped or redefined meanwhile): the index is not built, queries on it throw
        /// ``ModelStoreError/indexNotBuilt(index:collection:)``, and the next `defineIndex`
        /// goes on from the last chunk written.
        public let wasCancelled: Bool
        /// Wall-clock time the call took.
        public let duration: Duration

        /// Whether the index is built: queries on it answer.
        public var isBuilt: Bool { !wasCancelled }
    }
}
