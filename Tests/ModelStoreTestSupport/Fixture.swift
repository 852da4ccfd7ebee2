public import ModelStore

/// One test's playground: a root directory, a clock, and a way to open stores in it.
public struct Fixture {
    public let directory = TemporaryDirectory()
    public let clock = TestClock()

    public init() {}

    /// A configuration for the fixture's directory, with the fixture's clock.
    public var configuration: ModelStore.Configuration {
        var configuration = ModelStore.Configuration()
        configuration.directory = directory.url
        let clock = clock
        configuration.now = { clock.now }
        return configuration
    }

    public func open(_ name: String = "db", policy: UpdatePolicy = .never) throws -> ModelStore {
        try ModelStore(name: name, policy: policy, configuration: configuration)
    }

    public func open(_ name: String = "db", policy: UpdatePolicy = .never, codec: any ModelCodec) throws -> ModelStore {
        var configuration = configuration
        configuration.codec = codec
        return try ModelStore(name: name, policy: policy, configuration: configuration)
    }
}
