#if !Hummingbird
/// Stands in for the driver when ModelStore is built without its `Hummingbird` package trait,
/// so that the compiler tells a user how to turn the driver on, instead of "cannot find
/// 'ModelStorePersistDriver' in scope". The trait is what keeps Hummingbird out of apps that
/// do not use it (README, "Packaging: the drivers are traits"). The initializers repeat the
/// real ones' labels (their types are `Any`, so the module needs nothing, not even ModelStore):
/// a call to one that is missing would be reported as "inaccessible" instead.
@available(
    *, unavailable,
    message: """
    ModelStorePersistDriver is built only with ModelStore's "Hummingbird" package trait: in Package.swift, \
    add traits: ["Hummingbird"] to ModelStore's dependency, as in \
    .package(url: "https://github.com/<owner>/ModelStore", from: "1.0.0", traits: ["Hummingbird"])
    """
)
public struct ModelStorePersistDriver {
    /// Unavailable without the trait: see the type.
    @available(
        *, unavailable,
        message: """
        ModelStorePersistDriver is built only with ModelStore's "Hummingbird" package trait: in Package.swift, \
        add traits: ["Hummingbird"] to ModelStore's dependency, as in \
        .package(url: "https://github.com/<owner>/ModelStore", from: "1.0.0", traits: ["Hummingbird"])
        """
    )
    public init(store: Any, sweepInterval: Duration = .seconds(600)) {}

    /// Unavailable without the trait: see the type.
    @available(
        *, unavailable,
        message: """
        ModelStorePersistDriver is built only with ModelStore's "Hummingbird" package trait: in Package.swift, \
        add traits: ["Hummingbird"] to ModelStore's dependency, as in \
        .package(url: "https://github.com/<owner>/ModelStore", from: "1.0.0", traits: ["Hummingbird"])
        """
    )
    public init(collection: Any, sweepInterval: Duration = .seconds(600)) {}

    /// Unavailable without the trait: see the type.
    @available(
        *, unavailable,
        message: """
        ModelStorePersistDriver is built only with ModelStore's "Hummingbird" package trait: in Package.swift, \
        add traits: ["Hummingbird"] to ModelStore's dependency, as in \
        .package(url: "https://github.com/<owner>/ModelStore", from: "1.0.0", traits: ["Hummingbird"])
        """
    )
    public init(
        name: String, configuration: Any? = nil,
        sweepInterval: Duration = .seconds(600)
    ) throws {}
}
#endif
