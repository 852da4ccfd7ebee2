extension JSONDecodingState {
    // Keyed and unkeyed containers pass the value's key; single-value containers and the top level have none.
    // These come in pairs rather than taking an optional key, because `Optional<Key>` for a generic key costs a
    // metadata lookup per call.

    /// Decodes the value at tape index `index`, stored under `key` in the container at `depth` whose own value is
    /// at tape index `parent`.
    ///
    /// As Foundation's `unwrap` does, a few types are read directly (see ``JSONFastPath``); any other type gets a
    /// decoder for the value, one level deeper.
    func decode<Value: Decodable>(
        _ type: Value.Type,
        at index: Int,
        depth: Int,
        key: some CodingKey,
        parent: UInt32
    ) throws -> Value {
        let kind = JSONFastPath(type)
        if kind != .none {
            do throws(JSONValueError) {
                return try decodeFastPath(kind, as: type, at: index)
            } catch {
                throw fail(error, type, codingPath: codingPath(value: parent, depth: depth, appending: key))
            }
        }
        let value = UInt32(truncatingIfNeeded: index)
        path.enter(key, atDepth: depth, value: value, parent: parent)
        return try Value(from: JSONValueDecoder(state: self, value: value, depth: depth &+ 1))
    }

    /// Decodes the value at tape index `index` that a single-value container (or the top level) at `depth` holds;
    /// it stays at the same depth.
    func decode<Value: Decodable>(_ type: Value.Type, at index: Int, depth: Int) throws -> Value {
        let kind = JSONFastPath(type)
        let value = UInt32(truncatingIfNeeded: index)
        if kind != .none {
            do throws(JSONValueError) {
                return try decodeFastPath(kind, as: type, at: index)
            } catch {
                throw fail(error, type, codingPath: codingPath(value: value, depth: depth))
            }
        }
        return try Value(from: JSONValueDecoder(state: self, value: value, depth: depth))
    }

    /// Reads a scalar stored under `key` in the container at `depth` whose value is at tape index `parent`.
    @inline(__always)
    func decodeScalar<Value: JSONScalar>(
        _ type: Value.Type,
        at index: Int,
        depth: Int,
        key: some CodingKey,
        parent: UInt32
    ) throws -> Value {
        do throws(JSONValueError) {
            return try Value.read(from: self, at: index)
        } catch {
            throw fail(error, type, codingPath: codingPath(value: parent, depth: depth, appending: key))
        }
    }
}
