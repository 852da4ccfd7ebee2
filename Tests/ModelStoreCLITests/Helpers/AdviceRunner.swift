import Foundation
@testable import ModelStore
import ModelStoreTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs the commands a message advises, exactly as printed, through bash with the built
/// `modelstore` first on `PATH`: advice is only correct if pasting it into a shell does what
/// it says.
enum AdviceRunner {
    /// Every `` `modelstore …` `` command quoted in `text`, in order.
    static func commands(in text: String) -> [String] {
        backticked(in: text).filter { $0.hasPrefix("modelstore ") }
    }

    /// Everything quoted in backticks in `text`, in order.
    static func backticked(in text: String) -> [String] {
        var found: [String] = []
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "`") {
            let after = rest[rest.index(after: open)...]
            guard let close = after.firstIndex(of: "`") else { break }
            found.append(String(after[..<close]))
            rest = after[after.index(after: close)...]
        }
        return found
    }

    /// The one `modelstore <subcommand> …` command `text` advises; fails the caller when there is
    /// not exactly one.
    static func command(_ subcommand: String, in text: String) throws -> String {
        let matching = commands(in: text).filter { $0.hasPrefix("modelstore \(subcommand) ") }
        guard matching.count == 1 else { throw NoAdvice(subcommand: subcommand, text: text) }
        return matching[0]
    }

    /// Runs `command` with `bash -c` (keys with control characters are quoted as `$'…'`, which
    /// dash, Debian's `/bin/sh`, does not read), the built tool first on `PATH`.
    static func run(_ command: String) throws -> ChildProcess.Output {
        let directory = try ChildProcess.executable(named: "modelstore").deletingLastPathComponent().path
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = directory + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        return try ChildProcess.run(URL(fileURLWithPath: "/bin/bash"), ["-c", command], environment: environment)
    }

    struct NoAdvice: Error, CustomStringConvertible {
        let subcommand: String
        let text: String
        var description: String { "expected exactly one `modelstore \(subcommand) …` in: \(text)" }
    }
}

/// Damages stored records behind ModelStore's back, as a disk fault would.
enum RecordDamage {
    /// Flips one bit of the payload of the record for `key` (in `collection`, if given), so it
    /// fails its checksum; the record's envelope still parses.
    static func flipPayloadBit(of key: String, collection: String? = nil, in store: ModelStore) throws {
        let prefix = collection.map { [KeySpace.collectionMarker, UInt8($0.utf8.count)] + Array($0.utf8) } ?? []
        let physical = prefix + Array(key.utf8)
        try store.database.write { engine in
            try physical.withUnsafeBytes { keyBytes in
                var record = try engine.withValue(forKey: keyBytes) { Array($0!) }
                record[record.count - 2] ^= 0x01
                try record.withUnsafeBytes { try engine.put(key: keyBytes, value: $0, sync: false) }
            }
        }
    }
}

/// Runs `modelstore` with its standard input on a pseudo-terminal, as a person at a terminal
/// would, and types `input` there.
enum TerminalSession {
    static func modelstore(_ arguments: [String], typing input: String) throws -> ChildProcess.Output {
        let (master, terminal) = try openTerminal()
        defer { close(master) }
        defer { try? terminal.close() }
        // Typed before the tool starts: the terminal keeps it until the tool reads its line.
        _ = input.utf8CString.withUnsafeBufferPointer { write(master, $0.baseAddress, $0.count - 1) }
        return try ChildProcess.run(
            try ChildProcess.executable(named: "modelstore"), arguments, standardInput: terminal)
    }

    /// A new pseudo-terminal: its controlling side, and its terminal side opened for the tool.
    /// Through `/dev/ptmx` and its ioctls (Swift's Glibc module leaves out `posix_openpt`).
    private static func openTerminal() throws -> (Int32, FileHandle) {
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard master >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var unlock: Int32 = 0
        var number: UInt32 = 0
        // TIOCSPTLCK and TIOCGPTN, whose C macros Swift does not import.
        guard ioctl(master, UInt(0x4004_5431), &unlock) == 0, ioctl(master, UInt(0x8004_5430), &number) == 0,
            let terminal = FileHandle(forUpdatingAtPath: "/dev/pts/\(number)")
        else {
            close(master)
            throw POSIXError(.EIO)
        }
        return (master, terminal)
    }
}
