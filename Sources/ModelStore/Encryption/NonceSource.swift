#if Encryption
#if canImport(CryptoKit)
internal import CryptoKit
#else
internal import Crypto
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The random 96-bit nonces the record cipher seals with.
///
/// `AES.GCM.Nonce()` asks the system for 12 random bytes each time; on Linux that is a system
/// call or two, about 0.4–0.8 µs, most of what sealing a record cost (PERFORMANCE.md, "Encryption
/// at rest"). Here each thread reads 4,092 bytes (341 nonces) from the kernel's CSPRNG
/// (`/dev/urandom`) at once and hands them out in order, each once. A process made by `fork`
/// inherits its parent's pools: a handler registered with `pthread_atfork` counts forks, and a
/// pool filled before the latest one is thrown away, so parent and child never use the same
/// nonce. If the device cannot be read, the nonce comes from `AES.GCM.Nonce()`. On Apple
/// platforms `arc4random_buf` is already a per-process generator in user space: it is used
/// directly.
final class NonceSource {
    private static let spare = ThreadSpare<NonceSource>()
    private static let poolSize = 341 * 12

    #if canImport(Glibc)
    /// Forks since the process started (in the child, counted by the handler).
    private static let forks: AtomicWord = {
        let forks = AtomicWord()
        pthread_atfork(nil, nil) { _ = NonceSource.forks.add(1) }
        return forks
    }()

    private var pool = [UInt8](repeating: 0, count: poolSize)
    /// Where the next nonce starts; `poolSize`: the pool is used up.
    private var offset = poolSize
    /// ``forks`` when the pool was filled.
    private var generation: UInt64 = 0
    #endif

    /// A nonce no other call of this process (or of a process forked from it) gets.
    static func next() -> AES.GCM.Nonce {
        #if canImport(Glibc)
        let source = spare.take() ?? NonceSource()
        defer { spare.putBack(source) }
        return source.draw() ?? AES.GCM.Nonce()
        #else
        var bytes: (UInt64, UInt32) = (0, 0)
        return withUnsafeMutableBytes(of: &bytes) { buffer in
            arc4random_buf(buffer.baseAddress, 12)
            return (try? AES.GCM.Nonce(data: UnsafeRawBufferPointer(rebasing: buffer[..<12]))) ?? AES.GCM.Nonce()
        }
        #endif
    }

    #if canImport(Glibc)
    /// The pool's next nonce, refilling it first when it is used up or a fork happened since;
    /// nil when the device cannot be read.
    private func draw() -> AES.GCM.Nonce? {
        let forks = Self.forks.load()
        if offset == Self.poolSize || generation != forks {
            guard refill() else { return nil }
            generation = forks
        }
        defer { offset += 12 }
        return pool.withUnsafeBytes { try? AES.GCM.Nonce(data: UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + 12)])) }
    }

    /// Reads a whole pool from `/dev/urandom` (opened and closed each time: 341 nonces a refill).
    private func refill() -> Bool {
        offset = Self.poolSize
        let descriptor = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var filled = 0
        while filled < Self.poolSize {
            let count = pool.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + filled, Self.poolSize - filled) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return false }
            filled += count
        }
        offset = 0
        return true
    }
    #endif
}
#endif
