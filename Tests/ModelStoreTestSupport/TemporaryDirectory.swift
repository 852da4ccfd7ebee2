public import Foundation

/// A fresh directory for one test, under a per-process parent that is removed when the test
/// process exits.
///
/// Directories are not removed when the object is released: a test may drop its fixture
/// while a store opened in it is still in use, and LevelDB's files must not vanish under it.
public final class TemporaryDirectory: Sendable {
    public let url: URL

    /// `ModelStoreTests-<pid>` in the system's temporary directory (whichever test target runs).
    private static let parent: URL = {
        let parent = FileManager.default.temporaryDirectory
            .appendingPathComponent("ModelStoreTests-\(getpid())", isDirectory: true)
        try? FileManager.default.removeItem(at: parent)
        try! FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: TemporaryDirectory.parent) }
        return parent
    }()

    public init() {
        url = Self.parent.appendingPathComponent(UUID().uuidString, isDirectory: true)
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    public var path: String { url.path }

    /// The names of the entries directly inside the directory.
    public func entries() -> Set<String> {
        Set((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [])
    }
}
