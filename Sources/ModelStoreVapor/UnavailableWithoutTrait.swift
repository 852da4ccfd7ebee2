#if !Vapor
/// Stands in for the cache when ModelStore is built without its `Vapor` package trait, so that
/// the compiler tells a user how to turn the driver on, instead of "cannot find
/// 'ModelStoreCache' in scope". The trait is what keeps Vapor out of apps that do not use it
/// (README, "Packaging: the drivers are traits"). The initializers repeat the real ones'
/// labels (their types are `Any`, so the module needs nothing, not even ModelStore or NIO): a
/// call to one that is missing would be reported as "inaccessible" instead.
@available(
    *, unavailable,
    message: """
    ModelStoreCache is built only with ModelStore's "Vapor" package trait: in Package.swift, \
    add traits: ["Vapor"] to ModelStore's dependency, as in \
    .package(url: "https://github.com/<owner>/ModelStore", from: "1.0.0", traits: ["Vapor"])
    """
)
public struct ModelStoreCache {
    /// Unavailable without the trait: see the type.
    @available(
        *, unavailable,
        message: """
        ModelStoreCache is built only with ModelStore's "Vapor" package trait: in Package.swift, \
        add traits: ["Vapor"] to ModelStore's dependency, as in \
        .package(url: "https://github.com/<owner>/ModelStore", from: "1.0.0", traits: ["Vapor"])
        """
    )
    public init(store: Any, on eventLoop: Any) {}

    /// Unavailable without the trait: see the type.
    @available(
        *, unavailable,
        message: """
        ModelStoreCache is built only with ModelStore's "Vapor" package trait: in Package.swift, \
        add traits: ["Vapor"] to ModelStore's dependency, as in \
        .package(url: "https://github.com/<owner>/ModelStore", from: "1.0.0", traits: ["Vapor"])
        """
    )
    public init(collection: Any, on eventLoop: Any) {}
}
#endif
