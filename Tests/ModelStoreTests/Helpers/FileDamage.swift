import Foundation
@testable import ModelStore
import ModelStoreTestSupport

/// Damages LevelDB's files the way failing disks and careless tools do.
enum FileDamage {
    /// Flips the bits of `mask` in the byte at `offset` (negative: from the end).
    static func flipByte(in path: String, at offset: Int, mask: UInt8 = 0x40) throws {
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let index = offset < 0 ? bytes.count + offset : offset
        bytes[index] ^= mask
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// Replaces the file's contents.
    static func overwrite(_ path: String, with contents: [UInt8]) throws {
        try Data(contents).write(to: URL(fileURLWithPath: path))
    }

    /// Shortens the file to `length` bytes.
    static func truncate(_ path: String, to length: Int) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: UInt64(length))
        try handle.close()
    }

    static func size(of path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
    }

    /// The paths of the database's files of one kind, sorted by name.
    static func files(_ kind: DatabaseFiles.Kind, in directory: URL) -> [String] {
        DatabaseFiles.names(in: directory.path)
            .filter { DatabaseFiles.kind(ofName: $0) == kind }
            .map { directory.path + "/" + $0 }
    }

    /// Copies a database directory (closed) so each damage case starts from the same bytes.
    static func copyDatabase(_ source: URL, to destination: URL) throws {
        try? FileManager.default.removeItem(at: destination)
        try FileManager.default.copyItem(at: source, to: destination)
    }

    /// Copies `pristine` over `copy`, then flips one byte in the first 40 % of one of `tables`
    /// (file names from `pristine`), chosen with `random`: the data blocks of the table's
    /// lowest keys, not its index or footer.
    static func damageDataBlock(
        ofOneOf tables: [String], copying pristine: URL, to copy: URL, using random: inout SeededGenerator
    ) throws {
        let table = URL(fileURLWithPath: tables.randomElement(using: &random)!).lastPathComponent
        try copyDatabase(pristine, to: copy)
        let path = copy.path + "/" + table
        let dataEnd = try size(of: path) * 2 / 5
        try flipByte(in: path, at: Int.random(in: 0..<dataEnd, using: &random))
    }
}
