/// The binary half of ``PropertyListValidator``: follows a `bplist00` document's object graph without recursion.
///
/// The format (as Foundation writes and reads it): an 8-byte header `bplist00`, the objects, an offset table
/// giving each object's position, and a 32-byte trailer at the very end:
///
///     trailer := 5 unused, sort version, offset size (1...8), reference size (1...8),
///                object count (u64 BE), top object (u64 BE), offset table position (u64 BE)
///
/// Each object starts with a marker byte: the high nibble is its type, the low nibble its size or, when it is 0xF,
/// a following integer object holds the size. Arrays and sets hold `count` references (object numbers of
/// `reference size` bytes); dictionaries hold `count` key references, then `count` value references.
struct BinaryPropertyListWalker {
    private let bytes: UnsafeRawBufferPointer
    private var offsetSize = 0
    private var referenceSize = 0
    private var objectCount = 0
    private var topObject = 0
    private var offsetTable = 0

    static func hasHeader(_ bytes: UnsafeRawBufferPointer) -> Bool {
        // Foundation reads any "bplist0?" with the version-0 layout.
        bytes.count >= 8 && zip(bytes.prefix(7), "bplist0".utf8).allSatisfy { $0 == $1 }
    }

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// An open container on the walk: its references, and how many have been followed.
    private struct Frame {
        let object: Int
        let references: Int
        let count: Int
        var next: Int
    }

    mutating func walk() throws {
        try readTrailer()
        var onPath = [UInt64](repeating: 0, count: (objectCount + 63) / 64)
        var stack: [Frame] = []
        let maximumVisits = max(bytes.count, 1024) &* PropertyListValidator.maximumVisitsPerByte
        var visits = 0
        var object = topObject
        while true {
            visits += 1
            guard visits <= maximumVisits else {
                throw PropertyListProblem("it refers to shared objects too many times", at: offsetTable)
            }
            if let container = try container(object) {
                guard stack.count < PropertyListValidator.maximumDepth else {
                    throw PropertyListProblem(
                        "arrays and dictionaries nest deeper than \(PropertyListValidator.maximumDepth) levels",
                        at: container.references)
                }
                guard onPath[object >> 6] & (1 << UInt64(object & 63)) == 0 else {
                    throw PropertyListProblem("object \(object) contains itself", at: container.references)
                }
                onPath[object >> 6] |= 1 << UInt64(object & 63)
                stack.append(container)
            }
            // The next reference to follow, closing the containers that are done.
            while let top = stack.last, top.next == top.count {
                onPath[top.object >> 6] &= ~(1 << UInt64(top.object & 63))
                stack.removeLast()
            }
            guard let top = stack.last else { return }
            object = try reference(at: top.references + top.next &* referenceSize)
            stack[stack.count - 1].next += 1
        }
    }

    // MARK: - Trailer and offsets

    private mutating func readTrailer() throws {
        let trailer = bytes.count - 32
        guard trailer >= 9 else { throw PropertyListProblem("it is too short for a binary property list", at: 0) }
        offsetSize = Int(bytes[trailer + 6])
        referenceSize = Int(bytes[trailer + 7])
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize) else {
            throw PropertyListProblem("its trailer has an invalid offset or reference size", at: trailer)
        }
        let count = bigEndian(at: trailer + 8, size: 8)
        let top = bigEndian(at: trailer + 16, size: 8)
        let table = bigEndian(at: trailer + 24, size: 8)
        // The offset table lies between the header and the trailer and holds one entry per object.
        guard count >= 1, table >= 9, table < UInt64(trailer),
            count <= (UInt64(trailer) - table) / UInt64(offsetSize)
        else {
            throw PropertyListProblem("its trailer describes an offset table outside the data", at: trailer)
        }
        guard top < count else { throw PropertyListProblem("its top object does not exist", at: trailer) }
        guard referenceSize == 8 || count <= UInt64(1) << UInt64(8 * referenceSize) else {
            throw PropertyListProblem("its references are too short to name every object", at: trailer)
        }
        objectCount = Int(count)
        topObject = Int(top)
        offsetTable = Int(table)
    }

    private func bigEndian(at position: Int, size: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in position..<(position + size) {
            value = value << 8 | UInt64(bytes[index])
        }
        return value
    }

    /// The object number stored at `position`, checked to exist.
    private func reference(at position: Int) throws -> Int {
        let object = bigEndian(at: position, size: referenceSize)
        guard object < UInt64(objectCount) else {
            throw PropertyListProblem("a reference names object \(object) of \(objectCount)", at: position)
        }
        return Int(object)
    }

    /// Where `object` starts, checked to lie among the objects.
    private func start(of object: Int) throws -> Int {
        let position = offsetTable + object * offsetSize
        let start = bigEndian(at: position, size: offsetSize)
        guard start >= 8, start < UInt64(offsetTable) else {
            throw PropertyListProblem("object \(object) starts outside the objects", at: position)
        }
        return Int(start)
    }

    // MARK: - Objects

    /// Checks `object`'s bounds; returns its frame if it is an array, set or dictionary.
    private func container(_ object: Int) throws -> Frame? {
        let start = try start(of: object)
        let marker = bytes[start]
        let low = Int(marker & 0x0F)
        let end: Int
        switch marker >> 4 {
        case 0x0:
            // null, false, true, fill (and the URL and UUID markers of later versions are not version 0).
            guard [0x00, 0x08, 0x09, 0x0F].contains(marker) else { throw unknown(marker, at: start) }
            return nil
        case 0x1, 0x2:
            // Integers of 1, 2, 4, 8 or 16 bytes; reals of 4 or 8.
            guard low <= (marker >> 4 == 0x1 ? 4 : 3) else { throw unknown(marker, at: start) }
            end = start + 1 + (1 << low)
        case 0x3:
            guard marker == 0x33 else { throw unknown(marker, at: start) }
            end = start + 9
        case 0x4, 0x5:
            let (count, body) = try size(low, after: start)
            end = body + count
        case 0x6:
            let (count, body) = try size(low, after: start)
            guard count <= offsetTable / 2 else { throw truncated(object, at: start) }
            end = body + 2 * count
        case 0x8:
            end = start + 2 + low
        case 0xA, 0xB, 0xC, 0xD:
            let (count, body) = try size(low, after: start)
            let references = marker >> 4 == 0xD ? 2 * count : count
            guard references <= offsetTable / referenceSize else { throw truncated(object, at: start) }
            end = body + references * referenceSize
            guard end <= offsetTable else { throw truncated(object, at: start) }
            // Empty containers count towards the depth too, so they get a frame (closed at once).
            return Frame(object: object, references: body, count: references, next: 0)
        default:
            throw unknown(marker, at: start)
        }
        guard end <= offsetTable else { throw truncated(object, at: start) }
        return nil
    }

    /// An object's element or byte count: the marker's low nibble, or the integer object after the marker.
    private func size(_ low: Int, after start: Int) throws -> (count: Int, body: Int) {
        guard low == 0xF else { return (low, start + 1) }
        let integer = start + 1
        guard integer < offsetTable, bytes[integer] >> 4 == 0x1, bytes[integer] & 0x0F <= 3 else {
            throw PropertyListProblem("an object's size is not an integer", at: integer)
        }
        let width = 1 << Int(bytes[integer] & 0x0F)
        guard integer + 1 + width <= offsetTable else { throw PropertyListProblem("truncated size", at: integer) }
        let count = bigEndian(at: integer + 1, size: width)
        // No object is larger than the data holding it; this also keeps the arithmetic below from overflowing.
        guard count <= UInt64(offsetTable) else {
            throw PropertyListProblem("an object claims \(count) elements", at: integer)
        }
        return (Int(count), integer + 1 + width)
    }

    private func unknown(_ marker: UInt8, at position: Int) -> PropertyListProblem {
        PropertyListProblem("unknown object marker 0x\(String(marker, radix: 16))", at: position)
    }

    private func truncated(_ object: Int, at position: Int) -> PropertyListProblem {
        PropertyListProblem("object \(object) runs past the objects", at: position)
    }
}
