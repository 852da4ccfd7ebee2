import Foundation
@testable import ModelStore

/// A model whose two fields are always written together, the text on the heap (longer than 15
/// bytes): a torn read shows in ``isWhole``, and one of a freed model to the sanitizers. The
/// object cache's concurrency tests read it from many threads.
struct WholeModel: Codable, Sendable, Equatable {
    var version: Int
    var text: String

    init(_ version: Int) {
        self.version = version
        text = "version-\(version)-" + String(repeating: "y", count: 24)
    }

    /// Whether both fields are the ones `version` makes.
    var isWhole: Bool { self == WholeModel(version) }

    /// The object cache's item of `WholeModel(version)`, as a read would insert it.
    static func cacheItem(_ version: Int) -> ObjectCache.Item {
        ObjectCache.Item(
            value: WholeModel(version), header: RecordHeader(storedAt: 0, expiresAt: nil, codec: .json), byteCount: 8,
            metadata: nil, tags: [])
    }
}

/// Runs `body(thread)` on `count` threads at once (threads, not tasks: the object cache's readers
/// are numbered per thread) and waits for all of them.
func runOnThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for thread in 0..<count {
        group.enter()
        Thread {
            body(thread)
            group.leave()
        }.start()
    }
    group.wait()
}
