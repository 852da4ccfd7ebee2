import Foundation
import Logging

/// The body of `ModelStore.rekey(named:in:from:to:progress:)`: the marker's steps and the chunked
/// rewrite of every record (see the marker's format in EncryptionMarker.swift).
enum Rekeying {
    /// Records per atomic batch.
    static let chunkSize = 1_024
    /// Keys of records that could not be moved, logged at most this many times per run.
    static let loggedLeftRecords = 10

    static func run(
        name: String, directory: URL, from source: RecordCipher?, to target: RecordCipher?, chunkSize: Int,
        progress: ((ModelStore.RekeyProgress) -> Void)?
    ) throws -> ModelStore.RekeyReport {
        try DatabaseName.validate(name)
        try source?.validate()
        try target?.validate()
        guard source?.keyID != target?.keyID else {
            throw ModelStoreError.invalidPolicy(
                reason: source == nil ? "rekey was given no key, neither from nor to" : "rekey's from and to are the same key")
        }
        guard let root = try StoreDirectory.canonicalRoot(directory, create: false) else {
            throw ModelStoreError.notAModelStore(path: directory.appendingPathComponent(name).path)
        }
        let path = root + "/" + name
        guard StoreDirectory.kind(of: path) == .database else { throw ModelStoreError.notAModelStore(path: path) }
        var configuration = ModelStore.Configuration()
        configuration.directory = URL(fileURLWithPath: root, isDirectory: true)
        let database = try DatabaseRegistry.shared.acquire(name: name, configuration: configuration)
        defer { DatabaseRegistry.shared.release(database) }
        guard try start(database, from: source?.keyID, to: target?.keyID) else {
            return ModelStore.RekeyReport(
                recordsVisited: 0, recordsResealed: 0, recordsAlreadyDone: 0, recordsLeft: 0, wasAlreadyDone: true)
        }
        CrashPoint.rekeyMarked.reached()
        let report = try rewriteRecords(database, from: source, to: target, chunkSize: chunkSize, progress: progress)
        CrashPoint.rekeyRewritten.reached()
        if let target {
            try database.commitSystemRecord(
                key: EncryptionMarker.key, value: EncryptionMarker.steady(target.keyID).value, sync: true)
        } else {
            try EncryptionMarker.key.withUnsafeBytes { key in
                try database.commit(.delete(key: key), ChangeList(), sync: true)
            }
        }
        return report
    }

    /// Records in the marker that a re-keying from `source` to `target` is under way; returns
    /// false when the database is already under `target` (nothing to do).
    private static func start(_ database: OpenDatabase, from source: UInt32?, to target: UInt32?) throws -> Bool {
        try EncryptionMarker.checks.withLock { () throws -> Bool in
            // Under the lock every opening store takes for its check: none can pass it meanwhile.
            guard DatabaseRegistry.shared.isSoleLease(database) else {
                throw ModelStoreError.locked(
                    path: database.path,
                    message: ModelStoreError.openInThisProcessReason + "; close every store, snapshot and "
                        + "enumeration of it before re-keying")
            }
            let path = database.path
            let marker = try database.run { engine in try EncryptionMarker.read(from: engine, path: path) }
            if let marker, let underWay = marker.target {
                // Either direction finishes it: every record is under one of the two keys.
                let keys: Set<UInt32?> = [marker.current, underWay]
                guard keys == [source, target] else { throw ModelStoreError.encryptionMismatch(path: path, mismatch: .wrongKey) }
            } else {
                let current = marker?.current
                if current == target { return false }
                guard current == source else {
                    let mismatch: ModelStoreError.EncryptionMismatch =
                        current == nil ? .notEncrypted : source == nil ? .keyRequired : .wrongKey
                    throw ModelStoreError.encryptionMismatch(path: path, mismatch: mismatch)
                }
            }
            let underWay = EncryptionMarker(current: source, target: .some(target))
            try database.commitSystemRecord(key: EncryptionMarker.key, value: underWay.value, sync: true)
            return true
        }
    }

    /// Rewrites every record of every collection that is not yet under `target`, a chunk of
    /// records per atomic batch, each chunk read through a fresh iterator.
    private static func rewriteRecords(
        _ database: OpenDatabase, from source: RecordCipher?, to target: RecordCipher?, chunkSize: Int,
        progress: ((ModelStore.RekeyProgress) -> Void)?
    ) throws -> ModelStore.RekeyReport {
        var visited = 0
        var resealed = 0
        var alreadyDone = 0
        var left = 0
        var resumeAt: [UInt8] = []
        var chunk = 0
        var output: [UInt8] = []
        while true {
            let batch = LevelDBWriteBatch()
            var inChunk = 0
            var lastKey: [UInt8]? = nil
            var reachedEnd = true
            try database.run { engine in
                let iterator = try engine.makeIterator(snapshot: nil, fillCache: false)
                try iterator.seek(to: resumeAt)
                _ = try iterator.scanForward(limit: chunkSize + 1) { key, value in
                    // System records (0xFF) end the walk: they are not sealed.
                    guard key.first != KeySpace.systemMarker else { return false }
                    guard inChunk < chunkSize else {
                        reachedEnd = false
                        return false
                    }
                    inChunk += 1
                    visited += 1
                    switch RecordCipher.reseal(value, key: key, from: source, to: target, into: &output) {
                    case .done:
                        alreadyDone += 1
                    case .resealed:
                        resealed += 1
                        output.withUnsafeBytes { batch.put(key: key, value: $0) }
                    case .unreadable(let reason):
                        left += 1
                        if left <= loggedLeftRecords {
                            database.logger.warning(
                                "Re-keying left a record as it was",
                                metadata: [
                                    "database": "\(database.path)", "key": "\(Array(key))", "reason": "\(reason)",
                                ])
                        }
                    }
                    lastKey = Array(key)
                    return true
                }
            }
            if inChunk > 0 {
                try database.commit(.batch(batch), ChangeList(), sync: false)
                chunk += 1
                CrashPoint.rekeyChunk.reached(occurrence: chunk)
                progress?(ModelStore.RekeyProgress(recordsVisited: visited, recordsResealed: resealed))
            }
            guard !reachedEnd, let lastKey else { break }
            // The smallest key after the last one seen.
            resumeAt = lastKey + [0]
        }
        return ModelStore.RekeyReport(
            recordsVisited: visited, recordsResealed: resealed, recordsAlreadyDone: alreadyDone, recordsLeft: left,
            wasAlreadyDone: false)
    }
}
