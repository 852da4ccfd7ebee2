package import Foundation

/// Where a framework driver (ModelStoreHummingbird, ModelStoreVapor) keeps its keys: the store's
/// own key space, or one collection of the store, so that sessions, a cache and the app's other
/// records share one database, apart by key space. Each call is the public call of the same
/// name on the store or the collection.
package enum DriverKeySpace: Sendable {
    case store(ModelStore)
    case collection(ModelStore.Collection)

    /// Stores `value` with `lifetime` seconds to live, or with none of its own (nil: the
    /// collection's or the store's policy applies).
    package func set<Value: Encodable>(_ value: Value, forKey key: String, lifetime: TimeInterval?) throws {
        try writer.set(value, forKey: key, expiresAfter: lifetime)
    }

    /// Whether a live record is stored under `key` (an expired one is absent, and removed).
    package func contains(_ key: String) throws -> Bool {
        try writer.contains(key)
    }

    /// The live record under `key`, with its deadline.
    package func entry<Value: Decodable>(_ type: Value.Type, forKey key: String) throws -> ModelStore.Entry<Value>? {
        try writer.entry(type, forKey: key)
    }

    /// The live model under `key`.
    package func object<Value: Decodable>(_ type: Value.Type, forKey key: String) throws -> Value? {
        try writer.object(type, forKey: key)
    }

    /// Removes the record under `key`, if any.
    package func removeObject(forKey key: String) throws {
        try writer.removeObject(forKey: key)
    }

    /// The store or the collection, for the calls both answer alike.
    private var writer: any ModelWriter {
        switch self {
        case let .store(store): store
        case let .collection(collection): collection
        }
    }

    /// Removes expired records: the whole store's (every collection, and its limits), or only
    /// the collection's, never another user's of the shared database.
    package func removeExpiredObjects() throws {
        switch self {
        case let .store(store): _ = try store.removeExpiredObjects()
        case let .collection(collection): _ = try collection.removeExpiredObjects()
        }
    }
}
