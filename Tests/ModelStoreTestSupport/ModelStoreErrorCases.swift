import Foundation
@_spi(Inspection) public import ModelStore

/// Every case of ``ModelStoreError``, for tests that must not fall behind when a case is added:
/// the README's table of errors, and the `modelstore` tool's wording of each.
///
/// Swift cannot list the cases of an enum with associated values, so the names are read from
/// the enum's declaration, and ``samples`` holds values of every case (and of each variant
/// whose description differs); ``missingSamples()`` says which declared case has none.
public enum ModelStoreErrorCases {
    /// The names of the cases `ModelStoreError` declares, in order.
    public static func declaredNames() throws -> [String] {
        let file = PackageRoot.url.appendingPathComponent("Sources/ModelStore/Store/ModelStoreError.swift")
        let source = try String(contentsOf: file, encoding: .utf8)
        // The enum's body: from its declaration to the first line that closes a type.
        guard let start = source.range(of: "public enum ModelStoreError:"),
            let end = source.range(of: "\n}\n", range: start.upperBound..<source.endIndex)
        else { return [] }
        return source[start.upperBound..<end.lowerBound].split(separator: "\n").compactMap { line in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("case ") else { return nil }
            return String(trimmed.dropFirst(5).prefix { $0.isLetter || $0.isNumber })
        }
    }

    /// The case's name of `error`, as declared.
    public static func name(of error: ModelStoreError) -> String {
        Mirror(reflecting: error).children.first?.label ?? String(describing: error)
    }

    /// The declared cases ``samples`` has no value of.
    public static func missingSamples() throws -> [String] {
        let sampled = Set(samples.map(name(of:)))
        return try declaredNames().filter { !sampled.contains($0) }
    }

    /// Values of every case, with the paths of a database `db` under `/tmp/root`.
    public static let samples: [ModelStoreError] = {
        let path = "/tmp/root/db"
        var samples: [ModelStoreError] = [
            .invalidName(name: "a/b", reason: "it contains a slash"),
            .invalidKey(key: "", reason: "it is empty"),
            .invalidPolicy(reason: "a custom interval must be positive and finite; got -1"),
            .locked(path: path, message: "its .modelstore marker is locked"),
            .corrupted(path: path, message: "Corruption: bad block in 000005.ldb"),
            .corrupted(
                path: path,
                message: "an interrupted repair is pending (.modelstore-repair), so the files alone do not show what "
                    + "the database holds; finish it with `modelstore repair db --root /tmp/root` or by opening the "
                    + "database in its program, then inspect it"),
            .io(path: path, message: "No space left on device"),
            .closed(path: path),
            .notAModelStore(path: path),
            .notADirectory(path: "/tmp/root"),
            .rootIsADatabase(path: path),
            .writesDisabled(path: path, message: "No space left on device"),
            .directoryRemoved(path: path),
            .valueTooLarge(key: "k", byteCount: 5_000_000_000),
            .encodingFailed(key: "k", type: "User", message: "refuses to encode"),
            .decodingFailed(key: "k", type: "User", message: "missing key \"name\""),
            .readThroughTypeMismatch(key: "k", requested: "User", inFlight: "Book"),
            .invalidTag(tag: "", reason: "it is empty"),
            .fetchTimedOut(key: "k", after: .seconds(2)),
            .notModifiedWithoutRecord(key: "k"),
            .alreadyExists(path: path),
            .indexNotDefined(index: "byPrice", collection: "books"),
            .indexNotBuilt(index: "byPrice", collection: nil),
            .indexerFailed(index: "byPrice", key: "k", message: "no price"),
        ]
        // One damaged record: its key typed as it is, too long to repeat, or unpassable (NUL).
        for key in ["book:1", String(repeating: "k", count: 2_000), "nul\u{0}key"] {
            samples.append(.checksumMismatch(path: path, key: key, collection: "books"))
        }
        samples.append(
            .locked(path: path, message: "a store of it is open in this process; close every store, snapshot and "
                + "enumeration of it before re-keying"))
        for mismatch in [ModelStoreError.EncryptionMismatch.keyRequired, .notEncrypted, .wrongKey, .rekeyingUnfinished] {
            samples.append(.encryptionMismatch(path: path, mismatch: mismatch))
        }
        return samples
    }()
}
