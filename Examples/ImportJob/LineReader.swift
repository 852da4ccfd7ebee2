import Foundation

/// Reads a file line by line in fixed-size chunks, so memory stays flat however large the
/// file is. Lines end with `\n`; a trailing `\r` is dropped (files written on Windows).
final class LineReader: Sequence, IteratorProtocol {
    private let handle: FileHandle
    private let chunkSize: Int
    private var buffer: [UInt8] = []
    private var start = 0  // where the unread part of `buffer` begins
    private var atEndOfFile = false
    /// Bytes taken from the file so far, for progress.
    let bytesRead: ByteCounter
    /// The number of the line most recently returned (1-based).
    private(set) var lineNumber = 0
    /// Whether the line most recently returned was valid UTF-8. An invalid one is returned
    /// with U+FFFD in place of the bad bytes, which must not be stored as if it were the input.
    private(set) var lineIsValidUTF8 = true

    /// Opens `url` for reading, counting the bytes read into `bytesRead`.
    init(url: URL, chunkSize: Int = 64 << 10, bytesRead: ByteCounter = ByteCounter()) throws {
        handle = try FileHandle(forReadingFrom: url)
        self.chunkSize = chunkSize
        self.bytesRead = bytesRead
    }

    deinit {
        try? handle.close()
    }

    /// The next line without its terminator, or nil at the end of the file. A read error ends
    /// the sequence too; ``readError`` says what it was.
    func next() -> String? {
        while true {
            if let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
                return take(upTo: newline, skipping: 1)
            }
            if atEndOfFile {
                return start < buffer.count ? take(upTo: buffer.count, skipping: 0) : nil
            }
            refill()
        }
    }

    /// The error that ended reading early, if any.
    private(set) var readError: (any Error)?

    private func take(upTo end: Int, skipping terminator: Int) -> String {
        var lineEnd = end
        if lineEnd > start, buffer[lineEnd - 1] == UInt8(ascii: "\r") { lineEnd -= 1 }
        let bytes = buffer[start..<lineEnd]
        let line = String(decoding: bytes, as: UTF8.self)
        // Decoding replaces each invalid sequence, so only valid UTF-8 round-trips unchanged.
        lineIsValidUTF8 = line.utf8.elementsEqual(bytes)
        start = end + terminator
        lineNumber += 1
        return line
    }

    private func refill() {
        // Drop what was consumed before appending, so the buffer holds at most one partial
        // line plus one chunk.
        buffer.removeSubrange(..<start)
        start = 0
        do {
            guard let chunk = try handle.read(upToCount: chunkSize), !chunk.isEmpty else {
                atEndOfFile = true
                return
            }
            buffer.append(contentsOf: chunk)
            bytesRead.add(chunk.count)
        } catch {
            readError = error
            atEndOfFile = true
        }
    }
}

/// A byte count shared with the progress callback, which ModelStore may call from any thread.
final class ByteCounter: @unchecked Sendable {
    // @unchecked: `count` is only touched under `lock`.
    private let lock = NSLock()
    private var count = 0

    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }

    func add(_ bytes: Int) {
        lock.lock()
        defer { lock.unlock() }
        count += bytes
    }
}
