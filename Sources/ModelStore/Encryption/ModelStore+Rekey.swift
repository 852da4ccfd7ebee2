#if Encryption
#if canImport(CryptoKit)
public import CryptoKit
#else
public import Crypto
#endif
public import Foundation

extension ModelStore {
    /// Changes the key the database `name` is encrypted with, encrypts a plain database (`from:
    /// nil`), or decrypts one (`to: nil`), rewriting every record in chunks.
    ///
    /// ```swift
    /// let report = try ModelStore.rekey(named: "secrets", from: oldKey, to: newKey)
    /// ```
    ///
    /// The database must not be open anywhere else: another process is kept out by its lock,
    /// and a store of it open in this process makes the call throw ``ModelStoreError/locked(path:message:)``.
    /// While it runs, stores that open the database throw
    /// ``ModelStoreError/encryptionMismatch(path:mismatch:)`` with ``ModelStoreError/EncryptionMismatch/rekeyingUnfinished``.
    ///
    /// It is safe to kill: the database first records that a re-keying from one key to the other
    /// is under way; each chunk of records is rewritten in one atomic batch, and each record names
    /// the key that sealed it, so after a crash at any moment every record opens with the old key
    /// or the new one. Stores refuse the database until a second call with the same keys (or
    /// with the two swapped, to go back) finishes the job; a call after the job finished does
    /// nothing. Tags, keys and timestamps are not changed. Compression dictionaries trained
    /// before a database was encrypted stay as they are (they hold fragments of the records
    /// they were trained on): delete and rebuild a database that must not keep them.
    ///
    /// - Parameters:
    ///   - name: The database's name.
    ///   - directory: The root directory that holds it; defaults to ``defaultDirectory``.
    ///   - from: The key the database is encrypted with now; nil for a plain database.
    ///   - to: The new key; nil to store the records plain.
    ///   - progress: Called after each chunk of records, on the caller's thread.
    /// - Returns: What was rewritten.
    /// - Throws: ``ModelStoreError/encryptionMismatch(path:mismatch:)`` if `from` is not the
    ///   database's key (nothing is changed); ``ModelStoreError/invalidPolicy(reason:)`` for a key
    ///   that is not 256 bits or two equal keys; ``ModelStoreError/notAModelStore(path:)`` if
    ///   there is no such database; ``ModelStoreError/locked(path:message:)``; LevelDB's errors.
    /// - Complexity: Reads and rewrites every record of every collection.
    @discardableResult
    public static func rekey(
        named name: String, in directory: URL = defaultDirectory, from: SymmetricKey?, to: SymmetricKey?,
        progress: ((RekeyProgress) -> Void)? = nil
    ) throws -> RekeyReport {
        try Rekeying.run(
            name: name, directory: directory, from: from.map(RecordCipher.init(key:)), to: to.map(RecordCipher.init(key:)),
            chunkSize: Rekeying.chunkSize, progress: progress)
    }

    /// ``rekey(named:in:from:to:progress:)`` without blocking the caller's thread.
    ///
    /// - Throws: As ``rekey(named:in:from:to:progress:)``.
    @discardableResult
    public static func rekey(
        named name: String, in directory: URL = defaultDirectory, from: SymmetricKey?, to: SymmetricKey?,
        progress: (@Sendable (RekeyProgress) -> Void)? = nil
    ) async throws -> RekeyReport {
        try await offload { try rekey(named: name, in: directory, from: from, to: to, progress: progress) }
    }

    /// ``rekey(named:in:from:to:progress:)`` in chunks of `chunkSize` records: for the tests
    /// that kill a re-keying between chunks.
    package static func rekey(
        named name: String, in directory: URL, from: SymmetricKey?, to: SymmetricKey?, chunkSize: Int
    ) throws -> RekeyReport {
        try Rekeying.run(
            name: name, directory: directory, from: from.map(RecordCipher.init(key:)), to: to.map(RecordCipher.init(key:)),
            chunkSize: chunkSize, progress: nil)
    }
}
#endif
