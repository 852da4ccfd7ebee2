import Foundation

/// The keys of one object as Strings: Foundation's view of an object, which is a `[String: Value]` built keeping
/// the first of equal keys.
struct JSONKeyIndex {
    /// The tape index of the first key equal to each String.
    var positions: [String: Int]
    /// Those first keys, in document order.
    var names: [String]
}

extension JSONDecodingState {
    /// The tape index of the value stored under `key` in the object at tape index `object`, or nil if it has none.
    ///
    /// Foundation compares keys as Strings. For objects whose keys are all distinct plain ASCII (nearly all), a
    /// byte comparison gives the same answer for ASCII names; other objects get a String index. Models nearly always
    /// ask for keys in the order they were written, so the key after the previous hit is tried first and usually
    /// matches at once.
    func valueIndex(forKey key: some CodingKey, in object: Int) -> Int? {
        if byteMatches(object) {
            var name = key.stringValue
            let found = name.withUTF8 { findBytes($0, in: object) }
            switch found {
            case Lookup.absent: return nil
            case Lookup.needsStrings: return valueIndex(forName: name, in: object)
            default: return found
            }
        }
        return valueIndex(forName: key.stringValue, in: object)
    }

    private enum Lookup {
        static let absent = -1
        static let needsStrings = -2
    }

    /// Whether keys of the object at `object` can be matched by their bytes: all plain ASCII and distinct.
    @inline(__always)
    private func byteMatches(_ object: Int) -> Bool {
        let tag = tape[object].tag
        if tag & JSONTapeEntry.Flags.needsStringKeys != 0 { return false }
        if tag & JSONTapeEntry.Flags.uncheckedKeys != 0 { return checkKeys(of: object) }
        return true
    }

    /// The value index for the key whose bytes are `wanted`, ``Lookup/absent``, or ``Lookup/needsStrings`` when
    /// bytes cannot settle the question.
    private func findBytes(_ wanted: UnsafeBufferPointer<UInt8>, in object: Int) -> Int {
        let entry = tape[object]
        let end = Int(entry.end)
        let hint = Int(entry.start)
        if hint < end, keyEquals(hint, wanted) {
            return found(key: hint, in: object)
        }
        if let index = byteIndexes[object] {
            // A large object: one probe instead of a scan.
            if let key = index[JSONDecodingState.hash(wanted)], keyEquals(key, wanted) {
                return found(key: key, in: object)
            }
        } else {
            // Objects without a byte index have at most a few dozen pairs.
            var key = object &+ 1
            while key < end {
                if keyEquals(key, wanted) {
                    return found(key: key, in: object)
                }
                key = tape.next(after: key &+ 1)
            }
        }
        // A miss settles it only for an ASCII name: a non-ASCII name can still equal an ASCII key under Unicode
        // canonical equivalence (the Kelvin sign U+212A equals "K").
        for byte in wanted where byte >= 0x80 {
            return Lookup.needsStrings
        }
        return Lookup.absent
    }

    /// Checks the keys of a large object that the scanner left unchecked, once: if all are distinct (their bytes
    /// hash apart), lookups match bytes through a hash index of them; if two are the same, or merely hash alike,
    /// the object is matched as Strings instead. Returns whether keys can be matched by their bytes.
    func checkKeys(of object: Int) -> Bool {
        var index: [UInt64: Int] = [:]
        index.reserveCapacity(Int(tape[object].count))
        let end = Int(tape[object].end)
        var key = object &+ 1
        var distinct = true
        while key < end {
            let entry = tape[key]
            let hash = JSONDecodingState.hash(text(of: entry))
            if index.updateValue(key, forKey: hash) != nil {
                distinct = false
                break
            }
            key = tape.next(after: key &+ 1)
        }
        tape[object].tag &= ~JSONTapeEntry.Flags.uncheckedKeys
        guard distinct else {
            tape[object].tag |= JSONTapeEntry.Flags.needsStringKeys
            return false
        }
        byteIndexes[object] = index
        return true
    }

    /// FNV-1a over a key's bytes.
    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        return hash
    }

    static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        hash(UnsafeRawBufferPointer(bytes))
    }

    /// Remembers that the next lookup in `object` probably wants the key after `key`; returns `key`'s value index.
    @inline(__always)
    private func found(key: Int, in object: Int) -> Int {
        tape[object].start = UInt32(truncatingIfNeeded: tape.next(after: key &+ 1))
        return key &+ 1
    }

    @inline(__always)
    private func keyEquals(_ key: Int, _ wanted: UnsafeBufferPointer<UInt8>) -> Bool {
        let entry = tape[key]
        let count = Int(entry.end &- entry.start)
        guard count == wanted.count else { return false }
        guard let wantedBytes = wanted.baseAddress else { return true }
        return JSONBytes.equal(bytes + Int(entry.start), wantedBytes, count: count)
    }

    /// Looks `name` up as Foundation does: by String equality, the first of equal keys winning.
    private func valueIndex(forName name: String, in object: Int) -> Int? {
        guard let key = keyIndex(for: object).positions[name] else { return nil }
        return found(key: key, in: object)
    }

    /// The object's ``JSONKeyIndex``, built on first use.
    private func keyIndex(for object: Int) -> JSONKeyIndex {
        if let index = keyIndexes[object] {
            return index
        }
        let count = Int(tape[object].count)
        var index = JSONKeyIndex(positions: .init(minimumCapacity: count), names: [])
        index.names.reserveCapacity(count)
        forEachKey(in: object) { key in
            let name = string(of: tape[key])
            if index.positions[name] == nil {
                index.positions[name] = key
                index.names.append(name)
            }
        }
        keyIndexes[object] = index
        return index
    }

    /// The object's keys as Foundation's keyed container has them: each distinct String once, here in document
    /// order (Foundation's order is its dictionary's, which is unspecified).
    func keyNames(in object: Int) -> [String] {
        guard byteMatches(object) else {
            return keyIndex(for: object).names
        }
        // All keys are distinct.
        var names: [String] = []
        names.reserveCapacity(Int(tape[object].count))
        forEachKey(in: object) { names.append(string(of: tape[$0])) }
        return names
    }

    /// Calls `body` with the tape index of each key of the object at `object`, in document order.
    private func forEachKey(in object: Int, _ body: (Int) -> Void) {
        let end = Int(tape[object].end)
        var key = object &+ 1
        while key < end {
            body(key)
            key = tape.next(after: key &+ 1)
        }
    }
}
