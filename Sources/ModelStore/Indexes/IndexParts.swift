import Foundation

/// Runs of index parts, the layout both a record's index values section and a values entry use
/// (see IndexKeys.swift and the format comment in RecordEnvelope.swift): per index, its id
/// (4 bytes big-endian), the LEB128 byte length of its encodings, then the encodings one after
/// another. Read in place, without allocating: a write looks up two or three parts.
enum IndexParts {
    /// The encodings of index `id` among the parts in `parts`; nil when no part names it, or the
    /// parts are damaged before it.
    static func part(_ id: UInt32, in parts: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        var offset = 0
        while parts.count - offset > 4 {
            let partID = UInt32(parts[offset]) << 24 | UInt32(parts[offset + 1]) << 16 | UInt32(parts[offset + 2]) << 8
                | UInt32(parts[offset + 3])
            offset += 4
            guard let length = LEB128.read(parts, at: &offset) else { return nil }
            if partID == id { return UnsafeRawBufferPointer(rebasing: parts[offset..<(offset + length)]) }
            offset += length
        }
        return nil
    }

    /// Calls `body` with each part's id and encodings until it returns false. Returns false when
    /// the parts are damaged (a length past the end, a partial id, or encodings that do not split
    /// into values), after the parts before the damage.
    @discardableResult
    static func forEach(
        in parts: UnsafeRawBufferPointer, _ body: (UInt32, UnsafeRawBufferPointer) -> Bool
    ) -> Bool {
        var offset = 0
        while offset < parts.count {
            guard parts.count - offset > 4 else { return false }
            let id = UInt32(parts[offset]) << 24 | UInt32(parts[offset + 1]) << 16 | UInt32(parts[offset + 2]) << 8
                | UInt32(parts[offset + 3])
            offset += 4
            guard let length = LEB128.read(parts, at: &offset) else { return false }
            let encodings = UnsafeRawBufferPointer(rebasing: parts[offset..<(offset + length)])
            offset += length
            guard splits(encodings) else { return false }
            guard body(id, encodings) else { return true }
        }
        return true
    }

    /// Whether `parts` are well formed: each part whole, each part's encodings values.
    static func areWellFormed(_ parts: UnsafeRawBufferPointer) -> Bool {
        forEach(in: parts) { _, _ in true }
    }

    /// Whether `encodings` split into whole value encodings.
    static func splits(_ encodings: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < encodings.count {
            guard let length = IndexValue.encodedLength(in: encodings, at: offset) else { return false }
            offset += length
        }
        return true
    }

    /// Appends the part of index `id` with `values`: each distinct encoding once, in the order
    /// given. The length takes one byte below 128 bytes of encodings and is widened in place past it.
    static func append(id: UInt32, values: [IndexValue], to buffer: inout [UInt8]) {
        withUnsafeBytes(of: id.bigEndian) { buffer.append(contentsOf: $0) }
        buffer.append(0)
        let start = buffer.count
        for value in values {
            let next = buffer.count
            value.append(to: &buffer)
            let repeated = buffer.withUnsafeBytes { bytes in
                contains(
                    UnsafeRawBufferPointer(rebasing: bytes[start..<next]), UnsafeRawBufferPointer(rebasing: bytes[next...]))
            }
            if repeated { buffer.removeSubrange(next...) }
        }
        finishLength(at: start - 1, in: &buffer)
    }

    /// Appends the part of index `id` whose encodings are already made.
    static func append(id: UInt32, encodings: UnsafeRawBufferPointer, to buffer: inout [UInt8]) {
        withUnsafeBytes(of: id.bigEndian) { buffer.append(contentsOf: $0) }
        LEB128.append(encodings.count, to: &buffer)
        buffer.append(contentsOf: encodings)
    }

    /// Writes the length of the encodings after the one byte reserved at `lengthAt`.
    private static func finishLength(at lengthAt: Int, in buffer: inout [UInt8]) {
        let length = buffer.count - lengthAt - 1
        if length < 0x80 {
            buffer[lengthAt] = UInt8(length)
        } else {
            var encoded: [UInt8] = []
            LEB128.append(length, to: &encoded)
            buffer.replaceSubrange(lengthAt..<(lengthAt + 1), with: encoded)
        }
    }

    /// Appends the index values section of a record to `buffer`: its length, then a part for each
    /// index `computed` has values for (an empty part for none). Nothing when it has no index.
    static func appendSection(_ computed: ComputedIndexValues, to buffer: inout [UInt8]) {
        guard !computed.byID.isEmpty else { return }
        let lengthAt = buffer.count
        buffer.append(0)
        for (id, values) in computed.byID { append(id: id, values: values, to: &buffer) }
        finishLength(at: lengthAt, in: &buffer)
    }

    /// Whether the encodings one after the other in `encodings` include `encoding`.
    static func contains(_ encodings: UnsafeRawBufferPointer, _ encoding: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < encodings.count, let length = IndexValue.encodedLength(in: encodings, at: offset) {
            if length == encoding.count,
                length == 0 || memcmp(encodings.baseAddress! + offset, encoding.baseAddress!, length) == 0
            {
                return true
            }
            offset += length
        }
        return false
    }

    /// The index values section of `record`: its parts, when it has one and they are well formed;
    /// nil otherwise. With `key`, only if the record's checksum matches under it (a stored record);
    /// without, unverified (a record the funnel's own write carries, which its encoder made).
    static func section(ofRecord record: UnsafeRawBufferPointer, verifiedUnder key: UnsafeRawBufferPointer?) -> UnsafeRawBufferPointer? {
        guard let header = RecordHeader(parsing: record), let range = header.indexValuesRange,
            key.map({ header.checksumMatches(value: record, key: $0) }) ?? true
        else { return nil }
        let parts = UnsafeRawBufferPointer(rebasing: record[range])
        return areWellFormed(parts) ? parts : nil
    }
}
