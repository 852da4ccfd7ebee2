import Foundation

/// Buffered writing to standard output, so `dump` does not make one system call per record.
final class StandardOutput {
    private var buffer: [UInt8] = []
    private let capacity = 64 << 10

    init() {
        buffer.reserveCapacity(capacity)
    }

    deinit {
        flush()
    }

    /// Appends `text` and a newline.
    func line(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        buffer.append(UInt8(ascii: "\n"))
        if buffer.count >= capacity { flush() }
    }

    /// Appends raw bytes and a newline.
    func line(bytes: Data) {
        buffer.append(contentsOf: bytes)
        buffer.append(UInt8(ascii: "\n"))
        if buffer.count >= capacity { flush() }
    }

    /// Writes out what is buffered.
    func flush() {
        guard !buffer.isEmpty else { return }
        FileHandle.standardOutput.write(Data(buffer))
        buffer.removeAll(keepingCapacity: true)
    }
}

/// JSON output for `--json` and `dump`, with members in key order so output is the same
/// from run to run (Foundation's encoder does not keep the order they were encoded in).
enum JSONOutput {
    /// Indented JSON for a person or a script reading one document.
    static func pretty<Value: Encodable>(_ value: Value) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// One-line JSON, for newline-delimited output.
    static func compact<Value: Encodable>(_ value: Value, encoder: JSONEncoder = JSONEncoder()) throws -> Data {
        try encoder.encode(value)
    }

    /// An encoder for one-line output, reused across records.
    static func compactEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
