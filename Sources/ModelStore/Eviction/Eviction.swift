extension ModelStore {
    /// Which records ``Configuration/maximumTotalBytes`` and ``Configuration/maximumRecordCount``
    /// remove first when a database is over them.
    ///
    /// ```swift
    /// var configuration = ModelStore.Configuration()
    /// configuration.maximumTotalBytes = 512 << 20
    /// configuration.eviction = .leastRecentlyUsed      // the default
    /// ```
    ///
    /// Neither policy writes anything when a record is read, and neither sorts the database:
    /// eviction walks the records in key order from where it last stopped, looks at them in
    /// windows of ``windowSize`` and removes the one of each window that the policy ranks lowest
    /// (the sampling Redis uses for its approximated LRU). A database keeps working whichever
    /// policy a later open chooses: the policy is memory, never a format.
    public enum Eviction: Sendable, Hashable, CustomStringConvertible {
        /// Keeps what the program uses. The record evicted from each window is the one read or
        /// written the fewest times recently, and of those the one written first.
        ///
        /// "Recently" is a decaying count: every read that finds a record and every write of one
        /// adds one to the key's counter (up to 15) in a fixed-size count-min sketch, and all
        /// counters are halved after 26 additions per record the database holds, so a use counts
        /// half as much after each such period (TinyLFU's frequency sketch). The counts live in
        /// memory only: a restart forgets them, and until the keys are used again the records
        /// stored before it go oldest written first.
        case leastRecentlyUsed
        /// Keeps what was written last, ignoring reads: the record evicted from each window is
        /// the one written first (the behaviour of releases before ``leastRecentlyUsed``).
        case oldestWritten

        /// How many records eviction looks at for each record it removes: the record removed is
        /// the lowest-ranked of each window of this many, in key order.
        public static let windowSize = 32

        /// `leastRecentlyUsed` or `oldestWritten`.
        public var description: String {
            switch self {
            case .leastRecentlyUsed: "leastRecentlyUsed"
            case .oldestWritten: "oldestWritten"
            }
        }
    }
}
