extension JSONScanner {
    /// Scans the key at `position` of the object at tape index `object`, and the colon after it; returns where the
    /// key's value starts.
    ///
    /// Foundation matches keys as Swift Strings, which compare by Unicode canonical equivalence, and keeps the first
    /// of two equal keys. Keys that are plain ASCII and all different can be matched byte for byte instead, which is
    /// much cheaper; any other object is flagged ``JSONTapeEntry/Flags/needsStringKeys`` so that lookups in it
    /// compare Strings exactly as Foundation does. Objects with more than ``maximumScannerCheckedPairs`` pairs are
    /// checked for duplicates on their first lookup instead (``JSONTapeEntry/Flags/uncheckedKeys``).
    mutating func scanKey(at position: Int, object: Int) throws(JSONSyntaxError) -> Int {
        guard position < length, byte(position) == UInt8(ascii: "\"") else {
            throw JSONSyntaxError(reason: "expected a string key", offset: position)
        }
        let (end, flags) = try scanStringBody(at: position)
        let start = position &+ 1
        var hash: UInt32 = 0
        let checked = JSONTapeEntry.Flags.needsStringKeys | JSONTapeEntry.Flags.uncheckedKeys
        if flags != 0 {
            tape[object].tag |= JSONTapeEntry.Flags.needsStringKeys
        } else if tape[object].tag & checked != 0 {
            // Already settled, or left to the first lookup.
        } else if tape[object].count >= JSONScanner.maximumScannerCheckedPairs {
            // Past a few dozen pairs the filter fills up and checking each key against all earlier ones would
            // cost quadratic time; the first lookup checks the keys of such an object with a hash table instead.
            tape[object].tag |= JSONTapeEntry.Flags.uncheckedKeys
        } else {
            hash = keyHash(start: start, end: end)
            // While the object is open, its `start` field is a 32-bit Bloom filter of its keys' hashes, so only a
            // possible duplicate costs a walk over the earlier keys.
            let bit: UInt32 = 1 &<< (hash &>> 27)
            let filter = tape[object].start
            if filter & bit != 0 && hasEarlierKey(start: start, end: end, hash: hash, in: object) {
                tape[object].tag |= JSONTapeEntry.Flags.needsStringKeys
            }
            tape[object].start = filter | bit
        }
        let tag = JSONKind.string.rawValue | flags
        _ = tape.append(JSONTapeEntry(tag: tag, start: UInt32(start), end: UInt32(end), count: hash))
        let colon = skipWhitespace(end &+ 1)
        guard colon < length, byte(colon) == UInt8(ascii: ":") else {
            throw JSONSyntaxError(reason: "expected ':' after a key", offset: colon)
        }
        return skipWhitespace(colon &+ 1)
    }

    /// Objects with more pairs than this have their keys checked for duplicates on first use, not while scanning.
    static let maximumScannerCheckedPairs: UInt32 = 32

    /// A cheap hash of an ASCII key: its length and three of its bytes, spread by one multiply so that the top
    /// five bits (the Bloom filter's bit) depend on all of them. Only used to rule duplicates out.
    @inline(__always)
    private func keyHash(start: Int, end: Int) -> UInt32 {
        let count = end &- start
        guard count > 0 else { return 0 }
        let sample = UInt32(byte(start)) | UInt32(byte(end &- 1)) &<< 8 | UInt32(byte(start &+ count &>> 1)) &<< 16
            | UInt32(truncatingIfNeeded: count) &<< 24
        return (sample ^ sample &>> 13) &* 0x9E37_79B1
    }

    /// Whether an earlier key of the open object at `object` has the bytes in `start..<end`.
    private func hasEarlierKey(start: Int, end: Int, hash: UInt32, in object: Int) -> Bool {
        let count = end &- start
        var key = object &+ 1
        // Every earlier key's value is complete, so `next(after:)` can step over it.
        while key < tape.count {
            let entry = tape[key]
            if entry.count == hash, Int(entry.end &- entry.start) == count,
                JSONBytes.equal(bytes + Int(entry.start), bytes + start, count: count)
            {
                return true
            }
            key = tape.next(after: key &+ 1)
        }
        return false
    }
}
