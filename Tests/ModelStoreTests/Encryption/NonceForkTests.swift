#if Encryption && canImport(Glibc)
import Foundation
import Testing
import ModelStoreTestSupport

/// A process made by `fork` inherits its parent's per-thread nonce pools (`NonceSource`); the
/// `pthread_atfork` handler makes the child throw them away. Without it, parent and child would
/// seal their next records with the same nonce under the same key: AES-GCM's confidentiality
/// and integrity both fail on a repeated nonce.
@Suite("Encryption: nonces across fork")
struct NonceForkTests {
    @Test("A forked child never draws a nonce its parent draws from the pool they shared")
    func forkedChildDrawsFreshNonces() throws {
        // The parent draws 400 nonces after the fork: more than the rest of the shared pool
        // (341 per pool), so every nonce the child could have inherited is among them.
        let lines = try ChildProcess.runTestHelper(["fork-nonces", "-", "-", "400"])
        let parentLine = try #require(lines.first { $0.hasPrefix("parent ") })
        let childLine = try #require(lines.first { $0.hasPrefix("child ") }, "helper said: \(lines)")
        let parent = parentLine.dropFirst("parent ".count).split(separator: " ").map(String.init)
        let child = String(childLine.dropFirst("child ".count))
        #expect(parent.count == 400)
        #expect(Set(parent).count == 400)
        #expect(child.count == 24)
        let repeated = parent.firstIndex(of: child)
        #expect(repeated == nil, "the child drew \(child), the parent's nonce \(repeated ?? -1) after the fork")
    }
}
#endif
