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
/// deletes too (the value would already be expired). Values are encoded with the store's
/// codec. Every call runs on a Dispatch queue and completes its future on the cache's event
/// loop, so LevelDB never blocks an event loop. Errors (a value of another type, a full disk)
/// fail the future with ``ModelStore/ModelStoreError``.
public struct ModelStoreCache: Cache, Sendable {
    /// The database the cache reads and writes.
    public let store: ModelStore

    /// The event loop the cache's futures complete on.
    public let eventLoop: any EventLoop

    /// Creates a cache over `store` whose futures complete on `eventLoop`.
    ///
    /// Open the store with the `.never` policy so that a value set without `expiresIn` never
    /// expires; with another policy it expires by the policy.
    public init(store: ModelStore, on eventLoop: any EventLoop) {
        self.store = store
        self.eventLoop = eventLoop
    }

    /// Returns the value stored under `key`, or nil if there is none or it has expired.
    public func get<T: Decodable>(_ key: String, as type: T.Type) -> EventLoopFuture<T?> {
        let store = store
        return run { Handoff(try store.object(T.self, forKey: key)) }.map(\.value)
    }

    /// Stores `value` under `key` with no expiry of its own; nil removes the key.
    public func set<T: Encodable>(_ key: String, to value: T?) -> EventLoopFuture<Void> {
        set(key, to: value, expiresIn: nil)
    }

    /// Stores `value` under `key`, expiring after `expirationTime`; nil removes the key.
    ///
    /// An expiration time of zero seconds or less removes the key: the value would already
    /// be expired.
    public func set<T: Encodable>(
        _ key: String, to value: T?, expiresIn expirationTime: CacheExpirationTime?
    ) -> EventLoopFuture<Void> {
        let store = store
        return run {
            guard let model = value else { return try store.removeObject(forKey: key) }
            switch expirationTime?.seconds {
            case nil: try store.set(model, forKey: key)
            case let seconds? where seconds > 0: try store.set(model, forKey: key, expiresAfter: Double(seconds))
            case _?: try store.removeObject(forKey: key)
            }
        }
    }

    /// The same cache, completing its futures on the request's event loop.
    public func `for`(_ request: Request) -> ModelStoreCache {
        ModelStoreCache(store: store, on: request.eventLoop)
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
