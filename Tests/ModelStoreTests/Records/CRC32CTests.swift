import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// The record checksum: the C target's hardware path (SSE 4.2, ARMv8 CRC) must give exactly the
/// CRC-32C the portable table code gives, for every length and alignment, since a mismatch
/// would report intact records as corrupted (or LevelDB's logs as damaged).
@Suite("CRC-32C")
struct CRC32CTests {
    /// The two entry points of the C target.
    enum Implementation: String, CaseIterable, Sendable {
        /// The code chosen at run time for this CPU.
        case dispatched
        /// The portable slicing-by-8 table code.
        case portable

        func checksum(_ bytes: [UInt8], continuing initial: UInt32 = 0) -> UInt32 {
            bytes.withUnsafeBytes { buffer in
                switch self {
                case .dispatched: CRC32C.checksum(buffer, continuing: initial)
                case .portable: CRC32C.portableChecksum(buffer, continuing: initial)
                }
            }
        }
    }

    @Test("Both implementations give the published CRC-32C check values", arguments: Implementation.allCases)
    func publishedCheckValues(_ implementation: Implementation) {
        // RFC 3720 (iSCSI), appendix B.4, and the usual "123456789" check value.
        #expect(implementation.checksum(Array("123456789".utf8)) == 0xE306_9283)
        #expect(implementation.checksum([UInt8](repeating: 0, count: 32)) == 0x8A91_36AA)
        #expect(implementation.checksum([UInt8](repeating: 0xFF, count: 32)) == 0x62A8_AB43)
        #expect(implementation.checksum((0..<32).map(UInt8.init)) == 0x46DD_794E)
        #expect(implementation.checksum((0..<32).reversed().map(UInt8.init)) == 0x113F_DB5C)
        #expect(implementation.checksum([]) == 0)
    }

    @Test("The hardware path equals the portable one for every length 0…1024 at every start offset 0…15")
    func hardwareEqualsPortable() {
        var random = SeededGenerator(seed: 0xC4C3_2C)
        let bytes = (0..<(1024 + 16)).map { _ in UInt8.random(in: 0...255, using: &random) }
        var mismatches: [String] = []
        bytes.withUnsafeBytes { buffer in
            for offset in 0..<16 {
                for length in 0...1024 {
                    let slice = UnsafeRawBufferPointer(rebasing: buffer[offset..<(offset + length)])
                    let seed = UInt32(truncatingIfNeeded: offset &* 0x9E37_79B9 &+ length)
                    if CRC32C.checksum(slice, continuing: seed) != CRC32C.portableChecksum(slice, continuing: seed) {
                        mismatches.append("offset \(offset), length \(length)")
                    }
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) mismatches, the first: \(mismatches.prefix(5))")
    }

    @Test("Extending a checksum composes: split anywhere, the CRC of the whole", arguments: Implementation.allCases)
    func extendComposes(_ implementation: Implementation) {
        var random = SeededGenerator(seed: 300)
        let bytes = (0..<300).map { _ in UInt8.random(in: 0...255, using: &random) }
        let whole = implementation.checksum(bytes)
        let wrongSplits = (0...bytes.count).filter { split in
            let head = implementation.checksum(Array(bytes[..<split]))
            return implementation.checksum(Array(bytes[split...]), continuing: head) != whole
        }
        #expect(wrongSplits.isEmpty)
    }

    @Test("The CPU's CRC instruction is used where the CPU has one")
    func usesTheCRCInstruction() throws {
        #if arch(x86_64) && os(Linux)
        let cpuInfo = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
        let hasInstruction = cpuInfo.split(separator: "\n").contains { line in
            line.hasPrefix("flags") && line.split(separator: " ").contains("sse4_2")
        }
        #expect(CRC32C.implementation == (hasInstruction ? "sse4.2" : "portable"))
        #elseif arch(arm64) && os(macOS)
        #expect(CRC32C.implementation == "armv8-crc")
        #else
        #expect(["sse4.2", "armv8-crc", "portable"].contains(CRC32C.implementation))
        #endif
    }
}
