#if Vapor
import Dispatch
public import ModelStore
public import NIOCore
public import Vapor

/// A Vapor `Cache` that keeps its values in a ModelStore database on disk, so they survive a
/// restart of the app.
///
/// ```swift
/// app.caches.use(.modelStore(try ModelStore(name: "cache", policy: .never)))
/// try await req.cache.set("greeting", to: "hello", expiresIn: .minutes(5))
/// ```
///
/// Expired values read as absent; `set(_:to: nil)` deletes; an `expiresIn` of zero or less
/// deletes too (the value would already be expired), and any longer one is kept, up to
/// `.days(Int.max)` (counted here in floating point: Vapor's own `CacheExpirationTime.seconds`
/// traps beyond `Int.max` seconds). Values are encoded with the store's codec. The cache keeps
/// its keys in the store's own key space, or in one collection (``init(collection:on:)``) so
/// that it shares a database with the app's other records. Every call runs on a Dispatch queue and completes its future on the cache's event
/// loop, so LevelDB never blocks an event loop. Errors (a value of another type, a full disk)
/// fail the future with ``ModelStore/ModelStoreError``.
public struct ModelStoreCache: Cache, Sendable {
    /// The database the cache reads and writes.
    public let store: ModelStore

    /// The collection the cache keeps its keys in, or nil: the store's own keys.
    public let collection: ModelStore.Collection?

    /// The event loop the cache's futures complete on.
    public let eventLoop: any EventLoop

    private let keys: DriverKeySpace

    /// Creates a cache over `store` whose futures complete on `eventLoop`.
    ///
    /// Open the store with the `.never` policy so that a value set without `expiresIn` never
    /// expires; with another policy it expires by the policy.
    public init(store: ModelStore, on eventLoop: any EventLoop) {
        self.init(keys: .store(store), on: eventLoop)
    }

    /// Creates a cache that keeps its keys in `collection` (whose store stays its owner's to
    /// close), with futures completing on `eventLoop`.
    ///
    /// ```swift
    /// let store = try ModelStore(name: "app", policy: .never)
    /// app.caches.use(.modelStore(store.collection("cache")))
    /// ```
    ///
    /// Give the collection no policy (or `.never`) so that a value set without `expiresIn`
    /// never expires; with a policy it expires by it.
    public init(collection: ModelStore.Collection, on eventLoop: any EventLoop) {
        self.init(keys: .collection(collection), on: eventLoop)
    }

    private init(keys: DriverKeySpace, on eventLoop: any EventLoop) {
        switch keys {
        case let .store(store): (self.store, collection) = (store, nil)
        case let .collection(collection): (store, self.collection) = (collection.store, collection)
        }
        self.keys = keys
        self.eventLoop = eventLoop
    }

    /// Returns the value stored under `key`, or nil if there is none or it has expired.
    public func get<T: Decodable>(_ key: String, as type: T.Type) -> EventLoopFuture<T?> {
        let keys = keys
        return run { Handoff(try keys.object(T.self, forKey: key)) }.map(\.value)
    }

    /// Stores `value` under `key` with no expiry of its own; nil removes the key.
    public func set<T: Encodable>(_ key: String, to value: T?) -> EventLoopFuture<Void> {
        set(key, to: value, expiresIn: nil)
    }

    /// Stores `value` under `key`, expiring after `expirationTime`; nil removes the key.
    ///
    /// An expiration time of zero seconds or less removes the key: the value would already
    /// be expired. Any longer one is kept, `.days(Int.max)` included.
    public func set<T: Encodable>(
        _ key: String, to value: T?, expiresIn expirationTime: CacheExpirationTime?
    ) -> EventLoopFuture<Void> {
        let keys = keys
        return run {
            guard let model = value else { return try keys.removeObject(forKey: key) }
            switch expirationTime.map(\.lifetime) {
            case let seconds? where !(seconds > 0): try keys.removeObject(forKey: key)
            case let lifetime: try keys.set(model, forKey: key, lifetime: lifetime)
            }
        }
    }

    /// The same cache (same key space), completing its futures on the request's event loop.
    public func `for`(_ request: Request) -> ModelStoreCache {
        ModelStoreCache(keys: keys, on: request.eventLoop)
    }

    /// Runs blocking store work on a Dispatch queue and completes on ``eventLoop``.
    ///
    /// `work` is not `@Sendable`: it captures the caller's generic types and values, which
    /// Vapor's `Cache` does not require to be `Sendable`; the handoff carries it across once.
    private func run<Value: Sendable>(_ work: @escaping () throws -> Value) -> EventLoopFuture<Value> {
        let promise = eventLoop.makePromise(of: Value.self)
        let job = Handoff(work)
        DispatchQueue.global().async {
            promise.completeWith(Result { try job.value() })
        }
        return promise.futureResult
    }
}

/// Carries a value that is not `Sendable` (Vapor's `Cache` takes any `Encodable` and returns
/// any `Decodable`) between the caller and the Dispatch thread that encodes or decodes it.
///
/// @unchecked: the value crosses threads once, through the future, and is not touched by
/// the side that handed it over until the other side is done with it.
struct Handoff<Value>: @unchecked Sendable {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}
#endif
