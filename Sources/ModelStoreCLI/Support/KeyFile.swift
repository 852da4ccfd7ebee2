#if Encryption
#if canImport(CryptoKit)
import CryptoKit
#else
import Crypto
#endif
#endif
import Foundation
import ModelStore

/// `--key-file`: the key of an encrypted database, read from a file that holds its 32 bytes raw,
/// as 64 hexadecimal digits, or as base64 (surrounding whitespace ignored).
enum KeyFile {
    /// The encryption the file at `path` gives (``RecordEncryption/none`` without a path).
    ///
    /// - Throws: A message that says what is wrong with the file (never its contents).
    static func encryption(path: String?) throws -> RecordEncryption {
        guard let path else { return .none }
        #if Encryption
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw KeyFileError("--key-file \(path) cannot be read: \(error.localizedDescription)")
        }
        guard let bytes = decode(data) else {
            throw KeyFileError(
                "--key-file \(path) does not hold a 256-bit key: give a file of 32 bytes, 64 hexadecimal digits, "
                    + "or their base64")
        }
        return .aes256GCM(key: SymmetricKey(data: bytes))
        #else
        throw KeyFileError(
            "this modelstore was built without the Encryption package trait, so it cannot read encrypted "
                + "databases: build it with `swift build --traits Encryption`")
        #endif
    }

    /// The key's 32 bytes, or nil if the file holds none of the three forms.
    static func decode(_ data: Data) -> [UInt8]? {
        if data.count == 32 { return Array(data) }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if text.utf8.count == 64 {
            var bytes: [UInt8] = []
            var digits = text.makeIterator()
            while let high = digits.next(), let low = digits.next() {
                guard let byte = UInt8(String([high, low]), radix: 16) else { return nil }
                bytes.append(byte)
            }
            return bytes
        }
        if let decoded = Data(base64Encoded: text), decoded.count == 32 { return Array(decoded) }
        return nil
    }
}

/// A `--key-file` that cannot be used.
struct KeyFileError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
