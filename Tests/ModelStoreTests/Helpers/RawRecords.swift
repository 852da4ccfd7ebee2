import CLevelDB
import Foundation
@testable import ModelStore

extension RecordHeader {
    /// Appends this header in the version-1 layout, built byte by byte here rather than by the
    /// library (which only writes version 2 now): the records it makes are what the previous
    /// release wrote.
    func writeVersionOne(to buffer: inout [UInt8]) {
        buffer.append(1)
        buffer.append(expiresAt == nil ? 0 : 1)
        buffer.append(codec.rawValue)
        withUnsafeBytes(of: storedAt.bitPattern.littleEndian) { buffer.append(contentsOf: $0) }
        if let expiresAt {
            withUnsafeBytes(of: expiresAt.bitPattern.littleEndian) { buffer.append(contentsOf: $0) }
        }
    }
}

extension RecordHeader {
    /// Appends this header's fixed part in the version-2 layout (checksum left zero, for
    /// ``RecordHeader/seal(_:key:)``, which seals by the version byte), built byte by byte here
    /// rather than by the library (which only writes version 3 now): what format-2 releases wrote.
    func writeVersionTwo(to buffer: inout [UInt8], hasMetadata: Bool, hasTags: Bool, isCompressed: Bool = false) {
        var flags: UInt8 = expiresAt == nil ? 0 : RecordHeader.hasDeadlineFlag
        if hasMetadata { flags |= RecordHeader.hasMetadataFlag }
        if hasTags { flags |= RecordHeader.hasTagsFlag }
        if isCompressed { flags |= RecordHeader.compressedPayloadFlag }
        buffer.append(contentsOf: [RecordHeader.versionTwo, flags, codec.rawValue, 0, 0, 0, 0])
        withUnsafeBytes(of: storedAt.bitPattern.littleEndian) { buffer.append(contentsOf: $0) }
        if let expiresAt {
            withUnsafeBytes(of: expiresAt.bitPattern.littleEndian) { buffer.append(contentsOf: $0) }
        }
    }
}

/// The physical LevelDB key of `key` in the collection `collection` (nil: the store's own).
func physicalKey(_ key: String, in collection: String? = nil) throws -> [UInt8] {
    let space = try collection.map { try KeySpace(collection: $0) } ?? .default
    return try space.withPhysicalKey(key) { Array($0) }
}

/// The value stored under `key` in `collection`, as LevelDB holds it.
func rawRecord(_ store: ModelStore, _ key: String, in collection: String?) throws -> [UInt8]? {
    let physical = try physicalKey(key, in: collection)
    return try store.database.run { engine in
        try physical.withUnsafeBytes { keyBytes in
            try engine.withValue(forKey: keyBytes) { $0.map { Array($0) } }
        }
    }
}

/// Stores `value` under `key` in `collection` behind ModelStore's back (no envelope, no
/// checksum, no cache invalidation), as another LevelDB client or a disk fault would.
func putRawRecord(_ store: ModelStore, _ key: String, in collection: String?, _ value: [UInt8]) throws {
    let physical = try physicalKey(key, in: collection)
    try store.database.write { engine in
        try physical.withUnsafeBytes { key in
            try value.withUnsafeBytes { try engine.put(key: key, value: $0, sync: false) }
        }
    }
}

/// The value stored under `key`, as LevelDB holds it.
func rawRecord(_ store: ModelStore, _ key: String) throws -> [UInt8]? {
    try store.database.run { engine in
        try [UInt8](key.utf8).withUnsafeBytes { keyBytes in
            try engine.withValue(forKey: keyBytes) { $0.map { Array($0) } }
        }
    }
}

/// Stores `value` under `key` behind ModelStore's back (no envelope, no checksum, no cache
/// invalidation).
func putRawRecord(_ store: ModelStore, _ key: String, _ value: [UInt8]) throws {
    try store.database.write { engine in
        try Array(key.utf8).withUnsafeBytes { key in
            try value.withUnsafeBytes { try engine.put(key: key, value: $0, sync: false) }
        }
    }
}

/// Writes records into a closed database through LevelDB's C API directly, as any other
/// LevelDB client would: no ModelStore code runs.
func writeWithForeignClient(path: String, records: [(key: [UInt8], value: [UInt8])]) throws {
    try withForeignClient(path: path) { db, writeOptions, error in
        for record in records {
            record.key.withUnsafeBufferPointer { key in
                record.value.withUnsafeBufferPointer { value in
                    key.withMemoryRebound(to: CChar.self) { key in
                        value.withMemoryRebound(to: CChar.self) { value in
                            leveldb_put(
                                db, writeOptions, key.baseAddress, key.count, value.baseAddress, value.count, &error)
                        }
                    }
                }
            }
            try throwIfSet(&error)
        }
    }
}

/// Deletes `keys` from the closed database at `path` through LevelDB's C API, with sync, as
/// another LevelDB client would.
func deleteWithForeignClient(path: String, keys: [[UInt8]]) throws {
    try withForeignClient(path: path) { db, writeOptions, error in
        leveldb_writeoptions_set_sync(writeOptions, 1)
        for key in keys {
            key.withUnsafeBufferPointer { key in
                key.withMemoryRebound(to: CChar.self) {
                    leveldb_delete(db, writeOptions, $0.baseAddress, $0.count, &error)
                }
            }
            try throwIfSet(&error)
        }
    }
}

/// Opens the closed database at `path` with LevelDB's C API and calls `body` with the handle,
/// write options and an error slot, closing and freeing everything afterwards.
private func withForeignClient(
    path: String,
    _ body: (OpaquePointer?, OpaquePointer?, inout UnsafeMutablePointer<CChar>?) throws -> Void
) throws {
    let options = leveldb_options_create()
    defer { leveldb_options_destroy(options) }
    var error: UnsafeMutablePointer<CChar>? = nil
    let db = leveldb_open(options, path, &error)
    try throwIfSet(&error)
    defer { leveldb_close(db) }
    let writeOptions = leveldb_writeoptions_create()
    defer { leveldb_writeoptions_destroy(writeOptions) }
    try body(db, writeOptions, &error)
}

/// Throws LevelDB's message if `error` holds one, freeing it.
private func throwIfSet(_ error: inout UnsafeMutablePointer<CChar>?) throws {
    guard let message = error else { return }
    defer {
        leveldb_free(message)
        error = nil
    }
    throw ForeignClientError(message: String(cString: message))
}

struct ForeignClientError: Error {
    let message: String
}
