#if Vapor
public import ModelStore
public import Vapor

extension Application.Caches.Provider {
    /// Makes `app.cache` and `req.cache` a ``ModelStoreCache`` over `store`.
    ///
    /// ```swift
    /// let store = try ModelStore(name: "cache", policy: .never)
    /// app.caches.use(.modelStore(store))
    /// ```
    ///
    /// The application does not close `store`: its owner does, after the application has
    /// shut down.
    public static func modelStore(_ store: ModelStore) -> Self {
        .init { application in
            application.caches.use { application in
                ModelStoreCache(store: store, on: application.eventLoopGroup.any())
            }
        }
    }

    /// Makes `app.cache` and `req.cache` a ``ModelStoreCache`` that keeps its keys in
    /// `collection`, so the cache shares its database with the app's other records (sessions
    /// in another collection, a read-through cache in the store's own keys).
    ///
    /// ```swift
    /// let store = try ModelStore(name: "app", policy: .never)
    /// app.caches.use(.modelStore(store.collection("cache")))
    /// ```
    ///
    /// The application does not close the collection's store: its owner does, after the
    /// application has shut down.
    public static func modelStore(_ collection: ModelStore.Collection) -> Self {
        .init { application in
            application.caches.use { application in
                ModelStoreCache(collection: collection, on: application.eventLoopGroup.any())
            }
        }
    }

    /// Opens (or creates) the database `name` with the `.never` policy and makes it the
    /// application's cache; the store closes when the application shuts down.
    ///
    /// ```swift
    /// app.caches.use(try .modelStore(name: "cache"))
    /// ```
    ///
    /// - Throws: ``ModelStore/ModelStoreError`` from opening the store.
    public static func modelStore(
        name: String, configuration: ModelStore.Configuration = ModelStore.Configuration()
    ) throws -> Self {
        let store = try ModelStore(name: name, policy: .never, configuration: configuration)
        return .init { application in
            application.lifecycle.use(StoreCloser(store: store))
            application.caches.use { application in
                ModelStoreCache(store: store, on: application.eventLoopGroup.any())
            }
        }
    }
}

/// Closes a store the cache provider opened when the application shuts down.
struct StoreCloser: LifecycleHandler {
    let store: ModelStore

    func shutdown(_ application: Application) {
        do {
            try store.close()
        } catch {
            application.logger.error("Closing the cache's ModelStore failed: \(error)")
        }
    }
}
#endif
