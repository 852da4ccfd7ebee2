/// A lazy, forward-only walk over records in key order, backed by one LevelDB iterator.
///
/// ```swift
/// let cursor = try store.entries(User.self, in: .prefix("user:"))
/// while let entry = try cursor.next() {
///     print(entry.key, entry.value.userName)
/// }
/// ```
///
/// The cursor reads a consistent view of the database as of its creation (LevelDB's
/// implicit snapshot), skips expired records, and holds one record in memory at a time. It
/// releases its iterator as soon as it reaches the end, when ``close()`` is called, or when
/// it is released (for example by `break`ing out of a loop that owns it). It keeps its
/// database open meanwhile, even if the store that created it is closed; if the database
/// is deleted, ``next()`` throws ``ModelStoreError/closed(path:)``.
///
/// A cursor is also an `AsyncSequence`, for code that iterates in a task:
///
/// ```swift
/// for try await entry in try store.entries(User.self, in: .prefix("user:")) {
///     print(entry.key)
/// }
/// ```
///
/// A cursor is not thread-safe: use it from one thread or task at a time. It is not
/// `Sendable`, so Swift 6 keeps it in the task (or actor) that created it.
public final class Cursor<Element> {
    private var iterator: LevelDBIterator?
    private var database: OpenDatabase?
    private let range: KeyRange
    private let reverse: Bool
    private let limit: Int?
    private var produced = 0
    private var positioned = false
    private let extract: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Element?

    init(
        database: OpenDatabase,
        snapshot: LevelDBSnapshot?,
        range: KeyRange,
        reverse: Bool,
        limit: Int?,
        extract: @escaping (_ key: UnsafeRawBufferPointer, _ record: UnsafeRawBufferPointer) throws -> Element?
    ) throws {
        try DatabaseRegistry.shared.retain(database)
        do {
            iterator = try database.run { engine in try engine.makeIterator(snapshot: snapshot, fillCache: true) }
        } catch {
            DatabaseRegistry.shared.release(database)
            throw error
        }
        self.database = database
        self.range = range
        self.reverse = reverse
        self.limit = limit
        self.extract = extract
    }

    deinit {
        close()
    }

    /// Returns the next element, or nil at the end.
    ///
    /// A record that cannot be read throws, and the cursor has then stepped past it: call
    /// `next()` again to go on with the records after it, or stop. So one damaged record in a
    /// large store never hides the others:
    ///
    /// ```swift
    /// while true {
    ///     do {
    ///         guard let entry = try cursor.next() else { break }
    ///         print(entry.key)
    ///     } catch ModelStoreError.corrupted(_, let message) where message.hasPrefix("the record for key") {
    ///         print(message)  // names the key; the loop goes on with the next record
    ///     }
    /// }
    /// ```
    ///
    /// ``forEach(_:)``, ``collect(max:)`` and `for try await` stop at the first error instead.
    ///
    /// - Throws: ``ModelStoreError/decodingFailed(key:type:message:)`` for a record that does
    ///   not decode, and ``ModelStoreError/corrupted(path:message:)`` for one record that fails
    ///   its own checksum (its message starts with "the record for key", names the key and its
    ///   collection, and says how to remove it: `removeObject(forKey:)` or
    ///   `modelstore remove`); for both, call `next()` again to continue after the record.
    ///   ``ModelStoreError/corrupted(path:message:)`` with LevelDB's message for damaged files
    ///   (a damaged block may hide several records, so stop then), or
    ///   ``ModelStoreError/closed(path:)`` if the database was deleted.
    public func next() throws -> Element? {
        guard let iterator, let database else { return nil }
        if let limit, produced >= limit {
            close()
            return nil
        }
        // The per-record loop runs in the engine's non-generic walk; this generic method only
        // keeps the element (or the error) the extractor produced. No generic enum or tuple
        // is built per record: in unspecialised code each costs a metadata lookup.
        var element: Element? = nil
        var failure: (any Error)? = nil
        let took = try database.run { _ -> Bool in
            if !positioned {
                try position(iterator)
                positioned = true
            }
            return try iterator.walk(reverse: reverse) { key, record in
                if range.isPastEnd(key, reverse: reverse) { return .end }
                do {
                    element = try extract(key, record)
                } catch {
                    // The walk steps past the record, so the next call goes on after it.
                    failure = error
                    return .take
                }
                return element == nil ? .skip : .take  // nil: an expired record, skipped
            }
        }
        if let failure { throw failure }
        guard took else {
            close()
            return nil
        }
        produced += 1
        // Moved out, not copied: in unspecialised code a copy retains every reference the
        // model holds (a scanned record's strings and arrays) only to release them again.
        return element.take()
    }

    /// Calls `body` with each remaining element.
    public func forEach(_ body: (Element) throws -> Void) throws {
        while let element = try next() {
            try body(element)
        }
    }

    /// Returns up to `maxLength` remaining elements (all of them if nil) in an array.
    public func collect(max maxLength: Int? = nil) throws -> [Element] {
        var elements: [Element] = []
        while maxLength.map({ elements.count < $0 }) ?? true, let element = try next() {
            elements.append(element)
        }
        return elements
    }

    /// Releases the iterator and the database now. Later calls to ``next()`` return nil.
    public func close() {
        iterator = nil
        if let database {
            self.database = nil
            DatabaseRegistry.shared.release(database)
        }
    }

    private func position(_ iterator: LevelDBIterator) throws {
        if reverse {
            if let upper = range.upperBound {
                try iterator.seek(to: upper)
                // seek lands on the first key >= upper: step back unless we ran off the end.
                if try iterator.withCurrent({ _, _ in true }) == true {
                    try iterator.previous()
                } else {
                    try iterator.seekToLast()
                }
            } else {
                try iterator.seekToLast()
            }
        } else if range.lowerBound.isEmpty {
            try iterator.seekToFirst()
        } else {
            try iterator.seek(to: range.lowerBound)
        }
    }
}

// MARK: - AsyncSequence

extension Cursor: AsyncSequence {
    /// Iterates the cursor asynchronously; each step is the cursor's ``Cursor/next()``.
    ///
    /// A step reads one record from LevelDB on the calling thread instead of hopping to
    /// another one: that takes microseconds when the record's block is in LevelDB's cache
    /// (one block read from the file system otherwise), less than a hop between threads
    /// would cost per element. Steps check for cancellation: a cancelled task's next step
    /// throws `CancellationError` and closes the cursor.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let cursor: Cursor

        /// The next element, or nil at the end.
        ///
        /// - Throws: `CancellationError` if the task is cancelled; otherwise as ``Cursor/next()``.
        public mutating func next() async throws -> Element? {
            try cursor.asyncStep()
        }

        /// The next element, read in the caller's isolation, or nil at the end.
        ///
        /// - Throws: As ``next()``.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws -> Element? {
            try cursor.asyncStep()
        }
    }

    /// An iterator over the cursor's remaining elements. The cursor is single-pass: a second
    /// iterator goes on where the first stopped.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(cursor: self)
    }

    /// One step of the asynchronous iteration: ``next()`` after a cancellation check.
    fileprivate func asyncStep() throws -> Element? {
        if Task.isCancelled {
            close()
            throw CancellationError()
        }
        return try next()
    }
}
