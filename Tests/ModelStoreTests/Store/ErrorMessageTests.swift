import Foundation
import Testing
import ModelStoreTestSupport
@_spi(Inspection) @testable import ModelStore

/// What a user reads when something fails: `localizedDescription` (what most apps and loggers
/// print) is the same sentence as `description`, and no message stutters.
@Suite("Error messages")
struct ErrorMessageTests {
    static let path = "/var/cache/app/users"

    /// One value of every case, with messages shaped like the ones the code really produces:
    /// Foundation's and the codecs' descriptions end in a period, LevelDB's repeat the path.
    static let everyCase: [ModelStoreError] = [
        .invalidName(name: "a/b", reason: "the name contains a path separator"),
        .invalidKey(key: "", reason: "the key is empty"),
        .invalidPolicy(reason: "the custom interval must be a positive, finite number of seconds, not 0.0; for records "
            + "that never expire, use .never"),
        .locked(path: path, message: "IO error: lock \(path)/LOCK: already held by process"),
        .corrupted(path: path, message: "Corruption: checksum mismatch"),
        .io(path: path, message: "IO error: \(path)/000005.log: No space left on device"),
        .closed(path: path),
        .notAModelStore(path: path),
        .notADirectory(path: path),
        .rootIsADatabase(path: path),
        .directoryRemoved(path: path),
        .alreadyExists(path: path),
        .readThroughTypeMismatch(key: "user:42", requested: "User", inFlight: "Profile"),
        .writesDisabled(
            path: path,
            message: ModelStoreError.io(path: path, message: "IO error: \(path)/000005.log: No space left on device")
                .failureSummary),
        .valueTooLarge(key: "k", byteCount: 5_000_000_000),
        .encodingFailed(
            key: "k", type: "User", message: "cannot encode inf at the top level: Unable to encode Double.inf."),
        .decodingFailed(
            key: "k", type: "User", message: "corrupted data at the top level: The data is not valid JSON."),
        .damagedRecord(path: path, key: "user:42", collection: "sessions", reason: RecordReader.checksumMismatchReason),
        .damagedRecord(path: path, key: "user:42", collection: nil, reason: RecordReader.checksumMismatchReason),
    ]

    @Test("localizedDescription is the description, for every case", arguments: everyCase)
    func localizedDescriptionIsTheDescription(_ error: ModelStoreError) {
        #expect((error as any Error).localizedDescription == error.description)
        #expect(error.errorDescription == error.description)
    }

    @Test("No message has doubled punctuation, even when the wrapped message ends in a period", arguments: everyCase)
    func noDoubledPunctuation(_ error: ModelStoreError) {
        #expect(Self.doubledPunctuation(in: error.description) == nil, "\(error.description)")
    }

    @Test("No message says the same thing twice", arguments: everyCase)
    func noRepeatedPhrase(_ error: ModelStoreError) {
        #expect(Self.repeatedPhrase(in: error.description, ignoring: Self.path) == nil, "\(error.description)")
    }

    @Test("The locked error a second open gets does not repeat itself")
    func lockedMessageFromTheDirectoryLock() throws {
        let directory = TemporaryDirectory()
        let database = directory.path + "/db"
        try StoreDirectory.prepare(database, root: directory.path)
        let holder = try DirectoryLock(directory: database)
        defer { holder.unlock() }
        do {
            _ = try DirectoryLock(directory: database)
            Issue.record("expected locked")
        } catch {
            guard case .locked = error else {
                Issue.record("expected locked, got \(error)")
                return
            }
            #expect(Self.repeatedPhrase(in: error.description, ignoring: database) == nil, "\(error.description)")
        }
    }

    @Test("An encoding failure whose Foundation message ends in a period reads without '..'")
    func encodingFailureHasNoDoubledPeriod() throws {
        let store = try Fixture().open()
        do {
            try store.set(Refusing(), forKey: "k")
            Issue.record("expected encodingFailed")
        } catch let error as ModelStoreError {
            #expect(Self.doubledPunctuation(in: error.description) == nil, "\(error.description)")
            if case let .encodingFailed(_, _, message) = error { #expect(!message.hasSuffix(".")) }
        }
    }

    @Test("A decoding failure whose codec message ends in a period reads without '..'")
    func decodingFailureHasNoDoubledPeriod() throws {
        let store = try Fixture().open()
        try store.set("not a number", forKey: "k")
        do {
            _ = try store.object(Int.self, forKey: "k")
            Issue.record("expected decodingFailed")
        } catch let error as ModelStoreError {
            #expect(Self.doubledPunctuation(in: error.description) == nil, "\(error.description)")
            if case let .decodingFailed(_, _, message) = error { #expect(!message.hasSuffix(".")) }
        }
    }

    @Test("A regular file as the root is reported as not a directory, with what to do, and left alone")
    func rootThatIsAFile() throws {
        let directory = TemporaryDirectory()
        let file = directory.url.appendingPathComponent("root")
        try Data("user data".utf8).write(to: file)
        var configuration = Fixture().configuration
        configuration.directory = file
        #expect(throws: ModelStoreError.notADirectory(path: file.path)) {
            try ModelStore(name: "db", policy: .never, configuration: configuration)
        }
        #expect(throws: ModelStoreError.notADirectory(path: file.path)) {
            try ModelStore.deleteAllDatabases(in: file)
        }
        let message = ModelStoreError.notADirectory(path: file.path).description
        #expect(message.contains("is a file, not a directory"))
        #expect(message.contains("Configuration.directory"))
        #expect(try Data(contentsOf: file) == Data("user data".utf8))
    }

    @Test("A file in the middle of the root's path is named as the file that is not a directory")
    func fileAboveTheRoot() throws {
        let directory = TemporaryDirectory()
        let file = directory.url.appendingPathComponent("file")
        try Data().write(to: file)
        var configuration = Fixture().configuration
        configuration.directory = file.appendingPathComponent("stores")
        #expect(throws: ModelStoreError.notADirectory(path: file.path)) {
            try ModelStore(name: "db", policy: .never, configuration: configuration)
        }
    }

    // MARK: - Helpers

    /// A model whose encoding fails the way Foundation's does, with a message ending in a period.
    struct Refusing: Codable {
        init() {}
        func encode(to encoder: any Encoder) throws {
            throw EncodingError.invalidValue(
                Double.infinity, .init(codingPath: [], debugDescription: "Unable to encode Double.inf directly."))
        }
    }

    /// The first `..` (or `.` followed by `,` `;` `:` `.` after a closing parenthesis).
    static func doubledPunctuation(in text: String) -> String? {
        for bad in ["..", ".).", ". .", ".;", ".:", ".,"] where text.contains(bad) { return bad }
        return nil
    }

    /// The first pair of consecutive meaningful words that occurs twice, with `path` (which a
    /// message may rightly name twice, inside LevelDB's own message) and commands in backticks
    /// (which repeat the names they act on) left out.
    static func repeatedPhrase(in text: String, ignoring path: String) -> String? {
        let text = text.split(separator: "`", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 0 }.map(\.element).joined(separator: " ")
        let stopWords: Set<String> = [
            "a", "an", "the", "at", "in", "on", "of", "to", "for", "by", "or", "and", "is", "are", "was", "it", "its",
            "as", "be", "not", "this", "that", "with", "from", "than", "so", "there", "then",
        ]
        let words = text.replacingOccurrences(of: path, with: " ").lowercased()
            .split { !$0.isLetter && !$0.isNumber }
            .map(String.init)
            .filter { !stopWords.contains($0) }
        var seen: Set<String> = []
        for index in words.indices.dropLast() {
            let pair = words[index] + " " + words[index + 1]
            if !seen.insert(pair).inserted { return pair }
        }
        return nil
    }
}
