#if Encryption
#if canImport(CryptoKit)
import CryptoKit
#else
import Crypto
#endif
import Foundation
import Testing
@testable import ModelStore

/// The sealing nonces: never the same twice, across refills and threads.
@Suite("Encryption: nonces")
struct NonceSourceTests {
    @Test("100,000 nonces from four threads (many pool refills) are all different")
    func noRepeats() {
        let seen = Locked<Set<Data>>([])
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            var mine: [Data] = []
            for _ in 0..<25_000 { mine.append(NonceSource.next().withUnsafeBytes { Data($0) }) }
            seen.withLock { $0.formUnion(mine) }
        }
        #expect(seen.withLock { $0.count } == 100_000)
    }
}
#endif
