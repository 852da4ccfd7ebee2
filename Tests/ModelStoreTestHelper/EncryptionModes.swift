// Helper modes for the encryption tests (Tests/ModelStoreTests/Encryption):
//
//   fork-nonces ROOT NAME COUNT      see ForkNonceMode.swift
//   rekey ROOT NAME FROM TO CHUNK    print "ready", then re-key NAME from the key of seed FROM to
//        the key of seed TO (TestKeys; "-" for no key) in chunks of CHUNK records, and print
//        "done RESEALED" or "error CASE". `MODELSTORE_TEST_CRASH_AT=rekey-chunk:N` (or
//        `rekey-marked`, `rekey-rewritten`) kills it at that step; the test may also kill it at
//        a random moment.
#if Encryption
#if canImport(CryptoKit)
import CryptoKit
#else
import Crypto
#endif
import Foundation
import ModelStore
import ModelStoreTestSupport

func runEncryptionMode(_ command: String, root: String, name: String, extra: [String]) -> Bool {
    if command == "fork-nonces", let count = extra.first.flatMap(Int.init) {
        runForkNonceMode(count: count)
        return true
    }
    guard command == "rekey", extra.count == 3, let chunk = Int(extra[2]) else { return false }
    func key(_ seed: String) -> SymmetricKey? {
        UInt8(seed).map { SymmetricKey(data: TestKeys.bytes($0)) }
    }
    say("ready")
    do {
        let report = try ModelStore.rekey(
            named: name, in: URL(fileURLWithPath: root, isDirectory: true), from: key(extra[0]), to: key(extra[1]),
            chunkSize: chunk)
        say("done \(report.recordsResealed)")
    } catch {
        say("error \(caseName(error))")
    }
    return true
}
#else
func runEncryptionMode(_ command: String, root: String, name: String, extra: [String]) -> Bool {
    false
}
#endif
