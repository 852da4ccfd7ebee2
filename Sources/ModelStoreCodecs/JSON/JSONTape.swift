/// What a tape entry describes.
enum JSONKind: UInt32 {
    case null = 0
    case `false` = 1
    case `true` = 2
    case number = 3
    case string = 4
    case array = 5
    case object = 6
}

/// One JSON value (or object key) as the scanner found it: where its bytes are and, for containers, where their
/// contents end on the tape.
///
/// The scanner records every value in document order, a container before its contents, and an object's keys as
/// string entries in front of their values. 16 bytes, so a typical record's tape fits in a few cache lines.
struct JSONTapeEntry {
    /// The kind in the low bits, ``Flags`` above them.
    var tag: UInt32
    /// Strings: the first byte after the opening quote. Numbers: the first byte. Objects: while decoding, the tape
    /// index of the key the next lookup probably wants (see ``JSONDecodingState/find(_:in:)``). Arrays: unused.
    var start: UInt32
    /// Strings: the closing quote's offset. Numbers: one past the last byte. Containers: the tape index just past
    /// their last descendant, where their next sibling is.
    var end: UInt32
    /// Containers: how many elements (arrays) or key-value pairs (objects) they hold. Keys: a hash of their bytes.
    var count: UInt32

    /// Bits above the kind.
    enum Flags {
        static let kindMask: UInt32 = 0x7
        /// A string containing at least one backslash escape.
        static let escaped: UInt32 = 1 << 3
        /// A string containing at least one byte of a multi-byte UTF-8 sequence.
        static let nonASCII: UInt32 = 1 << 4
        /// A number written without fraction or exponent, so it can be read as an integer digit by digit.
        static let plainInteger: UInt32 = 1 << 5
        /// An object whose keys cannot all be matched byte for byte: one is escaped or not ASCII (so Unicode
        /// canonical equivalence may apply), or two are the same (the first one wins).
        static let needsStringKeys: UInt32 = 1 << 6
        /// An object with too many pairs for the scanner's duplicate check; the first lookup in it checks its keys
        /// (see ``JSONDecodingState/checkKeys(of:)``), and either clears this flag or sets `needsStringKeys`.
        static let uncheckedKeys: UInt32 = 1 << 7
    }

    @inline(__always)
    var kind: JSONKind {
        // The scanner only writes valid kinds.
        JSONKind(rawValue: tag & Flags.kindMask).unsafelyUnwrapped
    }

    @inline(__always)
    func has(_ flag: UInt32) -> Bool {
        tag & flag != 0
    }

    @inline(__always)
    var isContainer: Bool {
        tag & Flags.kindMask >= JSONKind.array.rawValue
    }
}

/// The scanner's output: a growable buffer of entries that the decoding state owns and frees.
struct JSONTape {
    private(set) var entries: UnsafeMutablePointer<JSONTapeEntry>
    private(set) var count = 0
    private var capacity: Int

    /// - Parameter inputLength: The document's length, used to guess a capacity that rarely needs to grow.
    init(inputLength: Int) {
        capacity = JSONTape.capacityGuess(inputLength: inputLength)
        entries = .allocate(capacity: capacity)
    }

    /// Minified JSON averages well over six bytes per value; the tape doubles when a guess is short.
    private static func capacityGuess(inputLength: Int) -> Int {
        inputLength / 6 + 8
    }

    /// The most entries a tape keeps allocated between documents (1 MiB): reusing a tape saves an allocation per
    /// small document, and one large document must not pin its memory for the rest of the thread's life.
    static let maximumRetainedCapacity = 65_536

    /// Empties the tape for a document of `inputLength` bytes, keeping its memory unless it is far larger than
    /// needed.
    mutating func removeAll(inputLength: Int) {
        count = 0
        if capacity > JSONTape.maximumRetainedCapacity {
            entries.deallocate()
            capacity = JSONTape.capacityGuess(inputLength: Swift.min(inputLength, JSONTape.maximumRetainedCapacity))
            entries = .allocate(capacity: capacity)
        }
    }

    func deallocate() {
        entries.deallocate()
    }

    @inline(__always)
    subscript(index: Int) -> JSONTapeEntry {
        get { entries[index] }
        nonmutating set { entries[index] = newValue }
    }

    /// Appends an entry and returns its index.
    @inline(__always)
    mutating func append(_ entry: JSONTapeEntry) -> Int {
        if count == capacity {
            grow()
        }
        (entries + count).initialize(to: entry)
        count &+= 1
        return count &- 1
    }

    private mutating func grow() {
        let bigger = UnsafeMutablePointer<JSONTapeEntry>.allocate(capacity: capacity * 2)
        bigger.moveInitialize(from: entries, count: count)
        entries.deallocate()
        entries = bigger
        capacity *= 2
    }

    /// The tape index of the value after the one at `index`.
    @inline(__always)
    func next(after index: Int) -> Int {
        let entry = entries[index]
        return entry.isContainer ? Int(entry.end) : index &+ 1
    }
}
