// The fork mode of the encryption tests (Tests/ModelStoreTests/Encryption/NonceForkTests.swift):
//
//   fork-nonces ROOT NAME COUNT    draw one sealing nonce (the thread's pool is now filled),
//        fork; the child draws one nonce and sends it through a pipe; the parent draws COUNT
//        more and prints "parent HEX...", then "child HEX". ROOT and NAME are not used.
//
// It runs here, in a process of one thread, because forking the test runner (many threads)
// could leave the child waiting on a lock another thread held.
#if Encryption && canImport(Glibc)
import Foundation
import Glibc
#if canImport(CryptoKit)
import CryptoKit
#else
import Crypto
#endif
@testable import ModelStore

func runForkNonceMode(count: Int) {
    func hex(_ nonce: some Sequence<UInt8>) -> String { nonce.map { String(format: "%02x", $0) }.joined() }
    func draw() -> [UInt8] { NonceSource.next().withUnsafeBytes { Array($0) } }
    _ = draw()
    var ends: [Int32] = [0, 0]
    guard pipe(&ends) == 0 else { return say("error pipe") }
    let child = fork()
    if child == 0 {
        let nonce = draw()
        _ = nonce.withUnsafeBytes { write(ends[1], $0.baseAddress, $0.count) }
        _exit(0)
    }
    guard child > 0 else { return say("error fork") }
    close(ends[1])
    let mine = (0..<count).map { _ in hex(draw()) }
    var received = [UInt8](repeating: 0, count: 12)
    let read = received.withUnsafeMutableBytes { Glibc.read(ends[0], $0.baseAddress, 12) }
    var status: Int32 = 0
    waitpid(child, &status, 0)
    say("parent " + mine.joined(separator: " "))
    say(read == 12 ? "child " + hex(received) : "error child sent \(read) bytes")
}
#else
func runForkNonceMode(count: Int) {
    say("unsupported")
}
#endif
